package convtest

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/convbench/convbench/convolve"
	"github.com/convbench/convbench/internal/childproc"
)

// errFakeSticky stands for a device error after which the process's
// device is unusable.
type errFakeSticky struct{}

func (errFakeSticky) Error() string { return "CUDA_ERROR_ILLEGAL_ADDRESS (stand-in)" }
func (errFakeSticky) Sticky() bool  { return true }

func TestIsSticky(t *testing.T) {
	for _, tt := range []struct {
		err  error
		want bool
	}{
		{nil, false},
		{errors.New("CUDA_ERROR_ILLEGAL_ADDRESS"), false}, // text alone is not the error
		{errFakeSticky{}, true},
		{fmt.Errorf("run: %w", errFakeSticky{}), true},
		{errors.Join(errors.New("x"), errFakeSticky{}), true},
	} {
		if got := isSticky(tt.err); got != tt.want {
			t.Errorf("isSticky(%v) = %v, want %v", tt.err, got, tt.want)
		}
	}
}

// poisoned is set in this process once a stickyAbove plan faulted: from
// then on every plan faults, as a real device does after a sticky error.
var poisoned atomic.Bool

// stickyAbove is cpu-naive that faults, stickily, on images of width 8
// or more.
type stickyAbove struct{ inner convolve.Variant }

func (s stickyAbove) Describe() convolve.Description {
	d := s.inner.Describe()
	d.Name = "sticky-above-7"
	d.Summary = "cpu-naive that faults stickily from width 8 (test only)"
	return d
}

func (s stickyAbove) Plan(p convolve.Problem, cfg convolve.Config) (convolve.Plan, error) {
	inner, err := convolve.PlanFor(s.inner, p, cfg)
	if err != nil {
		return nil, err
	}
	return stickyPlan{Plan: inner, width: p.Input.Width}, nil
}

type stickyPlan struct {
	convolve.Plan
	width int
}

func (sp stickyPlan) Run(in, out *convolve.Image) error {
	if sp.width >= 8 || poisoned.Load() {
		poisoned.Store(true)
		return errFakeSticky{}
	}
	return sp.Plan.Run(in, out)
}

// TestStickyShrinkChild is run by TestShrinkAfterStickyError in a child
// process, where it fails.
func TestStickyShrinkChild(t *testing.T) {
	if os.Getenv("CONVTEST_STICKY_CHILD") != "1" {
		t.Skip("run by TestShrinkAfterStickyError")
	}
	inner, err := convolve.Lookup("cpu-naive")
	if err != nil {
		t.Fatal(err)
	}
	TestVariantOptions(t, stickyAbove{inner}, Options{Seed: 5, N: 40, ShrinkTime: -1, Time: -1})
}

// TestShrinkAfterStickyError: once a case fails with a sticky error, the
// process's device is unusable (here every later plan faults), and
// shrinking in it would settle on any case at all; the shrink candidates
// are checked in child processes instead, so the shrunk case is the
// smallest that really fails: width 8.
func TestShrinkAfterStickyError(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the test binary again, once a shrink step")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, os.Args[0], "-test.run=^TestStickyShrinkChild$/^agreement$", "-test.v")
	cmd.Env = append(os.Environ(), "CONVTEST_STICKY_CHILD=1")
	out, err := cmd.CombinedOutput()
	var exit *exec.ExitError
	if !errors.As(err, &exit) {
		t.Fatalf("the child run: %v, want a failing exit status\n%s", err, out)
	}
	shrunk := regexp.MustCompile(`shrunk case \((\d+) shrinks, (\d+) checked in child processes after a sticky device error\): \S+ (\d+)x(\d+) `).FindSubmatch(out)
	if shrunk == nil {
		t.Fatalf("no shrunk case checked in child processes in the output:\n%s", out)
	}
	if w, _ := strconv.Atoi(string(shrunk[3])); w != 8 {
		t.Errorf("shrunk to width %d, want 8 (the smallest that faults)\n%s", w, out)
	}
	if n, _ := strconv.Atoi(string(shrunk[2])); n == 0 {
		t.Errorf("no case checked in a child process")
	}
	// The failure is the shrunk case's own, as its child process said it.
	if !regexp.MustCompile(`failure: in a child process: exit status 1: failure: run: CUDA_ERROR_ILLEGAL_ADDRESS \(stand-in\)`).Match(out) {
		t.Errorf("the failure does not carry the child's error:\n%s", out)
	}
	t.Logf("%s", shrunk[0])
}

