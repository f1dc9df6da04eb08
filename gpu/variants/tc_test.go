package variants

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/convbench/convbench/convolve"
	"github.com/convbench/convbench/gpu/kernels"
	"github.com/convbench/convbench/internal/gputest"
	"github.com/convbench/convbench/internal/imagetest"
	"github.com/convbench/convbench/refimpl"
)

// tcVariants are the tensor-core variants, their arithmetic and their
// declared model.
var tcVariants = []struct {
	name  string
	arith tcArith
	model convolve.ErrorModel
}{{"gpu-tc-3xtf32", tc3xTF32, convolve.Direct}, {"gpu-tc-tf32", tcTF32, convolve.TF32}, {"gpu-tc-bf16", tcBF16, convolve.BF16}}

// tcCase is one case of the tensor-core tests: a specialization, an
// image size (Stride -1: the row length plus 3) and rx (0: the default).
type tcCase struct {
	kc kernelCase
	g  convolve.Geometry
	rx int
}

// tcCases covers every border with filters from 1x1 (conv_tc_direct) to
// the largest, every block with every rx, rectangular filters, every element type with 1 to 4
// channels in both layouts, every block, and images that are not
// multiples of a block's 64 x 16*BY outputs, smaller than one block, or
// with padded rows; sizes that leave interior blocks (edge-free tile
// fills) appear with the larger filters.
func tcCases() []tcCase {
	var cs []tcCase
	sizes := []convolve.Geometry{{Width: 37, Height: 23}, {Width: 150, Height: 70}, {Width: 19, Height: 17, Stride: -1},
		{Width: 1, Height: 1}, {Width: 200, Height: 140}}
	for bi, b := range convolve.Borders {
		for ki, k := range []int{1, 3, 5, 7, 9, 21, 31} {
			cs = append(cs, tcCase{kernelCase{kw: k, kh: k, border: b, mode: convolve.Modes[(bi+ki)%2], typ: convolve.Float32, channels: 1},
				sizes[(bi+ki)%len(sizes)], 0})
		}
	}
	layouts := []struct {
		c int
		l convolve.Layout
	}{{1, convolve.Interleaved}, {3, convolve.Interleaved}, {3, convolve.Planar}, {2, convolve.Interleaved}, {4, convolve.Planar}}
	for ti, typ := range convolve.ElemTypes {
		for li, l := range layouts {
			b := convolve.Borders[(ti*len(layouts)+li)%len(convolve.Borders)]
			cs = append(cs, tcCase{kernelCase{kw: 7 + 2*(li%2), kh: 7, border: b, mode: convolve.Modes[li%2], typ: typ, channels: l.c, layout: l.l},
				convolve.Geometry{Width: 67, Height: 35}, 0})
		}
	}
	cs = append(cs,
		tcCase{kernelCase{kw: 31, kh: 1, border: convolve.Wrap, typ: convolve.Float32, channels: 1}, convolve.Geometry{Width: 130, Height: 20}, 0},
		tcCase{kernelCase{kw: 9, kh: 13, border: convolve.Reflect, typ: convolve.Float32, channels: 1}, convolve.Geometry{Width: 70, Height: 40}, 0},
		tcCase{kernelCase{kw: 17, kh: 5, border: convolve.Mirror, typ: convolve.Int16, channels: 1}, convolve.Geometry{Width: 90, Height: 33, Stride: -1}, 0},
	)
	for i, blk := range tcBlocks {
		for _, rx := range tcRXValues {
			cs = append(cs, tcCase{kernelCase{kw: 11 + 10*(i%2), kh: 11, border: convolve.Borders[i], typ: convolve.Float32, channels: 1, block: blk},
				convolve.Geometry{Width: 300, Height: 150}, rx})
		}
	}
	return cs
}

func (c tcCase) problem(f *convolve.Filter) convolve.Problem {
	return c.kc.problem(c.g, f)
}

// config is the configuration of c with the tunable round: its block and
// rx where set, and round where 1.
func (c tcCase) config(round int) convolve.Config {
	cfg := convolve.Config{Block: c.kc.block, Tunables: map[string]int{}}
	if c.rx != 0 {
		cfg.Tunables[tunableRX] = c.rx
	}
	if round != 0 {
		cfg.Tunables[tunableRound] = round
	}
	return cfg
}

// rxOr is c's rx, or the default.
func (c tcCase) rxOr() int {
	if c.rx == 0 {
		return tcRX
	}
	return c.rx
}

func (c tcCase) block() convolve.Block {
	if c.kc.block == (convolve.Block{}) {
		return tcBlock
	}
	return c.kc.block
}

