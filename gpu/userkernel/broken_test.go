package userkernel

import (
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/convbench/convbench/convolve"
	"github.com/convbench/convbench/internal/gputest"
)

// brokenDir holds the deliberately broken kernels of the faults stage of
// scripts/gpu-run.sh, which sweeps every .cu file in it (from the
// repository root, gpu/userkernel/testdata/broken/*.cu) beside the
// correct examples/kernels/direct.cu. The stage checks that the sweep
// refuses each with a refusal holding the texts of its "// expect
// refusal: " lines.
const brokenDir = "testdata/broken"

// expectPrefix opens a line of a broken kernel's prose that names a text
// its refusal must hold.
const expectPrefix = "// expect refusal: "

// The broken kernels: what each breaks and what its refusal must say.
var brokenKernels = []struct {
	file, name, entry string
	fault             string // what the kernel does wrong
	expect            []string
}{
	{"hang.cu", "user-hang", "hang_conv", "never returns",
		[]string{"refused: hang: the property suite was still running after", "(-prove-timeout)"}},
	{"oob.cu", "user-oob", "oob_conv", "stores 4 TiB past the output",
		[]string{"refused: crash: failed the property suite", "CUDA_ERROR_ILLEGAL_ADDRESS"}},
	{"shared.cu", "user-shared", "shared_conv", "needs more shared memory than a block gets",
		[]string{"refused: failed the property suite", "CUDA_ERROR_INVALID_VALUE"}},
	{"threads.cu", "user-threads", "threads_conv", "is launched with more threads a block than its launch bounds allow",
		[]string{"refused: failed the property suite", "CUDA_ERROR_INVALID_VALUE"}},
	{"trap.cu", "user-trap", "trap_conv", "executes __trap()",
		[]string{"refused: crash: failed the property suite", "CUDA_ERROR_LAUNCH_FAILED"}},
	{"unwritten.cu", "user-unwritten", "unwritten_conv", "leaves an output element unwritten",
		[]string{"refused: failed the property suite (property agreement)", "not written"}},
}

// expectations are the texts of the expect lines of a kernel's source.
func expectations(code string) []string {
	var e []string
	for _, l := range strings.Split(code, "\n") {
		if t, ok := strings.CutPrefix(strings.TrimSpace(l), expectPrefix); ok {
			e = append(e, strings.TrimSpace(t))
		}
	}
	return e
}

// Every broken kernel is where the faults stage looks for it, and is
// accepted by the contract as far as the CPU can tell: its header
// description parses with the entry and name the stage's checks expect,
// declares float32 input (the type the stage sweeps), leaves its name
// free, and names the texts its refusal must hold; no other file is
// there. (TestBrokenKernelsCompile compiles each where NVRTC is present;
// only a GPU shows the fault.)
func TestBrokenKernels(t *testing.T) {
	files, err := filepath.Glob(filepath.Join(brokenDir, "*"))
	if err != nil {
		t.Fatal(err)
	}
	var want []string
	for _, b := range brokenKernels {
		want = append(want, filepath.Join(brokenDir, b.file))
	}
	if !slices.Equal(files, want) {
		t.Errorf("%s holds %q, want %q: the faults stage sweeps every .cu file there", brokenDir, files, want)
	}
	for _, b := range brokenKernels {
		t.Run(b.file, func(t *testing.T) {
			path := filepath.Join(brokenDir, b.file)
			k, err := Load(path)
			if err != nil {
				t.Fatalf("%s (%s): %v", path, b.fault, err)
			}
			s := k.Spec
			if k.DescribedIn != path || s.Name != b.name || s.Entry != b.entry {
				t.Errorf("described in %s, name %q, entry %q: want the header, %q, %q", k.DescribedIn, s.Name, s.Entry, b.name, b.entry)
			}
			if !slices.Contains(s.Types, convolve.Float32) {
				t.Errorf("types %v: want f32, the type the faults stage sweeps", s.Types)
			}
			if !strings.Contains(s.Summary, "deliberately broken") {
				t.Errorf("summary %q: want it to say the kernel is deliberately broken", s.Summary)
			}
			if !strings.Contains(k.Source.Code, `extern "C" __global__`) || k.Source.Headers["border.cuh"] == "" {
				t.Errorf("source without an extern \"C\" entry or border.cuh")
			}
			if v, err := convolve.Lookup(s.Name); err == nil {
				t.Errorf("name %q is taken by the registered variant %q", s.Name, v.Describe().Name)
			}
			if d := k.Variant().Describe(); d.Name != b.name || !d.Caps.GPU {
				t.Errorf("variant %q (GPU %v): want %q, a GPU variant", d.Name, d.Caps.GPU, b.name)
			}
			if got := expectations(k.Source.Code); !slices.Equal(got, b.expect) {
				t.Errorf("expect lines %q, want %q", got, b.expect)
			}
		})
	}
}

// Every broken kernel compiles with NVRTC alone (no driver) for the
// problems the faults stage sweeps, with its entry in the image; without
// NVRTC the test skips and says so.
func TestBrokenKernelsCompile(t *testing.T) {
	gputest.NVRTC(t)
	for _, b := range brokenKernels {
		k, err := Load(filepath.Join(brokenDir, b.file))
		if err != nil {
			t.Fatal(err)
		}
		for _, kside := range []int{3, 5} {
			if _, err := k.Compile(compileArch, problem(t, convolve.Float32, convolve.Zero, 1, convolve.Interleaved, kside), convolve.Config{}, convolve.Block{}); err != nil {
				t.Errorf("%s, %dx%d filter: %v", b.file, kside, kside, err)
			}
		}
	}
}
