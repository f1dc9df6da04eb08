package benchmarks

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/convbench/convbench/convolve"
)

// Preset is a named set of benchmark cases: one experiment of one of the
// source reports, a union of them, or the short default set.
type Preset struct {
	Name    string
	Report  string // "000".."004", or "" for default and unions
	Summary string
	// sweeps build the candidate cases; variant names may end in '*'
	// (a prefix) or be "*" (every registered variant but the reference),
	// and a sweep's except patterns take variants out of what they match.
	sweeps []sweep
	// parts names other presets whose cases this one includes.
	parts []string
	// override holds the axes set by flags given beside the preset; they
	// replace the axes of every sweep of it and of its parts.
	override Axes
}

// customName is the name of a sweep built from axis flags alone, and the
// suffix of a preset's name when axis flags override its axes.
const customName = "custom"

// BuildSweep returns the sweep to run: the preset named preset with the
// axes flags sets in place of its own, or, with preset empty, a sweep
// built from flags alone whose unset axes take their defaults (AxisFlags).
// A preset with overrides is named "<preset>-custom", a sweep from flags
// alone "custom". An image sets the sizes, so giving them beside it is an
// error.
func BuildSweep(preset string, flags Axes) (Preset, error) {
	if flags.Image != nil && flags.Sizes != nil {
		return Preset{}, fmt.Errorf("benchmarks: -image %s sets the size of every case: give it without -sizes", flags.Image.Name)
	}
	if preset == "" {
		return Preset{Name: customName, Summary: "axes from the command line", sweeps: []sweep{{}}, override: flags}, nil
	}
	p, err := lookupPreset(preset)
	if err != nil {
		return Preset{}, err
	}
	if flags.Set() {
		p.Name += "-" + customName
		p.override = flags
	}
	return p, nil
}

// sweep is the cross product of its axes, all other fields fixed.
type sweep struct {
	variants []string
	// except are variant names or patterns, as variants has them, that
	// the sweep leaves out of what its patterns match (another sweep of
	// the preset times them on a problem they run); they do not apply
	// when flags replace the sweep's variants.
	except  []string
	op      convolve.Operation
	sizes   [][2]int
	filters []string // library filters' names (convolve.FilterSpec; Filter2D only)
	blocks  []convolve.Block
	typ     convolve.ElemType
	ch      int
	layout  convolve.Layout
	borders []convolve.Border // nil means the default, zero
	timings []Timing          // GPU variants; nil means kernel
	mems    []Memory          // for TotalTiming; nil means pageable
	cache   Cache
	opts    []Opts // GPU variants; nil means the default options
	// tunes lists, per variant of variants, the Tune values to sweep
	// (Case.Tune); a variant without an entry runs with its defaults.
	tunes map[string][]string
	// gpus are the device lists to sweep (Axes.GPUs); nil leaves them to
	// the variants.
	gpus []string
	// choices, when set, is the timing axis in place of timings and
	// cache: the choices of -timing, each with its cache.
	choices []TimingChoice
}

func squares(sides ...int) [][2]int {
	s := make([][2]int, len(sides))
	for i, n := range sides {
		s[i] = [2]int{n, n}
	}
	return s
}

func blocks(specs ...string) []convolve.Block {
	bs := make([]convolve.Block, len(specs))
	for i, s := range specs {
		b, err := convolve.ParseBlock(s)
		if err != nil {
			panic("benchmarks: preset block: " + err.Error()) // fixed tables below
		}
		bs[i] = b
	}
	return bs
}

// sized is the names of family's filters of sizes ks ("dense3").
func sized(family string, ks ...int) []string {
	s := make([]string, len(ks))
	for i, k := range ks {
		s[i] = convolve.FilterSpec{Family: family, K: k}.String()
	}
	return s
}

// axes are the sweep's axes; those it leaves unset stay nil.
func (s sweep) axes() Axes {
	a := Axes{Variants: s.variants, Sizes: s.sizes, Blocks: s.blocks, Mems: s.mems, GPUs: s.gpus,
		Types: []convolve.ElemType{s.typ}, Layouts: []convolve.Layout{s.layout}}
	if s.op != convolve.Filter2D {
		a.Filters = []FilterChoice{{Op: s.op}}
	} else if s.filters != nil {
		for _, f := range s.filters {
			a.Filters = append(a.Filters, FilterChoice{Op: convolve.Filter2D, Spec: f})
		}
	}
	if s.ch != 0 {
		a.Channels = []int{s.ch}
	}
	a.Borders = s.borders
	cache := s.cache
	if cache == "" {
		cache = Hot
	}
	timings := s.timings
	if len(timings) == 0 && cache == Cold {
		timings = []Timing{KernelTiming}
	}
	for _, t := range timings {
		a.Timings = append(a.Timings, TimingChoice{Timing: t, Cache: cache})
	}
	if s.choices != nil {
		a.Timings = slices.Clone(s.choices)
	}
	return a
}

// withDefaults fills the unset axes of a from defaultAxes.
func (a Axes) withDefaults() Axes {
	return defaultAxes.Override(a)
}

