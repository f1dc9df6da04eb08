package benchmarks

import (
	"runtime"
	"slices"
	"strings"
	"sync/atomic"
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

// procsSeen wraps a CPU variant and records the largest GOMAXPROCS its
// plans ran under.
type procsSeen struct {
	convolve.Variant
	max *atomic.Int64
}

func (v procsSeen) Plan(p convolve.Problem, cfg convolve.Config) (convolve.Plan, error) {
	pl, err := v.Variant.Plan(p, cfg)
	if err != nil {
		return nil, err
	}
	return procsSeenPlan{pl, v.max}, nil
}

type procsSeenPlan struct {
	convolve.Plan
	max *atomic.Int64
}

func (p procsSeenPlan) Run(in, out *convolve.Image) error {
	n := int64(runtime.GOMAXPROCS(0))
	for m := p.max.Load(); n > m && !p.max.CompareAndSwap(m, n); m = p.max.Load() {
	}
	return p.Plan.Run(in, out)
}

// At -cpu 1, where its names are the sweeps', BenchmarkVariant still
// runs a CPU variant on every CPU, as the sweeps do, and leaves
// GOMAXPROCS as it found it.
func TestBenchmarkVariantCPUThreads(t *testing.T) {
	if runtime.NumCPU() == 1 {
		t.Skip("one CPU: every GOMAXPROCS is the machine's")
	}
	naive, err := convolve.Lookup("cpu-naive")
	if err != nil {
		t.Fatal(err)
	}
	v := procsSeen{naive, new(atomic.Int64)}
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
	c := benchCases(v.Describe())[0]
	if r := testing.Benchmark(func(b *testing.B) { benchCase(b, v, c) }); r.N == 0 {
		t.Fatalf("case %s was not timed", c.Name())
	}
	if got := v.max.Load(); got != int64(runtime.NumCPU()) {
		t.Errorf("the CPU variant ran under GOMAXPROCS %d, want the %d CPUs", got, runtime.NumCPU())
	}
	if p := runtime.GOMAXPROCS(0); p != 1 {
		t.Errorf("GOMAXPROCS %d after the case, want 1 as before it", p)
	}
}

// resultNames returns the names of the result lines of out that start
// with prefix, without it.
func resultNames(out, prefix string) []string {
	var names []string
	for _, l := range strings.Split(out, "\n") {
		if rest, ok := strings.CutPrefix(l, prefix); ok {
			names = append(names, strings.Fields(rest)[0])
		}
	}
	slices.Sort(names)
	return names
}

// A variant's benchmark (BenchmarkVariant) and a sweep of the same cases,
// both run as documented (-cpu 1), name their result lines alike, below
// the benchmark function's name, so that benchstat pairs them.
func TestBenchmarkVariantNamesAsTheSweep(t *testing.T) {
	common := []string{"-test.run", "^$", "-test.cpu", "1", "-test.benchtime", "1x", "-test.count", "1"}
	sweep, errOut, ok := runFake(t, nil, append(common, "-test.bench", "^BenchmarkConv$",
		"-variants", "cpu-naive", "-sizes", "512x512", "-filters", "gauss3,sharpen", "-types", "u8,f32", "-max-time", "100ms")...)
	if !ok {
		t.Fatalf("the sweep failed:\n%s\n%s", sweep, errOut)
	}
	own, errOut, ok := runFake(t, []string{fakeVariantsEnv + "_RUN=cpu-naive"}, append(common,
		"-test.bench", "^BenchmarkFakeVariants$/^variant=cpu-naive$/^size=512x512$/^filter=(gauss3|sharpen)$/")...)
	if !ok {
		t.Fatalf("BenchmarkVariant failed:\n%s\n%s", own, errOut)
	}
	s, v := resultNames(sweep, "BenchmarkConv/"), resultNames(own, "BenchmarkFakeVariants/")
	if len(s) != 4 || !slices.Equal(s, v) {
		t.Errorf("the sweep names its 4 cases\n%q\nBenchmarkVariant names them\n%q", s, v)
	}
}
