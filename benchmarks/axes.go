package benchmarks

import (
	"flag"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/convbench/convbench/convolve"
)

// Axes are the values a sweep crosses. A nil field is unset: in a
// preset's sweep it takes the default AxisFlags documents, and in flags
// given beside a preset it leaves the preset's own values.
type Axes struct {
	// Variants are variant names or patterns: "*" is every registered
	// variant but the reference, "prefix*" every name with that prefix.
	Variants []string
	Sizes    [][2]int
	Filters  []FilterChoice
	Types    []convolve.ElemType
	Channels []int
	Layouts  []convolve.Layout
	Borders  []convolve.Border
	Modes    []convolve.Mode
	// Blocks are thread-block shapes; the zero Block is the variant's own.
	Blocks  []convolve.Block
	Timings []TimingChoice
	Mems    []Memory // the host memory of total-time cases
	// GPUs are the device lists of GPU cases (Case.GPUs): comma lists of
	// ordinals, a repeated one another logical device on that GPU, or
	// "all" for every GPU present; "" leaves the devices to the variant.
	GPUs []string
	// MemCap, when positive, caps the device memory of each device's slab
	// buffers in the cases of the gpu-slab variants, in bytes (their
	// tunable memcap-kib): an image whose slabs do not fit is streamed
	// through the devices.
	MemCap int64
	// Image, when set, is every case's input: its size replaces the Sizes
	// axis, and its channel count the Channels axis unless that is set
	// (InputImage.As converts).
	Image *InputImage
}

// Set reports whether any axis is set.
func (a Axes) Set() bool {
	return a.Variants != nil || a.Sizes != nil || a.Filters != nil || a.Types != nil || a.Channels != nil ||
		a.Layouts != nil || a.Borders != nil || a.Modes != nil || a.Blocks != nil || a.Timings != nil ||
		a.Mems != nil || a.GPUs != nil || a.MemCap > 0 || a.Image != nil
}

// Override returns a with every axis that o sets replaced by o's.
// An image replaces the sizes, and the channel counts with its own unless
// o sets them.
func (a Axes) Override(o Axes) Axes {
	if o.Variants != nil {
		a.Variants = o.Variants
	}
	if o.Sizes != nil {
		a.Sizes = o.Sizes
	}
	if o.Filters != nil {
		a.Filters = o.Filters
	}
	if o.Types != nil {
		a.Types = o.Types
	}
	if o.Channels != nil {
		a.Channels = o.Channels
	}
	if o.Layouts != nil {
		a.Layouts = o.Layouts
	}
	if o.Borders != nil {
		a.Borders = o.Borders
	}
	if o.Modes != nil {
		a.Modes = o.Modes
	}
	if o.Blocks != nil {
		a.Blocks = o.Blocks
	}
	if o.Timings != nil {
		a.Timings = o.Timings
	}
	if o.Mems != nil {
		a.Mems = o.Mems
	}
	if o.GPUs != nil {
		a.GPUs = o.GPUs
	}
	if o.MemCap > 0 {
		a.MemCap = o.MemCap
	}
	if o.Image != nil {
		a.Image = o.Image
		a.Sizes = [][2]int{{o.Image.Image.Width, o.Image.Image.Height}}
		a.Channels = o.Channels
		if a.Channels == nil {
			a.Channels = []int{o.Image.Image.Channels}
		}
	}
	return a
}

// Defaults of the axes a sweep built from flags alone leaves unset: the
// default preset's first sweep, every variant on a 1024x1024 f32 image
// with a Gaussian 5x5.
var defaultAxes = Axes{
	Variants: []string{"*"},
	Sizes:    [][2]int{{1024, 1024}},
	Filters:  []FilterChoice{{Op: convolve.Filter2D, Spec: "gauss5"}},
	Types:    []convolve.ElemType{convolve.Float32},
	Channels: []int{1},
	Layouts:  []convolve.Layout{convolve.Interleaved},
	Borders:  []convolve.Border{convolve.Zero},
	Modes:    []convolve.Mode{convolve.Correlate},
	Blocks:   []convolve.Block{{}},
	Timings:  []TimingChoice{{Timing: KernelTiming, Cache: Hot}},
	Mems:     []Memory{pageable},
	GPUs:     []string{""},
}