// cases lists the sweep's candidate cases with o's axes in place of its
// own, variant patterns unresolved: the cross product of the axes, the
// first varying slowest, with memories only for total-time cases and each
// variant's own tunes.
func (s sweep) cases(o Axes) []Case {
	a := s.axes().Override(o).withDefaults()
	opts := s.opts
	if len(opts) == 0 {
		opts = []Opts{defaultOpts}
	}
	cs := []Case{{Image: a.Image, ULP: len(s.opts) > 0}}
	cs = cross(cs, each(a.Variants), func(c *Case, v string) { c.Variant = v })
	cs = cross(cs, each(a.Sizes), func(c *Case, sz [2]int) { c.Width, c.Height = sz[0], sz[1] })
	cs = cross(cs, each(a.Filters), func(c *Case, f FilterChoice) { c.Op, c.Filter, c.Weights = f.Op, f.Spec, f.Weights })
	cs = cross(cs, each(a.Types), func(c *Case, t convolve.ElemType) { c.Type = t })
	cs = cross(cs, each(a.Channels), func(c *Case, ch int) { c.Channels = ch })
	cs = cross(cs, each(a.Layouts), func(c *Case, l convolve.Layout) { c.Layout = l })
	cs = cross(cs, each(a.Borders), func(c *Case, b convolve.Border) { c.Border = b })
	cs = cross(cs, each(a.Modes), func(c *Case, m convolve.Mode) { c.Mode = m })
	cs = cross(cs, each(a.Blocks), func(c *Case, b convolve.Block) { c.Block = b })
	cs = cross(cs, each(a.Timings), func(c *Case, t TimingChoice) { c.Timing, c.Cache = t.Timing, t.Cache })
	cs = cross(cs, func(c Case) []Memory {
		if c.Timing == totalTiming {
			return a.Mems
		}
		return []Memory{""}
	}, func(c *Case, m Memory) { c.Mem = m })
	cs = cross(cs, each(opts), func(c *Case, op Opts) { c.Opts = op })
	cs = cross(cs, func(c Case) []string {
		if t := s.tunes[c.Variant]; len(t) > 0 {
			return t
		}
		return []string{""}
	}, func(c *Case, tu string) { c.Tune = tu })
	return cross(cs, each(a.GPUs), func(c *Case, g string) { c.GPUs = g })
}

// cross is each case of cs once for each of the values vals gives it, in
// order, with set setting the value.
func cross[T any](cs []Case, vals func(Case) []T, set func(*Case, T)) []Case {
	var out []Case
	for _, c := range cs {
		for _, v := range vals(c) {
			set(&c, v)
			out = append(out, c)
		}
	}
	return out
}

// each gives every case the values vs.
func each[T any](vs []T) func(Case) []T { return func(Case) []T { return vs } }

var (
	report000Variants = []string{"cpu-naive", "gpu-naive", "gpu-const", "gpu-shared"}
	report001Filters  = []string{"prewitt-x", "gauss5", "gauss7", "log5", "sharpen"}
	report002Variants = []string{"gpu-naive", "gpu-naive-padded", "gpu-const", "gpu-shared", "gpu-shared-rows", "gpu-texture*"}
	report003Variants = []string{"cpu-naive", "gpu-ch-*"}
	report003Sizes    = [][2]int{{100, 100}, {100, 1000}, {1000, 1000}, {1000, 10000}, {10000, 10000}, {10000, 100000}}
)

// multiGPU is the variant preset 004-multigpu times: the register-tiled
// direct family (no finite-input scan in the total time, Gaussian 21 as
// a dense 21x21) on row slabs.
const multiGPU = "gpu-slab-gpu-regtile"

// multiGPUSweeps are the sweeps of preset 004-multigpu, pruned so that
// one H100 runs it in about four minutes: the 32768x32768 images (4 GiB
// in f32) only where report 004's pipeline is at its best (pinned, four
// streams) and resident.
func multiGPUSweeps() []sweep {
	streams := map[string][]string{multiGPU: {"streams=1", "streams=4"}}
	four := map[string][]string{multiGPU: {"streams=4"}}
	// The large image's pipeline also with 16 chunks a device: shorter
	// fill and drain (the first upload and the last kernel and download,
	// which nothing overlaps) than the default 4.
	fourMore := map[string][]string{multiGPU: {"streams=4", "chunks=16,streams=4"}}
	var out []sweep
	for _, typ := range []convolve.ElemType{convolve.Float32, convolve.Uint8} {
		base := sweep{variants: []string{multiGPU}, typ: typ, filters: []string{"gauss5", "gauss21"}}
		total, resident, logical, big, bigRes := base, base, base, base, base
		total.sizes, total.timings, total.mems, total.tunes, total.gpus = squares(8192), []Timing{totalTiming}, []Memory{pageable, pinned}, streams, []string{"0", "all"}
		resident.sizes, resident.timings, resident.gpus = squares(8192), []Timing{KernelTiming}, []string{"0", "all", "0,0"}
		logical.sizes, logical.timings, logical.mems, logical.tunes, logical.gpus = squares(8192), []Timing{totalTiming}, []Memory{pinned}, four, []string{"0,0"}
		big.sizes, big.timings, big.mems, big.tunes, big.gpus = squares(32768), []Timing{totalTiming}, []Memory{pinned}, fourMore, []string{"0", "all"}
		bigRes.sizes, bigRes.timings, bigRes.gpus = squares(32768), []Timing{KernelTiming}, []string{"0", "all"}
		out = append(out, total, resident, logical, big, bigRes)
	}
	return out
}

// rooflineKs are the filter sides of preset roofline: the DRAM-bound
// sizes (3, 5, 7) and the FP32-bound ones (9 to 31).
var rooflineKs = []int{3, 5, 7, 9, 11, 15, 21, 31}

