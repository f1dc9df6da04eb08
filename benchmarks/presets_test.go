package benchmarks

import (
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/convbench/convbench/convolve"
	"github.com/convbench/convbench/runfile"
)

// fakeVariant describes itself only; Expand never plans.
type fakeVariant struct{ d convolve.Description }

func (f fakeVariant) Describe() convolve.Description { return f.d }
func (f fakeVariant) Plan(convolve.Problem, convolve.Config) (convolve.Plan, error) {
	return nil, &convolve.CapabilityError{Variant: f.d.Name, What: "anything", Value: "(test double)"}
}

func fakes() []convolve.Variant {
	return []convolve.Variant{
		fakeVariant{convolve.Description{Name: "cpu-naive"}},
		fakeVariant{convolve.Description{Name: "reference"}},
		fakeVariant{convolve.Description{Name: "gpu-naive", Caps: convolve.Capabilities{GPU: true, Ops: []convolve.Operation{convolve.Filter2D}}}},
		fakeVariant{convolve.Description{Name: "gpu-shared", Caps: convolve.Capabilities{GPU: true, MaxFilterSide: 31, Ops: []convolve.Operation{convolve.Filter2D}}}},
		fakeVariant{convolve.Description{Name: "gpu-ch-grid", Caps: convolve.Capabilities{GPU: true, Channels: []int{3}}}},
		fakeVariant{convolve.Description{Name: "gpu-ch-arrays", Caps: convolve.Capabilities{GPU: true, Channels: []int{3}}}},
	}
}

func TestPresetsWellFormed(t *testing.T) {
	for _, p := range presets {
		cands := p.Candidates()
		if len(cands) == 0 {
			t.Errorf("preset %s has no cases", p.Name)
		}
		for _, c := range cands {
			if _, err := c.Problem(); err != nil {
				t.Errorf("preset %s: %v", p.Name, err)
			}
		}
		if got, err := lookupPreset(p.Name); err != nil || got.Name != p.Name {
			t.Errorf("lookupPreset(%q) = %v, %v", p.Name, got.Name, err)
		}
	}
	if _, err := lookupPreset("nope"); err == nil || !strings.Contains(err.Error(), "000-image-size") {
		t.Errorf("lookupPreset(nope) error %v: want one naming the presets", err)
	}
}

// axis collects the values of one name key over a preset's cases.
func axis(cases []Case, key string) []string {
	var vals []string
	for _, c := range cases {
		c.GPU = !strings.HasPrefix(c.Variant, "cpu-")
		kv, err := runfile.Parse(c.Name())
		if err != nil {
			panic(err)
		}
		if !slices.Contains(vals, kv[key]) {
			vals = append(vals, kv[key])
		}
	}
	return vals
}

// The presets reproduce the reports' axes as issue 6 lists them.
func TestPresetAxes(t *testing.T) {
	tests := []struct {
		preset, key string
		want        []string
	}{
		{"000-image-size", "size", []string{"256x256", "512x512", "1024x1024", "2048x2048", "4096x4096"}},
		{"000-image-size", "filter", []string{"gauss3"}},
		{"000-image-size", "block", []string{"none", "16x16"}}, // cpu-naive has no block
		{"000-filter-size", "k", []string{"3", "5", "7"}},
		{"000-block-shape", "block", []string{"8x8", "16x16", "32x8", "32x16", "32x32"}},
		{"000-block-shape", "size", []string{"2048x2048"}},
		{"001-image-size", "size", []string{"512x512", "1024x1024", "1920x1920", "2560x2560", "3840x3840", "4096x4096"}},
		{"001-image-size", "filter", []string{"prewitt-x", "gauss5", "gauss7", "log5", "sharpen"}},
		{"001-image-size", "type", []string{"u8"}},
		{"001-image-size", "ch", []string{"3"}},
		{"001-filter-size", "k", []string{"3", "5", "7", "9", "11", "15", "21"}},
		{"001-block-shape", "size", []string{"1920x1920"}},
		{"002-filter-size", "timing", []string{"kernel", "total"}},
		{"002-block-size", "block", []string{"4x4", "8x8", "16x16", "32x32"}},
		{"003-filter-size", "k", []string{"3", "9", "17", "33", "63", "121"}},
		{"003-image-size", "size", []string{"100x100", "100x1000", "1000x1000", "1000x10000", "10000x10000", "10000x100000"}},
		{"003-image-size", "type", []string{"i16"}},
		{"004-gaussian", "k", []string{"3", "5", "7", "9", "11"}},
		{"004-rgb2yuv", "mem", []string{"none", "pageable", "pinned"}},
		{"004-rgb2yuv", "opts", []string{"none", "default"}},
		{"002-exactness", "opts", []string{"default", "nofma", "fast-math"}},
		{"002-exactness", "variant", []string{"gpu-naive", "gpu-const"}},
		{"002-exactness", "k", []string{"3", "9", "25", "75"}},
		{"002-exactness", "size", []string{"1024x1024"}},
		{"002-exactness", "timing", []string{"kernel"}},
	}
	for _, tt := range tests {
		p, err := lookupPreset(tt.preset)
		if err != nil {
			t.Fatal(err)
		}
		if got := axis(p.Candidates(), tt.key); !slices.Equal(got, tt.want) {
			t.Errorf("%s %s = %v, want %v", tt.preset, tt.key, got, tt.want)
		}
	}
}

