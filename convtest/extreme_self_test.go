package convtest

import (
	"math"
	"math/rand"
	"testing"

	"github.com/convbench/convbench/convolve"
	"github.com/leanovate/gopter"
)

// wrapped is a test-only variant around cpu-naive: finiteOnly declares
// Capabilities.FiniteInput; refuse makes its plans refuse non-finite
// filters and pixels as such a variant must; sanitize replaces NaN and
// infinite pixels by 0 before running, as a variant that does not follow
// IEEE arithmetic might.
type wrapped struct {
	inner                        convolve.Variant
	name                         string
	finiteOnly, refuse, sanitize bool
}

func (w wrapped) Describe() convolve.Description {
	d := w.inner.Describe()
	d.Name = w.name
	d.Caps.FiniteInput = w.finiteOnly
	return d
}

func (w wrapped) Plan(p convolve.Problem, cfg convolve.Config) (convolve.Plan, error) {
	if w.refuse {
		if err := w.Describe().Caps.Check(p); err != nil {
			return nil, convolve.NameVariant(w.name, err)
		}
	}
	pl, err := w.inner.Plan(p, cfg)
	if err != nil {
		return nil, err
	}
	return &wrappedPlan{w: w, inner: pl}, nil
}

type wrappedPlan struct {
	w     wrapped
	inner convolve.Plan
}

func (wp *wrappedPlan) Run(in, out *convolve.Image) error {
	if wp.w.refuse {
		if err := convolve.CheckFiniteImage(in); err != nil {
			return convolve.NameVariant(wp.w.name, err)
		}
	}
	if wp.w.sanitize && in != nil && in.Type == convolve.Float32 {
		clean := in.Clone()
		for i, v := range clean.F32 {
			if math.IsNaN(float64(v)) || math.IsInf(float64(v), 0) {
				clean.F32[i] = 0
			}
		}
		in = clean
	}
	return wp.inner.Run(in, out)
}

func (wp *wrappedPlan) Close() error { return wp.inner.Close() }

func wrappedEnv(t *testing.T, w wrapped) *env {
	t.Helper()
	naive, err := convolve.Lookup("cpu-naive")
	if err != nil {
		t.Fatal(err)
	}
	w.inner = naive
	d := w.Describe()
	return &env{name: d.Name, variant: w, desc: d}
}

func propertyNamed(t *testing.T, name string) *property {
	t.Helper()
	for _, pr := range properties {
		if pr.name == name {
			return pr
		}
	}
	t.Fatalf("no property %q", name)
	return nil
}

// TestExtremePropertiesCatchBrokenVariants makes sure the non-finite
// properties can fail: a variant that drops non-finite pixels, and one
// that declares FiniteInput without refusing such input, are caught; one
// that declares it and refuses passes.
func TestExtremePropertiesCatchBrokenVariants(t *testing.T) {
	tests := []struct {
		w        wrapped
		property string
		caught   bool
	}{
		{wrapped{name: "sanitizing", sanitize: true}, "nonfinite-pixels", true},
		{wrapped{name: "finite-only-liar", finiteOnly: true}, "nonfinite-pixels", true},
		{wrapped{name: "finite-only-liar", finiteOnly: true}, "nonfinite-weights", true},
		{wrapped{name: "finite-only", finiteOnly: true, refuse: true}, "nonfinite-pixels", false},
		{wrapped{name: "finite-only", finiteOnly: true, refuse: true}, "nonfinite-weights", false},
		{wrapped{name: "finite-only", finiteOnly: true, refuse: true}, "overflow", false},
		{wrapped{name: "ieee"}, "nonfinite-weights", false},
	}
	for _, tt := range tests {
		e := wrappedEnv(t, tt.w)
		pr := propertyNamed(t, tt.property)
		res := checkProperty(e, pr, 7, 60, 0, -1, nil).result
		if caught := res.Status == gopter.TestFailed; caught != tt.caught {
			t.Errorf("%s, property %s: caught %v, want %v (status %v, %v)", tt.w.name, tt.property, caught, tt.caught, res.Status, res.Labels)
		}
	}
}

// TestExtremeDomainsDraw: every extreme property that applies to a
// registered variant, CPU or GPU, can draw its cases from the variant's
// capabilities (and, for GPU variants, the specialization pool of the
// default seed), so that a GPU run does not end exhausted. It needs no
// GPU: only descriptors are drawn.
func TestExtremeDomainsDraw(t *testing.T) {
	for _, v := range convolve.Variants() {
		d := v.Describe()
		e := &env{name: d.Name, variant: v, desc: d}
		if d.Caps.GPU {
			e.pool = specPool(d.Caps, derivedSeed(DefaultSeed, d.Name, "pool"), nil, DefaultPool)
		}
		for _, pr := range extremeProperties {
			if pr.applies != nil && pr.applies(e) != "" {
				continue
			}
			dom := propertyDomain(e, pr)
			if len(dom.ops) == 0 {
				continue
			}
			rng := rand.New(rand.NewSource(derivedSeed(DefaultSeed, d.Name, pr.name)))
			for i := 0; i < 50; i++ {
				c, ok := dom.draw(rng)
				if !ok {
					t.Errorf("%s, property %s: no case could be drawn (draw %d)", d.Name, pr.name, i)
					break
				}
				if !dom.valid(c) {
					t.Errorf("%s, property %s: drew %v outside its own domain", d.Name, pr.name, c)
				}
			}
		}
	}
}
