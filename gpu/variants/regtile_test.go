package variants

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/convbench/convbench/convolve"
	"github.com/convbench/convbench/cudabind"
	"github.com/convbench/convbench/gpu/kernels"
	"github.com/convbench/convbench/internal/gputest"
	"github.com/convbench/convbench/internal/imagetest"
)

func TestRegtileDefaults(t *testing.T) {
	tests := []struct {
		kw, kh, rx, ry int
	}{
		{1, 1, 4, 2},
		{3, 3, 4, 2},
		{7, 7, 4, 2},
		{9, 9, 4, 8},   // chunks of 2 rows: 4*2*81 multiply-adds each
		{15, 15, 4, 8}, // 4*2*225 = 1800
		{21, 21, 4, 8}, // 4*2*441 = 3528
		{31, 31, 4, 8}, // 4*2*961 = 7688
		{31, 1, 4, 8},
		{1, 31, 4, 8},
		{7, 21, 4, 8},
	}
	for _, tt := range tests {
		rx, ry := regtileDefaults(tt.kw, tt.kh)
		if rx != tt.rx || ry != tt.ry {
			t.Errorf("regtileDefaults(%d, %d) = %d, %d; want %d, %d", tt.kw, tt.kh, rx, ry, tt.rx, tt.ry)
		}
		if rx*regtileChunk(ry)*tt.kw*tt.kh > regtileUnrollLimit {
			t.Errorf("%dx%d: rx=%d ry=%d leaves the row walk rolled", tt.kw, tt.kh, rx, ry)
		}
	}
}

// regtileUnrollLimit must agree with the test regtile.cu makes in the
// preprocessor.
func TestRegtileUnrollLimitMatchesKernel(t *testing.T) {
	src, err := kernels.Source("regtile")
	if err != nil {
		t.Fatal(err)
	}
	want := fmt.Sprintf("#define RT_UNROLL_LIMIT %d\n", regtileUnrollLimit)
	if !strings.Contains(src, want) {
		t.Errorf("regtile.cu lacks the line %q that regtileUnrollLimit mirrors", strings.TrimSpace(want))
	}
}

func TestRegtileChunk(t *testing.T) {
	for _, tt := range []struct{ ry, want int }{{1, 1}, {2, 2}, {4, 2}, {8, 2}} {
		if got := regtileChunk(tt.ry); got != tt.want {
			t.Errorf("regtileChunk(%d) = %d, want %d", tt.ry, got, tt.want)
		}
	}
}

func TestRegtileSharedBytes(t *testing.T) {
	tests := []struct {
		b              convolve.Block
		rx, ry, kw, kh int
		want           int
	}{
		// The tile starts 3 columns left of the first input column
		// (-(3/2) mod 4): 3+32*4+3-1 = 133, padded to 136; ry=8 in chunks
		// of 2: two buffers of 8*2+2 = 18 rows.
		{convolve.Block{X: 32, Y: 8}, 4, 8, 3, 3, 2 * 136 * 18 * 4},
		// One chunk: 8*2+2 = 18 rows.
		{convolve.Block{X: 32, Y: 8}, 4, 2, 3, 3, 136 * 18 * 4},
		// Shift -(21/2) mod 4 = 2: 2+128+20 = 150, padded to 152; 16+20 = 36 rows.
		{convolve.Block{X: 32, Y: 8}, 4, 2, 21, 21, 152 * 36 * 4},
		// ry=8 in chunks of 2: two buffers of 16+20 = 36 rows.
		{convolve.Block{X: 32, Y: 8}, 4, 8, 21, 21, 2 * 152 * 36 * 4},
		// Shift -(9/2) mod 4 = 0; ry=4 in chunks of 2: two of 16+8 rows.
		{convolve.Block{X: 32, Y: 8}, 4, 4, 9, 9, 2 * 136 * 24 * 4},
		// Shift 2: 2+7+5-1 = 13, padded to 16; 5+0 = 5 rows.
		{convolve.Block{X: 7, Y: 5}, 1, 1, 5, 1, 16 * 5 * 4},
	}
	for _, tt := range tests {
		if got := regtileSharedBytes(tt.b, tt.rx, tt.ry, tt.kw, tt.kh); got != tt.want {
			t.Errorf("regtileSharedBytes(%v, rx=%d, ry=%d, %dx%d) = %d, want %d", tt.b, tt.rx, tt.ry, tt.kw, tt.kh, got, tt.want)
		}
	}
}

