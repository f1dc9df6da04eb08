package variants

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"strings"
	"testing"

	"github.com/convbench/convbench/convolve"
	"github.com/convbench/convbench/cudabind"
	"github.com/convbench/convbench/gpu/kernels"
	"github.com/convbench/convbench/internal/gputest"
	"github.com/convbench/convbench/internal/imagetest"
)

// h100 is the device information the GPU-free checks plan against: an
// H100's limits as the driver reports them.
var h100 = cudabind.DeviceInfo{
	Name: "NVIDIA H100 80GB HBM3", Major: 9, Minor: 0, SMs: 132,
	SharedPerBlock: 48 << 10, SharedPerBlockOptin: 227 << 10, SharedPerSM: 228 << 10,
	ConstantBytes: 64 << 10, MaxThreadsPerBlock: 1024, MaxGridDimX: 1<<31 - 1, WarpSize: 32,
	MaxTex1DLinearWidth: 1 << 28, MaxTex2DLinearWidth: 1 << 17, MaxTex2DLinearHeight: 1 << 16,
}

// declOf returns the declaration of the registered variant name.
func declOf(t *testing.T, name string) *Decl {
	t.Helper()
	v, err := convolve.Lookup(name)
	if err != nil {
		t.Fatal(err)
	}
	gv, ok := v.(*Variant)
	if !ok || gv.decl == nil {
		t.Fatalf("%s is not a declared variant", name)
	}
	return gv.decl
}

// TestDeclaredVariantsValidate resolves every declared kernel variant
// for every case the GPU agreement test plans, against an H100's limits:
// each entry point, constant, define and grid rule must exist, and every
// case within the capabilities must fit the device.
func TestDeclaredVariantsValidate(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	for _, gv := range append(gpuVariants, gpuVariant{name: "gpu-sobel"},
		gpuVariant{name: "gpu-sobel", cfg: convolve.Config{Tunables: map[string]int{sobelShared: 1}}}) {
		d := declOf(t, gv.name)
		if gv.name == "gpu-sobel" {
			for _, g := range agreementSizes {
				p := kernelCase{typ: convolve.Uint8, channels: 3, border: convolve.Reflect}.problem(g, nil)
				p.Op = convolve.SobelMagnitude
				if err := d.Validate(p, gv.cfg, h100); err != nil {
					t.Errorf("%v %v: %v", gv, p, err)
				}
			}
			continue
		}
		filter := imagetest.RandomFilter
		if gv.sep {
			filter = imagetest.SeparableFilter
		}
		for _, kc := range agreementCases(gv) {
			f := filter(r, kc.kw, kc.kh)
			cfg := gv.cfg
			cfg.Block = kc.block
			for _, g := range agreementSizes {
				p := kc.problem(g, f)
				if err := d.Validate(p, cfg, h100); err != nil {
					t.Errorf("%v %v: %v", gv, p, err)
				}
			}
		}
	}
}