func TestExpand(t *testing.T) {
	p, _ := lookupPreset("000-image-size")
	noGPU := p.Expand(Env{Variants: fakes()})
	if got := axis(noGPU.Cases, "variant"); !slices.Equal(got, []string{"cpu-naive"}) {
		t.Errorf("without GPU: variants %v, want [cpu-naive]", got)
	}
	if !containsLine(noGPU.Notes, "skipped: no CUDA device on this host (gpu-naive") || !containsLine(noGPU.Notes, "gpu-const: not registered") {
		t.Errorf("without GPU: notes %q", noGPU.Notes)
	}
	for _, c := range noGPU.Cases {
		if c.Block != (convolve.Block{}) || c.Timing != CPUTiming {
			t.Errorf("CPU case %s keeps GPU settings", c.Name())
		}
	}
	gpu := p.Expand(Env{GPU: true, Variants: fakes()})
	if got := axis(gpu.Cases, "variant"); !slices.Equal(got, []string{"cpu-naive", "gpu-naive", "gpu-shared"}) {
		t.Errorf("with GPU: variants %v", got)
	}
	capped := p.Expand(Env{GPU: true, CPUCap: 1024 * 1024 * 9, Variants: fakes()})
	if capped.CPUCapped != 2 || !containsLine(capped.Notes, "2 CPU cases above the CPU cap") {
		t.Errorf("cap 1024x1024x9: capped %d, notes %q; want the 2048 and 4096 CPU cases left out", capped.CPUCapped, capped.Notes)
	}
	// A prefix pattern selects every matching variant; capabilities drop
	// what a variant cannot run, with a note for exact names.
	p3, _ := lookupPreset("003-filter-size")
	ex3 := p3.Expand(Env{GPU: true, Variants: fakes()})
	if got := axis(ex3.Cases, "variant"); !slices.Equal(got, []string{"cpu-naive", "gpu-ch-arrays", "gpu-ch-grid"}) {
		t.Errorf("003 variants %v", got)
	}
	p2, _ := lookupPreset("002-filter-size")
	ex2 := p2.Expand(Env{GPU: true, Variants: fakes()})
	if !containsLine(ex2.Notes, "gpu-shared: convolve: gpu-shared does not support filter size") {
		t.Errorf("002 notes %q: want gpu-shared's filter-size limit", ex2.Notes)
	}
	// "all" holds every case of every report's presets and of default
	// exactly once; the method and tuning experiments stay apart.
	all, _ := lookupPreset("all")
	exAll := all.Expand(Env{GPU: true, Pinned: true, Variants: fakes()})
	names := map[string]bool{}
	for _, c := range exAll.Cases {
		if names[c.Name()] {
			t.Errorf("all: duplicate case %s", c.Name())
		}
		names[c.Name()] = true
	}
	for _, q := range presets {
		if q.Report == "" && q.Name != "default" {
			continue
		}
		for _, c := range q.Expand(Env{GPU: true, Pinned: true, Variants: fakes()}).Cases {
			if !names[c.Name()] {
				t.Errorf("all lacks %s of %s", c.Name(), q.Name)
			}
		}
	}
	// The default preset's "*" never selects the float64 reference.
	def, _ := lookupPreset("default")
	if slices.Contains(axis(def.Expand(Env{Variants: fakes()}).Cases, "variant"), "reference") {
		t.Errorf("default selects the reference variant")
	}
}