// TestRegtileDeclared checks gpu-regtile's declaration without a device:
// its grid covers the image with rx x ry outputs per thread, its shared
// memory is regtileSharedBytes of the tunables, and a block whose tile
// does not fit is refused before any device work.
func TestRegtileDeclared(t *testing.T) {
	v, err := convolve.Lookup("gpu-regtile")
	if err != nil {
		t.Fatal(err)
	}
	d := v.(*Variant).decl
	if d == nil {
		t.Fatal("gpu-regtile is not a declaration")
	}
	dense := func(k int) *convolve.Filter {
		return &convolve.Filter{Name: "dense", Width: k, Height: k, Weights: make([]float32, k*k)}
	}
	tests := []struct {
		w, h, k int
		cfg     convolve.Config
		grid    cudabind.Dim3
		shared  int
	}{
		{4096, 4096, 3, convolve.Config{Tunables: map[string]int{tunableRX: 4, tunableRY: 2}},
			cudabind.Dim3{X: 32, Y: 256, Z: 1}, regtileSharedBytes(regtileBlock, 4, 2, 3, 3)},
		{4099, 4097, 21, convolve.Config{Tunables: map[string]int{tunableRX: 8, tunableRY: 2}},
			cudabind.Dim3{X: 17, Y: 257, Z: 1}, regtileSharedBytes(regtileBlock, 8, 2, 21, 21)},
		{100, 50, 5, convolve.Config{Block: convolve.Block{X: 16, Y: 4}, Tunables: map[string]int{tunableRX: 1, tunableRY: 8}},
			cudabind.Dim3{X: 7, Y: 2, Z: 1}, regtileSharedBytes(convolve.Block{X: 16, Y: 4}, 1, 8, 5, 5)},
	}
	for _, tt := range tests {
		p := convolve.Problem{Op: convolve.Filter2D, Filter: dense(tt.k),
			Input: convolve.Geometry{Width: tt.w, Height: tt.h, Channels: 1, Type: convolve.Float32}}
		if err := d.Validate(p, tt.cfg, h100); err != nil {
			t.Errorf("%dx%d K=%d %v: Validate: %v", tt.w, tt.h, tt.k, tt.cfg.Tunables, err)
			continue
		}
		b, err := newBase(d.Desc, d.Block, p, tt.cfg)
		if err != nil {
			t.Fatal(err)
		}
		b.Info = h100
		r, err := d.resolve(b)
		if err != nil {
			t.Fatal(err)
		}
		if l := r.kernels[0]; l.grid != tt.grid || l.shared != tt.shared {
			t.Errorf("%dx%d K=%d %v: grid %v shared %d, want %v and %d", tt.w, tt.h, tt.k, tt.cfg.Tunables, l.grid, l.shared, tt.grid, tt.shared)
		}
	}
	p := convolve.Problem{Op: convolve.Filter2D, Filter: dense(31),
		Input: convolve.Geometry{Width: 4096, Height: 4096, Channels: 1, Type: convolve.Float32}}
	blk := convolve.Block{X: 64, Y: 16}
	big := convolve.Config{Block: blk, Tunables: map[string]int{tunableRX: 8, tunableRY: 8}}
	if err := d.Validate(p, big, h100); err == nil || !strings.Contains(err.Error(), "shared") {
		t.Errorf("31x31, 64x16 block, rx=8 ry=8 (a %d-byte tile): Validate = %v, want a shared memory error", regtileSharedBytes(blk, 8, 8, 31, 31), err)
	}
}

