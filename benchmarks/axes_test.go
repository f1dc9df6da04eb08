package benchmarks

import (
	"flag"
	"io"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/convbench/convbench/convolve"
	"github.com/convbench/convbench/convolve/testimage"
)

// parseFlags parses args with the axis flags into fresh Axes.
func parseFlags(args ...string) (Axes, error) {
	var a Axes
	fs := flag.NewFlagSet("test", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	registerAxisFlags(fs, &a)
	err := fs.Parse(args)
	return a, err
}

// Each axis flag takes its good values and refuses a bad one with an
// error that lists what it wants.
func TestAxisFlagValues(t *testing.T) {
	tests := []struct {
		flag, value string
		check       func(Axes) bool
		wantErr     string // empty: the value is good
	}{
		{"variants", "cpu-fast", func(a Axes) bool { return slices.Equal(a.Variants, []string{"cpu-fast"}) }, ""},
		{"variants", "cpu-fast,cpu-naive", func(a Axes) bool { return slices.Equal(a.Variants, []string{"cpu-fast", "cpu-naive"}) }, ""},
		{"variants", "gpu-tiled|npp", func(a Axes) bool { return slices.Equal(a.Variants, []string{"gpu-tiled", "npp"}) }, ""},
		{"variants", "gpu-ch-*", func(a Axes) bool { return len(a.Variants) == 4 && strings.HasPrefix(a.Variants[0], "gpu-ch-") }, ""},
		{"variants", "cpu-.*", func(a Axes) bool { return slices.Equal(a.Variants, []string{"cpu-fast", "cpu-fft", "cpu-naive"}) }, ""},
		{"variants", "gpu-nave", nil, "-variants gpu-nave: matches no variant; did you mean gpu-naive, cpu-naive?"},
		{"variants", "qqqqqq", nil, "-variants qqqqqq: matches no variant; none of the "},
		{"variants", "gpu-(", nil, "neither a variant nor a regular expression"},
		{"variants", "cpu-fast,", nil, "empty item"},
		{"sizes", "64x48,1920x1080", func(a Axes) bool { return slices.Equal(a.Sizes, [][2]int{{64, 48}, {1920, 1080}}) }, ""},
		{"sizes", "64", nil, "-sizes 64: want WxH with positive integers"},
		{"sizes", "0x5", nil, "-sizes 0x5: want WxH"},
		{"filters", "gauss7,box11,sobel,dense9", func(a Axes) bool {
			return len(a.Filters) == 4 && a.Filters[0].Spec == "gauss7" && a.Filters[2].Op == convolve.SobelMagnitude && a.Filters[3].Spec == "dense9"
		}, ""},
		{"filters", "rgb2yuv", func(a Axes) bool { return a.Filters[0].Op == convolve.RGBToYUV }, ""},
		{"filters", "gauss4", nil, `-filters gauss4: want a library filter, sobel, rgb2yuv or a weights file: convolve: filter spec "gauss4": gaussian filter size 4: must be odd`},
		{"filters", "dense4", nil, `-filters dense4: want a library filter, sobel, rgb2yuv or a weights file: convolve: filter spec "dense4": dense filter size 4: must be odd`},
		{"filters", "blur", nil, `-filters blur: want a library filter, sobel, rgb2yuv or a weights file: convolve: unknown filter "blur": want identity, box, gauss, log or dense with an odd size`},
		{"filters", "no/such/file.txt", nil, "weights file"},
		{"types", "u8,i16,f32", func(a Axes) bool {
			return slices.Equal(a.Types, []convolve.ElemType{convolve.Uint8, convolve.Int16, convolve.Float32})
		}, ""},
		{"types", "u9", nil, "-types u9: want one of f32, u8, i16"},
		{"channels", "1,3", func(a Axes) bool { return slices.Equal(a.Channels, []int{1, 3}) }, ""},
		{"channels", "5", nil, "-channels 5: want one of 1, 2, 3, 4"},
		{"layouts", "planar", func(a Axes) bool { return slices.Equal(a.Layouts, []convolve.Layout{convolve.Planar}) }, ""},
		{"layouts", "rows", nil, "-layouts rows: want one of interleaved, planar"},
		{"borders", "zero,wrap", func(a Axes) bool { return slices.Equal(a.Borders, []convolve.Border{convolve.Zero, convolve.Wrap}) }, ""},
		{"borders", "clamp", nil, "-borders clamp: want one of zero, replicate, reflect, mirror, wrap"},
		{"modes", "convolve", func(a Axes) bool { return slices.Equal(a.Modes, []convolve.Mode{convolve.Convolve}) }, ""},
		{"modes", "flip", nil, "-modes flip: want one of correlate, convolve"},
		{"blocks", "default,32x8", func(a Axes) bool { return slices.Equal(a.Blocks, []convolve.Block{{}, {X: 32, Y: 8}}) }, ""},
		{"blocks", "64x64", nil, "-blocks 64x64: want default or WxH with at most 1024 threads"},
		{"timing", "kernel,kernel-graph,total,cold", func(a Axes) bool {
			return slices.Equal(a.Timings, []TimingChoice{{KernelTiming, Hot}, {graphTiming, Hot}, {totalTiming, Hot}, {KernelTiming, Cold}})
		}, ""},
		{"timing", "plan,plan-cold", func(a Axes) bool {
			return slices.Equal(a.Timings, []TimingChoice{{planTiming, Hot}, {planTiming, Cold}})
		}, ""},
		{"timing", "wall", nil, "-timing wall: want one of kernel, kernel-graph, total, cold, plan, plan-cold"},
		{"mem", "pageable,pinned", func(a Axes) bool { return slices.Equal(a.Mems, []Memory{pageable, pinned}) }, ""},
		{"mem", "huge", nil, "-mem huge: want one of pageable, pinned"},
		{"image", "no-such-image.png", nil, "image: open no-such-image.png"},
	}
	for _, tt := range tests {
		a, err := parseFlags("-" + tt.flag + "=" + tt.value)
		switch {
		case tt.wantErr == "" && err != nil:
			t.Errorf("-%s %s: %v", tt.flag, tt.value, err)
		case tt.wantErr == "" && !tt.check(a):
			t.Errorf("-%s %s: axes %+v", tt.flag, tt.value, a)
		case tt.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tt.wantErr)):
			t.Errorf("-%s %s: error %v, want one containing %q", tt.flag, tt.value, err, tt.wantErr)
		}
	}
}

