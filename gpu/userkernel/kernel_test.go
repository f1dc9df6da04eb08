package userkernel

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/convbench/convbench/convolve"
	"github.com/convbench/convbench/cudabind"
)

const naiveBody = `#include "border.cuh"

extern "C" __global__ void conv(const in_t* __restrict__ in, const float* __restrict__ filter,
                                float* __restrict__ out, int W, int H, idx_t S)
{
    const int x = blockIdx.x * BX + threadIdx.x;
    const int y = blockIdx.y * BY + threadIdx.y;
    const int c = blockIdx.z;
    if (x >= W || y >= H) {
        return;
    }
    float s = 0.f;
    for (int j = 0; j < KH; ++j) {
        for (int i = 0; i < KW; ++i) {
            s += filter[j * KW + i] * read_px(in, x + i - KW / 2, y + j - KH / 2, c, W, H, S);
        }
    }
    out[out_offset(x, y, c, W, H)] = s;
}
`

// write creates the files of m (name to text) under a fresh directory
// and returns it.
func write(t *testing.T, m map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for name, text := range m {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func TestLoad(t *testing.T) {
	dir := write(t, map[string]string{
		"hdr.cu":           "// convbench:kernel\n// entry: conv\n// types: f32\n" + naiveBody,
		"side.cu":          "#include \"helpers/sum.cuh\"\n" + naiveBody,
		"side.kernel":      "entry: conv\nname: side-by-side\n",
		"helpers/sum.cuh":  "#pragma once\n#include \"more.cuh\"\n#include \"border.cuh\"\n#include <cuda_fp16.h>\n",
		"helpers/more.cuh": "// nested include, looked up beside the .cu file\n",
		"more.cuh":         "#pragma once\n",
	})
	k, err := Load(filepath.Join(dir, "hdr.cu"))
	if err != nil {
		t.Fatal(err)
	}
	if k.Spec.Name != "user-hdr" || k.Spec.Entry != "conv" || k.DescribedIn != k.Path {
		t.Errorf("header kernel: name %q entry %q described in %s", k.Spec.Name, k.Spec.Entry, k.DescribedIn)
	}
	if k.Source.Name != "hdr.cu" || k.Source.Headers["border.cuh"] == "" || k.Source.Code == "" {
		t.Errorf("source %q with headers %v: want hdr.cu with border.cuh", k.Source.Name, keys(k.Source.Headers))
	}
	d := k.Description()
	if d.Name != "user-hdr" || !d.Caps.GPU || !strings.Contains(d.Summary, "hdr.cu") ||
		len(d.Caps.Types) != 1 || d.Caps.Types[0] != convolve.Float32 || d.Caps.Ops[0] != convolve.Filter2D {
		t.Errorf("description %+v", d)
	}

	s, err := Load(filepath.Join(dir, "side.cu"))
	if err != nil {
		t.Fatal(err)
	}
	if s.Spec.Name != "side-by-side" || s.DescribedIn != filepath.Join(dir, "side.kernel") {
		t.Errorf("sidecar kernel: name %q described in %s", s.Spec.Name, s.DescribedIn)
	}
	// helpers/sum.cuh includes "more.cuh", which is looked up beside the
	// .cu file, not beside the header; the angle include is NVRTC's.
	for _, h := range []string{"helpers/sum.cuh", "more.cuh", "border.cuh"} {
		if _, ok := s.Source.Headers[h]; !ok {
			t.Errorf("headers %v: want %s", keys(s.Source.Headers), h)
		}
	}
}

func keys(m map[string]string) []string {
	var k []string
	for n := range m {
		k = append(k, n)
	}
	return k
}

func TestLoadErrors(t *testing.T) {
	dir := write(t, map[string]string{
		"both.cu":     "// convbench:kernel\n// entry: conv\n" + naiveBody,
		"both.kernel": "entry: conv\n",
		"none.cu":     naiveBody,
		"bad.cu":      naiveBody,
		"bad.kernel":  "entry: conv\n\ntypes: f16\n",
		"empty.cu":    "  \n",
		"nul.cu":      "// convbench:kernel\n// entry: conv\x00\n",
	})
	tests := []struct {
		file string
		want []string
	}{
		{"both.cu", []string{"both.cu: described both by its header and by the sidecar file", "both.kernel"}},
		{"none.cu", []string{"none.cu: no kernel description", "// convbench:kernel", "none.kernel", "fields name, summary, entry"}},
		{"bad.kernel", []string{"bad.kernel: is a sidecar description"}},
		{"bad.cu", []string{"bad.kernel:3: types: \"f16\"", "valid: f32, u8, i16"}},
		{"empty.cu", []string{"empty kernel file"}},
		{"nul.cu", []string{"NUL byte"}},
		{"missing.cu", []string{"no such file", "working directory"}},
		{".", []string{"not a regular file"}},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			k, err := Load(filepath.Join(dir, tt.file))
			if err == nil {
				t.Fatalf("loaded %+v: want an error", k.Spec)
			}
			for _, w := range tt.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q: want it to say %q", err, w)
				}
			}
		})
	}
}

