// Package devfacts measures the device facts that only benchmarks need.
//
// They are the device-to-device copy bandwidth ([CopyBandwidth]), the FP32
// FMA peak ([PeakFP32GFLOPs]) and an L2 cache flush before cold runs
// ([L2Flusher]). It uses the public API of package cudabind and nothing
// else.
package devfacts

import (
	"fmt"
	"slices"
	"sort"
	"sync"
	"time"

	"github.com/convbench/convbench/cudabind"
)

// copyBandwidthBytes is the size of each buffer of the bandwidth probe.
const copyBandwidthBytes = 256 << 20

// bandwidth caches one measurement per device.
var bandwidth sync.Map // *cudabind.Device -> *bwOnce

type bwOnce struct {
	once sync.Once
	gbps float64
	err  error
}

// CopyBandwidth measures, once per device, the device-to-device copy
// bandwidth in GB/s (1e9 bytes/s), counting bytes read plus bytes written:
// 2 * 256 MiB (at most an eighth of the device memory) per
// cuMemcpyDtoDAsync, timed with events over four copies per batch, the
// median of five batches. Its buffers and events are freed before it
// returns, on every path.
func CopyBandwidth(d *cudabind.Device) (float64, error) {
	if d == nil {
		return 0, fmt.Errorf("devfacts: CopyBandwidth on a nil *cudabind.Device")
	}
	v, _ := bandwidth.LoadOrStore(d, &bwOnce{})
	b := v.(*bwOnce)
	b.once.Do(func() {
		b.err = d.Do(func(x *cudabind.Exec) error {
			n := int64(copyBandwidthBytes)
			if lim := d.Info().TotalMemBytes / 8; lim > 0 && n > lim {
				n = lim
			}
			const reps = 4
			elapsed, err := timeCopies(x, n, reps, 5)
			if err != nil {
				return err
			}
			b.gbps = float64(2*n*reps) / elapsed.Seconds() / 1e9
			return nil
		})
	})
	return b.gbps, b.err
}

// timeCopies allocates two buffers of n bytes, warms up, then times
// batches of reps DtoD copies and returns the median batch time.
func timeCopies(x *cudabind.Exec, n int64, reps, batches int) (time.Duration, error) {
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
	return timeBatches(x, reps, batches, func() error { return x.CopyDtoDAsync(dst, src, n, 0) })
}

