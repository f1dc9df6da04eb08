package convtest

import (
	"testing"

	"github.com/convbench/convbench/benchmarks/benchname"
	"github.com/convbench/convbench/convolve"
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
	} {
		t.Run(tt.name, func(t *testing.T) {
			d := convolve.Description{Name: "v", Caps: tt.caps}
			cases := benchCases(d)
			if len(cases) != tt.want {
				t.Fatalf("%d cases, want %d: %v", len(cases), tt.want, cases)
			}
			for _, c := range cases {
				p, err := c.Problem()
				if err != nil {
					t.Fatal(err)
				}
				if err := tt.caps.Check(p); err != nil {
					t.Errorf("case %s outside the capabilities: %v", c.Name(), err)
				}
				keys, err := benchname.Parse(c.Name())
				if err != nil {
					t.Errorf("name %s does not parse: %v", c.Name(), err)
				}
				if keys["variant"] != "v" || keys["timing"] != "cpu" || keys["filter"] == "" && tt.op == "filter2d" {
					t.Errorf("name %s: keys %v", c.Name(), keys)
				}
			}
		})
	}
}

// BenchmarkCPUFast runs the sweep on cpu-fast, as a benchmark of any
// module would on its own variant.
func BenchmarkCPUFast(b *testing.B) {
	v, err := convolve.Lookup("cpu-fast")
	if err != nil {
		b.Fatal(err)
	}
	BenchmarkVariant(b, v)
}

// A wrong variant fails its gate and is not timed.
func TestBenchmarkGatesWrongVariant(t *testing.T) {
	naive, err := convolve.Lookup("cpu-naive")
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		v     convolve.Variant
		timed bool
	}{{naive, true}, {brokenHalo{inner: naive}, false}} {
		c := benchCases(tt.v.Describe())[0]
		r := testing.Benchmark(func(b *testing.B) { benchCase(b, tt.v, c) })
		if timed := r.N > 0; timed != tt.timed {
			t.Errorf("%s, case %s: timed %v (N=%d), want %v", tt.v.Describe().Name, c.Name(), timed, r.N, tt.timed)
		}
	}
}