func TestRegtileVecIn(t *testing.T) {
	f := &convolve.Filter{Name: "one", Width: 3, Height: 3, Weights: make([]float32, 9)}
	prob := func(w, stride, ch int, typ convolve.ElemType, l convolve.Layout) convolve.Problem {
		return convolve.Problem{Op: convolve.Filter2D, Filter: f,
			Input: convolve.Geometry{Width: w, Height: 8, Channels: ch, Type: typ, Layout: l, Stride: stride}}
	}
	gray := prob(64, 0, 1, convolve.Float32, convolve.Interleaved)
	tests := []struct {
		name   string
		p      convolve.Problem
		bx, rx int
		want   bool
	}{
		{"f32 gray, width 64", gray, 32, 4, true},
		{"f32 gray, 7 threads of 4 outputs", gray, 7, 4, true},
		{"f32 gray, 7 threads of 2 outputs", gray, 7, 2, false},
		{"f32 gray, 6 threads of 2 outputs", gray, 6, 2, true},
		{"f32 gray, width 65", prob(65, 0, 1, convolve.Float32, convolve.Interleaved), 32, 4, false},
		{"f32 gray, width 65 stride 68", prob(65, 68, 1, convolve.Float32, convolve.Interleaved), 32, 4, true},
		{"f32 planar RGB", prob(64, 0, 3, convolve.Float32, convolve.Planar), 32, 4, true},
		{"f32 interleaved RGB", prob(64, 0, 3, convolve.Float32, convolve.Interleaved), 32, 4, false},
		{"u8 gray", prob(64, 0, 1, convolve.Uint8, convolve.Interleaved), 32, 4, true},
		{"i16 gray", prob(64, 0, 1, convolve.Int16, convolve.Interleaved), 32, 4, true},
		{"u8 gray, width 66", prob(66, 0, 1, convolve.Uint8, convolve.Interleaved), 32, 4, false},
		{"i16 planar RGB, width 66 stride 68", prob(66, 68, 3, convolve.Int16, convolve.Planar), 32, 4, true},
		{"u8 interleaved RGB", prob(64, 0, 3, convolve.Uint8, convolve.Interleaved), 32, 4, false},
	}
	for _, tt := range tests {
		if got := regtileVecIn(&Base{Problem: tt.p}, tt.bx, tt.rx); got != tt.want {
			t.Errorf("%s: regtileVecIn = %v, want %v", tt.name, got, tt.want)
		}
	}
	// With the device rows padded to vecRowAlign elements (InRowAlign),
	// any width of one channel or planar layout takes the vector fill.
	for _, tt := range []struct {
		name string
		p    convolve.Problem
		want bool
	}{
		{"f32 gray, width 65", prob(65, 0, 1, convolve.Float32, convolve.Interleaved), true},
		{"u8 gray, width 66", prob(66, 0, 1, convolve.Uint8, convolve.Interleaved), true},
		{"i16 planar RGB, width 4099", prob(4099, 0, 3, convolve.Int16, convolve.Planar), true},
		{"u8 interleaved RGB, width 66", prob(66, 0, 3, convolve.Uint8, convolve.Interleaved), false},
	} {
		b := &Base{Problem: tt.p}
		b.setInStride(vecRowAlign)
		if got := regtileVecIn(b, 32, 4); got != tt.want {
			t.Errorf("%s, rows padded: regtileVecIn = %v, want %v", tt.name, got, tt.want)
		}
	}
}