// fp32LanesPerSM returns the FP32 FMA units per SM for a compute
// capability, or 0 when it is not known.
func fp32LanesPerSM(major, minor int) int {
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

// PeakFP32GFLOPs is the FP32 FMA peak of a device: SMs * lanes * 2 flops
// * SM clock, in GFLOP/s; 0 when the compute capability is not in the
// table.
func PeakFP32GFLOPs(i cudabind.DeviceInfo) float64 {
	return float64(i.SMs*fp32LanesPerSM(i.Major, i.Minor)) * 2 * float64(i.ClockKHz) / 1e6
}

// L2Flusher evicts a device's L2 cache before a cold measurement by
// writing a buffer twice the L2 size (at least 1 MiB) with
// cuMemsetD32Async on the legacy default stream, then waiting for it. No
// kernel is involved. The buffer is allocated on the first Flush, counts
// as a live device buffer, and is freed by Close.
type L2Flusher struct {
	d     *cudabind.Device
	mu    sync.Mutex
	buf   cudabind.DevPtr
	bytes int64
	seq   uint32
}

// NewL2Flusher returns a flusher for d; it allocates nothing yet.
func NewL2Flusher(d *cudabind.Device) *L2Flusher { return &L2Flusher{d: d} }

// Bytes is the size of the flush buffer, 0 before the first Flush.
func (f *L2Flusher) Bytes() int64 {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.bytes
}

// Flush overwrites the buffer with a new value on x, which must belong to
// the flusher's device.
func (f *L2Flusher) Flush(x *cudabind.Exec) error {
	if f == nil || f.d == nil {
		return fmt.Errorf("devfacts: Flush on a nil *L2Flusher")
	}
	if x == nil || x.Device() != f.d {
		return fmt.Errorf("devfacts: Flush with an Exec of another device")
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.buf == 0 {
		n := int64(2 * f.d.Info().L2Bytes)
		if n < 1<<20 {
			n = 1 << 20
		}
		p, err := x.Alloc(n)
		if err != nil {
			return fmt.Errorf("devfacts: L2 flush buffer: %w", err)
		}
		f.buf, f.bytes = p, n
	}
	f.seq++
	if err := x.MemsetD32Async(f.buf, f.seq, f.bytes/4, 0); err != nil {
		return err
	}
	return x.StreamSync(0)
}

// Close frees the flush buffer; the flusher can be used again.
func (f *L2Flusher) Close() error {
	if f == nil {
		return nil
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.buf == 0 {
		return nil
	}
	err := f.d.Free(f.buf)
	if err == nil {
		f.buf, f.bytes = 0, 0
	}
	return err
}

// hostCopyBytes is the size of the host-copy probe's buffers.
const hostCopyBytes = 64 << 20

// hostBandwidth caches one host-copy measurement per device.
var hostBandwidth sync.Map // *cudabind.Device -> *hostBWOnce

type hostBWOnce struct {
	once           sync.Once
	h2d, d2h, both float64
	err            error
}

// HostCopyBandwidth measures, once per device, the bandwidth of copies
// between pinned host memory and the device in GB/s (1e9 bytes/s), each
// way: 64 MiB (at most an eighth of the device memory) per
// cuMemcpyHtoDAsync and per cuMemcpyDtoHAsync, timed with events over
// four copies per batch, the median of five batches. It is the bound of
// a run that copies its input in and its output out over the link.
// Its buffers, streams and events are freed before it returns, on every
// path. The same measurement gives HostCopyBidirectional.
func HostCopyBandwidth(d *cudabind.Device) (h2d, d2h float64, err error) {
	b, err := measureHostCopies(d, "HostCopyBandwidth")
	if err != nil {
		return 0, 0, err
	}
	return b.h2d, b.d2h, nil
}

// HostCopyBidirectional measures, once per device with HostCopyBandwidth,
// the bandwidth of copies both ways at once in GB/s: bytes moved in both
// directions over the wall time of four copies each way, host to device
// on one stream and device to host on another (separate pinned and
// device buffers), the median of five batches. Both directions share the
// link and the host's memory, so it is less than the sum of the two
// one-way bandwidths; an overlapped pipeline cannot move its input and
// output faster.
func HostCopyBidirectional(d *cudabind.Device) (float64, error) {
	b, err := measureHostCopies(d, "HostCopyBidirectional")
	if err != nil {
		return 0, err
	}
	return b.both, nil
}

// measureHostCopies runs the host-copy measurements of d once.
func measureHostCopies(d *cudabind.Device, caller string) (*hostBWOnce, error) {
	if d == nil {
		return nil, fmt.Errorf("devfacts: %s on a nil *cudabind.Device", caller)
	}
	v, _ := hostBandwidth.LoadOrStore(d, &hostBWOnce{})
	b := v.(*hostBWOnce)
	b.once.Do(func() {
		b.err = d.Do(func(x *cudabind.Exec) error {
			n := int64(hostCopyBytes)
			if lim := d.Info().TotalMemBytes / 8; lim > 0 && n > lim {
				n = lim
			}
			host, err := x.HostAlloc(n)
			if err != nil {
				return err
			}
			defer x.FreeHost(host)
			dev, err := x.Alloc(n)
			if err != nil {
				return err
			}
			defer x.Free(dev)
			const reps = 4
			up, err := timeBatches(x, reps, 5, func() error { return x.CopyHtoDAsync(dev, host.Ptr(), n, 0) })
			if err != nil {
				return err
			}
			down, err := timeBatches(x, reps, 5, func() error { return x.CopyDtoHAsync(host.Ptr(), dev, n, 0) })
			if err != nil {
				return err
			}
			b.h2d = float64(n*reps) / up.Seconds() / 1e9
			b.d2h = float64(n*reps) / down.Seconds() / 1e9
			both, err := timeBidirectional(x, host, dev, n, reps, 5)
			if err != nil {
				return err
			}
			b.both = float64(2*n*reps) / both.Seconds() / 1e9
			return nil
		})
	})
	if b.err != nil {
		return nil, b.err
	}
	return b, nil
}

// timeBidirectional times reps copies of n bytes each way at once: host
// to device from host into dev on one stream, device to host from a
// second device buffer into a second pinned buffer on another, after one
// untimed round; it returns the median wall time of batches rounds, each
// ending when both streams are done.
func timeBidirectional(x *cudabind.Exec, host *cudabind.HostBuffer, dev cudabind.DevPtr, n int64, reps, batches int) (time.Duration, error) {
	host2, err := x.HostAlloc(n)
	if err != nil {
		return 0, err
	}
	defer x.FreeHost(host2)
	dev2, err := x.Alloc(n)
	if err != nil {
		return 0, err
	}
	defer x.Free(dev2)
	up, err := x.NewStream()
	if err != nil {
		return 0, err
	}
	defer x.DestroyStream(up)
	down, err := x.NewStream()
	if err != nil {
		return 0, err
	}
	defer x.DestroyStream(down)
	round := func() error {
		for range reps {
			if err := x.CopyHtoDAsync(dev, host.Ptr(), n, up); err != nil {
				return err
			}
			if err := x.CopyDtoHAsync(host2.Ptr(), dev2, n, down); err != nil {
				return err
			}
		}
		if err := x.StreamSync(up); err != nil {
			return err
		}
		return x.StreamSync(down)
	}
	if err := round(); err != nil {
		return 0, err
	}
	times := make([]time.Duration, 0, batches)
	for range batches {
		t0 := time.Now()
		if err := round(); err != nil {
			return 0, err
		}
		times = append(times, time.Since(t0))
	}
	slices.Sort(times)
	return times[len(times)/2], nil
}

// timeBatches runs op once to warm up, then times batches of reps runs
// on the legacy stream with events and returns the median batch time.
func timeBatches(x *cudabind.Exec, reps, batches int, op func() error) (time.Duration, error) {
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
	if err := op(); err != nil {
		return 0, err
	}
	times := make([]time.Duration, 0, batches)
	for range batches {
		if err := x.Record(start, 0); err != nil {
			return 0, err
		}
		for range reps {
			if err := op(); err != nil {
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
		return 0, fmt.Errorf("devfacts: copy timing returned %v", times[len(times)/2])
	}
	return times[len(times)/2], nil
}