// TestTCErrorUnits checks the derived bound against the models' and the
// kernel each filter therefore runs.
func TestTCErrorUnits(t *testing.T) {
	cases := []struct {
		kw, kh int
		split  bool
		units  float64
		tensor bool
	}{
		{5, 5, true, 34 + 1.01*10, false},
		{7, 5, true, 34 + 1.01*10, true},
		{5, 7, true, 34 + 1.01*14, false},
		{7, 7, true, 34 + 1.01*14, true},
		{21, 21, true, 34 + 1.01*84, true},
		{31, 31, true, 34 + 1.01*155, true},
		{31, 1, true, 34 + 1.01*5, true},
		{1, 31, true, 34 + 1.01*31, false},
		{3, 5, false, 21 + 1.01*10, false},
		{5, 5, false, 21 + 1.01*10, true},
		{3, 3, false, 21 + 1.01*6, false},
	}
	for _, c := range cases {
		got := tcErrorUnits(c.kw, c.kh, c.split)
		if math.Abs(got-c.units) > 1e-9 {
			t.Errorf("tcErrorUnits(%d, %d, %v) = %v, want %v", c.kw, c.kh, c.split, got, c.units)
		}
		if tc := tcTensorCores(c.kw, c.kh, c.split); tc != c.tensor {
			t.Errorf("tcTensorCores(%d, %d, %v) = %v, want %v", c.kw, c.kh, c.split, tc, c.tensor)
		}
		want := "conv_tc_direct"
		if c.tensor {
			want = "conv_tc"
		}
		name := "gpu-tc-tf32"
		if c.split {
			name = "gpu-tc-3xtf32"
		}
		g := convolve.Geometry{Width: 64, Height: 64, Channels: 1, Type: convolve.Float32}
		p := convolve.Problem{Op: convolve.Filter2D, Input: g, Filter: imagetest.RandomFilter(rand.New(rand.NewPCG(1, 2)), c.kw, c.kh)}
		d := declOf(t, name)
		if err := d.Validate(p, convolve.Config{}, h100); err != nil {
			t.Errorf("%s %dx%d: %v", name, c.kw, c.kh, err)
		}
		b, err := newBase(d.Desc, d.Block, p, convolve.Config{})
		if err != nil {
			t.Fatal(err)
		}
		if got, err := d.Select(b); err != nil || len(got) != 1 || got[0] != want {
			t.Errorf("%s %dx%d: Select = %v, %v, want [%s]", name, c.kw, c.kh, got, err, want)
		}
	}
}

// TestTCDeclared validates the three declarations over every case of tcCases
// against an H100's limits, checks their capabilities, and checks that a
// block that is not one warp wide, and a device without TF32 tensor
// cores, are refused.
func TestTCDeclared(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for _, tv := range tcVariants {
		d := declOf(t, tv.name)
		caps := d.Desc.Caps
		want := tv.model
		if caps.Accuracy != want || !caps.FiniteInput || caps.ReferenceOrder || caps.MaxFilterSide != tcMaxSide {
			t.Errorf("%s: caps %+v: want Accuracy %v, FiniteInput, not ReferenceOrder, MaxFilterSide %d", tv.name, caps, want, tcMaxSide)
		}
		for ci, c := range tcCases() {
			p := c.problem(imagetest.RandomFilter(r, c.kc.kw, c.kc.kh))
			if err := d.Validate(p, c.config(ci%2), h100); err != nil {
				t.Errorf("%s %v: %v", tv.name, p, err)
			}
		}
		g := convolve.Geometry{Width: 64, Height: 64, Channels: 1, Type: convolve.Float32}
		p := convolve.Problem{Op: convolve.Filter2D, Input: g, Filter: imagetest.RandomFilter(r, 9, 9)}
		if err := d.Validate(p, convolve.Config{Block: convolve.Block{X: 16, Y: 8}}, h100); err == nil {
			t.Errorf("%s: block 16x8 accepted, want refused", tv.name)
		}
		t4 := h100
		t4.Name, t4.Major, t4.Minor = "Tesla T4", 7, 5
		var ce *convolve.CapabilityError
		if err := d.Validate(p, convolve.Config{}, t4); !errors.As(err, &ce) || ce.What != "device" || !strings.Contains(err.Error(), "7.5") {
			t.Errorf("%s on compute capability 7.5: err = %v, want a *convolve.CapabilityError naming the device", tv.name, err)
		}
	}
}

