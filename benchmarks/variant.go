package benchmarks

import (
	"errors"
	"math"
	"runtime"
	"slices"
	"testing"
	"time"

	"github.com/convbench/convbench/convolve"
	"github.com/convbench/convbench/cudabind"
)

// benchSizes, benchFilters and benchTypes span BenchmarkVariant's sweep:
// a small and an HD image, a small and a large separable filter and a
// dense one, bytes and floats.
var (
	benchSizes   = [][2]int{{512, 512}, {1920, 1080}}
	benchFilters = []string{"gauss3", "gauss9", "sharpen"}
	benchTypes   = []convolve.ElemType{convolve.Uint8, convolve.Float32}
)

// benchCases are the cases of BenchmarkVariant's sweep that lie within
// the capabilities of d. Cases of a variant without Filter2D run its
// first operation instead.
func benchCases(d convolve.Description) []Case {
	caps := d.Caps
	op := convolve.Filter2D
	if len(caps.Ops) > 0 && !slices.Contains(caps.Ops, op) {
		op = caps.Ops[0]
	}
	filters := benchFilters
	types := benchTypes
	channels := 1
	if op != convolve.Filter2D {
		filters = []string{""}
	}
	if op == convolve.RGBToYUV {
		types, channels = []convolve.ElemType{convolve.Uint8}, 3
	}
	border := convolve.Zero
	if len(caps.Borders) > 0 && !slices.Contains(caps.Borders, border) {
		border = caps.Borders[0]
	}
	timing := CPUTiming
	if caps.GPU {
		timing = KernelTiming
	}
	var cases []Case
	for _, size := range benchSizes {
		for _, f := range filters {
			for _, typ := range types {
				c := Case{
					Variant: d.Name, Op: op, Width: size[0], Height: size[1], Filter: f,
					Border: border, Type: typ, Channels: channels, Layout: convolve.Interleaved,
					Cache: Hot, Timing: timing, GPU: caps.GPU,
				}
				p, err := c.Problem()
				if err != nil || caps.Check(p) != nil {
					continue
				}
				cases = append(cases, c)
			}
		}
	}
	return cases
}

// BenchmarkVariant times v on a small representative sweep (two image
// sizes, three filters, two element types, within the capabilities v
// declares), one sub-benchmark per case named as the sweeps name their
// cases (Case.Name), for example
// variant=cpu-fast/size=512x512/filter=gauss3/k=3/block=none/border=zero/type=u8/ch=1/layout=interleaved/cache=hot/timing=cpu/mem=none.
// It is the benchmark of a variant written in a module of its own:
//
//	func BenchmarkConv(b *testing.B) { benchmarks.BenchmarkVariant(b, myVariant{}) }
//
// Named BenchmarkConv and run with -cpu 1, as the sweeps' binary runs
// (go test -run '^$' -bench . -cpu 1), its result lines are named as a
// sweep's lines of the same cases, byte for byte: testing adds a "-N"
// GOMAXPROCS suffix to every name when N is not 1, and the sweeps run at
// 1. A CPU variant's case still runs with GOMAXPROCS raised to the
// machine's CPUs, as the sweeps run CPU variants (their -cpu-threads), so
// that benchstat pairs the lines with a stored run's and compares like
// with like (benchstat -col /variant).
//
// Each case's output is first checked against the float64 reference,
// and a wrong variant fails instead of being timed. A CPU variant reports
// ns/op of Plan.Run; a GPU variant's input is uploaded once and gpu-ns/op
// is the device time of b.N kernel runs measured with events. Every case
// reports MPix/s and GB/s. b.N is the testing package's (-benchtime), not
// the sweeps' stop by noise, whose flags (-noise, -max-time) are those of
// this package's own test binary and the sweep command. A case whose plan
// fails with a *cudabind.UnavailableError (no GPU, or a library it needs
// is missing), or that the variant refuses as unsupported at plan time
// (a *convolve.CapabilityError), skips with the reason; any other plan
// error fails it.
func BenchmarkVariant(b *testing.B, v convolve.Variant) {
	if v == nil {
		b.Fatal("benchmarks: BenchmarkVariant of a nil variant")
	}
	d := v.Describe()
	cases := benchCases(d)
	if len(cases) == 0 {
		b.Skipf("%s: no case of the sweep lies within its capabilities %+v", d.Name, d.Caps)
	}
	for _, c := range cases {
		b.Run(c.Name(), func(b *testing.B) { benchCase(b, v, c) })
	}
}

// benchCase gates and times one case, a CPU variant's on every CPU of
// the machine (GOMAXPROCS raised to runtime.NumCPU while it runs, and
// set back after), as the sweeps time them.
func benchCase(b *testing.B, v convolve.Variant, c Case) {
	if n := runtime.NumCPU(); !c.GPU && runtime.GOMAXPROCS(0) < n {
		defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(n))
	}
	p, err := c.Problem()
	if err != nil {
		b.Fatal(err)
	}
	in, err := NewInput(p, 1)
	if err != nil {
		b.Fatal(err)
	}
	out, err := p.NewOutput()
	if err != nil {
		b.Fatal(err)
	}
	pl, err := convolve.PlanFor(v, p, c.Config())
	if ue := new(cudabind.UnavailableError); errors.As(err, &ue) {
		b.Skipf("%s needs a GPU: %s", c.Variant, ue.Error())
	}
	if ce := new(convolve.CapabilityError); errors.As(err, &ce) {
		b.Skipf("%s: unsupported, skipped: %v", c.Variant, err)
	}
	if err != nil {
		b.Fatalf("plan: %v", err)
	}
	defer func() {
		if err := pl.Close(); err != nil {
			b.Errorf("close: %v", err)
		}
	}()
	out.Fill(math.NaN())
	if err := pl.Run(in, out); err != nil {
		b.Fatalf("run: %v", err)
	}
	m, _, err := gateModel(p, in, out, convolve.ModelOf(v, p, c.Config()))
	if err != nil {
		b.Fatalf("gate: %v", err)
	}
	if !m.OK() {
		b.Fatalf("wrong output, not timed: %v", m)
	}
	tp := convolve.ThroughputOf(p)
	var per time.Duration
	if dp, ok := pl.(convolve.DevicePlan); ok && c.GPU {
		if err := dp.Upload(in); err != nil {
			b.Fatalf("upload: %v", err)
		}
		b.ResetTimer()
		dt, err := dp.TimeKernel(b.N)
		b.StopTimer()
		if err != nil {
			b.Fatalf("kernel timing: %v", err)
		}
		per = dt / time.Duration(b.N)
		b.ReportMetric(float64(dt.Nanoseconds())/float64(b.N), "gpu-ns/op")
	} else {
		b.ResetTimer()
		start := time.Now()
		for i := 0; i < b.N; i++ {
			if err := pl.Run(in, out); err != nil {
				b.Fatalf("run: %v", err)
			}
		}
		b.StopTimer()
		per = time.Since(start) / time.Duration(b.N)
	}
	if per <= 0 {
		b.Fatalf("%s: measured a non-positive time %v per operation", c.Variant, per)
	}
	b.ReportMetric(tp.MPixPerSec(per), "MPix/s")
	b.ReportMetric(tp.GBPerSec(per), "GB/s")
}