// rooflineShapes are the sweeps of preset roofline-shapes: the element
// types and channel layouts (each against its own DRAM floor), the border
// modes (against zero) and an odd, unaligned size (against 4096x4096 per
// pixel), for the direct kernels of the roofline at its DRAM-bound K.
func rooflineShapes() []sweep {
	vs := []string{"gpu-regtile", "gpu-tiled"}
	fs := sized("dense", 3, 5, 7)
	g := []Timing{graphTiming}
	var out []sweep
	for _, typ := range []convolve.ElemType{convolve.Float32, convolve.Uint8, convolve.Int16} {
		out = append(out, sweep{variants: vs, sizes: squares(4096), filters: fs, typ: typ, ch: 1, timings: g})
		for _, lay := range []convolve.Layout{convolve.Interleaved, convolve.Planar} {
			out = append(out, sweep{variants: vs, sizes: squares(4096), filters: fs, typ: typ, ch: 3, layout: lay, timings: g})
		}
	}
	var borders []convolve.Border // zero is the first sweep's
	for _, b := range convolve.Borders {
		if b != convolve.Zero {
			borders = append(borders, b)
		}
	}
	out = append(out,
		sweep{variants: vs, sizes: squares(4096), filters: fs, ch: 1, borders: borders, timings: g},
		sweep{variants: vs, sizes: [][2]int{{4099, 4097}}, filters: fs, ch: 1, timings: g})
	return out
}

// crossoverKs are the filter sides preset crossover times at 4096x4096
// and 8192x8192, and crossoverLargeKs those past them it times at
// 1024x1024, where the direct paths stay short enough to time beside the
// FFT.
var (
	crossoverKs      = []int{3, 7, 11, 21, 31}
	crossoverLargeKs = []int{45, 63, 75}
)

// crossoverVariants are the paths and peers of preset crossover and the
// auto variant that picks among the paths. A name that is not registered
// on the host (a peer whose library is absent, a path not built) is left
// out with a note.
var crossoverVariants = []string{"gpu-regtile", "gpu-tiled", "gpu-sepfused", "gpu-separable", "gpu-fft", "gpu-tc-*", "cudnn*", "npp*", "auto*"}

// regtileTunes are the outputs per thread preset tuning-regtile sweeps:
// rx 2, 4, 8 by ry 1, 2, 4, 8.
func regtileTunes() []string {
	var t []string
	for _, rx := range []int{2, 4, 8} {
		for _, ry := range []int{1, 2, 4, 8} {
			t = append(t, fmt.Sprintf("rx=%d,ry=%d", rx, ry))
		}
	}
	return t
}

// regtileCandidates are the outputs per thread preset tuning-regtile
// also times on 64x4 and 32x16 blocks: RegtileDefaults' choices for
// DRAM-bound (rx=4, ry=2) and FP32-bound filters (rx=4, ry=8, walked in
// chunks of 2 rows), and two neighbours (rx=4, ry=4; rx=8, ry=2).
var regtileCandidates = []string{"rx=4,ry=2", "rx=4,ry=4", "rx=4,ry=8", "rx=8,ry=2"}

// planVariants are the variants preset plan times on the default problem
// (1024x1024 f32 Gaussian 5x5): every single-GPU family that compiles its
// kernels with NVRTC but the tensor-core ones, which sum a 5x5 filter on
// CUDA cores, and the channel strategies, Sobel and RGB->YUV, which take
// other problems (planSweeps has them). The cuDNN peers compile nothing
// with NVRTC and the gpu-slab wrappers compile their wrapped family's
// kernels, so neither is here.
var planVariants = []string{"gpu-naive*", "gpu-const", "gpu-shared*", "gpu-texture*", "gpu-tiled", "gpu-regtile",
	"gpu-separable", "gpu-sepfused", "gpu-fft", "npp", "auto"}

// planChoices time a warm plan (the compile cache holds the kernels) and
// a cold one (the caches bypassed: NVRTC compiles them).
var planChoices = []TimingChoice{{planTiming, Hot}, {planTiming, Cold}}

// planSweeps are the sweeps of preset plan: a warm and a cold plan of
// every family on a problem it runs, the tensor-core families on a dense
// 7x7, the smallest filter all three run on tensor cores.
var planSweeps = []sweep{
	{variants: planVariants, sizes: squares(1024), filters: []string{"gauss5"}, choices: planChoices},
	{variants: []string{"gpu-tc-*"}, sizes: squares(1024), filters: []string{"dense7"}, choices: planChoices},
	{variants: []string{"gpu-ch-*"}, sizes: squares(1024), filters: []string{"gauss5"}, ch: 3, choices: planChoices},
	{variants: []string{"gpu-sobel"}, op: convolve.SobelMagnitude, sizes: squares(1024), typ: convolve.Uint8, choices: planChoices},
	{variants: []string{"gpu-rgb2yuv"}, op: convolve.RGBToYUV, sizes: squares(1024), typ: convolve.Uint8, ch: 3, choices: planChoices},
}

