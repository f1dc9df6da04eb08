package benchmarks

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/convbench/convbench/convolve"
	"github.com/convbench/convbench/runfile"
)

// Timing says what a benchmark case times.
type Timing string

const (
	// KernelTiming times only the device work, with CUDA events over b.N
	// launches from the host (GPU variants), reported as gpu-ns/op. Where
	// one launch takes the host longer than the kernel takes the GPU, this
	// is the host's launch rate; graphTiming is not.
	KernelTiming Timing = "kernel"
	// graphTiming times the device work like KernelTiming, with the b.N
	// runs replayed from CUDA graphs of up to variants.GraphBatch runs
	// (convolve.DevicePlan.TimeKernelGraph), so that the host's launch
	// rate, slower than the smallest kernels, does not enter the time.
	// Reported as gpu-ns/op.
	graphTiming Timing = "kernel-graph"
	// totalTiming times Plan.Run end to end: upload, kernel and download
	// for GPU variants, reported as total-ns/op.
	totalTiming Timing = "total"
	// planTiming times the plan itself, not a run of it: convolve.PlanFor
	// of the case's variant, problem and configuration (the NVRTC compile,
	// the module load, the device buffers and the filter's upload), Close
	// excluded (each plan is closed after its time is taken). The case's
	// Cache names the compile cache, not L2: Cold times each plan with
	// the memory and disk compile caches bypassed
	// (cudabind.BypassCompileCache), so that it compiles its kernels with
	// NVRTC as a process's first plan of a new specialization does; Hot
	// times plans whose kernels the caches hold. Reported as ns/op with
	// compiles/op and cache-hits/op, the proof of which it was. GPU
	// variants only.
	planTiming Timing = "plan"
	// CPUTiming times Plan.Run of a CPU variant with the host clock.
	CPUTiming Timing = runfile.CPUTiming
)

// Memory names the host memory a total-time GPU case copies from and to.
type Memory string

const (
	pageable Memory = "pageable" // ordinary Go memory
	pinned   Memory = "pinned"   // page-locked host memory
)

// Cache says whether L2 is flushed before every timed sample; for
// planTiming, whether the compile caches are bypassed (Cold) or serve the
// plan's kernels (Hot).
type Cache string

const (
	Hot  Cache = "hot"
	Cold Cache = "cold"
)

// Opts names the compile options of a GPU case's kernels. The zero value
// is the variants' default (--fmad=true, no fast math).
type Opts string

const (
	defaultOpts Opts = ""
	// noFMA compiles with --fmad=false: every multiply and add rounds
	// separately, as in cpu-naive (convolve.Config.NoFMA).
	noFMA Opts = "nofma"
	// fastMath compiles with --use_fast_math (convolve.Config.FastMath).
	fastMath Opts = "fast-math"
)

// Case is one benchmark: a variant, a problem and how it is timed. Its
// Name carries every field, so that benchstat can group by any of them.
type Case struct {
	Variant string
	Op      convolve.Operation
	Width   int
	Height  int
	// Filter is the library filter's canonical name (convolve.FilterSpec;
	// convolve.ParseFilter builds it), or the name of Weights; empty
	// unless Op is Filter2D.
	Filter string
	// Weights is the filter of a user's weights file, nil otherwise.
	Weights *convolve.Filter
	Block   convolve.Block
	Border  convolve.Border
	// Mode is correlate (the zero value) or convolve; the name's filter
	// key carries a convolve case's mode as <filter>@convolve.
	Mode     convolve.Mode
	Type     convolve.ElemType
	Channels int
	Layout   convolve.Layout
	Cache    Cache
	Timing   Timing
	Mem      Memory // TotalTiming only
	Opts     Opts   // GPU variants only
	// Tune sets tunables of the variant in convolve.FormatTunables's
	// form, for example "shared=1"; empty leaves them to the plan (its
	// GPU's tuning table, else the family's defaults), and tuneUntuned
	// asks for the family's defaults (convolve.Config.Untuned). GPU
	// variants only.
	Tune string
	// GPUs are the device ordinals of the case ("0", "0,0", "0,1"),
	// convolve.Config.Devices; empty leaves them to the variant (device
	// 0, or every GPU for the gpu-slab variants). GPU variants only.
	GPUs string
	GPU  bool // the variant needs a CUDA device
	// Image, when set, is the case's input in place of noise: Width,
	// Height and Channels are its own, and the name's size key carries
	// its name as WxH@name.
	Image *InputImage
	// ULP asks the gate for the max-ulp metric, the distance from
	// cpu-naive's output. Sweeps over compile options set it; elsewhere it
	// is left out, because cpu-naive costs more than the rest of a case.
	// Cases compiled with --fmad=false measure it regardless.
	ULP bool
}

