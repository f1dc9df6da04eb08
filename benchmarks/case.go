package benchmarks

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/convbench/convbench/convolve"
)

// Timing says what a benchmark case times.
type Timing string

const (
	// KernelTiming times only the device work, with CUDA events over b.N
	// launches from the host (GPU variants), reported as gpu-ns/op. Where
	// one launch takes the host longer than the kernel takes the GPU, this
	// is the host's launch rate; GraphTiming is not.
	KernelTiming Timing = "kernel"
	// GraphTiming times the device work like KernelTiming, with the b.N
	// runs replayed from CUDA graphs of up to variants.GraphBatch runs
	// (convolve.DevicePlan.TimeKernelGraph), so that the host's launch
	// rate, slower than the smallest kernels, does not enter the time.
	// Reported as gpu-ns/op.
	GraphTiming Timing = "kernel-graph"
	// TotalTiming times Plan.Run end to end: upload, kernel and download
	// for GPU variants, reported as total-ns/op.
	TotalTiming Timing = "total"
	// CPUTiming times Plan.Run of a CPU variant with the host clock.
	CPUTiming Timing = "cpu"
)

// Memory names the host memory a total-time GPU case copies from and to.
type Memory string

const (
	Pageable Memory = "pageable" // ordinary Go memory
	Pinned   Memory = "pinned"   // page-locked host memory
)

// Cache says whether L2 is flushed before every timed sample.
type Cache string

const (
	Hot  Cache = "hot"
	Cold Cache = "cold"
)

// Opts names the compile options of a GPU case's kernels. The zero value
// is the variants' default (--fmad=true, no fast math).
type Opts string

const (
	DefaultOpts Opts = ""
	// NoFMA compiles with --fmad=false: every multiply and add rounds
	// separately, as in cpu-naive (convolve.Config.NoFMA).
	NoFMA Opts = "nofma"
	// FastMath compiles with --use_fast_math (convolve.Config.FastMath).
	FastMath Opts = "fast-math"
)

// Case is one benchmark: a variant, a problem and how it is timed. Its
// Name carries every field, so that benchstat can group by any of them.
type Case struct {
	Variant  string
	Op       convolve.Operation
	Width    int
	Height   int
	Filter   string // a convolve.ParseFilter spec; empty unless Op is Filter2D
	Block    convolve.Block
	Border   convolve.Border
	Type     convolve.ElemType
	Channels int
	Layout   convolve.Layout
	Cache    Cache
	Timing   Timing
	Mem      Memory // TotalTiming only
	Opts     Opts   // GPU variants only
	// Tune sets tunables of the variant in convolve.FormatTunables's
	// form, for example "shared=1"; empty leaves the variant's defaults.
	// GPU variants only.
	Tune string
	GPU  bool // the variant needs a CUDA device
	// ULP asks the gate for the max-ulp metric, the distance from
	// cpu-naive's output. Sweeps over compile options set it; elsewhere it
	// is left out, because cpu-naive costs more than the rest of a case.
	// Cases compiled with --fmad=false measure it regardless.
	ULP bool
}

// nameKeys is the order of the keys in every case name. New keys go at
// the end, so that names stored before them keep their prefix. The last,
// tune, is written only by cases that set a tunable, so that the names of
// all other cases are those stored before the key existed and benchstat
// still pairs them; ParseName supplies "default" (or "none" for a CPU
// case) where it is absent.
var nameKeys = []string{"variant", "size", "filter", "k", "block", "border", "type", "ch", "layout", "cache", "timing", "mem", "opts", "tune"}

// NameKeys returns the keys every case name carries, in order.
func NameKeys() []string { return append([]string(nil), nameKeys...) }

// filterKey is the value of the filter key: the filter's spec for
// Filter2D, the operation's name otherwise.
func (c Case) filterKey() string {
	if c.Op == convolve.Filter2D {
		return c.Filter
	}
	return c.Op.String()
}

// blockKey is "none" for CPU variants and "default" for the variant's own
// choice.
func (c Case) blockKey() string {
	switch {
	case !c.GPU:
		return "none"
	case c.Block == (convolve.Block{}):
		return "default"
	}
	return c.Block.String()
}

// optsKey is "none" for CPU variants, "default" for the variants' own
// compile options, else the Opts value.
func (c Case) optsKey() string {
	switch {
	case !c.GPU:
		return "none"
	case c.Opts == DefaultOpts:
		return "default"
	}
	return string(c.Opts)
}

