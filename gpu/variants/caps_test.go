package variants

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/convbench/convbench/convolve"
)

// TestDescriptions checks what every variant of this file set declares.
func TestDescriptions(t *testing.T) {
	for _, gv := range gpuVariants {
		v, err := convolve.Lookup(gv.name)
		if err != nil {
			t.Fatal(err)
		}
		d := v.Describe()
		if !d.Caps.GPU || d.Summary == "" || (d.Report != "000" && d.Report != "002" && d.Report != "004" && d.Name != "gpu-tiled" && d.Name != "gpu-sepfused") {
			t.Errorf("%s: description %+v: want GPU, a summary and its report", gv.name, d)
		}
		if d.Caps.SeparableOnly != gv.sep {
			t.Errorf("%s: SeparableOnly = %v, want %v", gv.name, d.Caps.SeparableOnly, gv.sep)
		}
		if err := d.Caps.CheckConfig(gv.cfg); err != nil {
			t.Errorf("%s: test config %v refused: %v", gv.name, gv.cfg, err)
		}
	}
}

// TestCapabilityErrors checks refusals decided before any device is
// opened, so they hold with or without a GPU.
func TestCapabilityErrors(t *testing.T) {
	box3, _ := convolve.Box(3)
	sharpen := convolve.Sharpen()
	g := convolve.Geometry{Width: 64, Height: 64, Channels: 1, Type: convolve.Float32}
	cases := []struct {
		variant string
		p       convolve.Problem
		cfg     convolve.Config
		what    string
	}{
		{"gpu-naive", convolve.Problem{Op: convolve.Filter2D, Input: convolve.Geometry{Width: 10, Height: 70000, Channels: 1}, Filter: box3},
			convolve.Config{Block: convolve.Block{X: 1024, Y: 1}}, "grid"},
		{"gpu-shared", convolve.Problem{Op: convolve.Filter2D, Input: convolve.Geometry{Width: 10, Height: 10, Channels: 1}, Filter: box3},
			convolve.Config{Tunables: map[string]int{"unroll": 2}}, "tunable"},
		{"gpu-separable", convolve.Problem{Op: convolve.Filter2D, Input: g, Filter: sharpen}, convolve.Config{}, "non-separable"},
		{"gpu-const", convolve.Problem{Op: convolve.SobelMagnitude, Input: g}, convolve.Config{}, "operation"},
	}
	for _, c := range cases {
		v, err := convolve.Lookup(c.variant)
		if err != nil {
			t.Fatal(err)
		}
		plan, err := convolve.PlanFor(v, c.p, c.cfg)
		if plan != nil {
			plan.Close()
		}
		var ce *convolve.CapabilityError
		if !errors.As(err, &ce) || ce.Variant != c.variant || !strings.Contains(ce.What, c.what) {
			t.Errorf("%s %v %v: err = %v, want a *convolve.CapabilityError about %s", c.variant, c.p, c.cfg, err, c.what)
		}
	}
}

// referenceOrderGPU lists the registered GPU variants that declare
// cpu-naive's summation order.
func referenceOrderGPU() []string {
	var names []string
	for _, v := range convolve.Variants() {
		if d := v.Describe(); d.Caps.GPU && d.Caps.ReferenceOrder {
			names = append(names, d.Name)
		}
	}
	return names
}

// TestReferenceOrderDeclared pins which kernels promise cpu-naive's
// summation order: losing the flag would silently drop a variant from
// the bit-exactness checks.
func TestReferenceOrderDeclared(t *testing.T) {
	want := []string{"gpu-const", "gpu-naive", "gpu-naive-padded", "gpu-regtile", "gpu-shared", "gpu-shared-rows",
		"gpu-texture", "gpu-texture-filter", "gpu-texture-shared", "gpu-tiled"}
	if got := referenceOrderGPU(); !slices.Equal(got, want) {
		t.Errorf("GPU variants declaring ReferenceOrder = %v, want %v", got, want)
	}
}
