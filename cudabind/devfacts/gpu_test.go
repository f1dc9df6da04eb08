package devfacts

import (
	"testing"
	"time"

	"github.com/convbench/convbench/cudabind"
	"github.com/convbench/convbench/internal/gputest"
)

func TestGPUPeakFP32(t *testing.T) {
	d := gputest.Device(t)
	if p := PeakFP32GFLOPs(d.Info()); p <= 0 {
		t.Errorf("PeakFP32GFLOPs = %v for CC %s", p, d.Info().CC())
	}
}

func TestGPUEventTimingMatchesBandwidth(t *testing.T) {
	d := gputest.Device(t)
	bw, err := CopyBandwidth(d)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("measured copy bandwidth %.1f GB/s (theoretical %.1f)", bw, d.Info().PeakBandwidthGBps)
	if bw <= 0 || bw > 1.05*d.Info().PeakBandwidthGBps {
		t.Fatalf("copy bandwidth %.1f GB/s is outside (0, theoretical peak %.1f]", bw, d.Info().PeakBandwidthGBps)
	}
	if again, _ := CopyBandwidth(d); again != bw {
		t.Errorf("CopyBandwidth not cached: %v then %v", bw, again)
	}
	// One copy large enough that the fixed cost of a copy is negligible.
	n := int64(1 << 30)
	if lim := d.Info().TotalMemBytes / 8; n > lim {
		n = lim
	}
	var elapsed time.Duration
	err = d.Do(func(x *cudabind.Exec) error {
		var err error
		elapsed, err = timeCopies(x, n, 1, 7)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	want := time.Duration(float64(2*n) / (bw * 1e9) * 1e9)
	t.Logf("one %d MiB DtoD copy: %v by events, %v from the bandwidth", n>>20, elapsed, want)
	if ratio := float64(elapsed) / float64(want); ratio < 0.9 || ratio > 1.1 {
		t.Errorf("event time %v is not within 10%% of %v (ratio %.3f)", elapsed, want, ratio)
	}
}

func TestGPUL2Flusher(t *testing.T) {
	d := gputest.Device(t)
	f := NewL2Flusher(d)
	err := d.Do(func(x *cudabind.Exec) error {
		for i := 0; i < 3; i++ {
			if err := f.Flush(x); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if f.Bytes() < int64(2*d.Info().L2Bytes) {
		t.Errorf("flush buffer %d bytes, want at least twice the %d-byte L2", f.Bytes(), d.Info().L2Bytes)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
}