// Presets 002 and all hold the exactness sweep: both direct kernels at
// every K under each of the three compile options, and no CPU case
// carries compile options.
func TestExpandExactness(t *testing.T) {
	vs := append(fakes(), fakeVariant{convolve.Description{Name: "gpu-const", Caps: convolve.Capabilities{GPU: true, Ops: []convolve.Operation{convolve.Filter2D}}}})
	for _, preset := range []string{"002", "all"} {
		p, err := lookupPreset(preset)
		if err != nil {
			t.Fatal(err)
		}
		ex := p.Expand(Env{GPU: true, Pinned: true, Variants: vs})
		names := map[string]bool{}
		for _, c := range ex.Cases {
			names[c.Name()] = true
			if !c.GPU && (c.Opts != defaultOpts || strings.Contains(c.Name(), "/opts=")) {
				t.Errorf("%s: CPU case %s keeps compile options %q", preset, c.Name(), c.Opts)
			}
		}
		for _, v := range []string{"gpu-naive", "gpu-const"} {
			for _, k := range []string{"3", "9", "25", "75"} {
				for _, o := range []string{"default", "nofma", "fast-math"} {
					want := "variant=" + v + "/size=1024x1024/filter=box" + k + "/k=" + k +
						"/block=32x32/border=zero/type=f32/ch=1/layout=interleaved/cache=hot/timing=kernel/mem=none/opts=" + o
					if !names[want] {
						t.Errorf("%s lacks %s", preset, want)
					}
				}
			}
		}
	}
	// Without a GPU the sweep has nothing to run and says why.
	p, _ := lookupPreset("002-exactness")
	ex := p.Expand(Env{Variants: vs})
	if len(ex.Cases) != 0 || !containsLine(ex.Notes, "GPU variants skipped: no CUDA device on this host") {
		t.Errorf("no GPU: %d cases, notes %q", len(ex.Cases), ex.Notes)
	}
}

func containsLine(lines []string, sub string) bool {
	for _, l := range lines {
		if strings.Contains(l, sub) {
			return true
		}
	}
	return false
}

// Only sweeps over compile options ask the gate for max-ulp.
func TestULPOnlyInOptionSweeps(t *testing.T) {
	for _, tt := range []struct {
		preset string
		want   bool
	}{{"002-exactness", true}, {"002-filter-size", false}, {"000-image-size", false}} {
		p, err := lookupPreset(tt.preset)
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range p.Candidates() {
			if c.ULP != tt.want {
				t.Errorf("%s: %s has ULP %v, want %v", tt.preset, c.Name(), c.ULP, tt.want)
			}
		}
	}
}

// A case that two parts of a preset share runs once and keeps the max-ulp
// request of either: 002's filter-size and exactness sweeps both hold
// gpu-naive box3 with the default options.
func TestSharedCaseKeepsULP(t *testing.T) {
	p, err := lookupPreset("002")
	if err != nil {
		t.Fatal(err)
	}
	ex := p.Expand(Env{GPU: true, Variants: convolve.Variants()})
	want := "variant=gpu-naive/size=1024x1024/filter=box3/k=3/block=32x32/border=zero/type=f32/ch=1/layout=interleaved/cache=hot/timing=kernel/mem=none/opts=default"
	n := 0
	for _, c := range ex.Cases {
		if c.Name() == want {
			n++
			if !c.ULP {
				t.Errorf("%s: ULP false, want true (002-exactness asks for it)", want)
			}
		}
	}
	if n != 1 {
		t.Errorf("%s appears %d times, want once", want, n)
	}
}