// presets is every preset: single experiments first, then the
// per-report unions and "all".
var presets = []Preset{
	{Name: "000-image-size", Report: "000", Summary: "Gaussian 3x3, 16x16 blocks, images 256..4096 (tables 5.5, 5.6)",
		sweeps: []sweep{{variants: report000Variants, sizes: squares(256, 512, 1024, 2048, 4096),
			filters: []string{"gauss3"}, blocks: blocks("16x16")}}},
	{Name: "000-filter-size", Report: "000", Summary: "1024x1024, 16x16 blocks, Gaussian 3, 5, 7 (tables 5.7, 5.8)",
		sweeps: []sweep{{variants: report000Variants, sizes: squares(1024),
			filters: sized("gauss", 3, 5, 7), blocks: blocks("16x16")}}},
	{Name: "000-block-shape", Report: "000", Summary: "2048x2048 Gaussian 5x5, blocks 8x8..32x32 (tables 5.9, 5.10)",
		sweeps: []sweep{{variants: report000Variants[1:], sizes: squares(2048),
			filters: []string{"gauss5"}, blocks: blocks("8x8", "16x16", "32x8", "32x16", "32x32")}}},

	{Name: "001-image-size", Report: "001", Summary: "8-bit RGB, five filters, 512..4096, global vs shared, 16x16 (tables 1, 2)",
		sweeps: []sweep{{variants: []string{"cpu-naive", "gpu-naive", "gpu-shared"},
			sizes: squares(512, 1024, 1920, 2560, 3840, 4096), filters: report001Filters,
			blocks: blocks("16x16"), typ: convolve.Uint8, ch: 3}}},
	{Name: "001-filter-size", Report: "001", Summary: "8-bit RGB 1024x1024, Gaussian and box 3..21 (tables 3, 4)",
		sweeps: []sweep{{variants: []string{"cpu-naive", "gpu-naive", "gpu-shared"}, sizes: squares(1024),
			filters: append(sized("gauss", 3, 5, 7, 9, 11, 15, 21), sized("box", 3, 5, 7, 9, 11, 15, 21)...),
			blocks:  blocks("16x16"), typ: convolve.Uint8, ch: 3}}},
	{Name: "001-block-shape", Report: "001", Summary: "8-bit RGB 1920x1920, five filters, block shapes 4x4..32x32 (table 5)",
		sweeps: []sweep{{variants: []string{"gpu-naive", "gpu-shared"}, sizes: squares(1920), filters: report001Filters,
			blocks: blocks("4x4", "8x8", "16x8", "8x16", "16x16", "32x8", "32x16", "16x32", "32x32"),
			typ:    convolve.Uint8, ch: 3}}},

	{Name: "002-filter-size", Report: "002", Summary: "1024x1024 box 3..75, every memory-type variant, kernel and total time (figs 6-9, table 1)",
		sweeps: []sweep{
			{variants: append([]string{"cpu-naive"}, report002Variants...), sizes: squares(1024),
				filters: sized("box", 3, 7, 15, 23, 31, 45, 61, 75), blocks: blocks("32x32"),
				timings: []Timing{KernelTiming, totalTiming}},
		}},
	{Name: "002-block-size", Report: "002", Summary: "1024x1024 box 3, 23, 61, square blocks 4..32, every memory-type variant (figs 10-12)",
		sweeps: []sweep{{variants: report002Variants, sizes: squares(1024), filters: sized("box", 3, 23, 61),
			blocks: blocks("4x4", "8x8", "16x16", "32x32")}}},
	{Name: "002-exactness", Report: "002", Summary: "1024x1024 box 3, 9, 25, 75, block 32x32, gpu-naive and gpu-const compiled with default options, --fmad=false and --use_fast_math: kernel time and max ULP distance from cpu-naive",
		sweeps: []sweep{{variants: []string{"gpu-naive", "gpu-const"}, sizes: squares(1024), filters: sized("box", 3, 9, 25, 75),
			blocks: blocks("32x32"), opts: []Opts{defaultOpts, noFMA, fastMath}}}},

	{Name: "003-filter-size", Report: "003", Summary: "1000x1000 RGB int16 planar, box K 3..121, channel strategies (table 1)",
		sweeps: []sweep{{variants: report003Variants, sizes: squares(1000), filters: sized("box", 3, 9, 17, 33, 63, 121),
			typ: convolve.Int16, ch: 3, layout: convolve.Planar, timings: []Timing{KernelTiming, totalTiming}}}},
	{Name: "003-image-size", Report: "003", Summary: "box 11x11 RGB int16 planar over 100x100..10000x100000, channel strategies (table 3)",
		sweeps: []sweep{{variants: report003Variants, sizes: report003Sizes, filters: []string{"box11"},
			typ: convolve.Int16, ch: 3, layout: convolve.Planar, timings: []Timing{KernelTiming, totalTiming}}}},

	{Name: "004-sobel", Report: "004", Summary: "Sobel magnitude, 1024x1024 8-bit gray, CPU naive/fast vs GPU naive (gpu-sobel) and optimised (shared=1) (table I)",
		sweeps: []sweep{{variants: []string{"cpu-naive", "cpu-fast", "gpu-sobel"}, op: convolve.SobelMagnitude,
			sizes: squares(1024), typ: convolve.Uint8, tunes: map[string][]string{"gpu-sobel": {"", "shared=1"}}}}},
	{Name: "004-gaussian", Report: "004", Summary: "Gaussian 2-D vs separable K 3..11, 1024x1024 8-bit gray; separable with naive (shared=0) and shared-memory passes (table I, figs 4-6)",
		sweeps: []sweep{{variants: []string{"cpu-naive", "cpu-fast", "gpu-naive", "gpu-shared", "gpu-separable"},
			sizes: squares(1024), filters: sized("gauss", 3, 5, 7, 9, 11), typ: convolve.Uint8,
			tunes: map[string][]string{"gpu-separable": {"", "shared=0"}}}}},
	{Name: "004-rgb2yuv", Report: "004", Summary: "RGB->YUV 1024x1024, naive (gpu-rgb2yuv) and optimised (opt=1) kernels, kernel and total time from pageable and pinned memory (table I)",
		sweeps: []sweep{{variants: []string{"cpu-naive", "cpu-fast", "gpu-rgb2yuv"}, op: convolve.RGBToYUV,
			sizes: squares(1024), typ: convolve.Uint8, ch: 3,
			timings: []Timing{KernelTiming, totalTiming}, mems: []Memory{pageable, pinned},
			tunes: map[string][]string{"gpu-rgb2yuv": {"", "opt=1"}}}}},

	{Name: "default", Summary: "a short representative set: every variant on Gaussian 5x5 at 1024 (the stream variants at 128x1024, under their caps), sizes, filter sizes, Sobel, RGB->YUV, total and cold time, host launches vs graph replay, and gpu-regtile's warm and cold plan",
		sweeps: []sweep{
			{variants: []string{"*"}, except: []string{"gpu-stream*"}, sizes: squares(1024), filters: []string{"gauss5"}},
			// The stream variants (gpu-stream<cap>-<variant>, package
			// gpu/gpuslab) refuse an image one row of which, with the
			// filter's halo rows, does not fit twice under their cap (an
			// input and a float32 output slab buffer): 1024 float32
			// columns and Gaussian 5x5's 4 halo rows need 80 KiB, over
			// gpu-stream16KiB's 16 KiB. At 128 columns a slab holds 4
			// output rows, as many as its halo rows, and the 1024 rows
			// stream through 256 slabs: the streamed path at its smallest
			// cap, on the sweep's filter and height.
			{variants: []string{"gpu-stream*"}, sizes: [][2]int{{128, 1024}}, filters: []string{"gauss5"}},
			{variants: []string{"cpu-naive", "cpu-fast", "gpu-naive", "gpu-const", "gpu-shared", "gpu-separable"},
				sizes: squares(512, 2048), filters: []string{"gauss5"}},
			{variants: []string{"cpu-naive", "cpu-fast", "gpu-naive", "gpu-const", "gpu-shared", "gpu-separable"},
				sizes: squares(1024), filters: sized("gauss", 3, 7, 11)},
			{variants: []string{"cpu-fast", "gpu-sobel"}, op: convolve.SobelMagnitude, sizes: squares(1024), typ: convolve.Uint8,
				tunes: map[string][]string{"gpu-sobel": {"", "shared=1"}}},
			{variants: []string{"cpu-fast", "gpu-rgb2yuv"}, op: convolve.RGBToYUV, sizes: squares(1024), typ: convolve.Uint8, ch: 3,
				timings: []Timing{KernelTiming, totalTiming}, mems: []Memory{pageable, pinned},
				tunes: map[string][]string{"gpu-rgb2yuv": {"", "opt=1"}}},
			{variants: []string{"gpu-shared"}, sizes: squares(1024), filters: []string{"gauss5"},
				timings: []Timing{totalTiming}, mems: []Memory{pageable, pinned}},
			{variants: []string{"gpu-shared"}, sizes: squares(2048), filters: []string{"gauss5"}, cache: Cold},
			{variants: []string{"gpu-naive", "gpu-shared", "gpu-tiled"}, sizes: squares(256, 1024), filters: []string{"gauss5"},
				timings: []Timing{KernelTiming, graphTiming}},
			// The framework's own cost, for one family: a warm and a cold
			// plan, two cases of six lines of about -max-time each (12 to
			// 36s on a GPU host; preset plan times every family).
			{variants: []string{"gpu-regtile"}, sizes: squares(1024), filters: []string{"gauss5"}, choices: planChoices},
		}},
	{Name: "launch-overhead", Summary: "kernel time from one host launch per run against CUDA-graph replays: report 000's variants on Gaussian 3x3, 16x16 blocks, images 64..4096, and the small 004 kernels at 1024",
		sweeps: []sweep{
			{variants: report000Variants[1:], sizes: squares(64, 128, 256, 512, 1024, 2048, 4096),
				filters: []string{"gauss3"}, blocks: blocks("16x16"), timings: []Timing{KernelTiming, graphTiming}},
			{variants: []string{"gpu-sobel"}, op: convolve.SobelMagnitude, sizes: squares(1024), typ: convolve.Uint8,
				timings: []Timing{KernelTiming, graphTiming}},
			{variants: []string{"gpu-rgb2yuv"}, op: convolve.RGBToYUV, sizes: squares(1024), typ: convolve.Uint8, ch: 3,
				timings: []Timing{KernelTiming, graphTiming}},
		}},
	{Name: "plan", Summary: "the framework's own cost: the time to make a plan, cold (compile caches bypassed: NVRTC compiles the kernels) and warm (the kernels cached), of every GPU family that compiles with NVRTC, at 1024x1024 on Gaussian 5x5 f32 (tensor-core families dense 7x7; channel strategies RGB f32, Sobel and RGB->YUV u8); goal: a cold plan within 200 ms",
		sweeps: planSweeps},
	{Name: "tuning-unroll", Summary: "1024x1024 box 59..75 around unroll.cuh's 64-column limit, block 32x32: the three kernels that include it and gpu-naive-padded, which does not",
		sweeps: []sweep{{variants: []string{"gpu-shared", "gpu-shared-rows", "gpu-texture-shared", "gpu-naive-padded"}, sizes: squares(1024),
			filters: sized("box", 59, 61, 63, 65, 67, 69, 75), blocks: blocks("32x32")}}},
	{Name: "tuning-tiled", Summary: "gpu-tiled's outputs per thread (ry 1, 2, 4, 8) and block shape at 2048 and 4096, Gaussian 3, 5, 7, 15, 31, replayed from CUDA graphs, beside gpu-shared",
		sweeps: []sweep{
			{variants: []string{"gpu-tiled"}, sizes: squares(2048, 4096), filters: sized("gauss", 3, 5, 7, 15, 31),
				blocks: blocks("32x4", "32x8", "64x4", "32x16", "16x16"), timings: []Timing{graphTiming},
				tunes: map[string][]string{"gpu-tiled": {"ry=1", "ry=2", "ry=4", "ry=8"}}},
			{variants: []string{"gpu-shared"}, sizes: squares(2048, 4096), filters: sized("gauss", 3, 5, 7, 15, 31),
				timings: []Timing{graphTiming}},
		}},
	{Name: "cpu-peers", Summary: "cpu-fast on the cases OpenCV's filter2D and sepFilter2D are quoted for: 2048x2048, zero border, dense 3, 7, 21 and Gaussian 3, 7, 21, in float32, u8 and i16",
		sweeps: []sweep{
			{variants: []string{"cpu-fast"}, sizes: squares(2048), filters: append(sized("dense", 3, 7, 21), sized("gauss", 3, 7, 21)...)},
			{variants: []string{"cpu-fast"}, sizes: squares(2048), filters: append(sized("dense", 3, 7, 21), sized("gauss", 3, 7, 21)...), typ: convolve.Uint8},
			{variants: []string{"cpu-fast"}, sizes: squares(2048), filters: append(sized("dense", 3, 7, 21), sized("gauss", 3, 7, 21)...), typ: convolve.Int16},
		}},
	{Name: "roofline", Summary: "every GPU variant against the DRAM and FP32 floors: 4096x4096 and 8192x8192, dense and Gaussian K 3..31, float32, one channel, zero border, hot cache, replayed from CUDA graphs",
		sweeps: []sweep{{variants: []string{"gpu-*", "npp"}, sizes: squares(4096, 8192),
			filters: append(sized("dense", rooflineKs...), sized("gauss", rooflineKs...)...),
			timings: []Timing{graphTiming}}}},
	{Name: "roofline-shapes", Summary: "the roofline's direct kernels off its one case: gpu-regtile and gpu-tiled at K 3, 5, 7 on u8 and i16, RGB interleaved and planar, every border mode, and 4099x4097 beside 4096x4096, dense filters, hot cache, replayed from CUDA graphs",
		sweeps: rooflineShapes()},
	{Name: "crossover", Summary: "every path and peer and auto against K: 4096x4096 and 8192x8192, dense and Gaussian K 3, 7, 11, 21, 31, and 1024x1024 with K 45, 63, 75, float32, one channel, zero border, hot cache, replayed from CUDA graphs (the run a GPU's crossover table is written from)",
		sweeps: []sweep{
			{variants: crossoverVariants, sizes: squares(4096, 8192),
				filters: append(sized("dense", crossoverKs...), sized("gauss", crossoverKs...)...), timings: []Timing{graphTiming}},
			{variants: crossoverVariants, sizes: squares(1024),
				filters: append(sized("dense", crossoverLargeKs...), sized("gauss", crossoverLargeKs...)...), timings: []Timing{graphTiming}},
		}},
	{Name: "tuning-regtile", Summary: "gpu-regtile's outputs per thread (rx 2, 4, 8 by ry 1, 2, 4, 8) and block shape at 4096x4096, dense K 3, 7, 11, 21, 31, replayed from CUDA graphs, beside its defaults and gpu-tiled's, and its default choices on 64x4 and 32x16 blocks at K 3, 5, 7, 15, 21",
		sweeps: []sweep{
			{variants: []string{"gpu-regtile"}, sizes: squares(4096), filters: sized("dense", 3, 7, 11, 21, 31),
				blocks: blocks("32x4", "32x8"), timings: []Timing{graphTiming},
				tunes: map[string][]string{"gpu-regtile": regtileTunes()}},
			{variants: []string{"gpu-regtile", "gpu-tiled"}, sizes: squares(4096), filters: sized("dense", 3, 7, 11, 21, 31),
				timings: []Timing{graphTiming}},
			// The defaults' neighbours on wider and taller blocks: fewer
			// halo columns per output (64x4) or rows (32x16).
			{variants: []string{"gpu-regtile"}, sizes: squares(4096), filters: sized("dense", 3, 5, 7, 15, 21),
				blocks: blocks("64x4", "32x16"), timings: []Timing{graphTiming},
				tunes: map[string][]string{"gpu-regtile": regtileCandidates}},
		}},
	{Name: "tuning-sepfused", Summary: "gpu-sepfused's rows of outputs per thread (ry 1, 2, 4, 8, 16) and row-pass sums per thread (rxr 4, 8 at ry 2, 4, 8) at 4096x4096, Gaussian 3, 7, 15, 21, 31, replayed from CUDA graphs, beside its defaults and gpu-separable's",
		sweeps: []sweep{
			{variants: []string{"gpu-sepfused"}, sizes: squares(4096), filters: sized("gauss", 3, 7, 15, 21, 31),
				timings: []Timing{graphTiming},
				tunes:   map[string][]string{"gpu-sepfused": {"ry=1", "ry=2", "ry=4", "ry=8", "ry=16", "rxr=8,ry=2", "rxr=8,ry=4", "rxr=8,ry=8"}}},
			{variants: []string{"gpu-sepfused", "gpu-separable"}, sizes: squares(4096), filters: sized("gauss", 3, 7, 15, 21, 31),
				timings: []Timing{graphTiming}},
		}},
	{Name: "tuned-vs-default", Summary: "gpu-regtile and gpu-tiled at 4096x4096, dense K 3, 5, 7, 11, 21, and gpu-sepfused there at Gaussian K 5, 11, 21, 31, replayed from CUDA graphs, each with its GPU's tuning table (tune key absent) and with its family's defaults (tune=untuned)",
		sweeps: []sweep{
			{variants: []string{"gpu-regtile", "gpu-tiled"}, sizes: squares(4096), filters: sized("dense", 3, 5, 7, 11, 21),
				timings: []Timing{graphTiming},
				tunes:   map[string][]string{"gpu-regtile": {"", tuneUntuned}, "gpu-tiled": {"", tuneUntuned}}},
			{variants: []string{"gpu-sepfused"}, sizes: squares(4096), filters: sized("gauss", 5, 11, 21, 31),
				timings: []Timing{graphTiming},
				tunes:   map[string][]string{"gpu-sepfused": {"", tuneUntuned}}},
		}},
	{Name: "004-multigpu", Report: "004", Summary: "row slabs over GPUs (gpu-slab-gpu-regtile), Gaussian 5 and 21, f32 and u8: at 8192x8192 total time (H2D + kernels + D2H) from pageable and pinned memory with 1 and 4 streams and resident time (kernels and halo exchange), on GPU 0 and on every GPU, and on two logical devices of GPU 0; at 32768x32768 the overlapped pipeline (pinned, 4 streams, 4 and 16 chunks a device) and resident time; each line with its host-copy bound and, beside a gpus=0 line, its scaling efficiency",
		sweeps: multiGPUSweeps()},
	{Name: "000", Report: "000", Summary: "every experiment of report 000", parts: []string{"000-image-size", "000-filter-size", "000-block-shape"}},
	{Name: "001", Report: "001", Summary: "every experiment of report 001", parts: []string{"001-image-size", "001-filter-size", "001-block-shape"}},
	{Name: "002", Report: "002", Summary: "every experiment of report 002", parts: []string{"002-filter-size", "002-block-size", "002-exactness"}},
	{Name: "003", Report: "003", Summary: "every experiment of report 003", parts: []string{"003-filter-size", "003-image-size"}},
	{Name: "004", Report: "004", Summary: "every experiment of report 004", parts: []string{"004-sobel", "004-gaussian", "004-rgb2yuv"}},
	{Name: "all", Summary: "every report's experiments and the default set", parts: []string{"000", "001", "002", "003", "004", "default"}},
}