// TimingChoice is one value of the timing axis: what a GPU case times and
// whether L2 is flushed before each sample.
type TimingChoice struct {
	Timing Timing
	Cache  Cache
}

// String is the choice's flag value: the timing's name, "cold" for
// kernel timing after an L2 flush, or "plan-cold" for plans timed with
// the compile caches bypassed.
func (t TimingChoice) String() string {
	switch {
	case t.Cache == Cold && t.Timing == planTiming:
		return "plan-cold"
	case t.Cache == Cold:
		return "cold"
	}
	return string(t.Timing)
}

// timingChoices are the values of -timing, in the order listed.
var timingChoices = []TimingChoice{
	{KernelTiming, Hot}, {graphTiming, Hot}, {totalTiming, Hot}, {KernelTiming, Cold},
	{planTiming, Hot}, {planTiming, Cold},
}

// AxisFlag is one flag that sets an axis of a sweep.
type AxisFlag struct {
	Name  string
	Usage string
	// set parses a flag value into a.
	set func(a *Axes, value string) error
}

// AxisFlags lists the flags that set the axes of a sweep, with their
// defaults where a sweep is built from flags alone. The benchmarks test
// binary and benchmarks/cmd/sweep both take them (registerAxisFlags).
func AxisFlags() []AxisFlag {
	return []AxisFlag{
		{"variants", "variants: a comma list of names, prefix* patterns or regular expressions matched against the whole name, such as 'gpu-tiled|npp' (default: every variant but the reference)",
			func(a *Axes, s string) (err error) { a.Variants, err = parseVariants(s, variantNames()); return }},
		{"sizes", "image sizes WxH, comma-separated (default 1024x1024)",
			func(a *Axes, s string) (err error) { a.Sizes, err = ParseSizes(s); return }},
		{"filters", "filters, comma-separated: library filters (gauss7, box11, sobel-x, ...), sobel (the Sobel magnitude), rgb2yuv, dense<K> (a dense KxK filter of fixed random weights), or the path of a text file of weights, one row of numbers a line (default gauss5)",
			func(a *Axes, s string) (err error) { a.Filters, err = ParseFilters(s); return }},
		enumFlag("types", "element types: u8, i16, f32 (default f32)",
			convolve.ElemTypes, convolve.ElemType.String, func(a *Axes) *[]convolve.ElemType { return &a.Types }),
		{"channels", fmt.Sprintf("channel counts 1..%d (default 1)", convolve.MaxChannels),
			func(a *Axes, s string) (err error) { a.Channels, err = parseChannels(s); return }},
		enumFlag("layouts", "channel layouts: interleaved, planar (default interleaved)",
			convolve.Layouts, convolve.Layout.String, func(a *Axes) *[]convolve.Layout { return &a.Layouts }),
		enumFlag("borders", "border modes: zero, replicate, reflect, mirror, wrap (default zero)",
			convolve.Borders, convolve.Border.String, func(a *Axes) *[]convolve.Border { return &a.Borders }),
		enumFlag("modes", "correlate, convolve (default correlate)",
			convolve.Modes, convolve.Mode.String, func(a *Axes) *[]convolve.Mode { return &a.Modes }),
		{"blocks", "GPU thread-block shapes WxH, or default for the variant's own (default: default)",
			func(a *Axes, s string) (err error) { a.Blocks, err = parseBlocks(s); return }},
		enumFlag("timing", "what GPU cases time: kernel (events over host launches), kernel-graph (CUDA-graph replays), total (upload, kernel, download), cold (kernel after an L2 flush), plan (making a plan whose kernels the compile cache holds: a warm plan), plan-cold (making a plan with the compile caches bypassed, so that NVRTC compiles its kernels: a cold plan) (default kernel)",
			timingChoices, TimingChoice.String, func(a *Axes) *[]TimingChoice { return &a.Timings }),
		enumFlag("mem", "host memory of total-time cases: pageable, pinned (default pageable)",
			[]Memory{pageable, pinned}, func(m Memory) string { return string(m) }, func(a *Axes) *[]Memory { return &a.Mems }),
		{"gpus", "the devices of GPU cases, device lists separated by spaces: each a comma list of ordinals, a repeated ordinal another logical device (executor, streams, buffers) on that GPU ('0,0': two on GPU 0), or all (every GPU present once); the gpu-slab variants run one slab per device, the others take one device (default: each variant's own, device 0 or every GPU)",
			func(a *Axes, s string) (err error) { a.GPUs, err = parseGPUs(s); return }},
		{"mem-cap", "device memory of each device's slab buffers in the cases of the gpu-slab variants, such as 512MiB or 2GiB (at least 1KiB): an image whose slabs do not fit is streamed through the devices in slabs, double-buffered (default: the devices' free memory)",
			func(a *Axes, s string) (err error) { a.MemCap, err = parseBytes(s); return }},
		{"image", "input image file (PNG, TIFF, PGM or PPM): every case runs on its pixels at its size, and at its channel count unless -channels converts it (RGB to gray by BT.601 luma, gray to RGB by copies)",
			func(a *Axes, s string) (err error) { a.Image, err = loadImage(s); return }},
	}
}