// TestStickyWithoutChild: with no way to check cases elsewhere, shrinking
// stops at the case that faulted rather than settle on a case that only
// fails because the device is gone.
func TestStickyWithoutChild(t *testing.T) {
	defer poisoned.Store(false)
	inner, err := convolve.Lookup("cpu-naive")
	if err != nil {
		t.Fatal(err)
	}
	e := newEnv(t, stickyAbove{inner}, Options{Seed: 5})
	r := checkProperty(e, propertyNamed(t, "agreement"), 5, 40, -1, -1, nil)
	if r.result.Passed() || !r.sticky {
		t.Fatalf("passed %v, sticky %v; want a sticky failure", r.result.Passed(), r.sticky)
	}
	a := r.result.Args[0]
	if a.Shrinks != 0 || a.Arg.(testCase).W < 8 {
		t.Errorf("shrunk %d times to %v; want the faulting case as it was", a.Shrinks, a.Arg)
	}
}

// TestStickyChildUndecided: a child process that gives no verdict (killed
// at its limit) leaves its candidate undecided: the shrinking stops, and
// the failure reported is the last case that failed, with its own sticky
// error, not a hang of the child.
func TestStickyChildUndecided(t *testing.T) {
	defer poisoned.Store(false)
	inner, err := convolve.Lookup("cpu-naive")
	if err != nil {
		t.Fatal(err)
	}
	e := newEnv(t, stickyAbove{inner}, Options{Seed: 5})
	calls := 0
	child := func(c testCase, limit time.Duration) error {
		calls++
		return &noVerdictError{limit: time.Second}
	}
	r := checkProperty(e, propertyNamed(t, "agreement"), 5, 40, -1, -1, child)
	if r.result.Passed() || !r.sticky {
		t.Fatalf("passed %v, sticky %v; want a sticky failure", r.result.Passed(), r.sticky)
	}
	if calls != 1 || r.isolated != 1 {
		t.Errorf("%d child processes started (%d counted); want 1: none after the first undecided", calls, r.isolated)
	}
	if r.undecided == nil {
		t.Error("the undecided child is not recorded")
	}
	a := r.result.Args[0]
	if a.Shrinks != 0 {
		t.Errorf("shrunk %d times to %v; want the faulting case as it was", a.Shrinks, a.Arg)
	}
	labels := strings.Join(r.result.Labels, "; ")
	if !strings.Contains(labels, "CUDA_ERROR_ILLEGAL_ADDRESS") || strings.Contains(labels, "no verdict") {
		t.Errorf("failure %q: want the case's own sticky error, not the child's", labels)
	}
}

// releasingSticky is stickyAbove that is a DeviceReleaser: it counts the
// calls of ReleaseDevice and returns err.
type releasingSticky struct {
	stickyAbove
	calls *int
	err   error
}

func (r releasingSticky) ReleaseDevice() error {
	*r.calls++
	return r.err
}

// TestReleaseBeforeChildren: a variant that is a DeviceReleaser is asked
// once to release its device after a sticky error, before the first
// child process, and not at all when nothing faults or when no child
// checks the candidates; its error is kept for the report.
func TestReleaseBeforeChildren(t *testing.T) {
	inner, err := convolve.Lookup("cpu-naive")
	if err != nil {
		t.Fatal(err)
	}
	passChild := func(testCase, time.Duration) error { return nil }
	busy := errors.New("device busy")
	for _, tt := range []struct {
		name      string
		v         func(calls *int) convolve.Variant
		child     caseChecker
		wantCalls int
		wantErr   error
	}{
		{"sticky with children", func(c *int) convolve.Variant { return releasingSticky{stickyAbove{inner}, c, nil} }, passChild, 1, nil},
		{"release fails", func(c *int) convolve.Variant { return releasingSticky{stickyAbove{inner}, c, busy} }, passChild, 1, busy},
		{"sticky without children", func(c *int) convolve.Variant { return releasingSticky{stickyAbove{inner}, c, nil} }, nil, 0, nil},
	} {
		t.Run(tt.name, func(t *testing.T) {
			defer poisoned.Store(false)
			calls := 0
			e := newEnv(t, tt.v(&calls), Options{Seed: 5})
			r := checkProperty(e, propertyNamed(t, "agreement"), 5, 40, -1, -1, tt.child)
			if !r.sticky {
				t.Fatal("no sticky failure")
			}
			if calls != tt.wantCalls {
				t.Errorf("ReleaseDevice called %d times, want %d", calls, tt.wantCalls)
			}
			if !errors.Is(r.releaseErr, tt.wantErr) || (tt.wantErr == nil) != (r.releaseErr == nil) {
				t.Errorf("release error %v, want %v", r.releaseErr, tt.wantErr)
			}
			if tt.child != nil && r.isolated == 0 {
				t.Error("no candidate checked in a child")
			}
		})
	}
}