// TestDeclaredVariantsRefuse checks refusals the declarations decide
// before any device work: shared memory and constant memory past the
// device's limits, and tunables out of range.
func TestDeclaredVariantsRefuse(t *testing.T) {
	small := h100
	small.SharedPerBlock, small.SharedPerBlockOptin = 16<<10, 16<<10
	r := rand.New(rand.NewPCG(7, 8))
	g := convolve.Geometry{Width: 64, Height: 64, Channels: 1, Type: convolve.Float32}
	p31 := convolve.Problem{Op: convolve.Filter2D, Input: g, Filter: imagetest.RandomFilter(r, 31, 31)}
	p129 := convolve.Problem{Op: convolve.Filter2D, Input: g, Filter: imagetest.RandomFilter(r, 129, 129)}
	cases := []struct {
		variant string
		p       convolve.Problem
		cfg     convolve.Config
		info    cudabind.DeviceInfo
		what    string // CapabilityError.What, or "" for a plain error
		value   string // in the error's text
	}{
		// A 31x31 tile of 16x16 blocks takes (16+30)*(16+30)*4 = 8464
		// bytes, which fit; of 64x16 blocks (64+30)*(16+30)*4 = 17296,
		// which do not; gpu-tiled's 32x8 block with RY=8,
		// (32+30)*(8*8+30)*4 = 23312.
		{"gpu-shared", p31, convolve.Config{Block: convolve.Block{X: 64, Y: 16}}, small, "filter size", "17296 bytes"},
		{"gpu-shared-rows", p31, convolve.Config{Block: convolve.Block{X: 64, Y: 16}}, small, "filter size", "17296 bytes"},
		{"gpu-texture-shared", p31, convolve.Config{Block: convolve.Block{X: 64, Y: 16}}, small, "filter size", "17296 bytes"},
		{"gpu-tiled", p31, convolve.Config{Tunables: map[string]int{tunableRY: 8}}, small, "filter size", "23312 bytes"},
		{"gpu-const", p129, convolve.Config{}, h100, "filter size", "66564 bytes"},
		{"gpu-tiled", p31, convolve.Config{Tunables: map[string]int{tunableRY: 3}}, h100, "", "ry=3"},
		{"gpu-separable", convolve.Problem{Op: convolve.Filter2D, Input: g, Filter: imagetest.SeparableFilter(r, 5, 5)},
			convolve.Config{Tunables: map[string]int{tunableShared: 2}}, h100, "", "shared=2"},
	}
	for _, c := range cases {
		err := declOf(t, c.variant).Validate(c.p, c.cfg, c.info)
		if err == nil || !strings.Contains(err.Error(), c.variant) || !strings.Contains(err.Error(), c.value) {
			t.Errorf("%s %v %v: err = %v, want one naming the variant and %q", c.variant, c.p, c.cfg, err, c.value)
			continue
		}
		var ce *convolve.CapabilityError
		if c.what != "" && (!errors.As(err, &ce) || ce.Variant != c.variant || ce.What != c.what) {
			t.Errorf("%s: err = %v, want a *convolve.CapabilityError about %s", c.variant, err, c.what)
		}
	}
}

