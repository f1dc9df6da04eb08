package variants

import (
	"errors"
	"math/rand/v2"
	"testing"

	"github.com/convbench/convbench/convolve"
	"github.com/convbench/convbench/cudabind"
	"github.com/convbench/convbench/cudabind/npp"
	"github.com/convbench/convbench/internal/gputest"
	"github.com/convbench/convbench/internal/imagetest"
)

// nppOrSkip returns the device, or skips when there is no device or no
// libnppif.
func nppOrSkip(t *testing.T) *cudabind.Device {
	t.Helper()
	d := gputest.DeviceNoLeakCheck(t)
	_, err := nppLibrary()
	gputest.Need(t, "NPP", err)
	return d
}

// nppCases: every border in both modes with square and rectangular
// asymmetric filters (a wrong coefficient order or anchor shows), filter
// sizes from 1x1 to 31x31, and block shapes of the padding pass.
func nppCases() []kernelCase {
	var cs []kernelCase
	i := 0
	for _, b := range convolve.Borders {
		for _, k := range [][2]int{{1, 1}, {3, 3}, {5, 3}, {3, 7}} {
			cs = append(cs, kernelCase{kw: k[0], kh: k[1], border: b, mode: convolve.Modes[i%2], typ: convolve.Float32, channels: 1})
			i++
		}
	}
	for _, k := range []int{9, 15, 31} {
		cs = append(cs, kernelCase{kw: k, kh: k, border: convolve.Borders[i%5], mode: convolve.Modes[i%2], typ: convolve.Float32, channels: 1})
		i++
	}
	for _, blk := range []convolve.Block{{X: 32, Y: 8}, {X: 7, Y: 5}} {
		cs = append(cs, kernelCase{kw: 5, kh: 5, border: convolve.Reflect, typ: convolve.Float32, channels: 1, block: blk})
	}
	return cs
}

// TestNPPCapabilities checks the refusals that need no device.
func TestNPPCapabilities(t *testing.T) {
	v, err := convolve.Lookup("npp")
	if err != nil {
		t.Fatal(err)
	}
	f := &convolve.Filter{Name: "one", Width: 3, Height: 3, Weights: make([]float32, 9)}
	for _, g := range []convolve.Geometry{
		{Width: 8, Height: 8, Channels: 1, Type: convolve.Uint8},
		{Width: 8, Height: 8, Channels: 3, Type: convolve.Float32},
	} {
		var ce *convolve.CapabilityError
		if _, err := convolve.PlanFor(v, convolve.Problem{Op: convolve.Filter2D, Input: g, Filter: f}, convolve.Config{}); !errors.As(err, &ce) {
			t.Errorf("%v: err = %v, want a *convolve.CapabilityError", g, err)
		}
	}
}

// TestNPPGeometry checks the double-halo buffer and ROI of npp plans and
// the refusals of checkNPP: a row step past NPP's 32-bit byte count and a
// padding grid past CUDA's limits, each naming what was refused.
func TestNPPGeometry(t *testing.T) {
	for _, tt := range []struct {
		w, h, kw, kh int
		block        convolve.Block
		want         nppGeometry
		refused      string // the CapabilityError's What; "" when accepted
	}{
		{w: 8, h: 6, kw: 3, kh: 3, block: convolve.Block{X: 16, Y: 16},
			want: nppGeometry{kw: 3, kh: 3, bw: 12, bh: 10, rw: 10, rh: 8}},
		{w: 100, h: 1, kw: 5, kh: 1, block: convolve.Block{X: 32, Y: 8},
			want: nppGeometry{kw: 5, kh: 1, bw: 108, bh: 1, rw: 104, rh: 1}},
		{w: 1 << 29, h: 1, kw: 3, kh: 1, block: convolve.Block{X: 16, Y: 16},
			want: nppGeometry{kw: 3, kh: 1, bw: 1<<29 + 4, bh: 1, rw: 1<<29 + 2, rh: 1}, refused: "image width"},
		{w: 4, h: 65535 * 2, kw: 1, kh: 3, block: convolve.Block{X: 16, Y: 1},
			want: nppGeometry{kw: 1, kh: 3, bw: 4, bh: 65535*2 + 4, rw: 4, rh: 65535*2 + 2}, refused: "grid"},
	} {
		f := &convolve.Filter{Name: "box", Width: tt.kw, Height: tt.kh, Weights: make([]float32, tt.kw*tt.kh)}
		b := &Base{Name: "npp", Block: tt.block, Filter: f,
			Problem: convolve.Problem{Op: convolve.Filter2D, Input: convolve.Geometry{Width: tt.w, Height: tt.h, Channels: 1}, Filter: f}}
		if got := nppGeometryOf(b); got != tt.want {
			t.Errorf("%dx%d, %dx%d filter: geometry %+v, want %+v", tt.w, tt.h, tt.kw, tt.kh, got, tt.want)
		}
		err := checkNPP(b)
		var ce *convolve.CapabilityError
		switch {
		case tt.refused == "" && err != nil:
			t.Errorf("%dx%d, %dx%d filter: %v", tt.w, tt.h, tt.kw, tt.kh, err)
		case tt.refused != "" && (!errors.As(err, &ce) || ce.What != tt.refused):
			t.Errorf("%dx%d, %dx%d filter: %v, want a *convolve.CapabilityError on %s", tt.w, tt.h, tt.kw, tt.kh, err, tt.refused)
		}
	}
}

// TestNPPAgreement runs the npp variant over nppCases x agreementSizes
// against refimpl.Expect on NaN-poisoned outputs, and checks that every
// plan was released.
func TestNPPAgreement(t *testing.T) {
	d := nppOrSkip(t)
	lib, _ := nppLibrary()
	t.Logf("NPP library: %s", lib)
	leakCheck := gputest.LeakCheck(t, d)
	v, err := convolve.Lookup("npp")
	if err != nil {
		t.Fatal(err)
	}
	r := rand.New(rand.NewPCG(23, 5))
	failures := 0
	for _, kc := range nppCases() {
		f := imagetest.RandomFilter(r, kc.kw, kc.kh)
		for _, g := range agreementSizes {
			p := kc.problem(g, f)
			plan, err := convolve.PlanFor(v, p, convolve.Config{Block: kc.block})
			if err != nil {
				t.Errorf("npp %v: Plan: %v", p, err)
				failures++
				continue
			}
			for range 2 {
				if _, ok := agree(t, "npp", plan, p, imagetest.Random(r, p.Input, imagetest.NonZero)); !ok {
					failures++
				}
			}
			if err := plan.Close(); err != nil {
				t.Errorf("npp %v: Close: %v", p, err)
			}
			if failures > 10 {
				t.Fatalf("too many failures")
			}
		}
	}
	p := kernelCase{kw: 7, kh: 5, border: convolve.Mirror, mode: convolve.Convolve, typ: convolve.Float32, channels: 1}.
		problem(convolve.Geometry{Width: 123, Height: 45}, imagetest.RandomFilter(r, 7, 5))
	devicePlanAgrees(t, v, p, convolve.Config{}, imagetest.Random(r, p.Input, imagetest.NonZero))
	leakCheck()
}

// nppLibrary returns the name of the libnppif that loaded, or the
// *cudaerr.UnavailableError saying why none did.
func nppLibrary() (string, error) {
	l, err := npp.Load()
	if err != nil {
		return "", err
	}
	return l.Name(), nil
}