// lookupPreset returns the preset with that name.
func lookupPreset(name string) (Preset, error) {
	for _, p := range presets {
		if p.Name == name {
			return p, nil
		}
	}
	var names []string
	for _, p := range presets {
		names = append(names, p.Name)
	}
	return Preset{}, fmt.Errorf("benchmarks: no preset %q (want one of %s)", name, strings.Join(names, ", "))
}

// Candidates lists the preset's cases before they are matched against
// the registered variants: variant names may still be patterns.
func (p Preset) Candidates() []Case {
	var out []Case
	for _, c := range p.candidates(p.override) {
		out = append(out, c.Case)
	}
	return out
}

// candidate is a case before its variant pattern is matched, with the
// patterns its sweep leaves out of the match (sweep.except).
type candidate struct {
	Case
	except []string
}

// keep is matched less the names the candidate's except patterns match
// among names.
func (cand candidate) keep(matched, names []string) []string {
	return slices.DeleteFunc(matched, func(name string) bool {
		return slices.ContainsFunc(cand.except, func(pattern string) bool { return slices.Contains(matchVariants(pattern, names), name) })
	})
}

func (p Preset) candidates(o Axes) []candidate {
	var out []candidate
	for _, s := range p.sweeps {
		except := s.except
		if o.Variants != nil {
			except = nil
		}
		for _, c := range s.cases(o) {
			out = append(out, candidate{c, except})
		}
	}
	for _, part := range p.parts {
		sub, err := lookupPreset(part)
		if err != nil {
			panic(err) // the table above names only existing presets
		}
		out = append(out, sub.candidates(o)...)
	}
	return out
}

