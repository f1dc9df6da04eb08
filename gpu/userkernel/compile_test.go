package userkernel

import (
	"errors"
	"path/filepath"
	"testing"

	"github.com/convbench/convbench/convolve"
	"github.com/convbench/convbench/cudabind"
	"github.com/convbench/convbench/internal/gputest"
)

// compileArch is the architecture of the compile checks: the H100's.
const compileArch = "sm_90"

func problem(t *testing.T, typ convolve.ElemType, border convolve.Border, ch int, layout convolve.Layout, k int) convolve.Problem {
	t.Helper()
	f, err := convolve.Box(k)
	if err != nil {
		t.Fatal(err)
	}
	return convolve.Problem{Op: convolve.Filter2D, Filter: f, Border: border,
		Input: convolve.Geometry{Width: 37, Height: 23, Channels: ch, Type: typ, Layout: layout}}
}

// The kernel of the contract compiles with NVRTC alone for every element
// type and border, with a local include, and the image holds its entry.
func TestCompile(t *testing.T) {
	gputest.NVRTC(t)
	dir := write(t, map[string]string{
		"k.cu":      "// convbench:kernel\n// entry: conv\n#include \"local.cuh\"\n" + naiveBody,
		"local.cuh": "#pragma once\n#define LOCAL_HEADER 1\n",
	})
	k, err := Load(filepath.Join(dir, "k.cu"))
	if err != nil {
		t.Fatal(err)
	}
	for _, typ := range convolve.ElemTypes {
		for _, b := range convolve.Borders {
			if _, err := k.Compile(compileArch, problem(t, typ, b, 3, convolve.Planar, 5), convolve.Config{}, convolve.Block{}); err != nil {
				t.Errorf("%v %v: %v", typ, b, err)
			}
		}
	}
	if _, err := k.Compile(compileArch, problem(t, convolve.Uint8, convolve.Zero, 1, convolve.Interleaved, 3), convolve.Config{NoFMA: true}, convolve.Block{X: 32, Y: 8}); err != nil {
		t.Errorf("--fmad=false, 32x8: %v", err)
	}
}

// A syntax error is a *cudabind.CompileError with NVRTC's log, and an
// entry the source does not define (or defines without extern "C") is an
// error naming it.
func TestCompileErrors(t *testing.T) {
	gputest.NVRTC(t)
	dir := write(t, map[string]string{
		"syntax.cu":  "// convbench:kernel\n// entry: conv\n" + naiveBody + "\nthis is not C++;\n",
		"entry.cu":   "// convbench:kernel\n// entry: conv2\n" + naiveBody,
		"mangled.cu": "// convbench:kernel\n// entry: conv\n#include \"border.cuh\"\n__global__ void conv(float* out) { out[0] = 1.f; }\n",
	})
	p := problem(t, convolve.Float32, convolve.Zero, 1, convolve.Interleaved, 3)
	k, err := Load(filepath.Join(dir, "syntax.cu"))
	if err != nil {
		t.Fatal(err)
	}
	var ce *cudabind.CompileError
	if _, err := k.Compile(compileArch, p, convolve.Config{}, convolve.Block{}); !errors.As(err, &ce) {
		t.Errorf("syntax error: %v, want a *cudabind.CompileError", err)
	}
	for _, f := range []string{"entry.cu", "mangled.cu"} {
		k, err := Load(filepath.Join(dir, f))
		if err != nil {
			t.Fatal(err)
		}
		if _, err := k.Compile(compileArch, p, convolve.Config{}, convolve.Block{}); err == nil {
			t.Errorf("%s: compiled without error, want one naming entry %q", f, k.Spec.Entry)
		}
	}
}