// A kernel's name must not be a registered variant's.
func TestRegisterTakenName(t *testing.T) {
	dir := write(t, map[string]string{
		"taken.cu": "// convbench:kernel\n// entry: conv\n// name: gpu-naive\n" + naiveBody,
		"ref.cu":   "// convbench:kernel\n// entry: conv\n// name: reference\n" + naiveBody,
		"fresh.cu": "// convbench:kernel\n// entry: conv\n// name: user-register-test\n" + naiveBody,
	})
	for _, f := range []string{"taken.cu", "ref.cu"} {
		k, err := Load(filepath.Join(dir, f))
		if err != nil {
			t.Fatal(err)
		}
		var se *SpecError
		if err := Register(k); !errors.As(err, &se) || se.Field != "name" {
			t.Errorf("%s: Register = %v, want a *SpecError on the name", f, err)
		}
	}
	k, err := Load(filepath.Join(dir, "fresh.cu"))
	if err != nil {
		t.Fatal(err)
	}
	if err := Register(k); err != nil {
		t.Fatal(err)
	}
	v, err := convolve.Lookup("user-register-test")
	if err != nil || v.Describe().Name != "user-register-test" {
		t.Fatalf("lookup after Register: %v", err)
	}
	if err := Register(k); err == nil {
		t.Error("a second Register of the same name succeeded")
	}
}

// Without a GPU a plan of the variant returns the driver's
// *cudabind.UnavailableError, the reason the suite skips with.
func TestPlanWithoutGPU(t *testing.T) {
	t.Setenv("CONVBENCH_LIBCUDA", "/nonexistent/libcuda.so.1")
	dir := write(t, map[string]string{"k.cu": "// convbench:kernel\n// entry: conv\n" + naiveBody})
	k, err := Load(filepath.Join(dir, "k.cu"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := cudabind.Default(); err == nil {
		t.Skip("a GPU is present")
	}
	box, err := convolve.Box(3)
	if err != nil {
		t.Fatal(err)
	}
	p := convolve.Problem{Op: convolve.Filter2D, Filter: box,
		Input: convolve.Geometry{Width: 8, Height: 8, Channels: 1, Type: convolve.Float32}}
	_, err = k.Variant().Plan(p, convolve.Config{})
	var ue *cudabind.UnavailableError
	if !errors.As(err, &ue) {
		t.Errorf("Plan without a GPU: %v, want a *cudabind.UnavailableError", err)
	}
	// Outside the declared capabilities the refusal comes first.
	p.Input.Channels = 5
	if _, err := k.Variant().Plan(p, convolve.Config{}); err == nil {
		t.Error("Plan of 5 channels succeeded")
	}
}

func TestGeometry(t *testing.T) {
	k := &Kernel{Spec: defaults("g")}
	k.Spec.Geometry, k.Spec.Shared = Geometry{2, 4}, TileShared
	if got, want := k.SharedBytes(convolve.Block{X: 16, Y: 8}, 5, 3), (32+4)*(32+2)*4; got != want {
		t.Errorf("tile bytes %d, want %d", got, want)
	}
	if e := k.Extra(); e["RX"] != "2" || e["RY"] != "4" {
		t.Errorf("extra defines %v", e)
	}
	k.Spec.Shared = NoShared
	if got := k.SharedBytes(convolve.Block{X: 16, Y: 8}, 5, 3); got != 0 {
		t.Errorf("no shared: %d bytes", got)
	}
}
