package benchmarks

import (
	"testing"

	"github.com/convbench/convbench/convolve"
	"github.com/convbench/convbench/runfile"
)

func TestBenchCasesWithinCapabilities(t *testing.T) {
	for _, tt := range []struct {
		name string
		caps convolve.Capabilities
		want int
		op   string
	}{
		{"any", convolve.Capabilities{}, 12, "filter2d"},
		{"float32 only", convolve.Capabilities{Types: []convolve.ElemType{convolve.Float32}}, 6, "filter2d"},
		{"separable only", convolve.Capabilities{SeparableOnly: true}, 8, "filter2d"},
		{"up to 5x5", convolve.Capabilities{MaxFilterSide: 5}, 8, "filter2d"},
		{"sobel only", convolve.Capabilities{Ops: []convolve.Operation{convolve.SobelMagnitude}}, 4, "sobel-mag"},
		{"rgb2yuv, one channel only", convolve.Capabilities{Ops: []convolve.Operation{convolve.RGBToYUV}, Channels: []int{1}}, 0, ""},
		{"gpu", convolve.Capabilities{GPU: true}, 12, "filter2d"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			d := convolve.Description{Name: "v", Caps: tt.caps}
			cases := benchCases(d)
			if len(cases) != tt.want {
				t.Fatalf("%d cases, want %d: %v", len(cases), tt.want, cases)
			}
			timing := "cpu"
			if tt.caps.GPU {
				timing = "kernel"
			}
			for _, c := range cases {
				p, err := c.Problem()
				if err != nil {
					t.Fatal(err)
				}
				if err := tt.caps.Check(p); err != nil {
					t.Errorf("case %s outside the capabilities: %v", c.Name(), err)
				}
				keys, err := runfile.Parse(c.Name())
				if err != nil {
					t.Errorf("name %s does not parse: %v", c.Name(), err)
				}
				if keys["variant"] != "v" || keys["timing"] != timing || keys["filter"] == "" && tt.op == "filter2d" {
					t.Errorf("name %s: keys %v", c.Name(), keys)
				}
			}
		})
	}
}

// offByOne is a variant whose output is off by one at pixel (0, 0).
type offByOne struct{ convolve.Variant }

func (o offByOne) Describe() convolve.Description {
	d := o.Variant.Describe()
	d.Name += "-off-by-one"
	return d
}

func (o offByOne) Plan(p convolve.Problem, cfg convolve.Config) (convolve.Plan, error) {
	pl, err := o.Variant.Plan(p, cfg)
	if err != nil {
		return nil, err
	}
	return offByOnePlan{pl}, nil
}

type offByOnePlan struct{ convolve.Plan }

func (op offByOnePlan) Run(in, out *convolve.Image) error {
	if err := op.Plan.Run(in, out); err != nil {
		return err
	}
	out.Set(0, 0, 0, out.At(0, 0, 0)+1)
	return nil
}

// A wrong variant fails its gate and is not timed.
func TestBenchmarkVariantGatesWrongVariant(t *testing.T) {
	naive, err := convolve.Lookup("cpu-naive")
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		v     convolve.Variant
		timed bool
	}{{naive, true}, {offByOne{naive}, false}} {
		c := benchCases(tt.v.Describe())[0]
		r := testing.Benchmark(func(b *testing.B) { benchCase(b, tt.v, c) })
		if timed := r.N > 0; timed != tt.timed {
			t.Errorf("%s, case %s: timed %v (N=%d), want %v", tt.v.Describe().Name, c.Name(), timed, r.N, tt.timed)
		}
	}
}
