package benchmarks

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/convbench/convbench/convolve"
	"github.com/convbench/convbench/runfile"
)

// fakeVariantsEnv, set to 1 in the environment of a run of this test
// binary, registers the fake variants refusing and failing, which the
// child runs of the tests below sweep. Other runs leave them out, so
// that presets matching every variant do not see them.
const fakeVariantsEnv = "CONVBENCH_TEST_FAKE_VARIANTS"

// refusing is a CPU variant whose plans refuse every problem as
// unsupported, the *convolve.CapabilityError wrapped as a slab
// variant's refusal of its buffers is.
type refusing struct{ name string }

func (v refusing) Describe() convolve.Description {
	return convolve.Description{Name: v.name, Summary: "refuses every problem at plan time"}
}

func (v refusing) Plan(p convolve.Problem, cfg convolve.Config) (convolve.Plan, error) {
	return nil, fmt.Errorf("slab buffers: %w", &convolve.CapabilityError{Variant: v.name, What: "image rows", Value: "of " + p.Input.String() + ": over the cap of 16384"})
}

// failing is a CPU variant whose plans fail with an error that is not a
// refusal.
type failing struct{ name string }

func (v failing) Describe() convolve.Description {
	return convolve.Description{Name: v.name, Summary: "fails every plan"}
}

func (v failing) Plan(convolve.Problem, convolve.Config) (convolve.Plan, error) {
	return nil, errors.New("out of handles")
}

func init() {
	if os.Getenv(fakeVariantsEnv) == "1" {
		convolve.Register(refusing{"test-refusing"})
		convolve.Register(failing{"test-failing"})
	}
}

// BenchmarkFakeVariants runs BenchmarkVariant on the fake variants, in a
// child run of TestBenchmarkVariantRefusal.
func BenchmarkFakeVariants(b *testing.B) {
	if os.Getenv(fakeVariantsEnv) != "1" {
		b.Skip("the fake variants are registered in child runs only")
	}
	for _, name := range strings.Split(os.Getenv(fakeVariantsEnv+"_RUN"), ",") {
		v, err := convolve.Lookup(name)
		if err != nil {
			b.Fatal(err)
		}
		BenchmarkVariant(b, v)
	}
}

// runFake runs this test binary with the fake variants registered and
// args, and returns its stdout and stderr and whether it exited 0.
func runFake(t *testing.T, extraEnv []string, args ...string) (stdout, stderr string, ok bool) {
	t.Helper()
	if testing.Short() {
		t.Skip("runs the benchmark binary; -short")
	}
	cmd := binaryWithoutGPU(t, args...)
	cmd.Env = append(append(cmd.Env, fakeVariantsEnv+"=1"), extraEnv...)
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	err := cmd.Run()
	if ee := new(exec.ExitError); err != nil && !errors.As(err, &ee) {
		t.Fatal(err)
	}
	return out.String(), errOut.String(), err == nil
}