// Report 004's table I has a naive and an optimised GPU row for Sobel,
// the separable Gaussian and RGB->YUV: the presets sweep the tunable that
// picks between them, and CPU variants carry none.
func TestPresets004Tunes(t *testing.T) {
	env := Env{GPU: true, Pinned: true, Variants: convolve.Variants()}
	for _, tt := range []struct {
		preset, variant string
		want            []string // Tune values
	}{
		{"004-sobel", "gpu-sobel", []string{"", "shared=1"}},
		{"004-gaussian", "gpu-separable", []string{"", "shared=0"}},
		{"004-rgb2yuv", "gpu-rgb2yuv", []string{"", "opt=1"}},
	} {
		p, err := lookupPreset(tt.preset)
		if err != nil {
			t.Fatal(err)
		}
		ex := p.Expand(env)
		for _, n := range ex.Notes {
			if strings.Contains(n, tt.variant) {
				t.Errorf("%s: %s left out: %s", tt.preset, tt.variant, n)
			}
		}
		var tunes []string
		for _, c := range ex.Cases {
			if !c.GPU && c.Tune != "" {
				t.Errorf("%s: CPU case with tune: %s", tt.preset, c.Name())
			}
			if c.Variant == tt.variant && !slices.Contains(tunes, c.Tune) {
				tunes = append(tunes, c.Tune)
			}
		}
		if !slices.Equal(tunes, tt.want) {
			t.Errorf("%s: %s tunes %q, want %q", tt.preset, tt.variant, tunes, tt.want)
		}
	}
}

// A preset tune that does not parse leaves its case out with a note.
func TestExpandBadTune(t *testing.T) {
	p := Preset{Name: "bad", sweeps: []sweep{{variants: []string{"gpu-sobel"}, op: convolve.SobelMagnitude,
		sizes: squares(16), typ: convolve.Uint8, tunes: map[string][]string{"gpu-sobel": {"shared"}}}}}
	ex := p.Expand(Env{GPU: true, Variants: convolve.Variants()})
	if len(ex.Cases) != 0 || len(ex.Notes) != 1 || !strings.Contains(ex.Notes[0], "not name=value") {
		t.Errorf("cases %d, notes %q: want none and a note on the tune", len(ex.Cases), ex.Notes)
	}
}

// Preset launch-overhead times every GPU case both ways, so that the two
// times of one kernel sit side by side in one run.
func TestLaunchOverheadPairsTimings(t *testing.T) {
	p, err := lookupPreset("launch-overhead")
	if err != nil {
		t.Fatal(err)
	}
	timings := map[string][]Timing{}
	for _, c := range p.Candidates() {
		kernel := c
		kernel.Timing = ""
		timings[kernel.Name()] = append(timings[kernel.Name()], c.Timing)
	}
	if len(timings) < 20 {
		t.Errorf("only %d kernels", len(timings))
	}
	for k, ts := range timings {
		slices.Sort(ts)
		if !slices.Equal(ts, []Timing{KernelTiming, graphTiming}) {
			t.Errorf("%s: timings %v, want kernel and kernel-graph", k, ts)
		}
	}
}

// cpu-peers times cpu-fast alone on the six cases the OpenCV figures are
// quoted for, in float32, u8 and i16, and no CPU cap leaves one out.
func TestCPUPeersPreset(t *testing.T) {
	p, err := lookupPreset("cpu-peers")
	if err != nil {
		t.Fatal(err)
	}
	vs := append(fakes(), fakeVariant{convolve.Description{Name: "cpu-fast"}})
	ex := p.Expand(Env{Variants: vs, CPUCap: DefaultCPUCap})
	got := map[convolve.ElemType][]string{}
	for _, c := range ex.Cases {
		if c.Variant != "cpu-fast" || c.Width != 2048 || c.Height != 2048 || c.Timing != CPUTiming ||
			c.Border != convolve.Zero || c.Channels != 1 {
			t.Errorf("case %s is not cpu-fast at 2048x2048, one channel, zero border", c.Name())
		}
		got[c.Type] = append(got[c.Type], c.Filter)
	}
	want := []string{"dense21", "dense3", "dense7", "gauss21", "gauss3", "gauss7"}
	for _, typ := range []convolve.ElemType{convolve.Float32, convolve.Uint8, convolve.Int16} {
		slices.Sort(got[typ])
		if !slices.Equal(got[typ], want) {
			t.Errorf("%v filters %v, want %v (notes %q)", typ, got[typ], want, ex.Notes)
		}
	}
}