func TestValidateGPU(t *testing.T) {
	if err := ValidateGPU(0); err != nil {
		t.Errorf("-gpu 0: %v", err)
	}
	for _, n := range []int{1, -1} {
		if err := ValidateGPU(n); err == nil || !strings.Contains(err.Error(), "want 0") {
			t.Errorf("-gpu %d: error %v, want one saying only 0 is accepted", n, err)
		}
	}
	if err := ValidateGPU(2); err == nil || !strings.Contains(err.Error(), "CUDA_VISIBLE_DEVICES=2") {
		t.Errorf("-gpu 2: error %v, want the way to pick device 2", err)
	}
}

// Flags given beside a preset replace its axes and keep the rest.
func TestPresetOverride(t *testing.T) {
	a, err := parseFlags("-sizes", "512x512", "-types", "u8")
	if err != nil {
		t.Fatal(err)
	}
	p, err := BuildSweep("000-image-size", a)
	if err != nil {
		t.Fatal(err)
	}
	if p.Name != "000-image-size-custom" {
		t.Errorf("name %q, want 000-image-size-custom", p.Name)
	}
	cands := p.Candidates()
	for key, want := range map[string][]string{
		"size":    {"512x512"},
		"type":    {"u8"},
		"filter":  {"gauss3"},
		"variant": report000Variants,
		"block":   {"none", "16x16"},
	} {
		if got := axis(cands, key); !slices.Equal(got, want) {
			t.Errorf("%s: %v, want %v", key, got, want)
		}
	}
	// Without flags the preset is itself.
	plain, err := BuildSweep("000-image-size", Axes{})
	if err != nil || plain.Name != "000-image-size" || len(plain.Candidates()) != 20 {
		t.Errorf("no flags: %q, %d cases, %v; want the preset's 20", plain.Name, len(plain.Candidates()), err)
	}
	// An override reaches the parts of a union.
	u, err := BuildSweep("000", a)
	if err != nil {
		t.Fatal(err)
	}
	if got := axis(u.Candidates(), "size"); !slices.Equal(got, []string{"512x512"}) {
		t.Errorf("000 with -sizes 512x512: sizes %v", got)
	}
	if _, err := BuildSweep("nope", a); err == nil || !strings.Contains(err.Error(), "want one of 000-image-size") {
		t.Errorf("unknown preset: %v", err)
	}
}