// Sweeps returns the axes of each of the preset's own sweeps, defaults
// filled in, and the names of the presets it includes.
func (p Preset) Sweeps() ([]Axes, []string) {
	var out []Axes
	for _, s := range p.sweeps {
		out = append(out, s.axes().Override(p.override).withDefaults())
	}
	return out, slices.Clone(p.parts)
}

// Env is what case expansion needs to know about the host.
type Env struct {
	GPU    bool  // a CUDA device is usable
	GPUs   int   // the CUDA devices present (gpus=all names them all)
	Pinned bool  // pinned host memory can be allocated
	CPUCap int64 // the largest Work of a CPU case; 0 means no cap
	// Variants are the registered variants (convolve.Variants()).
	Variants []convolve.Variant
}

// Expansion is a preset's runnable cases on one host, and what was left out.
type Expansion struct {
	Cases []Case
	// Notes say, one line each, what was left out and why.
	Notes []string
	// CPUCapped counts CPU cases above Env.CPUCap.
	CPUCapped int
}

// Expand resolves the preset's variant patterns against env.Variants and
// keeps the cases each variant can run on this host: GPU variants only
// with a GPU (one note, noGPUNote, names those left out), CPU variants
// only up to the CPU cap, and only valid problems and configurations
// inside the variant's capabilities. CPU cases lose their
// block, cache, memory and compile-option settings and duplicates
// collapse.
func (p Preset) Expand(env Env) Expansion {
	byName := map[string]convolve.Description{}
	var names []string
	for _, v := range env.Variants {
		d := v.Describe()
		byName[d.Name] = d
		names = append(names, d.Name)
	}
	sort.Strings(names)
	var ex Expansion
	var noGPU []string       // the GPU variants left out for want of a GPU
	seen := map[string]int{} // case name -> index in ex.Cases, or -1 when left out
	noted := map[string]bool{}
	note := func(s string) {
		if !noted[s] {
			noted[s] = true
			ex.Notes = append(ex.Notes, s)
		}
	}
	for _, cand := range p.candidates(p.override) {
		matched := matchVariants(cand.Variant, names)
		if len(matched) == 0 {
			note(fmt.Sprintf("variant %s: not registered, its cases are left out", cand.Variant))
		}
		for _, name := range cand.keep(matched, names) {
			d := byName[name]
			c, why := p.variantCase(cand.Case, d, env)
			if why != "" {
				note(why)
				continue
			}
			if i, dup := seen[c.Name()]; dup {
				// The same case from another part of the preset: it
				// measures max-ulp if either asks.
				if i >= 0 && c.ULP {
					ex.Cases[i].ULP = true
				}
				continue
			}
			seen[c.Name()] = -1
			if c.GPU && !env.GPU {
				if !slices.Contains(noGPU, name) {
					noGPU = append(noGPU, name)
				}
				continue
			}
			if c.GPU && c.Timing == totalTiming && c.Mem == pinned && !env.Pinned {
				note("pinned host memory: not available, mem=pinned cases are left out")
				continue
			}
			prob, err := c.Problem()
			if !c.GPU && err == nil && env.CPUCap > 0 && c.Work() > env.CPUCap {
				ex.CPUCapped++
				continue
			}
			if err == nil {
				err = checkCase(c, d, prob)
			}
			if err != nil {
				if cand.Variant != name {
					continue // a pattern matched a variant this problem is not for
				}
				note(fmt.Sprintf("variant %s: %v; left out", name, err))
				continue
			}
			seen[c.Name()] = len(ex.Cases)
			ex.Cases = append(ex.Cases, c)
		}
	}
	if len(noGPU) > 0 {
		ex.Notes = append(ex.Notes, noGPUNote(noGPU))
	}
	if ex.CPUCapped > 0 {
		ex.Notes = append(ex.Notes, fmt.Sprintf("%d CPU cases above the CPU cap of %d multiply-adds are left out", ex.CPUCapped, env.CPUCap))
	}
	return ex
}