// Preset roofline runs every GPU variant that can on the grid:
// two sizes, dense and Gaussian K 3..31, f32, one channel, zero border,
// hot cache, graph replay.
func TestRooflinePreset(t *testing.T) {
	p, err := lookupPreset("roofline")
	if err != nil {
		t.Fatal(err)
	}
	vs := append(fakes(), fakeVariant{convolve.Description{Name: "npp", Caps: convolve.Capabilities{GPU: true, Ops: []convolve.Operation{convolve.Filter2D}}}})
	ex := p.Expand(Env{GPU: true, Variants: vs, CPUCap: DefaultCPUCap})
	var ks []string
	for _, k := range []int{3, 5, 7, 9, 11, 15, 21, 31} {
		ks = append(ks, "dense"+strconv.Itoa(k))
	}
	for _, k := range []int{3, 5, 7, 9, 11, 15, 21, 31} {
		ks = append(ks, "gauss"+strconv.Itoa(k))
	}
	tests := []struct {
		key  string
		want []string
	}{
		{"variant", []string{"gpu-naive", "gpu-shared", "npp"}},
		{"size", []string{"4096x4096", "8192x8192"}},
		{"filter", ks},
		{"type", []string{"f32"}},
		{"ch", []string{"1"}},
		{"border", []string{"zero"}},
		{"timing", []string{"kernel-graph"}},
		{"cache", []string{"hot"}},
	}
	for _, tt := range tests {
		if got := axis(ex.Cases, tt.key); !slices.Equal(got, tt.want) {
			t.Errorf("roofline %s = %v, want %v (notes %q)", tt.key, got, tt.want, ex.Notes)
		}
	}
	// gpu-shared stops at 31 (MaxFilterSide) and so still runs every K;
	// every case is a GPU case.
	if n, want := len(ex.Cases), 3*2*16; n != want {
		t.Errorf("roofline has %d cases, want %d", n, want)
	}
	for _, c := range ex.Cases {
		if !c.GPU {
			t.Errorf("roofline case %s is not a GPU case", c.Name())
		}
	}
}

func TestTuningRegtilePreset(t *testing.T) {
	p, err := lookupPreset("tuning-regtile")
	if err != nil {
		t.Fatal(err)
	}
	cands := p.Candidates()
	var tunes []string
	for _, c := range cands {
		if c.Variant == "gpu-regtile" && c.Tune != "" && !slices.Contains(tunes, c.Tune) {
			tunes = append(tunes, c.Tune)
		}
		if c.Timing != graphTiming || c.Width != 4096 || c.Height != 4096 {
			t.Errorf("case %s: want graph timing at 4096x4096", c.Name())
		}
	}
	want := []string{"rx=2,ry=1", "rx=2,ry=2", "rx=2,ry=4", "rx=2,ry=8", "rx=4,ry=1", "rx=4,ry=2", "rx=4,ry=4", "rx=4,ry=8",
		"rx=8,ry=1", "rx=8,ry=2", "rx=8,ry=4", "rx=8,ry=8"}
	if !slices.Equal(tunes, want) {
		t.Errorf("tuning-regtile tunes %v, want %v", tunes, want)
	}
	for _, tu := range tunes {
		if _, err := convolve.ParseTunables(tu); err != nil {
			t.Errorf("tune %q: %v", tu, err)
		}
	}
	// 5 filters x 2 blocks x 12 tunes, then 5 filters x 2 variants at
	// their defaults, then 5 filters x 2 blocks x 4 candidates.
	if n, want := len(cands), 5*2*12+5*2+5*2*4; n != want {
		t.Errorf("tuning-regtile has %d candidates, want %d", n, want)
	}
}

func TestTuningSepfusedPreset(t *testing.T) {
	p, err := lookupPreset("tuning-sepfused")
	if err != nil {
		t.Fatal(err)
	}
	cands := p.Candidates()
	var tunes []string
	for _, c := range cands {
		if c.Variant == "gpu-sepfused" && c.Tune != "" && !slices.Contains(tunes, c.Tune) {
			tunes = append(tunes, c.Tune)
		}
		if c.Timing != graphTiming || c.Width != 4096 || c.Height != 4096 {
			t.Errorf("case %s: want graph timing at 4096x4096", c.Name())
		}
	}
	if want := []string{"ry=1", "ry=2", "ry=4", "ry=8", "ry=16", "rxr=8,ry=2", "rxr=8,ry=4", "rxr=8,ry=8"}; !slices.Equal(tunes, want) {
		t.Errorf("tuning-sepfused tunes %v, want %v", tunes, want)
	}
	// 5 filters x 8 tunes, then 5 filters x 2 variants at their defaults.
	if n, want := len(cands), 5*8+5*2; n != want {
		t.Errorf("tuning-sepfused has %d candidates, want %d", n, want)
	}
}