// Name is the sub-benchmark name: the keys of NameKeys as key=value,
// separated by slashes, for example
// variant=gpu-shared/size=2048x2048/filter=gauss5/k=5/block=32x8/border=zero/type=f32/ch=1/layout=interleaved/cache=hot/timing=kernel/mem=none/opts=default.
// Two keys are written only where they carry a choice: opts not by CPU
// cases (timing=cpu: no compile options; their names are those stored
// before the key existed, so that benchstat pairs fresh CPU runs with
// them), tune only by cases that set a tunable. ParseName supplies the
// implied value of either.
func (c Case) Name() string {
	kw, kh := c.kernelSize()
	k := strconv.Itoa(kw)
	if kw != kh {
		k = fmt.Sprintf("%dx%d", kw, kh)
	}
	mem := "none"
	if c.Timing == TotalTiming {
		mem = string(c.Mem)
	}
	vals := []string{
		c.Variant,
		fmt.Sprintf("%dx%d", c.Width, c.Height),
		c.filterKey(),
		k,
		c.blockKey(),
		c.Border.String(),
		c.Type.String(),
		strconv.Itoa(c.Channels),
		c.Layout.String(),
		string(c.Cache),
		string(c.Timing),
		mem,
		c.optsKey(),
		c.Tune,
	}
	var sb strings.Builder
	for i, key := range nameKeys {
		if key == "tune" && c.Tune == "" || key == "opts" && !c.GPU && c.Timing == CPUTiming {
			continue
		}
		if i > 0 {
			sb.WriteByte('/')
		}
		sb.WriteString(key)
		sb.WriteByte('=')
		sb.WriteString(vals[i])
	}
	return sb.String()
}

func (c Case) kernelSize() (int, int) {
	switch c.Op {
	case convolve.Filter2D:
		f, err := convolve.ParseFilter(c.Filter)
		if err != nil {
			return 0, 0
		}
		return f.Width, f.Height
	case convolve.SobelMagnitude:
		return 3, 3
	}
	return 1, 1
}

// Problem builds the convolve problem of the case.
func (c Case) Problem() (convolve.Problem, error) {
	p := convolve.Problem{
		Op: c.Op,
		Input: convolve.Geometry{
			Width: c.Width, Height: c.Height, Channels: c.Channels,
			Type: c.Type, Layout: c.Layout,
		},
		Border: c.Border,
		Mode:   convolve.Correlate,
	}
	if c.Op == convolve.Filter2D {
		f, err := convolve.ParseFilter(c.Filter)
		if err != nil {
			return convolve.Problem{}, fmt.Errorf("benchmarks: case %s: %w", c.Name(), err)
		}
		p.Filter = f
	}
	if err := p.Validate(); err != nil {
		return convolve.Problem{}, fmt.Errorf("benchmarks: case %s: %w", c.Name(), err)
	}
	return p, nil
}

// Config is the plan configuration of the case. A Tune that does not
// parse gives no tunables; Preset.Expand leaves such a case out with a
// note, so no benchmark runs with one.
func (c Case) Config() convolve.Config {
	cfg := convolve.Config{Block: c.Block, NoFMA: c.Opts == NoFMA, FastMath: c.Opts == FastMath}
	if t, err := convolve.ParseTunables(c.Tune); err == nil && len(t) > 0 {
		cfg.Tunables = t
	}
	return cfg
}

// Work is the number of multiply-adds of one run (pixels * channels *
// taps); CPU caps and the choice of correctness gate use it.
func (c Case) Work() int64 {
	kw, kh := c.kernelSize()
	return int64(c.Width) * int64(c.Height) * int64(c.Channels) * int64(kw*kh)
}

// ParseName parses a case name (with or without a leading
// "BenchmarkConv/" and a trailing "-N" GOMAXPROCS suffix) into its
// key=value pairs. Names written before the opts key existed lack it, and
// names of cases that set no tunable lack tune; ParseName supplies what
// those runs used: "none" for CPU cases (timing=cpu), "default" for GPU
// cases.
func ParseName(name string) (map[string]string, error) {
	name = strings.TrimPrefix(name, "BenchmarkConv/")
	name = strings.TrimPrefix(name, "Conv/")
	if i := strings.LastIndexByte(name, '-'); i > strings.LastIndexByte(name, '=') {
		if _, err := strconv.Atoi(name[i+1:]); err == nil {
			name = name[:i]
		}
	}
	kv := map[string]string{}
	for _, part := range strings.Split(name, "/") {
		k, v, ok := strings.Cut(part, "=")
		if !ok || k == "" {
			return nil, fmt.Errorf("benchmarks: name part %q of %q is not key=value", part, name)
		}
		kv[k] = v
	}
	if _, ok := kv["opts"]; !ok {
		kv["opts"] = ImpliedOpts(kv["timing"])
	}
	if _, ok := kv["tune"]; !ok {
		kv["tune"] = ImpliedOpts(kv["timing"])
	}
	for _, k := range nameKeys {
		if _, ok := kv[k]; !ok {
			return nil, fmt.Errorf("benchmarks: name %q lacks key %q", name, k)
		}
	}
	return kv, nil
}

// ImpliedOpts is the opts (and tune) value of a case name that lacks the
// key: "none" for a CPU case (timing=cpu), "default" otherwise.
func ImpliedOpts(timing string) string {
	if timing == string(CPUTiming) {
		return "none"
	}
	return "default"
}