// enumFlag is the axis flag name that sets the axis axis points to from a
// comma list of the names of values (parseEnum).
func enumFlag[T any](name, usage string, values []T, str func(T) string, axis func(*Axes) *[]T) AxisFlag {
	return AxisFlag{name, usage, func(a *Axes, s string) (err error) {
		*axis(a), err = parseEnum(name, s, values, str)
		return
	}}
}

// Apply parses value and sets the flag's axis of a to it.
func (f AxisFlag) Apply(a *Axes, value string) error { return f.set(a, value) }

// registerAxisFlags defines the flags of AxisFlags on fs, each setting its
// axis of a.
func registerAxisFlags(fs *flag.FlagSet, a *Axes) {
	for _, f := range AxisFlags() {
		fs.Func(f.Name, f.Usage, func(s string) error { return f.set(a, s) })
	}
}

// splitList splits a comma list, refusing empty items.
func splitList(flagName, s string) ([]string, error) {
	parts := strings.Split(s, ",")
	for i, p := range parts {
		parts[i] = strings.TrimSpace(p)
		if parts[i] == "" {
			return nil, fmt.Errorf("-%s %q: empty item", flagName, s)
		}
	}
	return parts, nil
}

// parseEach parses a comma list (splitList), each item with parse.
func parseEach[T any](flagName, s string, parse func(p string) (T, error)) ([]T, error) {
	parts, err := splitList(flagName, s)
	if err != nil {
		return nil, err
	}
	var out []T
	for _, p := range parts {
		v, err := parse(p)
		if err != nil {
			return nil, err
		}
		out = append(out, v)
	}
	return out, nil
}

// parseEnum parses a comma list of the names of values.
func parseEnum[T any](flagName, s string, values []T, name func(T) string) ([]T, error) {
	var names []string
	for _, v := range values {
		names = append(names, name(v))
	}
	return parseEach(flagName, s, func(p string) (T, error) {
		i := slices.Index(names, p)
		if i < 0 {
			var zero T
			return zero, fmt.Errorf("-%s %s: want one of %s", flagName, p, strings.Join(names, ", "))
		}
		return values[i], nil
	})
}

// parseGPUs parses the value of -gpus: device lists separated by spaces,
// each "all" or a comma list of device ordinals ("0", "0,0", "0,1").
func parseGPUs(s string) ([]string, error) {
	lists := strings.Fields(s)
	if len(lists) == 0 {
		return nil, fmt.Errorf("-gpus %q: want device lists such as 0, 0,0 or all, separated by spaces", s)
	}
	for _, l := range lists {
		if l == "all" {
			continue
		}
		if _, err := parseDevices(l); err != nil {
			return nil, fmt.Errorf("-gpus %q: %q is neither all nor a comma list of device ordinals", s, l)
		}
	}
	return lists, nil
}

// parseBytes parses a size such as 4096, 64KiB, 512MiB or 2GiB; it must
// be at least 1KiB.
func parseBytes(s string) (int64, error) {
	num, shift := s, uint(0)
	for suffix, sh := range map[string]uint{"KiB": 10, "MiB": 20, "GiB": 30} {
		if n, ok := strings.CutSuffix(s, suffix); ok {
			num, shift = n, sh
		}
	}
	n, err := strconv.ParseInt(num, 10, 64)
	if err != nil || n < 1 || n > (1<<50)>>shift || n<<shift < 1<<10 {
		return 0, fmt.Errorf("-mem-cap %q: want a size of at least 1KiB such as 4096, 64KiB, 512MiB or 2GiB", s)
	}
	return n << shift, nil
}

