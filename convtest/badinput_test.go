package convtest

import (
	"strings"
	"testing"

	"github.com/convbench/convbench/convolve"
)

// laxVariant wraps a variant but validates nothing: its Plan accepts any
// problem and its Run never fails, as a careless implementation might.
type laxVariant struct{ inner convolve.Variant }

func (l laxVariant) Describe() convolve.Description { return l.inner.Describe() }
func (l laxVariant) Plan(p convolve.Problem, cfg convolve.Config) (convolve.Plan, error) {
	return laxPlan{}, nil
}

type laxPlan struct{}

func (laxPlan) Run(in, out *convolve.Image) error { return nil }
func (laxPlan) Close() error                      { return nil }

// TestBadInputCatchesLaxVariant makes sure the bad-input check can fail: a
// variant that validates nothing is reported for its plans and its runs.
func TestBadInputCatchesLaxVariant(t *testing.T) {
	naive, err := convolve.Lookup("cpu-naive")
	if err != nil {
		t.Fatal(err)
	}
	e := &env{name: "lax", variant: laxVariant{naive}, desc: naive.Describe()}
	base := testCase{Op: convolve.Filter2D, W: 6, H: 5, Channels: 1, KW: 3, KH: 3, Seed: 1}
	problems, _ := checkBadInput(e, base)
	var plans, runs int
	for _, p := range problems {
		switch {
		case strings.HasPrefix(p, "Variant.Plan with"):
			plans++
		case strings.HasPrefix(p, "Run with"):
			runs++
		}
	}
	if plans == 0 || runs == 0 {
		t.Errorf("lax variant: %d plan and %d run problems reported, want both > 0; all:\n%s", plans, runs, strings.Join(problems, "\n"))
	}
}

// TestCapabilityCasesValidOtherwise: each case meant to be refused for a
// capability the variant lacks is a valid problem in every other respect,
// its stride included, whatever the padding of the base case.
func TestCapabilityCasesValidOtherwise(t *testing.T) {
	for _, c := range []struct {
		name string
		caps convolve.Capabilities
		in   convolve.Geometry
	}{
		{"channels, padded narrow rows", convolve.Capabilities{Channels: []int{1}},
			convolve.Geometry{Width: 9, Height: 8, Channels: 1, Type: convolve.Float32, Stride: 15}},
		{"channels, unpadded", convolve.Capabilities{Channels: []int{1}},
			convolve.Geometry{Width: 9, Height: 8, Channels: 1, Type: convolve.Float32}},
		{"layout, padded planar rows", convolve.Capabilities{Layouts: []convolve.Layout{convolve.Planar}},
			convolve.Geometry{Width: 9, Height: 8, Channels: 3, Type: convolve.Uint8, Layout: convolve.Planar, Stride: 10}},
	} {
		p := convolve.Problem{Op: convolve.Filter2D, Input: c.in,
			Filter: &convolve.Filter{Name: "box", Width: 3, Height: 3, Weights: make([]float32, 9)}}
		if err := p.Validate(); err != nil {
			t.Fatalf("%s: base problem invalid: %v", c.name, err)
		}
		n := 0
		for _, b := range badPlans(c.caps, p) {
			if !b.capability {
				continue
			}
			n++
			if err := b.p.Validate(); err != nil {
				t.Errorf("%s: %s: %v is invalid besides the capability: %v", c.name, b.name, b.p.Input, err)
			}
		}
		if n == 0 {
			t.Errorf("%s: no capability cases", c.name)
		}
	}
}