// releasingPlain is a correct variant that is a DeviceReleaser.
type releasingPlain struct {
	convolve.Variant
	calls *int
}

func (r releasingPlain) ReleaseDevice() error {
	*r.calls++
	return nil
}

// TestNoReleaseWithoutFault: a DeviceReleaser that never faults is never
// asked to release its device.
func TestNoReleaseWithoutFault(t *testing.T) {
	inner, err := convolve.Lookup("cpu-naive")
	if err != nil {
		t.Fatal(err)
	}
	calls := 0
	e := newEnv(t, releasingPlain{inner, &calls}, Options{Seed: 5})
	r := checkProperty(e, propertyNamed(t, "agreement"), 5, 20, -1, -1, func(testCase, time.Duration) error { return nil })
	if !r.result.Passed() {
		t.Fatalf("agreement failed on cpu-naive: %v", r.result.Labels)
	}
	if calls != 0 {
		t.Errorf("ReleaseDevice called %d times without a fault", calls)
	}
}

// childHangEnv, set in a child's environment, makes the test binary a
// child that prints childHangLine and sleeps (TestMain) instead of
// running its tests.
const (
	childHangEnv  = "CONVTEST_TEST_CHILD_HANGS"
	childHangLine = "child: waiting for ever"
)

func TestMain(m *testing.M) {
	if os.Getenv(childHangEnv) != "" {
		fmt.Println(childHangLine)
		time.Sleep(time.Hour)
	}
	os.Exit(m.Run())
}

// TestChildUndecidedKeepsStacks: a child that outlives its limit is
// undecided, and its error names its last line and the file that keeps
// its output, with every goroutine's stack where SIGQUIT exists.
func TestChildUndecidedKeepsStacks(t *testing.T) {
	t.Setenv(childHangEnv, "1")
	check := childChecker("TestChildUndecidedKeepsStacks", Options{FlagPrefix: "convtest"})
	start := time.Now()
	err := check(testCase{Op: convolve.Filter2D, W: 4, H: 4, Channels: 1, KW: 3, KH: 3}, time.Second)
	if d := time.Since(start); d > time.Second+childStackWait+5*time.Second {
		t.Errorf("the child took %v to end past its limit of 1s", d)
	}
	var nv *noVerdictError
	if !errors.As(err, &nv) {
		t.Fatalf("check = %v, want a *noVerdictError", err)
	}
	if nv.output != "" {
		t.Cleanup(func() { os.Remove(nv.output) })
	}
	if nv.last != childHangLine {
		t.Errorf("last line %q, want %q", nv.last, childHangLine)
	}
	if nv.output == "" {
		t.Fatalf("no file keeps the child's output: %v", err)
	}
	if msg := err.Error(); !strings.Contains(msg, nv.output) || !strings.Contains(msg, childHangLine) || strings.Contains(msg, "\n") {
		t.Errorf("error %q: want one line naming %s and the last line", msg, nv.output)
	}
	out, rerr := os.ReadFile(nv.output)
	if rerr != nil {
		t.Fatal(rerr)
	}
	if childproc.QuitSignal != os.Kill && (!strings.Contains(string(out), "goroutine ") || !strings.Contains(string(out), "time.Sleep")) {
		t.Errorf("the child's output holds no stacks at its sleep:\n%s", out)
	}
}

// undecided keeps the line before the runtime's report of SIGQUIT, and
// says so when the child wrote nothing.
func TestUndecidedLastLine(t *testing.T) {
	for _, tt := range []struct{ out, last string }{
		{"=== RUN   T\nprecompiling\n\nSIGQUIT: quit\nPC=0x1 m=0 sigcode=0\n\ngoroutine 1 [sleep]:\n", "precompiling"},
		{"a\nb\n", "b"},
		{"", ""},
	} {
		e := undecided(time.Second, []byte(tt.out))
		if e.output != "" {
			os.Remove(e.output)
		}
		if e.last != tt.last {
			t.Errorf("undecided(%q).last = %q, want %q", tt.out, e.last, tt.last)
		}
		if tt.out == "" && e.output != "" && !strings.Contains(e.Error(), "no output") {
			t.Errorf("error %q for a child that wrote nothing: want it said", e.Error())
		}
	}
}