// setInStride pads the device rows to the alignment asked, and the input
// buffer and the kernels' stride argument with them; a stride already
// aligned is kept.
func TestSetInStride(t *testing.T) {
	f, _ := convolve.Box(3)
	tests := []struct {
		name       string
		in         convolve.Geometry
		align      int
		wantStride int
		wantBytes  int64
	}{
		{"f32 4099 wide", convolve.Geometry{Width: 4099, Height: 5, Channels: 1, Type: convolve.Float32}, 32, 4128, 4128 * 5 * 4},
		{"u8 planar RGB 33 wide", convolve.Geometry{Width: 33, Height: 2, Channels: 3, Type: convolve.Uint8, Layout: convolve.Planar}, 32, 64, 64 * 6},
		{"i16 interleaved RGB 11 wide", convolve.Geometry{Width: 11, Height: 4, Channels: 3, Type: convolve.Int16}, 4, 36, 36 * 4 * 2},
		{"aligned already", convolve.Geometry{Width: 64, Height: 3, Channels: 1, Type: convolve.Float32}, 32, 64, 64 * 3 * 4},
		{"padded host stride", convolve.Geometry{Width: 60, Height: 3, Channels: 1, Type: convolve.Float32, Stride: 64}, 32, 64, (64*3 - 4) * 4},
		{"no alignment", convolve.Geometry{Width: 65, Height: 3, Channels: 1, Type: convolve.Float32}, 0, 65, 65 * 3 * 4},
	}
	for _, tt := range tests {
		p := convolve.Problem{Op: convolve.Filter2D, Filter: f, Input: tt.in}
		b, err := newBase(convolve.Description{Name: "x", Caps: directCaps()}, convolve.Block{}, p, convolve.Config{})
		if err != nil {
			t.Fatalf("%s: %v", tt.name, err)
		}
		b.setInStride(tt.align)
		if b.InStride() != tt.wantStride || b.InBytes != tt.wantBytes || b.Stride() != any(int32(tt.wantStride)) {
			t.Errorf("%s: InStride %d, InBytes %d, Stride %v; want %d, %d", tt.name, b.InStride(), b.InBytes, b.Stride(), tt.wantStride, tt.wantBytes)
		}
	}
}

func TestRegtileCaps(t *testing.T) {
	v, err := convolve.Lookup("gpu-regtile")
	if err != nil {
		t.Fatal(err)
	}
	c := v.Describe().Caps
	if !c.GPU || !c.ReferenceOrder || c.MaxFilterSide != regtileMaxSide {
		t.Errorf("gpu-regtile caps: GPU %v, ReferenceOrder %v, MaxFilterSide %d; want true, true, %d", c.GPU, c.ReferenceOrder, c.MaxFilterSide, regtileMaxSide)
	}
	for _, name := range []string{tunableRX, tunableRY} {
		if err := c.CheckConfig(convolve.Config{Tunables: map[string]int{name: 2}}); err != nil {
			t.Errorf("tunable %s: %v", name, err)
		}
	}
	big := &convolve.Filter{Name: "big", Width: 33, Height: 3, Weights: make([]float32, 99)}
	p := convolve.Problem{Op: convolve.Filter2D, Filter: big, Input: convolve.Geometry{Width: 64, Height: 64, Channels: 1, Type: convolve.Float32}}
	var ce *convolve.CapabilityError
	if err := c.Check(p); !errors.As(err, &ce) {
		t.Errorf("33x3 filter: Check = %v, want a *convolve.CapabilityError", err)
	}
}

