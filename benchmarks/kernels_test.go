package benchmarks

import (
	"bytes"
	"errors"
	"flag"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/convbench/convbench/convolve"
	"github.com/convbench/convbench/cudabind"
	"github.com/convbench/convbench/gpu/userkernel"
)

// exampleKernel is the kernel examples/kernels ships.
var exampleKernel = filepath.Join("..", "examples", "kernels", "direct.cu")

// writeKernel writes a kernel file with the given description header
// lines under a fresh directory and returns its path.
func writeKernel(t *testing.T, name, header string) string {
	t.Helper()
	body, err := os.ReadFile(exampleKernel)
	if err != nil {
		t.Fatal(err)
	}
	_, code, _ := strings.Cut(string(body), "#include")
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, []byte(header+"\n#include"+code), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// newFlags is a flag set with the axis flags and -kernel, as the test
// binary and the sweep command define them.
func newFlags() (*flag.FlagSet, *Axes, *KernelFlag) {
	fs := flag.NewFlagSet("test", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	a := new(Axes)
	registerAxisFlags(fs, a)
	kf := RegisterKernelFlag(fs)
	fs.Bool("v", false, "a bool flag")
	fs.String("sweep", "", "a string flag")
	return fs, a, kf
}

// -kernel registers the file as a variant that -variants can name, before
// or after it; loading the same file twice is one variant.
func TestKernelFlag(t *testing.T) {
	p := writeKernel(t, "flagorder.cu", "// convbench:kernel\n// entry: direct_conv\n// types: f32")
	args := []string{"-variants", "user-flagorder,cpu-fast", "-v", "-sweep", "default", "-kernel", p, "-kernel=" + p}
	fs, a, kf := newFlags()
	if err := ParseKernelFlags(fs, args); err != nil {
		t.Fatal(err)
	}
	if err := fs.Parse(args); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(a.Variants, []string{"user-flagorder", "cpu-fast"}) {
		t.Errorf("variants %v", a.Variants)
	}
	if ks := kf.Kernels(); len(ks) != 1 || ks[0].Spec.Name != "user-flagorder" {
		t.Errorf("kernels %v: want user-flagorder once", kf)
	}
	if !slices.Equal(kf.Args(), []string{"-kernel=" + p}) {
		t.Errorf("kernel args %v: want -kernel=%s", kf.Args(), p)
	}
	if l := kf.Lines(); len(l) != 1 || !strings.HasPrefix(l[0], "user kernel user-flagorder: "+p+" (sha256 ") {
		t.Errorf("kernel lines %q: want user-flagorder's", l)
	}
	if v, err := convolve.Lookup("user-flagorder"); err != nil || !v.Describe().Caps.GPU {
		t.Errorf("user-flagorder is not a registered GPU variant: %v", err)
	}
}

// A bad description is an error naming the file, the line, the field and
// the valid values, from the early pass and from the parse alike; nothing
// is registered.
func TestKernelFlagErrors(t *testing.T) {
	bad := writeKernel(t, "badfield.cu", "// convbench:kernel\n// entry: direct_conv\n// borders: zero, clamp")
	taken := writeKernel(t, "taken.cu", "// convbench:kernel\n// entry: direct_conv\n// name: cpu-naive")
	tests := []struct {
		file string
		want []string
	}{
		{bad, []string{"-kernel " + bad + ": " + bad + ":3: borders: \"zero, clamp\": \"clamp\" is not a valid value (valid: zero, replicate, reflect, mirror, wrap)"}},
		{taken, []string{"name: \"cpu-naive\": is taken by the registered variant"}},
		{filepath.Join(t.TempDir(), "missing.cu"), []string{"missing.cu: no such file"}},
	}
	for _, tt := range tests {
		fs, _, _ := newFlags()
		args := []string{"-sweep=default", "-kernel", tt.file}
		err := ParseKernelFlags(fs, args)
		var se *userkernel.SpecError
		if err == nil {
			t.Fatalf("%s: no error", tt.file)
		}
		for _, w := range tt.want {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("error %q: want %q", err, w)
			}
		}
		if tt.file != tests[2].file && !errors.As(err, &se) {
			t.Errorf("%s: %T, want a *userkernel.SpecError", tt.file, err)
		}
		if err := fs.Parse(args); err == nil {
			t.Errorf("%s: the parse after the early pass succeeded", tt.file)
		}
	}
	if _, err := convolve.Lookup("user-badfield"); err == nil {
		t.Error("user-badfield was registered")
	}
}

// The test binary given a bad kernel description exits with the error,
// without a panic and before any benchmark.
func TestBinaryRefusesBadKernel(t *testing.T) {
	bad := writeKernel(t, "nodesc.cu", "// no description here")
	cmd := binaryWithoutGPU(t, "-test.run", "^$", "-test.bench", ".", "-variants", "cpu-fast", "-kernel", bad)
	out, err := cmd.CombinedOutput()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != 2 {
		t.Fatalf("exit %v, want status 2:\n%s", err, out)
	}
	if !strings.Contains(string(out), bad+": no kernel description") || strings.Contains(string(out), "panic") || strings.Contains(string(out), "BenchmarkConv/") {
		t.Errorf("output:\n%s\nwant the description error alone", out)
	}
}

// ProveKernels runs the suite's test in a child run of the binary and
// reads its verdict: without a GPU the suite skips a user kernel, which
// then is not proven, with the suite's reason.
func TestProveKernelsWithoutGPU(t *testing.T) {
	exe, err := os.Executable()
	if err != nil {
		t.Skip("cannot find the test binary: " + err.Error())
	}
	k, err := loadKernel(exampleKernel)
	if err != nil {
		t.Fatal(err)
	}
	t.Setenv("CONVBENCH_LIBCUDA", "/nonexistent/libcuda.so.1")
	var log bytes.Buffer
	proofs := ProveKernels(exe, []string{"user-direct"}, []string{"-kernel=" + k.Path}, DefaultProveTimeout, &log)
	if len(proofs) != 1 {
		t.Fatalf("proofs %+v", proofs)
	}
	p := proofs[0]
	if p.Proven() || p.Verdict != "skip" || !strings.Contains(p.Detail, "needs a GPU") ||
		!strings.HasPrefix(p.Refusal(), "not proven: the property suite skipped it: user-direct needs a GPU") {
		t.Errorf("proof %+v, refusal %q; log:\n%s", p, p.Refusal(), log.String())
	}
	// A child that ends without a word on the kernel leaves it unproven
	// with what ended the run.
	proofs = ProveKernels(exe, []string{"user-direct"}, []string{"-no-such-flag"}, DefaultProveTimeout, io.Discard)
	if proofs[0].Proven() || proofs[0].Verdict != "" || !strings.Contains(proofs[0].Refusal(), "ended without a verdict") ||
		!strings.Contains(proofs[0].Refusal(), "exit status") {
		t.Errorf("proof of a failed run: %+v", proofs[0])
	}
}

// The verdicts of a run of the suite: a kernel that fails is refused with
// the properties that failed and the suite's first line on them.
func TestParseProofs(t *testing.T) {
	out := strings.Join([]string{
		"=== RUN   TestUserKernels",
		"=== RUN   TestUserKernels/user-good",
		"    userkernel_test.go:28: variant=user-good seed=1 n=250 (rerun with -convtest.seed=1)",
		"=== RUN   TestUserKernels/user-good/agreement",
		"=== RUN   TestUserKernels/user-good/edge-cases",
		"    run.go:234: variant=user-good cases=2700 pass elapsed=14s",
		"=== RUN   TestUserKernels/user-bad",
		"    userkernel_test.go:28: variant=user-bad seed=1 n=250 (rerun with -convtest.seed=1)",
		"=== RUN   TestUserKernels/user-bad/agreement",
		"    run.go:125: variant=user-bad property=agreement FAILED after 0 passing cases",
		"          shrunk case (12 shrinks): filter2d 1x1 c=1 f32 K=3x1 zero",
		"          original case:            filter2d 37x20 c=1 f32 K=5x3 zero",
		"          failure: 1 of 1 elements differ; first at (0,0,0): got 0 want 0.25",
		"=== RUN   TestUserKernels/user-bad/determinism",
		"=== RUN   TestUserKernels/user-bad/edge-cases",
		"=== NAME  TestUserKernels/user-bad/agreement",
		"    run.go:130: a later line on agreement",
		"=== NAME  TestUserKernels/user-bad/edge-cases",
		"    edge.go:109: edge case filter2d 1x1 c=1 f32 K=1x1 zero: 1 of 1 elements differ",
		"=== RUN   TestUserKernels/user-skip",
		"    run.go:38: user-skip needs a GPU: cudabind: libcuda.so.1 unavailable",
		"--- FAIL: TestUserKernels (30.00s)",
		"    --- PASS: TestUserKernels/user-good (14.00s)",
		"        --- PASS: TestUserKernels/user-good/agreement (3.00s)",
		"        --- PASS: TestUserKernels/user-good/edge-cases (1.00s)",
		"    --- FAIL: TestUserKernels/user-bad (16.00s)",
		"        --- FAIL: TestUserKernels/user-bad/agreement (5.00s)",
		"        --- PASS: TestUserKernels/user-bad/determinism (1.00s)",
		"        --- FAIL: TestUserKernels/user-bad/edge-cases (1.00s)",
		"    --- SKIP: TestUserKernels/user-skip (0.00s)",
		"FAIL",
	}, "\n")
	got := parseProofs(out, []string{"user-good", "user-bad", "user-skip", "user-absent"})
	want := []Proof{
		{Variant: "user-good", Verdict: "pass"},
		{Variant: "user-bad", Verdict: "fail", Failed: []string{"agreement", "edge-cases"},
			Detail: "variant=user-bad property=agreement FAILED after 0 passing cases; shrunk case (12 shrinks): filter2d 1x1 c=1 f32 K=3x1 zero; failure: 1 of 1 elements differ; first at (0,0,0): got 0 want 0.25"},
		{Variant: "user-skip", Verdict: "skip", Detail: "user-skip needs a GPU: cudabind: libcuda.so.1 unavailable"},
		{Variant: "user-absent"},
	}
	for i := range want {
		g, w := got[i], want[i]
		if g.Variant != w.Variant || g.Verdict != w.Verdict || !slices.Equal(g.Failed, w.Failed) || g.Detail != w.Detail {
			t.Errorf("proof %d:\n got %+v\nwant %+v", i, g, w)
		}
	}
	if r := got[1].Refusal(); !strings.HasPrefix(r, "failed the property suite (property agreement, edge-cases): variant=user-bad property=agreement FAILED") {
		t.Errorf("refusal %q", r)
	}
	if got[0].Refusal() != "" || !got[0].Proven() {
		t.Errorf("the passing kernel is refused: %q", got[0].Refusal())
	}
}

// The output of a run stopped at its first failed property has the
// suite's report of the failure but no result lines: it reads as a
// failure of that property, whichever form the report takes.
func TestParseProofsStopped(t *testing.T) {
	for _, tt := range []struct {
		name, report, detail string
	}{
		{"shrunk", strings.Join([]string{
			"    run.go:177: variant=user-bad property=agreement FAILED after 0 passing cases",
			"          shrunk case (3 shrinks): filter2d 1x1 c=1 f32 K=1x1 zero",
			"          original case:            filter2d 9x7 c=1 f32 K=3x3 zero",
			"          failure: run: cuLaunchKernel: CUDA_ERROR_INVALID_VALUE (invalid argument)",
		}, "\n"), "variant=user-bad property=agreement FAILED after 0 passing cases; shrunk case (3 shrinks): filter2d 1x1 c=1 f32 K=1x1 zero; failure: run: cuLaunchKernel: CUDA_ERROR_INVALID_VALUE (invalid argument)"},
		{"refused at plan time", "    run.go:192: variant=user-bad property=agreement: refused 25 of 25 cases at plan time; first: refused: too big",
			"variant=user-bad property=agreement: refused 25 of 25 cases at plan time; first: refused: too big"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			out := strings.Join([]string{
				"=== RUN   TestUserKernels",
				"=== RUN   TestUserKernels/user-bad",
				"    userkernel_test.go:28: variant=user-bad seed=1 n=250 (rerun with -convtest.seed=1)",
				"    gpu.go:117: precompiled the kernels of 140 specializations of user-bad on 16 workers in 2s (0 refused at plan time)",
				"=== RUN   TestUserKernels/user-bad/agreement",
				tt.report,
			}, "\n")
			p := parseProofs(out, []string{"user-bad"})[0]
			if p.Verdict != "fail" || !slices.Equal(p.Failed, []string{"agreement"}) || p.Detail != tt.detail {
				t.Errorf("proof %+v\nwant a failure of agreement with the detail %q", p, tt.detail)
			}
		})
	}
	// A line of the suite's that reports no failure is no failure.
	out := "=== RUN   TestUserKernels/user-ok/agreement\n    run.go:199: checked 25 of 250 random cases within the 3s bound (-convtest.time=0 checks all)\n"
	if p := parseProofs(out, []string{"user-ok"})[0]; p.Verdict != "" || p.Failed != nil {
		t.Errorf("proof %+v: want no verdict", p)
	}
}