// TestDeclValidateErrors checks that a declaration that cannot work is
// an error naming the variant and the wrong value, found without a GPU.
func TestDeclValidateErrors(t *testing.T) {
	good := func() Decl {
		return Decl{
			Desc:      convolve.Description{Name: "test-shared", Caps: directCaps()},
			Family:    "shared",
			Constants: constFilter,
			Kernels:   []Kernel{{Name: "conv_shared", Grid: PerPixel, Shared: Tile.Bytes, Args: directArgs}},
		}
	}
	box, _ := convolve.Box(5)
	p := convolve.Problem{Op: convolve.Filter2D, Input: convolve.Geometry{Width: 40, Height: 30, Channels: 1}, Filter: box}
	if err := func() *Decl { d := good(); return &d }().Validate(p, convolve.Config{}, h100); err != nil {
		t.Fatalf("the valid declaration: %v", err)
	}
	small := h100
	small.SharedPerBlock, small.SharedPerBlockOptin = 1<<10, 1<<10
	cases := []struct {
		name  string
		edit  func(d *Decl)
		info  cudabind.DeviceInfo
		what  string // DeclError.What, or "capability" for a *convolve.CapabilityError
		value string
	}{
		{"missing entry point", func(d *Decl) { d.Kernels[0].Name = "conv_sharde" }, h100, "entry point", "conv_sharde"},
		{"bad grid rule", func(d *Decl) { d.Kernels[0].Grid = 0 }, h100, "grid rule", "GridRule(0)"},
		{"grid rule past the last", func(d *Decl) { d.Kernels[0].Grid = 9 }, h100, "grid rule", "GridRule(9)"},
		{"rows without RY", func(d *Decl) { d.Kernels[0].Grid = PerRows }, h100, "grid rule", "PerRows"},
		{"shared memory over the limit", func(d *Decl) {}, small, "capability", "1600 bytes"},
		{"unknown define", func(d *Decl) {
			d.Defines = func(*Base) (map[string]string, error) { return map[string]string{"TEXHW": "1"}, nil }
		}, h100, "define", "TEXHW"},
		{"bad RY", func(d *Decl) {
			d.Family = "tiled"
			d.Kernels[0].Name = "conv_tiled"
			d.Defines = func(*Base) (map[string]string, error) { return map[string]string{"RY": "0"}, nil }
		}, h100, "define", "RY=0"},
		{"unknown constant", func(d *Decl) { d.Constants = []Constant{{Name: "c_weights", Values: FilterWeights}} }, h100, "constant", "c_weights"},
		{"unknown family", func(d *Decl) { d.Family = "shraed" }, h100, "kernel family", "shraed"},
		{"no kernels", func(d *Decl) { d.Kernels = nil }, h100, "kernels", ""},
		{"scratch argument without Scratch", func(d *Decl) { d.Kernels[0].Args = []Arg{ArgIn, argScratch} }, h100, "argument", "ArgScratch"},
		{"prepared argument without Prepare", func(d *Decl) { d.Kernels[0].Args = []Arg{prepared(2)} }, h100, "argument", "Prepared(2)"},
		{"no such argument", func(d *Decl) { d.Kernels[0].Args = []Arg{0} }, h100, "argument", "Arg(0)"},
		{"too few arguments", func(d *Decl) { d.Kernels[0].Args = directArgs[:4] }, h100, "arguments", "[ArgIn ArgOut ArgWidth ArgHeight]"},
		{"argument of the wrong kind", func(d *Decl) {
			d.Kernels[0].Args = []Arg{ArgWidth, ArgOut, ArgIn, ArgHeight, ArgStride}
		}, h100, "argument", "ArgWidth"},
		{"stride for an int", func(d *Decl) {
			d.Kernels[0].Args = []Arg{ArgIn, ArgOut, ArgStride, ArgHeight, ArgStride}
		}, h100, "argument", "ArgStride"},
		{"selected kernel not declared", func(d *Decl) {
			d.Select = func(*Base) ([]string, error) { return []string{"conv_const"}, nil }
		}, h100, "selected kernel", "conv_const"},
	}
	for _, c := range cases {
		d := good()
		c.edit(&d)
		err := d.Validate(p, convolve.Config{}, c.info)
		if err == nil {
			t.Errorf("%s: Validate = nil, want an error", c.name)
			continue
		}
		if !strings.Contains(err.Error(), "test-shared") || !strings.Contains(err.Error(), c.value) {
			t.Errorf("%s: err = %v, want it to name test-shared and %q", c.name, err, c.value)
		}
		if c.what == "capability" {
			var ce *convolve.CapabilityError
			if !errors.As(err, &ce) || ce.Variant != "test-shared" {
				t.Errorf("%s: err = %v, want a *convolve.CapabilityError", c.name, err)
			}
			continue
		}
		var de *DeclError
		if !errors.As(err, &de) || de.Variant != "test-shared" || de.What != c.what || de.Value != c.value {
			t.Errorf("%s: err = %#v, want a *DeclError about the %s %q", c.name, err, c.what, c.value)
		}
	}
}

func TestTile(t *testing.T) {
	tl := Tile{Block: convolve.Block{X: 32, Y: 8}, KW: 5, KH: 3, RY: 4}
	if tl.Width() != 36 || tl.Height() != 34 || tl.Bytes() != 36*34*4 {
		t.Errorf("%+v: %dx%d, %d bytes, want 36x34, %d", tl, tl.Width(), tl.Height(), tl.Bytes(), 36*34*4)
	}
	if got := tileBytes(convolve.Block{X: 16, Y: 16}, 7, 5); got != 22*20*4 {
		t.Errorf("tileBytes = %d, want %d", got, 22*20*4)
	}
	one := Tile{Block: convolve.Block{X: 16, Y: 8}, KW: 9, KH: 7, RY: 1}
	if one.RowPassBytes() != 8*24*4 || one.ColPassBytes() != 14*16*4 {
		t.Errorf("%+v: row pass %d, column pass %d bytes, want %d, %d", one, one.RowPassBytes(), one.ColPassBytes(), 8*24*4, 14*16*4)
	}
}

// TestExampleFamilyCompiles compiles the example family of docs/variants.md
// (testdata/shared_interior.cu, ExampleDecl) for sm_90 with the local
// NVRTC over the specializations of compileSpecs.
func TestExampleFamilyCompiles(t *testing.T) {
	t.Parallel() // NVRTC only: no device memory, so beside the other compile checks
	gputest.NVRTC(t)
	code, err := os.ReadFile("testdata/shared_interior.cu")
	if err != nil {
		t.Fatal(err)
	}
	src := cudabind.Source{Name: "shared_interior.cu", Code: string(code), Headers: kernels.Headers()}
	var checks []compileCheck
	for _, s := range compileSpecs() {
		checks = append(checks, compileCheck{src, CompileOptions(s.problem(), convolve.Config{}, s.block, s.index64, nil), fmt.Sprint(s)})
	}
	checkCompiles(t, checks)
}