// Preset crossover runs every path and peer that is registered, and auto,
// on 4096x4096 and 8192x8192 with dense and Gaussian K 3..31 and on
// 1024x1024 with K 45, 63, 75; a path or peer not registered on the host
// is left out with a note, not an error.
func TestCrossoverPreset(t *testing.T) {
	p, err := lookupPreset("crossover")
	if err != nil {
		t.Fatal(err)
	}
	gpu := func(name string, sepOnly bool) convolve.Variant {
		return fakeVariant{convolve.Description{Name: name, Caps: convolve.Capabilities{GPU: true, SeparableOnly: sepOnly, Ops: []convolve.Operation{convolve.Filter2D}}}}
	}
	vs := append(fakes(), gpu("gpu-regtile", false), gpu("gpu-sepfused", true), gpu("npp", false), gpu("npp-interior", false), gpu("auto", false), gpu("gpu-tc-3xtf32", false))
	ex := p.Expand(Env{GPU: true, Variants: vs, CPUCap: DefaultCPUCap})
	tests := []struct {
		key  string
		want []string
	}{
		{"variant", []string{"gpu-regtile", "gpu-sepfused", "gpu-tc-3xtf32", "npp", "npp-interior", "auto"}},
		{"size", []string{"4096x4096", "8192x8192", "1024x1024"}},
		{"type", []string{"f32"}},
		{"ch", []string{"1"}},
		{"border", []string{"zero"}},
		{"timing", []string{"kernel-graph"}},
		{"cache", []string{"hot"}},
	}
	for _, tt := range tests {
		if got := axis(ex.Cases, tt.key); !slices.Equal(got, tt.want) {
			t.Errorf("crossover %s = %v, want %v (notes %q)", tt.key, got, tt.want, ex.Notes)
		}
	}
	filters := map[string][]string{}
	for _, c := range ex.Cases {
		size := strconv.Itoa(c.Width) + "x" + strconv.Itoa(c.Height)
		if !slices.Contains(filters[size], c.Filter) {
			filters[size] = append(filters[size], c.Filter)
		}
	}
	big := []string{"dense3", "dense7", "dense11", "dense21", "dense31", "gauss3", "gauss7", "gauss11", "gauss21", "gauss31"}
	small := []string{"dense45", "dense63", "dense75", "gauss45", "gauss63", "gauss75"}
	for size, want := range map[string][]string{"4096x4096": big, "8192x8192": big, "1024x1024": small} {
		if got := filters[size]; !slices.Equal(got, want) {
			t.Errorf("crossover filters at %s = %v, want %v", size, got, want)
		}
	}
	// Five paths and peers take every filter, gpu-sepfused the Gaussian
	// ones alone.
	if n, want := len(ex.Cases), 5*(2*10+6)+(2*5+3); n != want {
		t.Errorf("crossover has %d cases, want %d", n, want)
	}
	for _, missing := range []string{"gpu-tiled", "gpu-separable", "gpu-fft", "cudnn*"} {
		want := "variant " + missing + ": not registered, its cases are left out"
		if !slices.Contains(ex.Notes, want) {
			t.Errorf("notes %q lack %q", ex.Notes, want)
		}
	}
}