// variantNames are the names of the registered variants, sorted.
func variantNames() []string {
	var names []string
	for _, v := range convolve.Variants() {
		names = append(names, v.Describe().Name)
	}
	slices.Sort(names)
	return names
}

// parseVariants parses the value of -variants against the registered
// names: a comma list whose items are names, "*" (every variant but the
// reference), "prefix*", or regular expressions that must match a whole
// name ("gpu-tiled|npp", "gpu-ch-.*"). It returns the names selected, in
// the order the items select them; an item that selects nothing is an
// error naming the registered names closest to it.
func parseVariants(s string, names []string) ([]string, error) {
	parts, err := splitList("variants", s)
	if err != nil {
		return nil, err
	}
	var out []string
	add := func(n string) {
		if !slices.Contains(out, n) {
			out = append(out, n)
		}
	}
	for _, p := range parts {
		matched := matchVariants(p, names)
		if len(matched) == 0 && !slices.Contains(names, p) {
			re, err := regexp.Compile("^(?:" + p + ")$")
			if err != nil {
				return nil, fmt.Errorf("-variants %s: neither a variant nor a regular expression (%v)%s", p, err, didYouMean(p, names))
			}
			for _, n := range names {
				if re.MatchString(n) {
					matched = append(matched, n)
				}
			}
		}
		if len(matched) == 0 {
			return nil, fmt.Errorf("-variants %s: matches no variant%s", p, didYouMean(p, names))
		}
		for _, n := range matched {
			add(n)
		}
	}
	return out, nil
}

// didYouMean is what follows the error of a -variants item p that
// selects none of names: the closest names (convolve.Closest), or where
// none is close, where to find them all.
func didYouMean(p string, names []string) string {
	if near := convolve.Closest(p, names, 3); len(near) > 0 {
		return "; did you mean " + strings.Join(near, ", ") + "?"
	}
	return fmt.Sprintf("; none of the %d variants is close (-list names them)", len(names))
}

// ParseSizes parses "WxH,WxH,...": positive widths and heights.
func ParseSizes(s string) ([][2]int, error) {
	return parseEach("sizes", s, func(p string) ([2]int, error) {
		ws, hs, ok := strings.Cut(p, "x")
		w, err1 := strconv.Atoi(ws)
		h, err2 := strconv.Atoi(hs)
		if !ok || err1 != nil || err2 != nil || w < 1 || h < 1 {
			return [2]int{}, fmt.Errorf("-sizes %s: want WxH with positive integers, such as 1024x768", p)
		}
		return [2]int{w, h}, nil
	})
}

// parseChannels parses a comma list of channel counts, 1 to
// convolve.MaxChannels.
func parseChannels(s string) ([]int, error) {
	return parseEach("channels", s, func(p string) (int, error) {
		n, err := strconv.Atoi(p)
		if err != nil || n < 1 || n > convolve.MaxChannels {
			var valid []string
			for i := 1; i <= convolve.MaxChannels; i++ {
				valid = append(valid, strconv.Itoa(i))
			}
			return 0, fmt.Errorf("-channels %s: want one of %s", p, strings.Join(valid, ", "))
		}
		return n, nil
	})
}

// parseBlocks parses a comma list of block shapes WxH, or "default" for
// the variant's own choice (the zero Block).
func parseBlocks(s string) ([]convolve.Block, error) {
	return parseEach("blocks", s, func(p string) (convolve.Block, error) {
		if p == "default" {
			return convolve.Block{}, nil
		}
		b, err := convolve.ParseBlock(p)
		if err != nil {
			return b, fmt.Errorf("-blocks %s: want default or WxH with at most 1024 threads, such as 32x8", p)
		}
		return b, nil
	})
}

// ValidateGPU checks the value of -gpu, the device ordinal. The GPU
// variants run on the CUDA driver's default device (ordinal 0), so 0 is
// the only value; another device is picked with CUDA_VISIBLE_DEVICES,
// which makes it device 0.
func ValidateGPU(n int) error {
	if n < 0 {
		return fmt.Errorf("-gpu %d: want 0, the device ordinal the GPU variants run on", n)
	}
	if n != 0 {
		return fmt.Errorf("-gpu %d: want 0: the GPU variants run on device 0 only; run with CUDA_VISIBLE_DEVICES=%d to make that GPU device 0", n, n)
	}
	return nil
}