// TestDeclFilterlessOperation checks that a declaration uploading the
// filter, planned for an operation without one, is an error, not a
// panic.
func TestDeclFilterlessOperation(t *testing.T) {
	caps := directCaps()
	caps.Ops = []convolve.Operation{convolve.SobelMagnitude}
	d := Decl{
		Desc:      convolve.Description{Name: "test-filterless", Caps: caps},
		Family:    "const",
		Constants: constFilter,
		Kernels:   []Kernel{{Name: "conv_const", Grid: PerPixel, Args: directArgs}},
	}
	p := convolve.Problem{Op: convolve.SobelMagnitude, Input: convolve.Geometry{Width: 8, Height: 8, Channels: 1}}
	err := d.Validate(p, convolve.Config{}, h100)
	if err == nil || !strings.Contains(err.Error(), "test-filterless") {
		t.Errorf("Validate = %v, want an error naming test-filterless", err)
	}
}

// TestGridRules checks the grid and block each rule gives a 96x48
// 3-channel image with a 5x3 filter and 16x8 blocks.
func TestGridRules(t *testing.T) {
	box, err := convolve.NewFilter("box5x3", 5, 3, make([]float32, 15))
	if err != nil {
		t.Fatal(err)
	}
	p := convolve.Problem{Op: convolve.Filter2D, Filter: box,
		Input: convolve.Geometry{Width: 96, Height: 48, Channels: 3, Type: convolve.Float32}}
	cases := []struct {
		rule    GridRule
		family  string
		kernel  string
		defines map[string]string
		want    cudabind.Dim3
	}{
		{PerPixel, "const", "conv_const", nil, cudabind.Dim3{X: 6, Y: 6, Z: 3}},
		{PerRows, "tiled", "conv_tiled", map[string]string{"RY": "4"}, cudabind.Dim3{X: 6, Y: 2, Z: 3}}, // 12 rows of threads
		{PerRows, "tiled", "conv_tiled", map[string]string{"RY": "1"}, cudabind.Dim3{X: 6, Y: 6, Z: 3}}, // 48 rows
		{PerPaddedPixel, "padded", "pad_input", nil, cudabind.Dim3{X: 7, Y: 7, Z: 3}},                   // 100x50 pixels
		{PerRows, "tiled", "conv_tiled", map[string]string{"RY": "8"}, cudabind.Dim3{X: 6, Y: 1, Z: 3}}, // 6 rows
	}
	for _, c := range cases {
		d := Decl{Desc: convolve.Description{Name: "test-grid", Caps: directCaps()}, Family: c.family,
			Kernels: []Kernel{{Name: c.kernel, Grid: c.rule, Args: directArgs}}}
		if c.kernel == "pad_input" {
			d.Kernels[0].Args = []Arg{ArgIn, argScratch, ArgWidth, ArgHeight, ArgStride}
			d.Scratch = func(*Base) int64 { return 100 * 50 * 3 }
		}
		if c.defines != nil {
			d.Defines = func(*Base) (map[string]string, error) { return c.defines, nil }
		}
		b, err := newBase(d.Desc, convolve.Block{X: 16, Y: 8}, p, convolve.Config{})
		if err != nil {
			t.Fatal(err)
		}
		b.Info = h100
		r, err := d.resolve(b)
		if err != nil {
			t.Errorf("%v %v: %v", c.rule, c.defines, err)
			continue
		}
		l := r.kernels[0]
		if l.grid != c.want || l.block != (cudabind.Dim3{X: 16, Y: 8, Z: 1}) {
			t.Errorf("%v %v: grid %v block %v, want %v and 16x8x1", c.rule, c.defines, l.grid, l.block, c.want)
		}
	}
}

// tileBytes is the dynamic shared memory of a (bx+kw-1) x (by+kh-1) float
// tile: Tile{blk, kw, kh, 1}.Bytes().
func tileBytes(blk convolve.Block, kw, kh int) int {
	return Tile{Block: blk, KW: kw, KH: kh, RY: 1}.Bytes()
}