// Without a GPU the GPU variants left out make one note, however many
// there are, with their count and the first names.
func TestNoGPUNote(t *testing.T) {
	for _, tt := range []struct {
		names []string
		want  string
	}{
		{[]string{"gpu-a"}, "1 GPU variant skipped: no CUDA device on this host (gpu-a)"},
		{[]string{"gpu-a", "gpu-b", "gpu-c"}, "3 GPU variants skipped: no CUDA device on this host (gpu-a, gpu-b, gpu-c)"},
		{[]string{"gpu-a", "gpu-b", "gpu-c", "gpu-d", "gpu-e"}, "5 GPU variants skipped: no CUDA device on this host (gpu-a, gpu-b, gpu-c and 2 more)"},
	} {
		if got := noGPUNote(tt.names); got != tt.want {
			t.Errorf("noGPUNote(%q) = %q, want %q", tt.names, got, tt.want)
		}
	}
	p, _ := lookupPreset("all")
	ex := p.Expand(Env{Variants: convolve.Variants(), CPUCap: DefaultCPUCap})
	n := 0
	for _, note := range ex.Notes {
		if strings.Contains(note, "GPU") && strings.Contains(note, "no CUDA device") {
			n++
		} else if strings.Contains(note, "no GPU") {
			t.Errorf("a note per variant: %q", note)
		}
	}
	if n != 1 {
		t.Errorf("%d notes on the missing GPU, want 1: %q", n, ex.Notes)
	}
}

// A case too large for one image is left out as such, not counted as above
// the CPU cap.
func TestExpandTooLargeIsNotCapped(t *testing.T) {
	p, err := BuildSweep("", Axes{Variants: []string{"cpu-naive"}, Sizes: [][2]int{{100000000, 100000000}}})
	if err != nil {
		t.Fatal(err)
	}
	ex := p.Expand(Env{Variants: convolve.Variants(), CPUCap: DefaultCPUCap})
	if ex.CPUCapped != 0 || len(ex.Cases) != 0 || !containsLine(ex.Notes, "MaxImageBytes") {
		t.Errorf("capped %d, cases %d, notes %q: want the case left out for its image size", ex.CPUCapped, len(ex.Cases), ex.Notes)
	}
}

// The gpu-slab variants' plans cannot replay from CUDA graphs: a sweep's
// kernel-graph cases leave them out with the reason, its kernel cases
// keep them, and the presets that time graph replays of every GPU
// variant leave them out without a note.
func TestExpandNoGraphReplay(t *testing.T) {
	for _, tc := range []struct {
		variants, timing string
		slabs            bool
		note             string
	}{
		{"gpu-tiled,gpu-slab-gpu-tiled", "kernel-graph", false, "variant gpu-slab-gpu-tiled: convolve: gpu-slab-gpu-tiled does not support timing kernel-graph"},
		{"gpu-*", "kernel-graph", false, "variant gpu-stream16KiB-gpu-tiled: convolve: gpu-stream16KiB-gpu-tiled does not support timing kernel-graph"},
		{"gpu-*", "kernel", true, ""},
		{"gpu-tiled,gpu-slab-gpu-tiled", "kernel", true, ""},
	} {
		a, err := parseFlags("-variants", tc.variants, "-timing", tc.timing, "-sizes", "64x48", "-filters", "dense5")
		if err != nil {
			t.Fatal(err)
		}
		p, _ := BuildSweep("", a)
		ex := p.Expand(Env{GPU: true, GPUs: 2, Variants: convolve.Variants()})
		got := axis(ex.Cases, "variant")
		if !slices.Contains(got, "gpu-tiled") {
			t.Errorf("-variants %s -timing %s: variants %v lack gpu-tiled", tc.variants, tc.timing, got)
		}
		slabs := slices.ContainsFunc(got, func(v string) bool {
			return strings.HasPrefix(v, "gpu-slab") || strings.HasPrefix(v, "gpu-stream")
		})
		if slabs != tc.slabs {
			t.Errorf("-variants %s -timing %s: variants %v; gpu-slab cases %v, want %v", tc.variants, tc.timing, got, slabs, tc.slabs)
		}
		if tc.note != "" && !containsLine(ex.Notes, tc.note) {
			t.Errorf("-variants %s -timing %s: notes %q, want one saying %q", tc.variants, tc.timing, ex.Notes, tc.note)
		}
	}
	for _, name := range []string{"roofline", "crossover"} {
		p, err := lookupPreset(name)
		if err != nil {
			t.Fatal(err)
		}
		ex := p.Expand(Env{GPU: true, GPUs: 2, Pinned: true, Variants: convolve.Variants()})
		for _, c := range ex.Cases {
			if strings.HasPrefix(c.Variant, "gpu-slab") || strings.HasPrefix(c.Variant, "gpu-stream") {
				t.Errorf("preset %s: case %s of a variant that cannot replay graphs", name, c.Name())
			}
		}
		if containsLine(ex.Notes, "timing kernel-graph") {
			t.Errorf("preset %s: notes %q name the variants its pattern matched", name, ex.Notes)
		}
		t.Logf("preset %s: %d cases", name, len(ex.Cases))
	}
}