// variantCase is the case c of the preset as variant d runs it: a CPU
// variant's without the GPU's axes, a slab variant's with the override's
// memory cap, its device list resolved against env's GPUs; or, when the
// device list cannot be resolved, the note saying why its cases are left
// out.
func (p Preset) variantCase(c Case, d convolve.Description, env Env) (Case, string) {
	c.Variant = d.Name
	c.GPU = d.Caps.GPU
	if !c.GPU {
		c.Block = convolve.Block{}
		c.Cache = Hot
		c.Timing = CPUTiming
		c.Mem = ""
		c.Opts = defaultOpts
		c.Tune = ""
		c.GPUs = ""
	}
	if p.override.MemCap > 0 && isSlabVariant(d.Name) {
		t, _ := convolve.ParseTunables(c.Tune)
		if t == nil {
			t = map[string]int{}
		}
		t["memcap-kib"] = int(min(p.override.MemCap>>10, 1<<30))
		c.Tune = convolve.FormatTunables(t)
	}
	if c.GPUs != "" && env.GPU {
		gpus, err := resolveGPUs(c.GPUs, env.GPUs)
		if err != nil {
			return c, fmt.Sprintf("gpus=%s: %v; its cases are left out", c.GPUs, err)
		}
		c.GPUs = gpus
	}
	return c, ""
}