// TestArgValues binds each kind of declared argument on a plan of a fake
// device: the plan's buffers, dimensions and stride, the scratch buffer,
// Prepare's values, the filter in global memory (uploaded once, however
// many kernels take it) and a Prepared index past Prepare's values, a
// *DeclError naming the kernel.
func TestArgValues(t *testing.T) {
	fd, plan := fakePlanner(t, func(*cudabind.Exec, cudabind.Stream) error { return nil })
	b := plan(fakeProblem(t))
	defer b.Close()
	d := &Decl{Desc: convolve.Description{Name: "args"}, Family: "naive"}
	v := &argValues{d: d, b: b, scratch: 0x1000, prepared: []any{"tex", int32(7)}}
	for _, tt := range []struct {
		arg  Arg
		want any
		err  string
	}{
		{ArgIn, b.In, ""},
		{ArgOut, b.Out, ""},
		{ArgWidth, int32(8), ""},
		{ArgHeight, int32(4), ""},
		{ArgStride, int32(8), ""},
		{argScratch, cudabind.DevPtr(0x1000), ""},
		{prepared(0), "tex", ""},
		{prepared(1), int32(7), ""},
		{prepared(2), nil, "kernel k: Prepare returned 2 values"},
	} {
		got, err := v.value(tt.arg, "k")
		var de *DeclError
		switch {
		case tt.err != "":
			if !errors.As(err, &de) || !strings.Contains(err.Error(), tt.err) {
				t.Errorf("value(%v) = %v, want a *DeclError saying %q", tt.arg, err, tt.err)
			}
		case err != nil:
			t.Errorf("value(%v): %v", tt.arg, err)
		case got != tt.want:
			t.Errorf("value(%v) = %v, want %v", tt.arg, got, tt.want)
		}
	}
	before := len(fd.Copies())
	first, err := v.value(argFilter, "k")
	if err != nil {
		t.Fatal(err)
	}
	second, err := v.value(argFilter, "k2")
	if err != nil {
		t.Fatal(err)
	}
	if first != second || first == cudabind.DevPtr(0) {
		t.Errorf("filter arguments %v and %v, want one non-zero buffer", first, second)
	}
	if n := len(fd.Copies()) - before; n != 1 {
		t.Errorf("filter uploaded %d times, want once", n)
	}
}

// TestConstPerPixel checks the declarations of the one-kernel direct
// variants with a constant-memory filter: their report, family, kernel,
// grid rule, arguments, constants and dynamic shared memory.
func TestConstPerPixel(t *testing.T) {
	tile := Tile{Block: convolve.Block{X: 16, Y: 8}, KW: 5, KH: 3, RY: 1}
	for _, tt := range []struct {
		name, report, family, kernel string
		shared                       int // bytes for tile; 0: none
	}{
		{"gpu-const", "000", "const", "conv_const", 0},
		{"gpu-shared", "000", "shared", "conv_shared", tile.Bytes()},
		{"gpu-shared-rows", "002", "shared_rows", "conv_shared_rows", tile.Bytes()},
	} {
		d := declOf(t, tt.name)
		if d.Desc.Report != tt.report || d.Family != tt.family || len(d.Kernels) != 1 || len(d.Constants) != 1 {
			t.Errorf("%s: report %q, family %q, %d kernels, %d constants; want %q, %q, 1, 1",
				tt.name, d.Desc.Report, d.Family, len(d.Kernels), len(d.Constants), tt.report, tt.family)
			continue
		}
		k := d.Kernels[0]
		if k.Name != tt.kernel || k.Grid != PerPixel || fmt.Sprint(k.Args) != fmt.Sprint(directArgs) || d.Constants[0].Name != "c_filter" {
			t.Errorf("%s: kernel %s %v %v, constant %s; want %s PerPixel %v, c_filter", tt.name, k.Name, k.Grid, k.Args, d.Constants[0].Name, tt.kernel, directArgs)
		}
		shared := 0
		if k.Shared != nil {
			shared = k.Shared(tile)
		}
		if shared != tt.shared {
			t.Errorf("%s: %d bytes of shared memory for %+v, want %d", tt.name, shared, tile, tt.shared)
		}
	}
}
