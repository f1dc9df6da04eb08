package convtest

import (
	"errors"
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	"github.com/convbench/convbench/convolve"
	"github.com/leanovate/gopter"
)

// fakeUnavailable is an UnavailableError of a fake device library; ok is
// what its Unavailable method reports.
type fakeUnavailable struct{ ok bool }

func (f fakeUnavailable) Error() string     { return "fakecuda: no device" }
func (f fakeUnavailable) Unavailable() bool { return f.ok }

// onlyError has the message of an UnavailableError but not its method.
type onlyError struct{}

func (onlyError) Error() string { return "fakecuda: no device" }

func TestUnavailable(t *testing.T) {
	for _, tt := range []struct {
		name string
		err  error
		want bool
	}{
		{"nil", nil, false},
		{"plain", errors.New("fakecuda: no device"), false},
		{"without the method", onlyError{}, false},
		{"bare", fakeUnavailable{ok: true}, true},
		{"wrapped", fmt.Errorf("gpu-fake: plan: %w", fakeUnavailable{ok: true}), true},
		{"joined", errors.Join(errors.New("plan"), fakeUnavailable{ok: true}), true},
		{"reports false", fakeUnavailable{ok: false}, false},
		{"a capability error", &convolve.CapabilityError{Variant: "v", What: "type", Value: "u8"}, false},
	} {
		reason, ok := unavailable(tt.err)
		if ok != tt.want {
			t.Errorf("%s (%v): unavailable %v, want %v", tt.name, tt.err, ok, tt.want)
		}
		if ok && reason != "fakecuda: no device" {
			t.Errorf("%s: reason %q, want the error's message", tt.name, reason)
		}
	}
}

// fakeDevice is a GPU variant without a GPU: cpu-naive under another
// name, declaring a GPU unless cpu is set, whose plans count two
// allocations on a fake device (live) until closed; a leaky one frees
// only one of them. Warm counts its calls (warms) and refuses images
// refuseWidth wide. gone makes Plan, Warm and LiveAllocations fail as on
// a machine without the device (fakeUnavailable).
type fakeDevice struct {
	inner           convolve.Variant
	name            string
	cpu, leak, gone bool
	refuseWidth     int
	live, warms     *atomic.Int64
}

func newFakeDevice(t *testing.T, name string) fakeDevice {
	t.Helper()
	naive, err := convolve.Lookup("cpu-naive")
	if err != nil {
		t.Fatal(err)
	}
	return fakeDevice{inner: naive, name: name, live: new(atomic.Int64), warms: new(atomic.Int64)}
}

func (f fakeDevice) Describe() convolve.Description {
	d := f.inner.Describe()
	d.Name = f.name
	d.Caps.GPU = !f.cpu
	return d
}

// Plan checks p and cfg against f's capabilities and plans cpu-naive
// with its own configuration: a block or compile option changes nothing.
func (f fakeDevice) Plan(p convolve.Problem, cfg convolve.Config) (convolve.Plan, error) {
	if f.gone {
		return nil, fmt.Errorf("%s: %w", f.name, fakeUnavailable{ok: true})
	}
	d := f.Describe()
	if err := d.Caps.Check(p); err != nil {
		return nil, convolve.NameVariant(f.name, err)
	}
	if err := d.Caps.CheckConfig(cfg); err != nil {
		return nil, convolve.NameVariant(f.name, err)
	}
	pl, err := f.inner.Plan(p, convolve.Config{})
	if err != nil {
		return nil, err
	}
	f.live.Add(2)
	return &fakeDevicePlan{Plan: pl, f: f, p: p}, nil
}

func (f fakeDevice) Warm(p convolve.Problem, cfg convolve.Config) error {
	if f.gone {
		return fmt.Errorf("%s: %w", f.name, fakeUnavailable{ok: true})
	}
	f.warms.Add(1)
	if p.Input.Width == f.refuseWidth {
		return &convolve.CapabilityError{Variant: f.name, What: "width", Value: fmt.Sprint(p.Input.Width)}
	}
	return nil
}

func (f fakeDevice) LiveAllocations() (int, error) {
	if f.gone {
		return 0, fakeUnavailable{ok: true}
	}
	return int(f.live.Load()), nil
}

// fakeDevicePlan is a convolve.DevicePlan, as the suite wants a GPU
// variant's plan: Upload keeps the input, the kernel timings and Download
// run the CPU plan on it.
type fakeDevicePlan struct {
	convolve.Plan
	f      fakeDevice
	p      convolve.Problem
	in     *convolve.Image
	closed bool
}

func (fp *fakeDevicePlan) Upload(in *convolve.Image) error {
	out, err := fp.p.NewOutput()
	if err != nil {
		return err
	}
	if err := fp.p.CheckIO(in, out); err != nil {
		return err
	}
	fp.in = in.Clone()
	return nil
}

func (fp *fakeDevicePlan) TimeKernel(n int) (time.Duration, error) {
	out, err := fp.p.NewOutput()
	if err != nil {
		return 0, err
	}
	start := time.Now()
	for range n {
		if err := fp.Download(out); err != nil {
			return 0, err
		}
	}
	return time.Since(start), nil
}

func (fp *fakeDevicePlan) TimeKernelGraph(n int) (time.Duration, error) { return fp.TimeKernel(n) }

