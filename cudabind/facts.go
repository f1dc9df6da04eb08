package cudabind

import (
	"fmt"
	"sort"
	"time"
	"unsafe"

	"github.com/convbench/convbench/cudabind/driver"
)

// FlushL2 evicts the L2 cache before a cold measurement by writing a
// persistent buffer twice the L2 size (allocated on first use, freed by
// Close, not counted by LiveAllocations) with cuMemsetD32Async on the
// legacy default stream, then waiting for it. No kernel is involved.
func (d *Device) FlushL2(x *Exec) error {
	if err := x.ok("FlushL2"); err != nil {
		return err
	}
	if x.d != d {
		return fmt.Errorf("cudabind: FlushL2 with an Exec of another device")
	}
	if d.flushBuf == 0 {
		n := int64(2 * d.info.L2Bytes)
		if n < 1<<20 {
			n = 1 << 20
		}
		p, r := d.drv.MemAlloc(uint64(n))
		if err := x.check("cuMemAlloc", r); err != nil {
			return fmt.Errorf("%w (L2 flush buffer of %d bytes)", err, n)
		}
		d.flushBuf, d.flushBytes = DevPtr(p), n
	}
	d.flushSeq++
	if err := x.check("cuMemsetD32Async", d.drv.MemsetD32Async(driver.DevPtr(d.flushBuf), d.flushSeq, uint64(d.flushBytes/4), 0)); err != nil {
		return err
	}
	return x.check("cuStreamSynchronize", d.drv.StreamSynchronize(0))
}

// copyBandwidthBytes is the size of each buffer of the bandwidth probe.
const copyBandwidthBytes = 256 << 20

// CopyBandwidth measures, once per device, the device-to-device copy
// bandwidth in GB/s (1e9 bytes/s), counting bytes read plus bytes written:
// 2 * 256 MiB per cuMemcpyDtoDAsync, timed with events over several
// repetitions, the median of five timed batches.
func (d *Device) CopyBandwidth() (float64, error) {
	if d == nil {
		return 0, fmt.Errorf("cudabind: CopyBandwidth on a nil *Device")
	}
	return d.bwOnce.get(func() (float64, error) {
		var gbps float64
		err := d.Do(func(x *Exec) error {
			n := int64(copyBandwidthBytes)
			if lim := d.info.TotalMemBytes / 8; lim > 0 && n > lim {
				n = lim
			}
			elapsed, err := x.timeCopies(n, 4, 5)
			if err != nil {
				return err
			}
			gbps = float64(2*n*4) / elapsed.Seconds() / 1e9
			return nil
		})
		return gbps, err
	})
}

// timeCopies allocates two buffers of n bytes, warms up, then times
// batches of reps DtoD copies and returns the median batch time.
func (x *Exec) timeCopies(n int64, reps, batches int) (time.Duration, error) {
	src, err := x.Alloc(n)
	if err != nil {
		return 0, err
	}
	defer x.Free(src)
	dst, err := x.Alloc(n)
	if err != nil {
		return 0, err
	}
	defer x.Free(dst)
	if err := x.MemsetD32(src, 0x3f800000, n/4); err != nil {
		return 0, err
	}
	start, err := x.NewEvent()
	if err != nil {
		return 0, err
	}
	defer x.DestroyEvent(start)
	stop, err := x.NewEvent()
	if err != nil {
		return 0, err
	}
	defer x.DestroyEvent(stop)
	if err := x.CopyDtoDAsync(dst, src, n, 0); err != nil { // warm-up
		return 0, err
	}
	times := make([]time.Duration, 0, batches)
	for b := 0; b < batches; b++ {
		if err := x.Record(start, 0); err != nil {
			return 0, err
		}
		for r := 0; r < reps; r++ {
			if err := x.CopyDtoDAsync(dst, src, n, 0); err != nil {
				return 0, err
			}
		}
		if err := x.Record(stop, 0); err != nil {
			return 0, err
		}
		if err := x.EventSync(stop); err != nil {
			return 0, err
		}
		t, err := x.Elapsed(start, stop)
		if err != nil {
			return 0, err
		}
		times = append(times, t)
	}
	sort.Slice(times, func(i, j int) bool { return times[i] < times[j] })
	if times[len(times)/2] <= 0 {
		return 0, fmt.Errorf("cudabind: copy timing returned %v", times[len(times)/2])
	}
	return times[len(times)/2], nil
}

// FP32LanesPerSM returns the FP32 FMA units per SM for a compute
// capability, or 0 when it is not known.
func FP32LanesPerSM(major, minor int) int {
	switch {
	case major == 3:
		return 192
	case major == 5:
		return 128
	case major == 6 && minor == 0:
		return 64
	case major == 6:
		return 128
	case major == 7:
		return 64
	case major == 8 && minor == 0:
		return 64
	case major == 8:
		return 128
	case major >= 9:
		return 128
	}
	return 0
}

// PeakFP32GFLOPs is the FP32 FMA peak: SMs * lanes * 2 flops * SM clock,
// in GFLOP/s; 0 when the compute capability is not in the table.
func (d *Device) PeakFP32GFLOPs() float64 {
	if d == nil {
		return 0
	}
	return PeakFP32GFLOPsOf(d.info)
}

// PeakFP32GFLOPsOf is PeakFP32GFLOPs for a DeviceInfo.
func PeakFP32GFLOPsOf(i DeviceInfo) float64 {
	return float64(i.SMs*FP32LanesPerSM(i.Major, i.Minor)) * 2 * float64(i.ClockKHz) / 1e6
}

// Alloc allocates device memory on the executor (see Exec.Alloc).
func (d *Device) Alloc(bytes int64) (DevPtr, error) {
	var p DevPtr
	err := d.Do(func(x *Exec) (err error) { p, err = x.Alloc(bytes); return })
	return p, err
}

// Free releases device memory on the executor.
func (d *Device) Free(p DevPtr) error { return d.Do(func(x *Exec) error { return x.Free(p) }) }

// CopyHtoD copies host to device on the executor.
func (d *Device) CopyHtoD(dst DevPtr, src unsafe.Pointer, bytes int64) error {
	return d.Do(func(x *Exec) error { return x.CopyHtoD(dst, src, bytes) })
}

// CopyDtoH copies device to host on the executor.
func (d *Device) CopyDtoH(dst unsafe.Pointer, src DevPtr, bytes int64) error {
	return d.Do(func(x *Exec) error { return x.CopyDtoH(dst, src, bytes) })
}

// Sync waits for all work on the device.
func (d *Device) Sync() error { return d.Do(func(x *Exec) error { return x.Sync() }) }