// regtileSpecs are the specializations TestRegtileCompile builds: every
// filter size class, every border, type, channel layout, outputs per
// thread and a few block shapes, with and without vector loads.
func regtileSpecs() []struct {
	s      spec
	rx, ry int
} {
	type rs = struct {
		s      spec
		rx, ry int
	}
	b := convolve.Block{X: 32, Y: 8}
	var out []rs
	for i, k := range []int{1, 3, 5, 7, 9, 11, 15, 21, 31} {
		rx, ry := regtileDefaults(k, k)
		out = append(out, rs{spec{kw: k, kh: k, border: convolve.Borders[i%len(convolve.Borders)], typ: convolve.Float32, channels: 1, block: b}, rx, ry})
	}
	for _, r := range [][2]int{{1, 1}, {2, 8}, {8, 4}, {8, 8}} {
		out = append(out, rs{spec{kw: 31, kh: 31, border: convolve.Mirror, typ: convolve.Float32, channels: 1, block: b}, r[0], r[1]})
	}
	for bi, bo := range convolve.Borders {
		for ti, typ := range convolve.ElemTypes {
			out = append(out, rs{spec{kw: 5, kh: 3, border: bo, typ: typ, channels: 1 + (bi+ti)%4,
				layout: convolve.Layouts[(bi+ti)%2], block: b}, 4, 8})
		}
	}
	for _, blk := range []convolve.Block{{X: 7, Y: 5}, {X: 1, Y: 64}, {X: 64, Y: 4}, {X: 16, Y: 16}} {
		out = append(out, rs{spec{kw: 7, kh: 1, border: convolve.Replicate, typ: convolve.Float32, channels: 1, block: blk}, 2, 4})
	}
	out = append(out, rs{spec{kw: 3, kh: 3, border: convolve.Wrap, typ: convolve.Int16, channels: 3, layout: convolve.Planar, block: b, index64: true}, 4, 8})
	return out
}

// TestRegtileCompile compiles regtile.cu for sm_90 over regtileSpecs with
// the local NVRTC (no driver needed), with and without 128-bit loads and
// --fmad=false.
func TestRegtileCompile(t *testing.T) {
	t.Parallel() // NVRTC only: no device memory, so beside the other compile checks
	gputest.NVRTC(t)
	src, err := sourceOf("regtile")
	if err != nil {
		t.Fatal(err)
	}
	var checks []compileCheck
	for _, rs := range regtileSpecs() {
		p := rs.s.problem()
		for _, vec := range []string{"0", "1"} {
			if vec == "1" && !regtileVecIn(&Base{Problem: p}, rs.s.block.X, rs.rx) {
				continue
			}
			for _, cfg := range []convolve.Config{{}, {NoFMA: true}} {
				if cfg.NoFMA && rs.s.kw > 5 {
					continue
				}
				extra := map[string]string{"RX": fmt.Sprint(rs.rx), "RY": fmt.Sprint(rs.ry),
					"RYC": fmt.Sprint(regtileChunk(rs.ry)), "VEC_IN": vec}
				checks = append(checks, compileCheck{src, CompileOptions(p, cfg, rs.s.block, rs.s.index64, extra),
					fmt.Sprintf("regtile %v rx=%d ry=%d vec=%s %v", rs.s, rs.rx, rs.ry, vec, cfg)})
			}
		}
	}
	checkCompiles(t, checks)
}

// regtileSizes reach every fill path of regtile.cu: images with interior
// blocks whose rows are 16-byte aligned (128-bit loads), padded rows that
// realign them, widths that leave them unaligned, and images smaller than
// one block (border mapping only).
var regtileSizes = []convolve.Geometry{
	{Width: 300, Height: 200},
	{Width: 301, Height: 197, Stride: 304},
	{Width: 301, Height: 197},
	{Width: 261, Height: 130},
	{Width: 37, Height: 23},
	{Width: 1, Height: 1},
}