// checkCase is why variant d refuses case c of problem prob (its
// tunables, its capabilities for the problem and the configuration, graph
// replay), a *convolve.CapabilityError naming d where they refuse it, or
// nil.
func checkCase(c Case, d convolve.Description, prob convolve.Problem) error {
	var err error
	if c.Tune != tuneUntuned {
		_, err = convolve.ParseTunables(c.Tune)
	}
	if err == nil {
		err = d.Caps.Check(prob)
	}
	if err == nil {
		err = d.Caps.CheckConfig(c.Config())
	}
	if err == nil && c.GPU && c.Timing == graphTiming && d.Caps.NoGraphReplay {
		err = &convolve.CapabilityError{What: "timing", Value: string(graphTiming) + " (its runs are not replayed from CUDA graphs; time it with timing=kernel)"}
	}
	if ce, ok := err.(*convolve.CapabilityError); ok {
		ce.Variant = d.Name
	}
	return err
}

// noGPUNote is the one note of an expansion that left out the cases of
// the GPU variants names because the host has no usable GPU: their count
// and the first three names.
func noGPUNote(names []string) string {
	what := "1 GPU variant skipped"
	if len(names) > 1 {
		what = fmt.Sprintf("%d GPU variants skipped", len(names))
	}
	list := strings.Join(names[:min(3, len(names))], ", ")
	if len(names) > 3 {
		list += fmt.Sprintf(" and %d more", len(names)-3)
	}
	return fmt.Sprintf("%s: no CUDA device on this host (%s)", what, list)
}

// resolveGPUs writes a device list of the gpus axis for a host with n
// GPUs: "all" becomes 0,1,...,n-1; an ordinal n or above is an error.
func resolveGPUs(list string, n int) (string, error) {
	if list == "all" {
		devs := make([]int, n)
		for i := range devs {
			devs[i] = i
		}
		return convolve.FormatDevices(devs), nil
	}
	devs, err := parseDevices(list)
	if err != nil {
		return "", err
	}
	for _, d := range devs {
		if d >= n {
			return "", fmt.Errorf("device %d is not present (%d GPUs)", d, n)
		}
	}
	return list, nil
}

// matchVariants returns the names pattern selects: "*" is every variant
// but the float64 reference, "prefix*" every name with that prefix, any
// other pattern itself when registered.
func matchVariants(pattern string, names []string) []string {
	var out []string
	switch {
	case pattern == "*":
		for _, n := range names {
			if n != "reference" {
				out = append(out, n)
			}
		}
	case strings.HasSuffix(pattern, "*"):
		prefix := strings.TrimSuffix(pattern, "*")
		for _, n := range names {
			if strings.HasPrefix(n, prefix) {
				out = append(out, n)
			}
		}
	default:
		if slices.Contains(names, pattern) {
			out = append(out, pattern)
		}
	}
	return out
}

// DefaultCPUCap is the default largest Work of a CPU case, 2^33
// multiply-adds: a few seconds per run of the naive baseline on a current
// core. Larger CPU cases of the reports are left out and the output says
// how many.
const DefaultCPUCap = 1 << 33