// filterKey is the value of the filter key: the filter's spec for
// Filter2D, the operation's name otherwise.
func (c Case) filterKey() string {
	k := c.Op.String()
	if c.Op == convolve.Filter2D {
		k = c.Filter
	}
	if c.Mode == convolve.Convolve {
		k += "@convolve"
	}
	return k
}

// sizeKey is WxH, and @ and the image's name for a case on a user's image.
func (c Case) sizeKey() string {
	k := fmt.Sprintf("%dx%d", c.Width, c.Height)
	if c.Image != nil {
		k += "@" + c.Image.Name
	}
	return k
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
	case c.Opts == defaultOpts:
		return "default"
	}
	return string(c.Opts)
}

// Name is the sub-benchmark name: the keys of runfile.Keys as key=value,
// separated by slashes, for example
// variant=gpu-shared/size=2048x2048/filter=gauss5/k=5/block=32x8/border=zero/type=f32/ch=1/layout=interleaved/cache=hot/timing=kernel/mem=none/opts=default.
// Two keys are written only where they carry a choice: opts not by CPU
// cases (timing=cpu: no compile options; their names are those stored
// before the key existed, so that benchstat pairs fresh CPU runs with
// them), tune only by cases that set a tunable. runfile.Parse supplies the
// implied value of either. Two choices ride in other keys' values, so that
// every other name stays as it was: a case on a user's image has size
// WxH@<image name>, and a convolve-mode case filter <filter>@convolve.
func (c Case) Name() string {
	kw, kh := c.kernelSize()
	k := strconv.Itoa(kw)
	if kw != kh {
		k = fmt.Sprintf("%dx%d", kw, kh)
	}
	mem := "none"
	if c.Timing == totalTiming {
		mem = string(c.Mem)
	}
	vals := []string{
		c.Variant,
		c.sizeKey(),
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
		c.GPUs,
	}
	var sb strings.Builder
	for i, key := range runfile.Keys() {
		if key == "tune" && c.Tune == "" || key == "gpus" && c.GPUs == "" || key == "opts" && !c.GPU && c.Timing == CPUTiming {
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

// filter is the Filter2D filter of the case: Weights, or the library
// filter Filter names.
func (c Case) filter() (*convolve.Filter, error) {
	if c.Weights != nil {
		return c.Weights, nil
	}
	return convolve.ParseFilter(c.Filter)
}

// kernelSize is the size of the filter the case's operation applies
// (convolve.Problem.KernelSize), 0x0 for a filter that does not build.
func (c Case) kernelSize() (int, int) {
	p := convolve.Problem{Op: c.Op}
	if c.Op == convolve.Filter2D {
		f, err := c.filter()
		if err != nil {
			return 0, 0
		}
		p.Filter = f
	}
	return p.KernelSize()
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
		Mode:   c.Mode,
	}
	if c.Op == convolve.Filter2D {
		f, err := c.filter()
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

// tuneUntuned is the Tune of a case that runs with its family's
// heuristic defaults rather than its GPU's tuning table ("default" is the
// older names' value of a case without Tune).
const tuneUntuned = "untuned"

// Config is the plan configuration of the case. A Tune that does not
// parse gives no tunables; Preset.Expand leaves such a case out with a
// note, so no benchmark runs with one.
func (c Case) Config() convolve.Config {
	cfg := convolve.Config{Block: c.Block, NoFMA: c.Opts == noFMA, FastMath: c.Opts == fastMath, Untuned: c.Tune == tuneUntuned}
	if t, err := convolve.ParseTunables(c.Tune); err == nil && len(t) > 0 {
		cfg.Tunables = t
	}
	if devs, err := parseDevices(c.GPUs); err == nil {
		cfg.Devices = devs
	}
	return cfg
}

// parseDevices parses the device list of a gpus key (convolve.ParseDevices).
func parseDevices(s string) ([]int, error) {
	devs, err := convolve.ParseDevices(s)
	if err != nil {
		return nil, fmt.Errorf("benchmarks: gpus %q: %w", s, err)
	}
	return devs, nil
}

// Work is the number of multiply-adds of one run (pixels * channels *
// taps); CPU caps and the choice of correctness gate use it.
func (c Case) Work() int64 {
	kw, kh := c.kernelSize()
	return int64(c.Width) * int64(c.Height) * int64(c.Channels) * int64(kw*kh)
}