// A sweep from flags alone crosses the given axes, the others at their
// defaults, into the cases named in the stored format.
func TestSweepFromFlags(t *testing.T) {
	a, err := parseFlags("-variants", "cpu-fast", "-sizes", "64x48", "-filters", "gauss3,dense5", "-types", "u8,f32")
	if err != nil {
		t.Fatal(err)
	}
	p, err := BuildSweep("", a)
	if err != nil {
		t.Fatal(err)
	}
	if p.Name != "custom" {
		t.Errorf("name %q, want custom", p.Name)
	}
	ex := p.Expand(Env{Variants: convolve.Variants()})
	var got []string
	for _, c := range ex.Cases {
		got = append(got, c.Name())
	}
	const rest = "/block=none/border=zero/type=%s/ch=1/layout=interleaved/cache=hot/timing=cpu/mem=none"
	var want []string
	for _, f := range []string{"filter=gauss3/k=3", "filter=dense5/k=5"} {
		for _, typ := range []string{"u8", "f32"} {
			want = append(want, "variant=cpu-fast/size=64x48/"+f+strings.Replace(rest, "%s", typ, 1))
		}
	}
	if !slices.Equal(got, want) {
		t.Errorf("cases\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	// Unset axes take their defaults: every variant but the reference,
	// 1024x1024, gauss5, f32, one channel, zero border, correlate.
	def, err := BuildSweep("", Axes{Types: []convolve.ElemType{convolve.Float32}})
	if err != nil {
		t.Fatal(err)
	}
	cands := def.Candidates()
	if len(cands) != 1 || cands[0].Variant != "*" || cands[0].Filter != "gauss5" || cands[0].Width != 1024 ||
		cands[0].Channels != 1 || cands[0].Border != convolve.Zero || cands[0].Mode != convolve.Correlate {
		t.Errorf("defaults: %+v", cands)
	}
}

// New axes show in the names without changing the format of old cases:
// the mode rides in the filter key, a user's image in the size key.
func TestNewAxesInNames(t *testing.T) {
	a, err := parseFlags("-variants", "cpu-naive", "-sizes", "16x8", "-filters", "sobel-x", "-borders", "zero,wrap",
		"-modes", "correlate,convolve", "-channels", "3", "-layouts", "planar")
	if err != nil {
		t.Fatal(err)
	}
	p, _ := BuildSweep("", a)
	ex := p.Expand(Env{Variants: convolve.Variants()})
	var got []string
	for _, c := range ex.Cases {
		got = append(got, c.Name())
		if _, err := c.Problem(); err != nil {
			t.Error(err)
		}
	}
	want := []string{
		"variant=cpu-naive/size=16x8/filter=sobel-x/k=3/block=none/border=zero/type=f32/ch=3/layout=planar/cache=hot/timing=cpu/mem=none",
		"variant=cpu-naive/size=16x8/filter=sobel-x@convolve/k=3/block=none/border=zero/type=f32/ch=3/layout=planar/cache=hot/timing=cpu/mem=none",
		"variant=cpu-naive/size=16x8/filter=sobel-x/k=3/block=none/border=wrap/type=f32/ch=3/layout=planar/cache=hot/timing=cpu/mem=none",
		"variant=cpu-naive/size=16x8/filter=sobel-x@convolve/k=3/block=none/border=wrap/type=f32/ch=3/layout=planar/cache=hot/timing=cpu/mem=none",
	}
	if !slices.Equal(got, want) {
		t.Errorf("cases\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// A case a variant cannot run is left out with the reason.
func TestFlagSweepRefusal(t *testing.T) {
	a, err := parseFlags("-variants", "gpu-separable,cpu-fast", "-sizes", "64x48", "-filters", "dense5")
	if err != nil {
		t.Fatal(err)
	}
	p, _ := BuildSweep("", a)
	ex := p.Expand(Env{GPU: true, Variants: convolve.Variants()})
	if got := axis(ex.Cases, "variant"); !slices.Equal(got, []string{"cpu-fast"}) {
		t.Errorf("variants %v, want [cpu-fast]", got)
	}
	if !containsLine(ex.Notes, "variant gpu-separable: convolve: gpu-separable does not support non-separable filter dense5; left out") {
		t.Errorf("notes %q: want gpu-separable's refusal of dense5", ex.Notes)
	}
}

// A library filter given in any spelling is the case's filter under its
// canonical name, in the case name and in the problem: dense<K> is
// convolve.Dense's.
func TestLibraryFilterChoice(t *testing.T) {
	fs, err := ParseFilters("dense5,gauss:9,box")
	if err != nil {
		t.Fatal(err)
	}
	wantNames := []string{"dense5", "gauss9", "box5"}
	for i, fc := range fs {
		if fc.Op != convolve.Filter2D || fc.Spec != wantNames[i] || fc.Weights != nil {
			t.Errorf("choice %d = %+v, want library filter %s", i, fc, wantNames[i])
		}
	}
	c := Case{Variant: "cpu-naive", Op: convolve.Filter2D, Width: 16, Height: 8, Filter: fs[0].Spec, Channels: 1, Cache: Hot, Timing: CPUTiming}
	if want := "variant=cpu-naive/size=16x8/filter=dense5/k=5/block=none/border=zero/type=f32/ch=1/layout=interleaved/cache=hot/timing=cpu/mem=none"; c.Name() != want {
		t.Errorf("name %s, want %s", c.Name(), want)
	}
	p, err := c.Problem()
	if err != nil {
		t.Fatal(err)
	}
	d5, _ := convolve.Dense(5)
	if p.Filter.Name != "dense5" || !slices.Equal(p.Filter.Weights, d5.Weights) {
		t.Errorf("problem filter %v, want convolve.Dense(5)", p.Filter)
	}
}

// A weights file gives a filter of its own shape, named by its base name.
func TestWeightsFile(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	good := write("edge 3x5.txt", "# a 5-wide, 3-high filter\n1 2 3 2 1\n0, 0, 0, 0, 0\n\n-1 -2 -3 -2 -1 # last row\n")
	fs, err := ParseFilters(good + ",gauss3")
	if err != nil {
		t.Fatal(err)
	}
	f := fs[0]
	if f.Spec != "edge_3x5.txt" || f.Weights == nil || f.Weights.Width != 5 || f.Weights.Height != 3 ||
		f.Weights.At(2, 0) != 3 || f.Weights.At(1, 2) != -2 || fs[1].Spec != "gauss3" {
		t.Fatalf("ParseFilters(%s) = %+v", good, fs)
	}
	c := Case{Variant: "cpu-naive", Op: convolve.Filter2D, Width: 16, Height: 8, Filter: f.Spec, Weights: f.Weights, Channels: 1, Cache: Hot, Timing: CPUTiming}
	if want := "variant=cpu-naive/size=16x8/filter=edge_3x5.txt/k=5x3/block=none/border=zero/type=f32/ch=1/layout=interleaved/cache=hot/timing=cpu/mem=none"; c.Name() != want {
		t.Errorf("name %s, want %s", c.Name(), want)
	}
	if p, err := c.Problem(); err != nil || p.Filter.Taps() != 15 {
		t.Errorf("Problem: %v, %v", p, err)
	}
	for _, tt := range []struct{ text, want string }{
		{"1 2 3\n1 2\n1 2 3\n", "line 2: 2 weights, want 3"},
		{"1 2\n3 4\n", "want odd sides"},
		{"1 x 3\n", `"x" is not a number`},
		{"# nothing\n", "no weights"},
	} {
		_, err := ParseFilters(write("bad.txt", tt.text))
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%q: error %v, want %q", tt.text, err, tt.want)
		}
	}
}

func TestNameValue(t *testing.T) {
	for in, want := range map[string]string{
		"photo.png": "photo.png", "my photo.png": "my_photo.png", "scan-2": "scan_2", "a=b/c": "a_b_c", "": "_",
	} {
		if got := nameValue(in); got != want {
			t.Errorf("nameValue(%q) = %q, want %q", in, got, want)
		}
	}
}

// writePNG writes a small RGB PNG whose pixel (x, y) is (x, y, x+y).
func writePNG(t *testing.T, dir string) string {
	im, err := convolve.NewImage(convolve.Geometry{Width: 12, Height: 7, Channels: 3, Type: convolve.Uint8})
	if err != nil {
		t.Fatal(err)
	}
	for y := 0; y < 7; y++ {
		for x := 0; x < 12; x++ {
			im.Set(x, y, 0, float64(x))
			im.Set(x, y, 1, float64(y))
			im.Set(x, y, 2, float64(x+y))
		}
	}
	path := filepath.Join(dir, "tiny.png")
	fh, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := testimage.WritePNG(fh, im); err != nil {
		t.Fatal(err)
	}
	if err := fh.Close(); err != nil {
		t.Fatal(err)
	}
	return path
}

// -image runs every case on the image's own size, channels and pixels.
func TestImageAxis(t *testing.T) {
	path := writePNG(t, t.TempDir())
	a, err := parseFlags("-image", path, "-variants", "cpu-naive", "-filters", "box3", "-types", "u8,f32", "-layouts", "planar")
	if err != nil {
		t.Fatal(err)
	}
	p, err := BuildSweep("", a)
	if err != nil {
		t.Fatal(err)
	}
	ex := p.Expand(Env{Variants: convolve.Variants()})
	if len(ex.Cases) != 2 {
		t.Fatalf("%d cases, want 2: %v", len(ex.Cases), ex.Notes)
	}
	for i, typ := range []string{"u8", "f32"} {
		c := ex.Cases[i]
		want := "variant=cpu-naive/size=12x7@tiny.png/filter=box3/k=3/block=none/border=zero/type=" + typ + "/ch=3/layout=planar/cache=hot/timing=cpu/mem=none"
		if c.Name() != want {
			t.Errorf("name %s, want %s", c.Name(), want)
		}
		prob, err := c.Problem()
		if err != nil {
			t.Fatal(err)
		}
		in, err := c.Image.As(prob.Input)
		if err != nil {
			t.Fatal(err)
		}
		scale := 1.0
		if typ == "f32" {
			scale = 1.0 / 255
		}
		for _, px := range [][3]int{{0, 0, 0}, {11, 6, 2}, {5, 3, 1}} {
			x, y, ch := px[0], px[1], px[2]
			want := []float64{float64(x), float64(y), float64(x + y)}[ch] * scale
			if got := in.At(x, y, ch); float32(got) != float32(want) {
				t.Errorf("%s: pixel (%d,%d,%d) = %v, want %v", typ, x, y, ch, got, want)
			}
		}
		// The runner's gate passes on it.
		r := &Runner{Seed: 1}
		s := r.prepare(c)
		if s.err != nil {
			t.Errorf("%s: %v", c.Name(), s.err)
		}
		if err := s.release(); err != nil {
			t.Error(err)
		}
	}
	// The image sets the size: -sizes beside it is an error.
	a.Sizes = [][2]int{{8, 8}}
	if _, err := BuildSweep("", a); err == nil || !strings.Contains(err.Error(), "without -sizes") {
		t.Errorf("-image with -sizes: %v", err)
	}
	// -channels converts: RGB to gray by BT.601 luma.
	gray, err := parseFlags("-image", path, "-variants", "cpu-naive", "-filters", "box3", "-types", "f32", "-channels", "1")
	if err != nil {
		t.Fatal(err)
	}
	gp, err := BuildSweep("", gray)
	if err != nil {
		t.Fatal(err)
	}
	gc := gp.Expand(Env{Variants: convolve.Variants()}).Cases
	if len(gc) != 1 || !strings.Contains(gc[0].Name(), "/size=12x7@tiny.png/") || !strings.Contains(gc[0].Name(), "/ch=1/") {
		t.Fatalf("-channels 1: cases %v", gc)
	}
	gprob, _ := gc[0].Problem()
	gin, err := gc[0].Image.As(gprob.Input)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := gin.At(11, 6, 0), (0.299*11+0.587*6+0.114*17)/255; math.Abs(got-want) > 1e-6 {
		t.Errorf("gray pixel (11,6) = %v, want %v", got, want)
	}
	if _, err := gc[0].Image.As(convolve.Geometry{Width: 12, Height: 7, Channels: 2, Type: convolve.Uint8}); err == nil {
		t.Errorf("RGB to 2 channels: no error")
	}
	bad := filepath.Join(t.TempDir(), "x.png")
	if err := os.WriteFile(bad, []byte("not an image"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := loadImage(bad); err == nil || !strings.Contains(err.Error(), "not a PNG, TIFF, PGM (P5) or PPM (P6) file") {
		t.Errorf("loadImage of text: %v", err)
	}
}

// -list names every variant with its capabilities, in a table of its
// family, and every preset with its axes, within 120 columns.
func TestWriteList(t *testing.T) {
	var sb strings.Builder
	if err := WriteList(&sb, convolve.Variants()); err != nil {
		t.Fatal(err)
	}
	out := sb.String()
	for _, v := range convolve.Variants() {
		if !strings.Contains(out, "\n│ "+v.Describe().Name+" ") {
			t.Errorf("list lacks a row of variant %s", v.Describe().Name)
		}
	}
	for _, p := range presets {
		if !strings.Contains(out, "\n  "+p.Name+": ") {
			t.Errorf("list lacks preset %s", p.Name)
		}
	}
	words := strings.Join(strings.Fields(out), " ")
	for _, want := range []string{
		"gpu-shared", "gpu ops=filter2d", "max-filter-side=", "finite-input=", "tunables=",
		"-variants cpu-naive,gpu-naive,gpu-const,gpu-shared -sizes 256x256,512x512,1024x1024,2048x2048,4096x4096 -filters gauss3 -types f32 -channels 1 -layouts interleaved -borders zero -modes correlate -blocks 16x16 -timing kernel",
		"the cases of 000-image-size, 000-filter-size, 000-block-shape",
	} {
		if !strings.Contains(words, want) {
			t.Errorf("list lacks %q", want)
		}
	}
	for i, l := range strings.Split(out, "\n") {
		if n := utf8.RuneCountInString(l); n > 120 {
			t.Errorf("line %d is %d columns wide: %s", i+1, n, l)
		}
	}
}

// A family's table names once, above it, the capabilities its variants
// share, and in a row what each declares beyond them.
func TestWriteListFamilies(t *testing.T) {
	var sb strings.Builder
	if err := WriteList(&sb, convolve.Variants()); err != nil {
		t.Fatal(err)
	}
	out := sb.String()
	cpu, _, ok := strings.Cut(strings.SplitN(out, "\nCPU\n", 2)[1], "\n\n")
	if !ok || !strings.HasPrefix(cpu, "every one: cpu ") {
		t.Fatalf("no CPU family opening with what its variants share:\n%s", out)
	}
	if strings.Contains(cpu, "gpu-") {
		t.Errorf("the CPU family holds a GPU variant:\n%s", cpu)
	}
	if !strings.Contains(cpu, "│ cpu-fft ") || !strings.Contains(cpu, "finite-input=true") {
		t.Errorf("the CPU family's table lacks cpu-fft's own capabilities:\n%s", cpu)
	}
}

// go test -bench with -image runs the cases on the image and writes
// standard benchmark lines named by it.
func TestImageBench(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the benchmark binary")
	}
	path := writePNG(t, t.TempDir())
	cmd := binaryWithoutGPU(t, "-test.run", "^$", "-test.bench", ".", "-test.cpu", "1",
		"-image", path, "-variants", "cpu-fast", "-filters", "gauss3", "-types", "u8", "-max-time=100ms")
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	want := regexp.MustCompile(`(?m)^BenchmarkConv/variant=cpu-fast/size=12x7@tiny\.png/filter=gauss3/k=3/block=none/border=zero/type=u8/ch=3/layout=interleaved/cache=hot/timing=cpu/mem=none\s+1\s+\d+ ns/op`)
	if !want.Match(out) || !strings.Contains(string(out), "sweep-axes: -variants cpu-fast -filters gauss3 -types u8 -image tiny.png\n") {
		t.Errorf("output lacks a line matching %s or the sweep-axes line:\n%s", want, out)
	}
	// A bad axis value stops the binary with the valid values.
	cmd = binaryWithoutGPU(t, "-test.run", "^$", "-test.bench", ".", "-types", "u9")
	out, err = cmd.CombinedOutput()
	if err == nil || !strings.Contains(string(out), "-types u9: want one of f32, u8, i16") {
		t.Errorf("-types u9: %v\n%s", err, out)
	}
}