// streamVariant matches the names of the stream variants.
var streamVariant = regexp.MustCompile(`^gpu-stream[0-9]+(B|KiB|MiB|GiB)-`)

// The default preset times every stream variant, on an image of its own
// (its every-variant sweep at 1024x1024 leaves them out: they refuse it,
// TestPresetsSupportedOnKnownDevices), and no other variant there.
func TestDefaultPresetTimesStreamVariants(t *testing.T) {
	def, err := lookupPreset("default")
	if err != nil {
		t.Fatal(err)
	}
	sizes := map[string][]string{}
	for _, c := range def.Expand(Env{GPU: true, GPUs: 1, Pinned: true, Variants: convolve.Variants()}).Cases {
		sizes[c.Variant] = append(sizes[c.Variant], c.sizeKey())
	}
	n := 0
	for _, v := range convolve.Variants() {
		name := v.Describe().Name
		if !streamVariant.MatchString(name) {
			continue
		}
		n++
		if got := strings.Join(sizes[name], ","); got != "128x1024" {
			t.Errorf("%s: sizes %s, want 128x1024", name, got)
		}
	}
	if n == 0 {
		t.Error("no stream variant registered")
	}
	if got := strings.Join(sizes["gpu-tiled"], ","); !strings.Contains(got, "1024x1024") || strings.Contains(got, "128x1024") {
		t.Errorf("gpu-tiled: sizes %s, want 1024x1024 and not the stream variants' image", got)
	}
}

// A sweep's except patterns take variants out of what its patterns
// match, silently; variants given by flags replace them, except and all.
func TestExpandExcept(t *testing.T) {
	p := Preset{Name: "t", sweeps: []sweep{
		{variants: []string{"gpu-*"}, except: []string{"gpu-ch-*", "gpu-shared"}, sizes: squares(64), filters: []string{"gauss3"}},
		{variants: []string{"gpu-ch-*"}, except: []string{"gpu-ch-*"}, sizes: squares(64), filters: []string{"gauss3"}, ch: 3},
	}}
	env := Env{GPU: true, Variants: fakes()}
	ex := p.Expand(env)
	if got := strings.Join(axis(ex.Cases, "variant"), ","); got != "gpu-naive" {
		t.Errorf("variants %s, want gpu-naive alone", got)
	}
	if len(ex.Notes) != 0 {
		t.Errorf("notes %q, want none", ex.Notes)
	}
	p.override = Axes{Variants: []string{"gpu-shared"}}
	if got := strings.Join(axis(p.Expand(env).Cases, "variant"), ","); got != "gpu-shared" {
		t.Errorf("with -variants gpu-shared: variants %s, want gpu-shared", got)
	}
}

// cross repeats each case for each of its values, the earlier axes
// varying slowest, and an axis without values leaves no case.
func TestCross(t *testing.T) {
	widths := each([]int{1, 2})
	setW := func(c *Case, w int) { c.Width = w }
	for _, tt := range []struct {
		name string
		got  []Case
		want []string
	}{
		{"one axis", cross([]Case{{Variant: "a"}, {Variant: "b"}}, widths, setW), []string{"a1", "a2", "b1", "b2"}},
		{"by case", cross([]Case{{Variant: "a"}, {Variant: "bb"}}, func(c Case) []int { return []int{len(c.Variant)} }, setW), []string{"a1", "bb2"}},
		{"no values", cross([]Case{{Variant: "a"}}, each([]int(nil)), setW), nil},
		{"no cases", cross(nil, widths, setW), nil},
	} {
		var got []string
		for _, c := range tt.got {
			got = append(got, fmt.Sprintf("%s%d", c.Variant, c.Width))
		}
		if !slices.Equal(got, tt.want) {
			t.Errorf("%s: %v, want %v", tt.name, got, tt.want)
		}
	}
}