// TestTCSharedBytes checks tcSharedBytes against the layout of tc.cu's
// header for two cases worked by hand.
func TestTCSharedBytes(t *testing.T) {
	// 31x31, 32x4, split: TC_Q = 5, tile 64+30 = 94 rows of 64+32+4 =
	// 100 floats, two filters of 31 rows of 48 floats.
	if got, want := tcSharedBytes(convolve.Block{X: 32, Y: 4}, 2, 31, 31, true, false), (94*100+2*31*48)*4; got != want {
		t.Errorf("31x31 split: %d bytes, want %d", got, want)
	}
	// The same with the low parts' tile: the tile twice.
	if got, want := tcSharedBytes(convolve.Block{X: 32, Y: 4}, 2, 31, 31, true, true), (2*94*100+2*31*48)*4; got != want {
		t.Errorf("31x31 split, low parts' tile: %d bytes, want %d", got, want)
	}
	// 7x5, 32x1, rx=4, TF32: TC_Q = 2, tile 16+4 = 20 rows of 128+8+4 =
	// 140 floats, one filter of 5 rows of 24 floats.
	if got, want := tcSharedBytes(convolve.Block{X: 32, Y: 1}, 4, 7, 5, false, false), (20*140+5*24)*4; got != want {
		t.Errorf("7x5 tf32: %d bytes, want %d", got, want)
	}
}

// tcCompileCases are the specializations TestTCCompile compiles: every
// element type, 1 to 4 channels in both layouts, every block and rx,
// filters from 1x1 to 31x31 and thin ones.
var tcCompileCases = []tcCase{
	{kernelCase{kw: 1, kh: 1, border: convolve.Zero, typ: convolve.Float32, channels: 1}, convolve.Geometry{Width: 37, Height: 23}, 0},
	{kernelCase{kw: 5, kh: 5, border: convolve.Replicate, typ: convolve.Uint8, channels: 3, layout: convolve.Planar, block: convolve.Block{X: 32, Y: 1}}, convolve.Geometry{Width: 37, Height: 23}, 0},
	{kernelCase{kw: 7, kh: 7, border: convolve.Reflect, typ: convolve.Int16, channels: 2, layout: convolve.Interleaved}, convolve.Geometry{Width: 37, Height: 23}, 0},
	{kernelCase{kw: 9, kh: 13, border: convolve.Mirror, typ: convolve.Float32, channels: 1, block: convolve.Block{X: 32, Y: 2}}, convolve.Geometry{Width: 37, Height: 23}, 0},
	{kernelCase{kw: 21, kh: 21, border: convolve.Wrap, typ: convolve.Float32, channels: 1, block: convolve.Block{X: 32, Y: 8}}, convolve.Geometry{Width: 37, Height: 23}, 0},
	{kernelCase{kw: 31, kh: 31, border: convolve.Zero, typ: convolve.Float32, channels: 4, layout: convolve.Interleaved}, convolve.Geometry{Width: 37, Height: 23}, 0},
	{kernelCase{kw: 31, kh: 1, border: convolve.Mirror, typ: convolve.Uint8, channels: 1}, convolve.Geometry{Width: 37, Height: 23}, 0},
	{kernelCase{kw: 1, kh: 31, border: convolve.Reflect, typ: convolve.Int16, channels: 4, layout: convolve.Planar}, convolve.Geometry{Width: 37, Height: 23}, 0},
	{kernelCase{kw: 31, kh: 31, border: convolve.Reflect, typ: convolve.Float32, channels: 1, block: convolve.Block{X: 32, Y: 8}}, convolve.Geometry{Width: 37, Height: 23}, 4},
	{kernelCase{kw: 9, kh: 9, border: convolve.Wrap, typ: convolve.Uint8, channels: 1}, convolve.Geometry{Width: 37, Height: 23}, 1},
}

// TestTCCompile compiles tc.cu for sm_90 over tcCompileCases with each
// arithmetic, with the local NVRTC (no driver needed).
func TestTCCompile(t *testing.T) {
	t.Parallel() // NVRTC only: no device memory, so beside the other compile checks
	gputest.NVRTC(t)
	src, err := sourceOf("tc")
	if err != nil {
		t.Fatal(err)
	}
	r := rand.New(rand.NewPCG(5, 6))
	var checks []compileCheck
	for _, tv := range tcVariants {
		for ci, c := range tcCompileCases {
			p := c.problem(imagetest.RandomFilter(r, c.kc.kw, c.kc.kh))
			// Each case compiles with both values of round over the arithmetics.
			round := (ci + int(tv.arith)) % 2
			checks = append(checks, compileCheck{src, CompileOptions(p, convolve.Config{}, c.block(), false, tcDefines(tv.arith, c.rxOr(), round, p.Input.Type)),
				fmt.Sprintf("%s %v", tv.name, p)})
		}
	}
	checkCompiles(t, checks)
}