// regtileAgreement (run by TestAgreementSuites) runs gpu-regtile over filters 1..31 with its
// defaults and with other outputs per thread, and over every border, type
// and layout and odd block shapes with its defaults, on NaN-poisoned
// outputs, against refimpl.Expect.
func regtileAgreement(t *testing.T) {
	v, err := convolve.Lookup("gpu-regtile")
	if err != nil {
		t.Fatal(err)
	}
	r := rand.New(rand.NewPCG(15, 15))
	var runs []agreeRun
	tunes := []map[string]int{nil, {tunableRX: 1, tunableRY: 1}, {tunableRX: 2, tunableRY: 4}, {tunableRX: 8, tunableRY: 8}}
	for ti, tu := range tunes {
		for i, k := range []int{1, 3, 5, 7, 9, 11, 15, 21, 31} {
			b := convolve.Borders[(i+ti)%len(convolve.Borders)]
			runs = append(runs, agreeRun{convolve.Config{Tunables: tu},
				kernelCase{kw: k, kh: k, border: b, mode: convolve.Modes[i%2], typ: convolve.Float32, channels: 1}})
		}
	}
	for bi, bo := range convolve.Borders {
		for ti, typ := range convolve.ElemTypes {
			runs = append(runs, agreeRun{convolve.Config{},
				kernelCase{kw: 5, kh: 3, border: bo, typ: typ, channels: 1 + (bi+ti)%4, layout: convolve.Layouts[(bi+ti)%2]}})
		}
	}
	runs = append(runs,
		agreeRun{convolve.Config{}, kernelCase{kw: 31, kh: 1, border: convolve.Wrap, typ: convolve.Float32, channels: 1}},
		agreeRun{convolve.Config{}, kernelCase{kw: 1, kh: 31, border: convolve.Reflect, typ: convolve.Float32, channels: 1}},
		agreeRun{convolve.Config{}, kernelCase{kw: 7, kh: 7, border: convolve.Zero, typ: convolve.Float32, channels: 3, layout: convolve.Planar, block: convolve.Block{X: 7, Y: 5}}},
		agreeRun{convolve.Config{Tunables: map[string]int{tunableRX: 4}}, kernelCase{kw: 7, kh: 5, border: convolve.Mirror, typ: convolve.Float32, channels: 1, block: convolve.Block{X: 7, Y: 5}}},
		agreeRun{convolve.Config{}, kernelCase{kw: 3, kh: 3, border: convolve.Mirror, typ: convolve.Uint8, channels: 1, block: convolve.Block{X: 1, Y: 64}}},
	)
	agreeOverSizes(t, v, "gpu-regtile", runs, r, imagetest.RandomFilter)
}

// TestRegtileBadTunable: a value other than 1, 2, 4 or 8 is an error that
// names the tunable and the value.
func TestRegtileBadTunable(t *testing.T) {
	gputest.DeviceNoLeakCheck(t)
	v, err := convolve.Lookup("gpu-regtile")
	if err != nil {
		t.Fatal(err)
	}
	f := &convolve.Filter{Name: "one", Width: 3, Height: 3, Weights: make([]float32, 9)}
	p := convolve.Problem{Op: convolve.Filter2D, Filter: f, Input: convolve.Geometry{Width: 64, Height: 64, Channels: 1, Type: convolve.Float32}}
	for _, name := range []string{tunableRX, tunableRY} {
		pl, err := convolve.PlanFor(v, p, convolve.Config{Tunables: map[string]int{name: 3}})
		if err == nil {
			pl.Close()
			t.Errorf("%s=3: planned, want an error", name)
			continue
		}
		if !strings.Contains(err.Error(), name+"=3") {
			t.Errorf("%s=3: error %q does not name the tunable and value", name, err)
		}
	}
}

