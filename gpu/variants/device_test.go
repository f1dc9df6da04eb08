package variants

import (
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/convbench/convbench/convolve"
	"github.com/convbench/convbench/cudabind"
	"github.com/convbench/convbench/cudabind/driver/fakedriver"
)

// TestConfigDevices checks the device choice of a single-device plan
// without a GPU: two devices are a capability error before any device is
// opened, and PlanOn refuses variants not built on Variant and a nil
// device.
func TestConfigDevices(t *testing.T) {
	v, err := convolve.Lookup("gpu-tiled")
	if err != nil {
		t.Fatal(err)
	}
	f, err := convolve.Gaussian(5, 1)
	if err != nil {
		t.Fatal(err)
	}
	p := convolve.Problem{Op: convolve.Filter2D, Input: convolve.Geometry{Width: 16, Height: 16, Channels: 1}, Filter: f}
	_, err = v.Plan(p, convolve.Config{Devices: []int{0, 1}})
	var ce *convolve.CapabilityError
	if !errors.As(err, &ce) || ce.What != "devices" || !strings.HasPrefix(ce.Value, "0,1") {
		t.Errorf("Plan with two devices = %v, want a capability error naming devices 0,1", err)
	}
	loop, err := convolve.Lookup("gpu-ch-loop")
	if err != nil {
		t.Fatal(err)
	}
	fd := &fakedriver.Driver{}
	d, err := cudabind.OpenDriver(fd, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	if _, err := PlanOn(loop, d, p, convolve.Config{}); err == nil || !strings.Contains(err.Error(), "gpu-ch-loop") {
		t.Errorf("PlanOn(gpu-ch-loop) = %v, want an error naming it", err)
	}
	if _, err := PlanOn(v, nil, p, convolve.Config{}); err == nil || !strings.Contains(err.Error(), "nil device") {
		t.Errorf("PlanOn(nil device) = %v, want an error", err)
	}
}

// TestPoisonOutput fills a plan's device output with a poison on a fake
// device and reads it back: every element holds the poison in the
// output's type, and a closed plan refuses.
func TestPoisonOutput(t *testing.T) {
	fd := &fakedriver.Driver{}
	d, err := cudabind.OpenDriver(fd, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	f, err := convolve.Gaussian(3, 1)
	if err != nil {
		t.Fatal(err)
	}
	v := &Variant{
		Desc: convolve.Description{Name: "poison-test", Caps: convolve.Capabilities{
			Ops: []convolve.Operation{convolve.Filter2D, convolve.RGBToYUV}, Types: []convolve.ElemType{convolve.Float32, convolve.Uint8},
			Channels: []int{1, 3}, Layouts: []convolve.Layout{convolve.Interleaved}, Borders: []convolve.Border{convolve.Zero}, MaxFilterSide: 3, GPU: true}},
		Setup: func(b *Base) error {
			b.Enqueue = func(*cudabind.Exec, cudabind.Stream) error { return nil }
			return nil
		},
	}
	filter2d := convolve.Problem{Op: convolve.Filter2D, Input: convolve.Geometry{Width: 7, Height: 5, Channels: 1, Type: convolve.Float32}, Filter: f}
	yuv := convolve.Problem{Op: convolve.RGBToYUV, Input: convolve.Geometry{Width: 7, Height: 5, Channels: 3, Type: convolve.Uint8}}
	for _, tt := range []struct {
		p      convolve.Problem
		poison float64
	}{
		{filter2d, math.NaN()},
		{filter2d, 77},
		{yuv, 255},
		{yuv, 0},
	} {
		p := tt.p
		b, err := PlanOn(v, d, p, convolve.Config{})
		if err != nil {
			t.Fatalf("%v: %v", p, err)
		}
		if err := b.PoisonOutput(tt.poison); err != nil {
			t.Fatalf("%v poison %v: %v", p, tt.poison, err)
		}
		out, err := p.NewOutput()
		if err != nil {
			t.Fatal(err)
		}
		if err := b.Download(out); err != nil {
			t.Fatal(err)
		}
		for c := 0; c < out.Channels; c++ {
			for y := 0; y < out.Height; y++ {
				for x := 0; x < out.Width; x++ {
					got := out.At(x, y, c)
					if got != tt.poison && !(math.IsNaN(got) && math.IsNaN(tt.poison)) {
						t.Fatalf("%v poison %v: element (%d,%d,%d) = %v", p, tt.poison, x, y, c, got)
					}
				}
			}
		}
		if err := b.Close(); err != nil {
			t.Fatal(err)
		}
		if err := b.PoisonOutput(tt.poison); !errors.Is(err, convolve.ErrClosed) {
			t.Errorf("PoisonOutput after Close: %v, want convolve.ErrClosed", err)
		}
	}
}