// A sweep case whose variant refuses it at plan time with a
// *convolve.CapabilityError, even one wrapped in another error, is
// skipped: the run records it with the reason in a comment line, once
// for all its lines, and does not fail. A variant whose plan fails with
// any other error fails its case.
func TestSweepSkipsUnsupported(t *testing.T) {
	sweep := func(variant string) (string, string, bool) {
		return runFake(t, nil, "-test.run", "^$", "-test.bench", "^BenchmarkConv$", "-test.count", "3", "-test.cpu", "1",
			"-variants", variant, "-sizes", "64x48", "-filters", "gauss3,gauss5", "-max-time", "100ms")
	}
	out, errOut, ok := sweep("test-refusing")
	if !ok {
		t.Errorf("the sweep of a refusing variant failed:\n%s\n%s", out, errOut)
	}
	var lines []string
	for _, l := range strings.Split(out, "\n") {
		if name, reason, found := runfile.ParseUnsupported(l); found {
			lines = append(lines, name)
			want := "test-refusing does not support image rows of 64x48x1 f32"
			if !strings.Contains(reason, want) || !strings.Contains(reason, "over the cap of 16384") {
				t.Errorf("reason %q: want the refusal, %q", reason, want)
			}
		}
		if strings.Contains(l, "--- FAIL") || strings.HasPrefix(l, "BenchmarkConv/") {
			t.Errorf("line %q: want no result and no failure of a refused case", l)
		}
	}
	want := []string{
		"variant=test-refusing/size=64x48/filter=gauss3/k=3/block=none/border=zero/type=f32/ch=1/layout=interleaved/cache=hot/timing=cpu/mem=none",
		"variant=test-refusing/size=64x48/filter=gauss5/k=5/block=none/border=zero/type=f32/ch=1/layout=interleaved/cache=hot/timing=cpu/mem=none",
	}
	if strings.Join(lines, "\n") != strings.Join(want, "\n") {
		t.Errorf("unsupported lines name %q, want each case once: %q\n%s", lines, want, out)
	}
	if !strings.Contains(errOut, "unsupported, skipped: ") {
		t.Errorf("progress does not say the case was skipped as unsupported:\n%s", errOut)
	}

	out, errOut, ok = sweep("test-failing")
	if ok {
		t.Errorf("the sweep of a failing variant passed:\n%s\n%s", out, errOut)
	}
	if !strings.Contains(out, "--- FAIL: BenchmarkConv/variant=test-failing/") || !strings.Contains(out, "plan: convolve: test-failing: out of handles") {
		t.Errorf("want the failing variant's cases failed with the plan's error:\n%s", out)
	}
	if strings.Contains(out, "# unsupported ") {
		t.Errorf("a plan that failed is recorded as unsupported:\n%s", out)
	}
}

// BenchmarkVariant skips the cases a variant refuses at plan time and
// fails those whose plan fails otherwise.
func TestBenchmarkVariantRefusal(t *testing.T) {
	for _, tt := range []struct {
		variant, want string
		ok            bool
	}{
		{"test-refusing", "--- SKIP: BenchmarkFakeVariants/variant=test-refusing/", true},
		{"test-failing", "--- FAIL: BenchmarkFakeVariants/variant=test-failing/", false},
	} {
		out, errOut, ok := runFake(t, []string{fakeVariantsEnv + "_RUN=" + tt.variant},
			"-test.run", "^$", "-test.bench", "^BenchmarkFakeVariants$", "-test.benchtime", "1x", "-test.v")
		if ok != tt.ok || !strings.Contains(out, tt.want) {
			t.Errorf("%s: exit ok %v, want %v; want %q in:\n%s\n%s", tt.variant, ok, tt.ok, tt.want, out, errOut)
		}
		if tt.ok && !strings.Contains(out, "unsupported, skipped: slab buffers: convolve: test-refusing does not support image rows") {
			t.Errorf("%s: the skip does not give the reason:\n%s", tt.variant, out)
		}
	}
}

// In process, a Runner writes the unsupported line of a refused case to
// its Unsupported writer and times nothing.
func TestRunnerRecordsUnsupported(t *testing.T) {
	var unsupported, progress strings.Builder
	c := Case{Variant: "refusing", Width: 16, Height: 12, Filter: "gauss3", Channels: 1, Cache: Hot, Timing: CPUTiming}
	r := &Runner{CPUThreads: 1, Seed: 1, Progress: newProgress(&progress, "test", 1, nowForTest()), Noise: quickNoise, Unsupported: &unsupported,
		Lookup: func(string) (convolve.Variant, error) { return refusing{"refusing"}, nil }}
	res := benchOnce(t, func(b *testing.B) { r.Run(b, c) })
	if res.N != 0 {
		t.Errorf("a refused case was timed: %+v", res)
	}
	name, reason, ok := runfile.ParseUnsupported(strings.TrimSuffix(unsupported.String(), "\n"))
	if !ok || name != c.Name() || !strings.Contains(reason, "refusing does not support image rows of 16x12x1 f32") {
		t.Errorf("unsupported %q: want one line naming %s and the refusal", unsupported.String(), c.Name())
	}
}
