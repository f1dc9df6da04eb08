package variants

import (
	"errors"
	"fmt"
	"testing"

	"github.com/convbench/convbench/convolve"
	"github.com/convbench/convbench/cudabind"
	"github.com/convbench/convbench/internal/gputest"
)

// compileArch is the architecture the compile check targets: the H100's.
const compileArch = "sm_90"

// spec is one kernel specialization to compile.
type spec struct {
	kw, kh   int
	border   convolve.Border
	typ      convolve.ElemType
	channels int
	layout   convolve.Layout
	block    convolve.Block
	index64  bool
}

func (s spec) problem() convolve.Problem {
	f := &convolve.Filter{Name: "ones", Width: s.kw, Height: s.kh, Weights: make([]float32, s.kw*s.kh)}
	for i := range f.Weights {
		f.Weights[i] = 1
	}
	return convolve.Problem{
		Op:     convolve.Filter2D,
		Input:  convolve.Geometry{Width: 37, Height: 23, Channels: s.channels, Type: s.typ, Layout: s.layout},
		Filter: f,
		Border: s.border,
	}
}

func (s spec) String() string {
	x := fmt.Sprintf("%dx%d/%v/%v/c%d-%v/b%v", s.kw, s.kh, s.border, s.typ, s.channels, s.layout, s.block)
	if s.index64 {
		x += "/idx64"
	}
	return x
}

// compileSpecs covers every value of every compile-time parameter: each
// filter size (square 1..31 and rectangular) with borders, types and
// channel layouts cycling; every border with every element type; the
// reports' block shapes; 64-bit indexing.
func compileSpecs() []spec {
	sizes := [][2]int{{1, 1}, {3, 3}, {5, 5}, {7, 7}, {9, 9}, {15, 15}, {31, 31}, {1, 7}, {7, 1}, {3, 9}, {15, 5}}
	chans := []struct {
		n int
		l convolve.Layout
	}{{1, convolve.Interleaved}, {3, convolve.Interleaved}, {3, convolve.Planar}}
	var specs []spec
	for i, k := range sizes {
		c := chans[i%len(chans)]
		specs = append(specs, spec{kw: k[0], kh: k[1], border: convolve.Borders[i%len(convolve.Borders)],
			typ: convolve.ElemTypes[i%len(convolve.ElemTypes)], channels: c.n, layout: c.l, block: defaultBlock})
	}
	for bi, b := range convolve.Borders {
		for ti, t := range convolve.ElemTypes {
			c := chans[(bi+ti)%len(chans)]
			specs = append(specs, spec{kw: 3, kh: 3, border: b, typ: t, channels: c.n, layout: c.l, block: defaultBlock})
		}
	}
	for _, b := range []convolve.Block{{X: 4, Y: 4}, {X: 8, Y: 8}, {X: 16, Y: 8}, {X: 32, Y: 8}, {X: 32, Y: 16}, {X: 32, Y: 32}, {X: 7, Y: 5}} {
		specs = append(specs, spec{kw: 7, kh: 7, border: convolve.Mirror, typ: convolve.Uint8, channels: 1, block: b})
	}
	specs = append(specs,
		spec{kw: 5, kh: 5, border: convolve.Reflect, typ: convolve.Int16, channels: 4, layout: convolve.Planar, block: defaultBlock, index64: true},
		spec{kw: 3, kh: 3, border: convolve.Wrap, typ: convolve.Float32, channels: 2, layout: convolve.Interleaved, block: defaultBlock, index64: true},
	)
	return specs
}

// familyDefines lists, per kernel family, the extra macros each
// specialization is compiled with (one compile per entry).
func familyDefines(family string, p convolve.Problem) []map[string]string {
	switch family {
	case "texture":
		return []map[string]string{{"TEX_HW": texHW(p)}}
	case "tiled":
		return []map[string]string{{"RY": "1"}, {"RY": "4"}, {"RY": "8"}}
	case "sepfused":
		return []map[string]string{{"RY": "1"}, {"RY": "8", "VEC_IN": "1"}}
	}
	return []map[string]string{nil}
}

// TestKernelsCompile compiles every kernel family for sm_90 over the
// specializations of compileSpecs with the local NVRTC (no driver needed).
func TestKernelsCompile(t *testing.T) {
	t.Parallel() // NVRTC only: no device memory, so beside the other compile checks
	gputest.NVRTC(t)
	families := []string{"naive", "const", "shared", "shared_rows", "padded", "texture", "separable", "tiled"}
	specs := compileSpecs()
	var checks []compileCheck
	for _, fam := range families {
		src, err := sourceOf(fam)
		if err != nil {
			t.Fatal(err)
		}
		for _, s := range specs {
			p := s.problem()
			for _, extra := range familyDefines(fam, p) {
				for _, cfg := range []convolve.Config{{}, {NoFMA: true}} {
					if cfg.NoFMA && (s.border != convolve.Zero || s.kw != 3) {
						continue // --fmad=false once per type is enough
					}
					checks = append(checks, compileCheck{src, CompileOptions(p, cfg, s.block, s.index64, extra), fmt.Sprintf("%s %v %v %v", fam, s, extra, cfg)})
				}
			}
		}
	}
	checkCompiles(t, checks)
}

// TestKernelsCompileErrors checks that a bad specialization fails to
// compile with a diagnostic instead of producing a kernel.
func TestKernelsCompileErrors(t *testing.T) {
	gputest.NVRTC(t)
	src, err := sourceOf("naive")
	if err != nil {
		t.Fatal(err)
	}
	p := spec{kw: 3, kh: 3, typ: convolve.Float32, channels: 1, block: defaultBlock}.problem()
	opts := CompileOptions(p, convolve.Config{}, defaultBlock, false, map[string]string{"BORDER": "7"})
	opts.Arch = compileArch
	_, err = cudabind.CompileOnly(src, opts)
	var ce *cudabind.CompileError
	if !errors.As(err, &ce) {
		t.Fatalf("BORDER=7 compiled: err = %v, want a *cudabind.CompileError", err)
	}
}
