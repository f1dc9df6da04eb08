package devfacts

import (
	"errors"
	"math"
	"testing"

	"github.com/convbench/convbench/cudabind"
	"github.com/convbench/convbench/cudabind/driver"
	"github.com/convbench/convbench/cudabind/driver/fakedriver"
	"github.com/convbench/convbench/internal/gputest"
)

func TestPeakFP32(t *testing.T) {
	cases := []struct {
		major, minor, lanes int
	}{{6, 0, 64}, {6, 1, 128}, {7, 0, 64}, {7, 5, 64}, {8, 0, 64}, {8, 6, 128}, {8, 9, 128}, {9, 0, 128}, {10, 0, 128}, {12, 0, 128}, {2, 0, 0}}
	for _, c := range cases {
		if got := fp32LanesPerSM(c.major, c.minor); got != c.lanes {
			t.Errorf("fp32LanesPerSM(%d.%d) = %d, want %d", c.major, c.minor, got, c.lanes)
		}
	}
	// H100 SXM: 132 SMs, 1980 MHz boost: 132*128*2*1.98 GHz = 66908 GFLOP/s.
	h100 := cudabind.DeviceInfo{Major: 9, SMs: 132, ClockKHz: 1980000}
	if got := PeakFP32GFLOPs(h100); math.Abs(got-66908.16) > 0.01 {
		t.Errorf("PeakFP32GFLOPs(H100) = %v", got)
	}
}

// TestCopyBandwidthFreesOnFailure: whichever step of the measurement
// fails, its error comes back and no buffer or event is left behind.
func TestCopyBandwidthFreesOnFailure(t *testing.T) {
	for _, api := range []string{"cuMemAlloc", "cuMemsetD32", "cuEventCreate", "cuMemcpyDtoDAsync", "cuEventRecord", "cuEventElapsedTime"} {
		t.Run(api, func(t *testing.T) {
			fd := &fakedriver.Driver{MemBytes: 8 << 20, Fail: map[string]driver.Result{api: driver.ErrorOutOfMemory}}
			d := gputest.OpenDriver(t, fd)
			_, err := CopyBandwidth(d)
			var e *cudabind.Error
			if !errors.As(err, &e) || e.Code != cudabind.CodeOutOfMemory {
				t.Fatalf("CopyBandwidth with %s failing = %v, want its *cudabind.Error", api, err)
			}
			if n := d.LiveAllocations(); n != 0 {
				t.Errorf("%d allocations live after the failure (%v)", n, d.LiveByKind())
			}
			if live := fd.Live(); live["device buffers"]+live["events"] != 0 {
				t.Errorf("the driver still holds %v", live)
			}
		})
	}
}

func TestCopyBandwidthCachedPerDevice(t *testing.T) {
	fd := &fakedriver.Driver{MemBytes: 8 << 20}
	d := gputest.OpenDriver(t, fd)
	bw, err := CopyBandwidth(d)
	if err != nil || bw <= 0 {
		t.Fatalf("CopyBandwidth = %v, %v", bw, err)
	}
	calls := len(fd.Calls())
	if again, err := CopyBandwidth(d); again != bw || err != nil || len(fd.Calls()) != calls {
		t.Errorf("second CopyBandwidth = %v, %v after %d more driver calls; want the cached %v and none", again, err, len(fd.Calls())-calls, bw)
	}
	if _, err := CopyBandwidth(nil); err == nil {
		t.Error("CopyBandwidth(nil) succeeded")
	}
}

func TestL2Flusher(t *testing.T) {
	fd := &fakedriver.Driver{}
	d := gputest.OpenDriver(t, fd)
	f := NewL2Flusher(d)
	err := d.Do(func(x *cudabind.Exec) error {
		for i := 0; i < 2; i++ {
			if err := f.Flush(x); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if want := int64(2 * d.Info().L2Bytes); f.Bytes() != want {
		t.Errorf("flush buffer of %d bytes, want twice the L2, %d", f.Bytes(), want)
	}
	if n := fd.Live()["device buffers"]; n != 1 {
		t.Errorf("%d device buffers after two flushes, want the one flush buffer", n)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	if n := d.LiveAllocations(); n != 0 {
		t.Errorf("LiveAllocations() = %d after Close", n)
	}

	other := gputest.OpenDriver(t, &fakedriver.Driver{})
	if err := other.Do(func(x *cudabind.Exec) error { return f.Flush(x) }); err == nil {
		t.Error("Flush with another device's Exec succeeded")
	}
	small := gputest.OpenDriver(t, &fakedriver.Driver{MemBytes: 1 << 20})
	g := NewL2Flusher(small)
	err = small.Do(func(x *cudabind.Exec) error { return g.Flush(x) })
	var e *cudabind.Error
	if !errors.As(err, &e) || e.Code != cudabind.CodeOutOfMemory || g.Bytes() != 0 {
		t.Errorf("Flush without memory for the buffer = %v (buffer %d bytes), want out of memory and no buffer", err, g.Bytes())
	}
}

// TestHostCopyBandwidth measures on the fake driver: both directions and
// both at once positive, the copies made are pinned-host-to-device and
// back (one way at a time on the legacy stream, then both ways on two
// streams), cached per device, and a failing step comes back with nothing
// left allocated.
func TestHostCopyBandwidth(t *testing.T) {
	fd := &fakedriver.Driver{MemBytes: 8 << 20}
	d := gputest.OpenDriver(t, fd)
	up, down, err := HostCopyBandwidth(d)
	if err != nil || up <= 0 || down <= 0 {
		t.Fatalf("HostCopyBandwidth = %v, %v, %v", up, down, err)
	}
	n := map[string]int{}
	for _, c := range fd.Copies() {
		n[c.API]++
		if c.Bytes != 1<<20 {
			t.Errorf("%s of %d bytes, want an eighth of the device's 8 MiB", c.API, c.Bytes)
		}
	}
	// One way: a warm-up and 5 batches of 4; both ways: a warm-up round
	// and 5 rounds of 4.
	if n["cuMemcpyHtoDAsync"] != 21+24 || n["cuMemcpyDtoHAsync"] != 21+24 {
		t.Errorf("copies %v, want 45 each way", n)
	}
	both, err := HostCopyBidirectional(d)
	if err != nil || both <= 0 {
		t.Errorf("HostCopyBidirectional = %v, %v", both, err)
	}
	calls := len(fd.Calls())
	if u, w, err := HostCopyBandwidth(d); u != up || w != down || err != nil || len(fd.Calls()) != calls {
		t.Errorf("second HostCopyBandwidth is not the cached one")
	}
	if n := d.LiveAllocations(); n != 0 {
		t.Errorf("%d allocations live (%v)", n, d.LiveByKind())
	}
	for _, api := range []string{"cuMemHostAlloc", "cuMemAlloc", "cuMemcpyDtoHAsync", "cuStreamCreate", "cuStreamSynchronize"} {
		fd := &fakedriver.Driver{MemBytes: 8 << 20, Fail: map[string]driver.Result{api: driver.ErrorOutOfMemory}}
		d := gputest.OpenDriver(t, fd)
		if _, _, err := HostCopyBandwidth(d); err == nil {
			t.Errorf("%s failing: no error", api)
		}
		if _, err := HostCopyBidirectional(d); err == nil {
			t.Errorf("%s failing: HostCopyBidirectional gave no error", api)
		}
		if n := d.LiveAllocations(); n != 0 {
			t.Errorf("%s failing: %d allocations live (%v)", api, n, d.LiveByKind())
		}
	}
}