// tcAgreement (run by TestAgreementSuites) runs the three variants on the GPU over tcCases on
// NaN-poisoned outputs, twice per plan, against the reference within
// each variant's declared error model.
func tcAgreement(t *testing.T) {
	for vi, tv := range tcVariants {
		v, err := convolve.Lookup(tv.name)
		if err != nil {
			t.Fatal(err)
		}
		model := v.Describe().Caps.Accuracy
		r := rand.New(rand.NewPCG(uint64(vi), 16))
		// Compile every case's kernel on all cores first: one at a time
		// the tensor-core kernels' compiles take minutes.
		var specs []WarmSpec
		// Every other case rounds its operands as the tile is filled.
		for ci, c := range tcCases() {
			specs = append(specs, WarmSpec{Variant: v, Problem: c.problem(imagetest.RandomFilter(r, c.kc.kw, c.kc.kh)), Config: c.config(ci % 2)})
		}
		if _, err := Warm(specs, runtime.NumCPU(), nil); err != nil {
			t.Logf("%s: precompiling: %v (the cases compile one at a time)", tv.name, err)
		}
		t.Run(tv.name, func(t *testing.T) {
			failures := 0
			for ci, c := range tcCases() {
				p := c.problem(imagetest.RandomFilter(r, c.kc.kw, c.kc.kh))
				plan, err := convolve.PlanFor(v, p, c.config(ci%2))
				if err != nil {
					t.Errorf("%v: Plan: %v", p, err)
					failures++
					continue
				}
				for range 2 {
					in := imagetest.Random(r, p.Input, imagetest.NonZero)
					out := poisoned(t, p)
					if err := plan.Run(in, out); err != nil {
						t.Errorf("%v: Run: %v", p, err)
						failures++
						continue
					}
					if m := tcAgreeModel(t, p, in, out, model); !m.OK() {
						t.Errorf("%v: %v", p, m)
						failures++
					}
				}
				if err := plan.Close(); err != nil {
					t.Errorf("%v: Close: %v", p, err)
				}
				if failures > 10 {
					t.Fatal("too many failures")
				}
			}
		})
	}
}

// tcAgreeModel compares out with the reference of p on in within the
// tolerance of model.
func tcAgreeModel(t *testing.T, p convolve.Problem, in, out *convolve.Image, model convolve.ErrorModel) convolve.Metrics {
	t.Helper()
	ref, tol, err := refimpl.ExpectModel(p, in, model)
	if err != nil {
		t.Fatalf("ExpectModel(%v, %v): %v", p, model, err)
	}
	m, err := convolve.Compare(out, ref, tol)
	if err != nil {
		t.Fatalf("%v: Compare: %v", p, err)
	}
	return m
}

// tcHarness builds tc.cu with testdata/tcemu into host programs, one per
// specialization: the kernel's own source and border.cuh, with
// testdata/tcemu's cuda_host.h and mma.cuh standing in for CUDA and the
// tensor-core instructions.
type tcHarness struct {
	dir  string
	mu   sync.Mutex
	bins map[string]*tcBinary
}

// tcBinary is one specialization of the harness, built once.
type tcBinary struct {
	once sync.Once
	path string
	err  error
}