// TestRegtileBitExactNoFMA: compiled with --fmad=false, gpu-regtile equals
// cpu-naive bit for bit on images large enough for every fill path
// (TestBitExactNoFMA's small image reaches only the border path).
func TestRegtileBitExactNoFMA(t *testing.T) {
	gputest.DeviceNoLeakCheck(t)
	cpu, err := convolve.Lookup("cpu-naive")
	if err != nil {
		t.Fatal(err)
	}
	v, err := convolve.Lookup("gpu-regtile")
	if err != nil {
		t.Fatal(err)
	}
	r := rand.New(rand.NewPCG(9, 9))
	cases := []kernelCase{
		{kw: 3, kh: 3, border: convolve.Zero, typ: convolve.Float32, channels: 1},
		{kw: 7, kh: 7, border: convolve.Replicate, typ: convolve.Float32, channels: 1},
		{kw: 11, kh: 11, border: convolve.Wrap, typ: convolve.Float32, channels: 2, layout: convolve.Planar},
		{kw: 21, kh: 21, border: convolve.Mirror, mode: convolve.Convolve, typ: convolve.Float32, channels: 1},
		{kw: 5, kh: 3, border: convolve.Reflect, typ: convolve.Uint8, channels: 3},
	}
	for _, kc := range cases {
		for _, g := range regtileSizes[:3] {
			p := kc.problem(g, imagetest.RandomFilter(r, kc.kw, kc.kh))
			if g.Stride != 0 {
				p.Input.Stride = g.Stride * kc.channels
			}
			in := imagetest.Random(r, p.Input, imagetest.NonZero)
			want := poisoned(t, p)
			cp, err := convolve.PlanFor(cpu, p, convolve.Config{})
			if err != nil {
				t.Fatal(err)
			}
			if err := cp.Run(in, want); err != nil {
				t.Fatal(err)
			}
			cp.Close()
			plan, err := convolve.PlanFor(v, p, convolve.Config{NoFMA: true})
			if err != nil {
				t.Errorf("%v: %v", p, err)
				continue
			}
			got := poisoned(t, p)
			err = plan.Run(in, got)
			plan.Close()
			if err != nil {
				t.Errorf("%v: %v", p, err)
				continue
			}
			m, err := convolve.Compare(got, want, nil)
			if err != nil {
				t.Fatal(err)
			}
			if !m.OK() {
				t.Errorf("gpu-regtile --fmad=false %v: not bit-equal to cpu-naive: %v", p, m)
			}
		}
	}
}

// setOutStride pads the device output's rows like the input's, and a
// declaration with OutRowAlign compiles its family with OUT_S, the padded
// stride, only where the packed rows are not aligned already.
func TestSetOutStride(t *testing.T) {
	f, _ := convolve.Box(3)
	tests := []struct {
		name       string
		in         convolve.Geometry
		wantStride int
		wantBytes  int64
		wantOutS   string
	}{
		{"f32 4099 wide", convolve.Geometry{Width: 4099, Height: 5, Channels: 1, Type: convolve.Float32}, 4128, 4128 * 5 * 4, "4128"},
		{"u8 planar RGB 33 wide: float32 output", convolve.Geometry{Width: 33, Height: 2, Channels: 3, Type: convolve.Uint8, Layout: convolve.Planar}, 64, 64 * 6 * 4, "64"},
		{"i16 interleaved RGB 11 wide", convolve.Geometry{Width: 11, Height: 4, Channels: 3, Type: convolve.Int16}, 64, 64 * 4 * 4, "64"},
		{"aligned already", convolve.Geometry{Width: 64, Height: 3, Channels: 1, Type: convolve.Float32}, 64, 64 * 3 * 4, ""},
	}
	v, err := convolve.Lookup("gpu-regtile")
	if err != nil {
		t.Fatal(err)
	}
	d := v.(*Variant).decl
	for _, tt := range tests {
		p := convolve.Problem{Op: convolve.Filter2D, Filter: f, Input: tt.in}
		b, err := newBase(d.Desc, d.Block, p, convolve.Config{})
		if err != nil {
			t.Fatalf("%s: %v", tt.name, err)
		}
		b.setInStride(d.InRowAlign)
		b.setOutStride(d.OutRowAlign)
		if b.OutGeometry().RowStride() != tt.wantStride || b.OutBytes != tt.wantBytes {
			t.Errorf("%s: OutGeometry stride %d, OutBytes %d; want %d, %d", tt.name, b.OutGeometry().RowStride(), b.OutBytes, tt.wantStride, tt.wantBytes)
		}
		b.Info = h100
		r, err := d.resolve(b)
		if err != nil {
			t.Fatalf("%s: resolve: %v", tt.name, err)
		}
		if got := r.defines["OUT_S"]; got != tt.wantOutS {
			t.Errorf("%s: OUT_S=%q, want %q", tt.name, got, tt.wantOutS)
		}
	}
}