func (fp *fakeDevicePlan) Download(out *convolve.Image) error {
	if fp.in == nil {
		return errors.New("fake device plan: Download before Upload")
	}
	return fp.Plan.Run(fp.in, out)
}

func (fp *fakeDevicePlan) Close() error {
	if !fp.closed {
		fp.closed = true
		fp.f.live.Add(-2)
		if fp.f.leak {
			fp.f.live.Add(1)
		}
	}
	return fp.Plan.Close()
}

// The suite finds a GPU variant's optional interfaces as testing/fstest
// finds a file system's: a GPU variant with LiveAllocations has its
// device allocations counted, and a leak caught; a variant without it,
// or one that declares no GPU, is checked for open plans only.
func TestDeviceInterfaces(t *testing.T) {
	dev := newFakeDevice(t, "fake-device")
	leaky := newFakeDevice(t, "fake-device-leaky")
	leaky.leak = true
	gone := newFakeDevice(t, "fake-device-gone")
	gone.gone = true
	cpuLeaky := newFakeDevice(t, "fake-device-cpu-leaky")
	cpuLeaky.cpu, cpuLeaky.leak = true, true
	cpu := wrappedEnv(t, wrapped{name: "cpu-wrapped"}).variant
	for _, tt := range []struct {
		v                  convolve.Variant
		counts, leakCaught bool
	}{
		{dev, true, false},
		{leaky, true, true},
		{gone, false, false},
		{cpuLeaky, false, false},
		{cpu, false, false},
	} {
		d := tt.v.Describe()
		t.Run(d.Name, func(t *testing.T) {
			e := &env{name: d.Name, variant: tt.v, desc: d}
			if _, counts := e.liveAllocations(); counts != tt.counts {
				t.Errorf("allocations counted %v, want %v", counts, tt.counts)
			}
			if tt.v == gone {
				return
			}
			res := checkProperty(e, propertyNamed(t, "no-leak"), 7, 10, 0, -1, nil).result
			if caught := res.Status == gopter.TestFailed; caught != tt.leakCaught {
				t.Errorf("no-leak caught %v, want %v (status %v, %v)", caught, tt.leakCaught, res.Status, res.Labels)
			}
		})
	}
}

// warmAll warms every spec on the workers and counts those refused; it
// stops after the first when that one finds the device absent.
func TestWarmAll(t *testing.T) {
	dev := newFakeDevice(t, "fake-device-warm-all")
	dev.refuseWidth = 7
	gone := newFakeDevice(t, "fake-device-warm-all-gone")
	gone.gone = true
	pool := specPool(dev.Describe().Caps, 1, nil, DefaultPool)
	if len(pool) < 3 {
		t.Fatalf("pool of %d specializations; want at least 3", len(pool))
	}
	bad := pool[0]
	bad.W = dev.refuseWidth
	for _, tt := range []struct {
		name                 string
		w                    fakeDevice
		specs                []testCase
		warm, refused, calls int
		unavailable          bool
	}{
		{"all", dev, pool, len(pool), 0, len(pool), false},
		{"one refused", dev, append([]testCase{bad}, pool...), len(pool), 1, len(pool) + 1, false},
		{"none", dev, nil, 0, 0, 0, false},
		{"no device", gone, pool, 0, 0, 0, true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			tt.w.warms.Store(0)
			warm, refused, err := warmAll(tt.w, tt.specs, 4)
			if _, ok := unavailable(err); ok != tt.unavailable {
				t.Errorf("error %v; want unavailable %v", err, tt.unavailable)
			}
			if warm != tt.warm || refused != tt.refused || int(tt.w.warms.Load()) != tt.calls {
				t.Errorf("warmed %d, refused %d, %d calls; want %d, %d, %d", warm, refused, tt.w.warms.Load(), tt.warm, tt.refused, tt.calls)
			}
		})
	}
}

// TestVariant warms a GPU variant that is a Warmer before its cases (and
// no variant that declares no GPU), passes one that frees what it
// allocates, and skips one whose plan finds its device absent, with the
// reason.
func TestVariantOnFakeDevice(t *testing.T) {
	const seed = 3
	dev := newFakeDevice(t, "fake-device-suite")
	cpu := newFakeDevice(t, "fake-device-suite-cpu")
	cpu.cpu = true
	gone := newFakeDevice(t, "fake-device-suite-gone")
	gone.gone = true
	for _, tt := range []struct {
		v                     fakeDevice
		warmed, skipped, fail bool
	}{
		{dev, true, false, false},
		{cpu, false, false, false},
		{gone, false, true, false},
	} {
		warmed.Delete(fmt.Sprintf("%s\x00%d", tt.v.name, seed)) // a variant is warmed once per seed and process
		var sub *testing.T
		t.Run(tt.v.name, func(t *testing.T) {
			sub = t
			TestVariantOptions(t, tt.v, Options{N: 5, Seed: seed})
		})
		if sub.Skipped() != tt.skipped || sub.Failed() != tt.fail {
			t.Errorf("the suite on %s: skipped %v, failed %v; want %v, %v", tt.v.name, sub.Skipped(), sub.Failed(), tt.skipped, tt.fail)
		}
		if w := tt.v.warms.Load() > 0; w != tt.warmed {
			t.Errorf("the suite warmed %s %v, want %v", tt.v.name, w, tt.warmed)
		}
		if n := tt.v.live.Load(); n != 0 {
			t.Errorf("%s: %d fake allocations live after the suite; want 0", tt.v.name, n)
		}
	}
}