// Before timing, the user kernels that have cases are proved in a child
// run of the binary; one the suite does not pass is refused, and the
// output says so with the count of its cases. Without a GPU the suite
// skips the kernel, so it is refused as not proven; on a GPU it passes.
func TestProveUserKernels(t *testing.T) {
	kf := new(KernelFlag)
	if err := kf.Set(exampleKernel); err != nil {
		t.Fatal(err)
	}
	_, noGPU := cudabind.Default()
	if noGPU == nil && testing.Short() {
		t.Skip("on a GPU this runs the whole property suite on the example kernel")
	}
	cases := []Case{{Variant: "user-direct"}, {Variant: "user-direct", Width: 64, Height: 64}, {Variant: "cpu-fast"}}
	var stdout, stderr bytes.Buffer
	refused := proveUserKernels(kf, cases, &stdout, &stderr)
	if noGPU != nil {
		why := refused["user-direct"]
		if len(refused) != 1 || !strings.HasPrefix(why, "not proven: the property suite skipped it: user-direct needs a GPU") {
			t.Errorf("refused %q", refused)
		}
		if want := "# user kernel user-direct: refused: " + why + "; its 2 cases are not timed\n"; stdout.String() != want {
			t.Errorf("stdout %q, want %q", stdout.String(), want)
		}
	} else if len(refused) != 0 || stdout.String() != "# user kernel user-direct: passed the property suite; its 2 cases are timed\n" {
		t.Errorf("on a GPU: refused %q, stdout %q; stderr:\n%s", refused, stdout.String(), stderr.String())
	}
	if refused := proveUserKernels(kf, cases[2:], &stdout, &stderr); refused != nil {
		t.Errorf("without user-kernel cases: refused %q", refused)
	}
}