func newTCHarness(t *testing.T) *tcHarness {
	t.Helper()
	if _, err := exec.LookPath("g++"); err != nil {
		t.Skipf("no g++ to build the host harness of tc.cu: %v", err)
	}
	dir := t.TempDir()
	code, err := kernels.Source("tc")
	if err != nil {
		t.Fatal(err)
	}
	files := map[string]string{"tc.cu": code, "border.cuh": kernels.Headers()["border.cuh"]}
	for _, n := range []string{"cuda_host.h", "mma.cuh", "tcemu.cpp"} {
		b, err := os.ReadFile(filepath.Join("testdata", "tcemu", n))
		if err != nil {
			t.Fatal(err)
		}
		files[n] = string(b)
	}
	for n, s := range files {
		if err := os.WriteFile(filepath.Join(dir, n), []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return &tcHarness{dir: dir, bins: map[string]*tcBinary{}}
}

// binary returns the harness compiled with defs.
func (h *tcHarness) binary(defs map[string]string) (string, error) {
	var keys []string
	for k := range defs {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	args := []string{"-std=c++20", "-O1", "-ffp-contract=off", "-Wall", "-Wno-unknown-pragmas", "-Wno-unused-variable"}
	for _, k := range keys {
		args = append(args, "-D"+k+"="+defs[k])
	}
	key := strings.Join(args, " ")
	h.mu.Lock()
	b, ok := h.bins[key]
	if !ok {
		b = &tcBinary{path: filepath.Join(h.dir, fmt.Sprintf("tcemu%d", len(h.bins)))}
		h.bins[key] = b
	}
	h.mu.Unlock()
	b.once.Do(func() {
		cmd := exec.Command("g++", append(args, "tcemu.cpp", "-o", b.path)...)
		cmd.Dir = h.dir
		if out, err := cmd.CombinedOutput(); err != nil {
			b.err = fmt.Errorf("g++ %s: %v\n%s", key, err, out)
		}
	})
	return b.path, b.err
}

// run runs p on in through the harness compiled for it.
func (h *tcHarness) run(p convolve.Problem, blk convolve.Block, rx, round int, arith tcArith, in *convolve.Image) (*convolve.Image, error) {
	defs := Defines(p, blk, false)
	for k, v := range tcDefines(arith, rx, round, p.Input.Type) {
		defs[k] = v
	}
	kw, kh := p.KernelSize()
	defs["TC_ENTRY"] = tcKernel(kw, kh, arith.split())
	bin, err := h.binary(defs)
	if err != nil {
		return nil, err
	}
	var stdin bytes.Buffer
	s := in.RowStride()
	binary.Write(&stdin, binary.LittleEndian, []int32{int32(in.Width), int32(in.Height), int32(s)})
	n := in.Height * s
	if in.Layout == convolve.Planar {
		n *= in.Channels
	}
	switch in.Type {
	case convolve.Float32:
		binary.Write(&stdin, binary.LittleEndian, append(append([]float32(nil), in.F32...), make([]float32, n-len(in.F32))...))
	case convolve.Uint8:
		binary.Write(&stdin, binary.LittleEndian, append(append([]uint8(nil), in.U8...), make([]uint8, n-len(in.U8))...))
	case convolve.Int16:
		binary.Write(&stdin, binary.LittleEndian, append(append([]int16(nil), in.I16...), make([]int16, n-len(in.I16))...))
	}
	binary.Write(&stdin, binary.LittleEndian, p.Filter.Oriented(p.Mode).Weights)
	cmd := exec.Command(bin)
	cmd.Stdin = &stdin
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		return nil, fmt.Errorf("%s: %v: %s", bin, err, stderr.String())
	}
	out, err := p.NewOutput()
	if err != nil {
		return nil, err
	}
	if stdout.Len() != 4*len(out.F32) {
		return nil, fmt.Errorf("%s: %d bytes of output, want %d", bin, stdout.Len(), 4*len(out.F32))
	}
	if err := binary.Read(&stdout, binary.LittleEndian, out.F32); err != nil {
		return nil, err
	}
	return out, nil
}

// tcHostCases is what the host harness runs, smaller than tcCases (an
// emulated mma costs about as much as a few thousand CPU instructions per
// output): every border, filters of both TC_Q parities up to 31,
// rectangular filters, the small and thin filters of conv_tc_direct, every element type, 1 to 4 channels in both
// layouts, the smallest and largest blocks, padded rows, and images with
// interior tiles (from about 100 x 60 for 7x7) and smaller than a block,
// and every rx.
var tcHostCases = []tcCase{
	{kernelCase{kw: 7, kh: 7, border: convolve.Zero, typ: convolve.Float32, channels: 1}, convolve.Geometry{Width: 150, Height: 70}, 0},
	{kernelCase{kw: 9, kh: 9, border: convolve.Replicate, mode: convolve.Convolve, typ: convolve.Float32, channels: 1}, convolve.Geometry{Width: 37, Height: 23}, 0},
	{kernelCase{kw: 21, kh: 21, border: convolve.Reflect, typ: convolve.Float32, channels: 1}, convolve.Geometry{Width: 70, Height: 40}, 0},
	{kernelCase{kw: 31, kh: 31, border: convolve.Mirror, mode: convolve.Convolve, typ: convolve.Float32, channels: 1}, convolve.Geometry{Width: 40, Height: 20}, 0},
	{kernelCase{kw: 15, kh: 15, border: convolve.Wrap, typ: convolve.Float32, channels: 1}, convolve.Geometry{Width: 19, Height: 17, Stride: -1}, 0},
	{kernelCase{kw: 7, kh: 7, border: convolve.Mirror, typ: convolve.Uint8, channels: 3, layout: convolve.Interleaved}, convolve.Geometry{Width: 67, Height: 20}, 0},
	{kernelCase{kw: 9, kh: 7, border: convolve.Wrap, mode: convolve.Convolve, typ: convolve.Int16, channels: 2, layout: convolve.Planar}, convolve.Geometry{Width: 41, Height: 18, Stride: -1}, 0},
	{kernelCase{kw: 7, kh: 9, border: convolve.Reflect, typ: convolve.Float32, channels: 4, layout: convolve.Interleaved}, convolve.Geometry{Width: 30, Height: 17}, 0},
	{kernelCase{kw: 11, kh: 7, border: convolve.Zero, typ: convolve.Uint8, channels: 4, layout: convolve.Planar}, convolve.Geometry{Width: 23, Height: 9}, 0},
	{kernelCase{kw: 31, kh: 1, border: convolve.Replicate, typ: convolve.Int16, channels: 1}, convolve.Geometry{Width: 130, Height: 20}, 0},
	{kernelCase{kw: 9, kh: 13, border: convolve.Reflect, typ: convolve.Float32, channels: 1}, convolve.Geometry{Width: 1, Height: 1}, 0},
	{kernelCase{kw: 7, kh: 7, border: convolve.Replicate, typ: convolve.Float32, channels: 1, block: convolve.Block{X: 32, Y: 1}}, convolve.Geometry{Width: 140, Height: 40}, 0},
	{kernelCase{kw: 7, kh: 7, border: convolve.Wrap, typ: convolve.Float32, channels: 1, block: convolve.Block{X: 32, Y: 8}}, convolve.Geometry{Width: 70, Height: 150}, 0},
	{kernelCase{kw: 3, kh: 3, border: convolve.Mirror, typ: convolve.Float32, channels: 1}, convolve.Geometry{Width: 150, Height: 70}, 0},
	{kernelCase{kw: 5, kh: 5, border: convolve.Zero, typ: convolve.Uint8, channels: 3, layout: convolve.Planar}, convolve.Geometry{Width: 37, Height: 23}, 0},
	{kernelCase{kw: 1, kh: 31, border: convolve.Wrap, typ: convolve.Float32, channels: 1}, convolve.Geometry{Width: 70, Height: 40}, 0},
	{kernelCase{kw: 1, kh: 1, border: convolve.Reflect, typ: convolve.Int16, channels: 2, layout: convolve.Interleaved}, convolve.Geometry{Width: 19, Height: 17, Stride: -1}, 0},
	{kernelCase{kw: 9, kh: 9, border: convolve.Mirror, typ: convolve.Float32, channels: 1}, convolve.Geometry{Width: 100, Height: 40}, 1},
	{kernelCase{kw: 13, kh: 11, border: convolve.Zero, mode: convolve.Convolve, typ: convolve.Float32, channels: 1, block: convolve.Block{X: 32, Y: 2}}, convolve.Geometry{Width: 150, Height: 50}, 4},
	{kernelCase{kw: 7, kh: 7, border: convolve.Replicate, typ: convolve.Uint8, channels: 2, layout: convolve.Planar}, convolve.Geometry{Width: 140, Height: 30}, 4},
}

// TestTCHost runs tc.cu on the host (testdata/tcemu: each CUDA thread a
// coroutine, mma.sync emulated from the PTX ISA's fragment layouts with
// the worst accumulation the error bound allows) over tcHostCases for
// each arithmetic, and compares each output with the reference within
// the variant's declared model. It proves the kernel's index arithmetic,
// tile fill, border mapping, fragment layouts and operand split without a
// GPU. gpu-tc-tf32 and gpu-tc-bf16 take half the cases each; -short runs
// a third of those.
func TestTCHost(t *testing.T) {
	t.Parallel() // g++ and the host only: beside the other host checks
	h := newTCHarness(t)
	for vi, tv := range tcVariants {
		model := declOf(t, tv.name).Desc.Caps.Accuracy
		r := rand.New(rand.NewPCG(uint64(vi), 17))
		for ci, c := range tcHostCases {
			p := c.problem(imagetest.RandomFilter(r, c.kc.kw, c.kc.kh))
			in := imagetest.Random(r, p.Input, imagetest.NonZero)
			// gpu-tc-3xtf32 runs every case; the single-product
			// arithmetics, whose code differs only in the operand format,
			// share them out (one the even cases, the other the odd).
			if tv.arith != tc3xTF32 && ci%2 != int(tv.arith)%2 || testing.Short() && (ci+vi)%3 != 0 {
				continue
			}
			// Half the cases of each arithmetic round the operands as
			// the tile is filled.
			round := (ci/2 + vi) % 2
			t.Run(fmt.Sprintf("%s/%d/round=%d", tv.name, ci, round), func(t *testing.T) {
				t.Parallel()
				out, err := h.run(p, c.block(), c.rxOr(), round, tv.arith, in)
				if err != nil {
					t.Fatalf("%v: %v", p, err)
				}
				if m := tcAgreeModel(t, p, in, out, model); !m.OK() {
					t.Errorf("%v block %v: %v", p, c.block(), m)
				}
			})
		}
	}
}

// TestTCHostCatchesLayoutError checks that the host harness can fail: a
// kernel whose TF32 B fragment takes its rows from the wrong lanes (t and
// g swapped), or whose bfloat16 A fragment swaps the halves of its pairs,
// disagrees with the reference.
func TestTCHostCatchesLayoutError(t *testing.T) {
	t.Parallel() // g++ and the host only: beside the other host checks
	mutations := []struct {
		arith    tcArith
		from, to string
	}{
		{tc3xTF32, "const int bo = 8 + t - g;", "const int bo = 8 + g - t;"},
		{tcTF32, "const int bo = 8 + t - g;", "const int bo = 8 + g - t;"},
		{tcBF16, "tc_bf16x2(lo.x, lo.y), tc_bf16x2(hi.x, hi.y)", "tc_bf16x2(lo.y, lo.x), tc_bf16x2(hi.y, hi.x)"},
	}
	for _, m := range mutations {
		h := newTCHarness(t)
		path := filepath.Join(h.dir, "tc.cu")
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		bad := strings.Replace(string(b), m.from, m.to, 1)
		if bad == string(b) {
			t.Fatalf("tc.cu no longer has %q, which this test changes", m.from)
		}
		if err := os.WriteFile(path, []byte(bad), 0o644); err != nil {
			t.Fatal(err)
		}
		r := rand.New(rand.NewPCG(9, 9))
		c := tcCase{kernelCase{kw: 7, kh: 7, border: convolve.Reflect, typ: convolve.Float32, channels: 1}, convolve.Geometry{Width: 40, Height: 20}, 0}
		p := c.problem(imagetest.RandomFilter(r, 7, 7))
		in := imagetest.Random(r, p.Input, imagetest.NonZero)
		out, err := h.run(p, c.block(), c.rxOr(), 0, m.arith, in)
		if err != nil {
			t.Fatal(err)
		}
		model := convolve.Direct
		switch m.arith {
		case tcTF32:
			model = convolve.TF32
		case tcBF16:
			model = convolve.BF16
		}
		if mt := tcAgreeModel(t, p, in, out, model); mt.OK() {
			t.Errorf("%q for %q agrees with the reference: %v", m.to, m.from, mt)
		}
	}
}

// TestTCHostNearOverflow runs the host harness on pixels at the top of
// the float32 range, many past the largest TF32 (so tc_tf32 clamps them),
// with weights small enough that every sum stays below 2^125: each
// variant's output must stay within its model's tolerance and finite.
func TestTCHostNearOverflow(t *testing.T) {
	t.Parallel() // g++ and the host only: beside the other host checks
	h := newTCHarness(t)
	r := rand.New(rand.NewPCG(21, 21))
	for _, tv := range tcVariants {
		for _, k := range []int{3, 9} {
			c := tcCase{kernelCase{kw: k, kh: k, border: convolve.Replicate, typ: convolve.Float32, channels: 1}, convolve.Geometry{Width: 70, Height: 20}, 0}
			f := imagetest.RandomFilter(r, k, k)
			for i := range f.Weights {
				f.Weights[i] *= 1.0 / 8 / float32(k*k)
			}
			p := c.problem(f)
			in := imagetest.Random(r, p.Input, imagetest.NonZero)
			for i := range in.F32 {
				// At most the largest float32: a draw within 2^-24 of 2
				// would otherwise round to +Inf.
				v := float32(min(math.Ldexp(2-r.Float64()*0x1p-10, 127), math.MaxFloat32))
				if r.IntN(2) == 0 {
					v = -v
				}
				in.F32[i] = v
			}
			for round := range 2 {
				out, err := h.run(p, c.block(), c.rxOr(), round, tv.arith, in)
				if err != nil {
					t.Fatalf("%s %v: %v", tv.name, p, err)
				}
				if m := tcAgreeModel(t, p, in, out, declOf(t, tv.name).Desc.Caps.Accuracy); !m.OK() || m.NonFinite > 0 {
					t.Errorf("%s %v round=%d: %v", tv.name, p, round, m)
				}
			}
		}
	}
}

// TestTCBoundWithinModel checks, for every filter up to 31x31 that runs
// on tensor cores, that the bound derived in tc.go lies within the
// tolerance convolve computes for the declared model, so that a change
// to either shows here: 3xTF32's (tcErrorUnits u P + u|ref|) within
// Direct's, and TF32's and BF16's (d P + tcErrorUnits u (1+d) P +
// u|ref|) within their models'.
func TestTCBoundWithinModel(t *testing.T) {
	const u = 0x1p-24
	for _, tv := range tcVariants {
		split := tv.arith.split()
		d := 0.0
		switch tv.model {
		case convolve.TF32:
			d = 0x1p-10 + 0x1p-22
		case convolve.BF16:
			d = 0x1p-7 + 0x1p-16
		}
		tensor := 0
		for kw := 1; kw <= tcMaxSide; kw += 2 {
			for kh := 1; kh <= tcMaxSide; kh += 2 {
				if !tcTensorCores(kw, kh, split) {
					continue
				}
				tensor++
				for _, c := range []struct{ absSum, ref float64 }{{1, 1}, {1, 0}, {1e30, -3e29}, {1e-20, 1e-21}} {
					bound := d*c.absSum + tcErrorUnits(kw, kh, split)*u*(1+d)*c.absSum + u*math.Abs(c.ref)
					tol, err := convolve.ModelTolerance(tv.model, kw, kh, c.absSum, c.ref)
					if err != nil {
						t.Fatal(err)
					}
					if bound > tol {
						t.Errorf("%s %dx%d absSum=%g ref=%g: derived bound %g exceeds the %v tolerance %g", tv.name, kw, kh, c.absSum, c.ref, bound, tv.model, tol)
					}
				}
			}
		}
		if tensor == 0 {
			t.Errorf("%s: no filter runs on tensor cores", tv.name)
		}
	}
}

// TestTCHostOverflow runs the host harness on the property suite's
// overflow cases, where every product, and so every sum in any order,
// overflows to one infinity, as the reference's sum does: float32 pixels
// of one sign in [2^127, 2^128), many past the largest TF32, under
// weights of one sign of at least 2; and int16 pixels of one sign and
// magnitude at least 2, whose TF32 low parts may have the other sign,
// under weights near 2^127, so that the split's low-part products
// overflow too, to the other infinity. Every output must be the
// reference's infinity.
func TestTCHostOverflow(t *testing.T) {
	t.Parallel() // g++ and the host only: beside the other host checks
	h := newTCHarness(t)
	r := rand.New(rand.NewPCG(5, 5))
	for _, tv := range tcVariants {
		for _, k := range []struct{ kw, kh int }{{3, 3}, {9, 9}, {3, 17}} {
			for _, typ := range []convolve.ElemType{convolve.Float32, convolve.Int16} {
				for _, sign := range []float64{1, -1} {
					c := tcCase{kernelCase{kw: k.kw, kh: k.kh, border: convolve.Zero, typ: typ, channels: 1}, convolve.Geometry{Width: 70, Height: 20}, 0}
					f := imagetest.RandomFilter(r, k.kw, k.kh)
					p := c.problem(f)
					in := imagetest.Random(r, p.Input, imagetest.NonZero)
					switch typ {
					case convolve.Float32:
						for i := range f.Weights {
							f.Weights[i] = float32(2 + r.Float64())
						}
						for i := range in.F32 {
							in.F32[i] = float32(sign * math.Ldexp(1+0.99*r.Float64(), 127))
						}
					case convolve.Int16:
						for i := range f.Weights {
							f.Weights[i] = float32(math.Ldexp(1+0.9*r.Float64(), 127))
						}
						for i := range in.I16 {
							in.I16[i] = int16(sign * float64(2+r.IntN(32766)))
						}
					}
					// One sign rounds the operands as the tile is filled.
					round := 0
					if sign < 0 {
						round = 1
					}
					out, err := h.run(p, c.block(), c.rxOr(), round, tv.arith, in)
					if err != nil {
						t.Fatalf("%s %v: %v", tv.name, p, err)
					}
					want := math.Inf(int(sign))
					bad := 0
					for i, v := range out.F32 {
						if float64(v) != want {
							if bad++; bad <= 3 {
								t.Errorf("%s %v K=%dx%d sign %v: output %d = %v, want %v", tv.name, typ, k.kw, k.kh, sign, i, v, want)
							}
						}
					}
				}
			}
		}
	}
}
