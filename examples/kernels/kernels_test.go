package kernels_test

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/convbench/convbench/convolve"
	"github.com/convbench/convbench/convtest"
	"github.com/convbench/convbench/gpu/userkernel"
	"github.com/convbench/convbench/internal/gputest"
)

// compileArch is the architecture of the CPU compile check: the H100's.
const compileArch = "sm_90"

// The example kernels and what their descriptions say.
var examples = []struct {
	path, describedIn, name, entry string
	referenceOrder                 bool
}{
	{"direct.cu", "direct.cu", "user-direct", "direct_conv", true},
	{"testdata/offbyone.cu", "testdata/offbyone.kernel", "user-offbyone", "offbyone_conv", false},
}

func load(t *testing.T, path string) *userkernel.Kernel {
	t.Helper()
	k, err := userkernel.Load(filepath.FromSlash(path))
	if err != nil {
		t.Fatal(err)
	}
	return k
}

// Every example's description parses and says what the kernel is.
func TestDescriptions(t *testing.T) {
	for _, e := range examples {
		k := load(t, e.path)
		s := k.Spec
		if k.DescribedIn != filepath.FromSlash(e.describedIn) || s.Name != e.name || s.Entry != e.entry || s.ReferenceOrder != e.referenceOrder {
			t.Errorf("%s: described in %s, name %q entry %q reference order %v; want %s, %q, %q, %v",
				e.path, k.DescribedIn, s.Name, s.Entry, s.ReferenceOrder, e.describedIn, e.name, e.entry, e.referenceOrder)
		}
		if !strings.Contains(k.Source.Code, "extern \"C\" __global__") || k.Source.Headers["border.cuh"] == "" {
			t.Errorf("%s: source without its entry or border.cuh", e.path)
		}
	}
	d := load(t, "direct.cu").Spec
	if len(d.Types) != 3 || len(d.Borders) != 5 || len(d.Channels) != 4 || len(d.Layouts) != 2 || d.FiniteInput {
		t.Errorf("direct.cu declares %+v: want every type, border, channel count and layout, and no finite-input", d)
	}
}

// Every example compiles with NVRTC alone (no driver) for every element
// type and border it declares, one and three channels in each declared
// layout; without NVRTC the test skips and says so.
func TestCompile(t *testing.T) {
	gputest.NVRTC(t)
	for _, e := range examples {
		k := load(t, e.path)
		for _, typ := range k.Spec.Types {
			for _, b := range k.Spec.Borders {
				for _, ch := range []int{1, 3} {
					for _, l := range k.Spec.Layouts {
						if ch == 3 && !contains(k.Spec.Channels, 3) || ch == 1 && l == convolve.Planar {
							continue
						}
						f, err := convolve.Box(5)
						if err != nil {
							t.Fatal(err)
						}
						p := convolve.Problem{Op: convolve.Filter2D, Filter: f, Border: b,
							Input: convolve.Geometry{Width: 37, Height: 23, Channels: ch, Type: typ, Layout: l}}
						if _, err := k.Compile(compileArch, p, convolve.Config{}, convolve.Block{}); err != nil {
							t.Errorf("%s %v %v c=%d %v: %v", e.path, typ, b, ch, l, err)
						}
					}
				}
			}
		}
	}
}

func contains(s []int, v int) bool {
	for _, x := range s {
		if x == v {
			return true
		}
	}
	return false
}

// On a GPU, direct.cu passes the whole property suite, registered as the
// -kernel flag registers it (so that bit-exactness under --fmad=false is
// checked too); without a GPU the suite skips with the reason.
func TestDirectKernel(t *testing.T) {
	k := load(t, "direct.cu")
	if err := userkernel.Register(k); err != nil {
		t.Fatal(err)
	}
	v, err := convolve.Lookup(k.Spec.Name)
	if err != nil {
		t.Fatal(err)
	}
	convtest.TestVariant(t, v)
}

// envBroken makes TestSuiteOnOffByOne run: TestOffByOneFails runs it in
// a child process and expects it to fail.
const envBroken = "CONVBENCH_EXAMPLE_OFFBYONE"

// On a GPU, the suite fails offbyone.cu, for the shifted output.
func TestOffByOneFails(t *testing.T) {
	gputest.DeviceNoLeakCheck(t)
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	args := []string{"-test.run=^TestSuiteOnOffByOne$", "-test.v", "-test.short"}
	cmd := exec.Command(exe, args...)
	cmd.Env = append(os.Environ(), envBroken+"=1")
	out, err := cmd.CombinedOutput()
	var ee *exec.ExitError
	if !errors.As(err, &ee) {
		t.Fatalf("the suite on offbyone.cu: %v, want it to fail:\n%s", err, out)
	}
	if !strings.Contains(string(out), "variant=user-offbyone property=") || !strings.Contains(string(out), "--- FAIL: TestSuiteOnOffByOne/") {
		t.Errorf("the suite failed offbyone.cu, but not on a property:\n%s", out)
	}
	t.Logf("the suite fails offbyone.cu as it should; its first lines on it:\n%s", firstLines(string(out), "variant=user-offbyone property=", 4))
}

// TestSuiteOnOffByOne runs the suite on offbyone.cu; only
// TestOffByOneFails runs it, and expects it to fail.
func TestSuiteOnOffByOne(t *testing.T) {
	if os.Getenv(envBroken) == "" {
		t.Skip("run by TestOffByOneFails, which expects it to fail")
	}
	k := load(t, "testdata/offbyone.cu")
	if err := userkernel.Register(k); err != nil {
		t.Fatal(err)
	}
	v, err := convolve.Lookup(k.Spec.Name)
	if err != nil {
		t.Fatal(err)
	}
	convtest.TestVariant(t, v)
}

// firstLines returns n lines of out from the first that contains sub.
func firstLines(out, sub string, n int) string {
	lines := strings.Split(out, "\n")
	for i, l := range lines {
		if strings.Contains(l, sub) {
			return strings.Join(lines[i:min(len(lines), i+n)], "\n")
		}
	}
	return ""
}
