package convtest

import (
	"fmt"
	"testing"
	"time"

	"github.com/convbench/convbench/convolve"
	"github.com/leanovate/gopter"
)

// brokenHalo wraps a correct CPU variant and reads one column too many on
// the right: the pixel just past the right edge is taken from the image's
// last column instead of from the border. It is the kind of off-by-one a
// tiled kernel's halo load makes, and it only exists inside this test.
// Each run first sleeps delay.
type brokenHalo struct {
	inner convolve.Variant
	delay time.Duration
}

func (b brokenHalo) Describe() convolve.Description {
	d := b.inner.Describe()
	d.Name = "broken-halo"
	d.Summary = "cpu-naive with an off-by-one right halo (test only)"
	return d
}

func (b brokenHalo) Plan(p convolve.Problem, cfg convolve.Config) (convolve.Plan, error) {
	wide := p
	wide.Input.Width++
	wide.Input.Stride = 0
	inner, err := convolve.PlanFor(b.inner, wide, cfg)
	if err != nil {
		return nil, err
	}
	return &brokenHaloPlan{p: p, wide: wide, inner: inner, delay: b.delay}, nil
}

type brokenHaloPlan struct {
	p, wide convolve.Problem
	inner   convolve.Plan
	delay   time.Duration
}

// Run copies the input into an image one column wider whose extra column
// repeats the last one, runs the correct variant on it and keeps the first
// Width columns of the result.
func (bp *brokenHaloPlan) Run(in, out *convolve.Image) error {
	if err := bp.p.CheckIO(in, out); err != nil {
		return err
	}
	time.Sleep(bp.delay)
	win, err := convolve.NewImage(bp.wide.Input)
	if err != nil {
		return err
	}
	w := in.Width
	for c := 0; c < in.Channels; c++ {
		for y := 0; y < in.Height; y++ {
			for x := 0; x <= w; x++ {
				win.Set(x, y, c, in.At(min(x, w-1), y, c))
			}
		}
	}
	wout, err := bp.wide.NewOutput()
	if err != nil {
		return err
	}
	if err := bp.inner.Run(win, wout); err != nil {
		return err
	}
	for c := 0; c < out.Channels; c++ {
		for y := 0; y < out.Height; y++ {
			for x := 0; x < out.Width; x++ {
				out.Set(x, y, c, wout.At(x, y, c))
			}
		}
	}
	return nil
}

func (bp *brokenHaloPlan) Close() error { return bp.inner.Close() }

// brokenEnv is the property environment of cpu-naive with the broken halo.
func brokenEnv(t *testing.T) *env {
	t.Helper()
	return slowBrokenEnv(t, 0)
}

// slowBrokenEnv is brokenEnv with every run taking at least delay.
func slowBrokenEnv(t *testing.T, delay time.Duration) *env {
	t.Helper()
	naive, err := convolve.Lookup("cpu-naive")
	if err != nil {
		t.Fatal(err)
	}
	v := brokenHalo{naive, delay}
	d := v.Describe()
	return &env{name: d.Name, variant: v, desc: d}
}

// TestShrinkTimeLimit: with a shrink time already spent at the first
// failure, the broken variant's failure is reported as drawn (no shrink
// step taken) and the run says shrinking stopped at its limit; without a
// limit the same seed shrinks.
func TestShrinkTimeLimit(t *testing.T) {
	e := brokenEnv(t)
	seed := Options{}.resolve().Seed
	cut := checkProperty(e, properties[0], seed, 200, time.Nanosecond, -1, nil)
	full := checkProperty(e, properties[0], seed, 200, 0, -1, nil)
	if cut.result.Status != gopter.TestFailed || full.result.Status != gopter.TestFailed {
		t.Fatalf("broken variant not caught: %v with the limit, %v without", cut.result.Status, full.result.Status)
	}
	if cut.shrinkCut != time.Nanosecond || full.shrinkCut != 0 {
		t.Errorf("shrinkCut = %v with a 1ns limit, %v without; want 1ns and 0", cut.shrinkCut, full.shrinkCut)
	}
	if n := cut.result.Args[0].Shrinks; n != 0 {
		t.Errorf("%d shrinks after the limit passed, want 0", n)
	}
	if n := full.result.Args[0].Shrinks; n == 0 {
		t.Error("no shrink without a limit: the test cannot tell the limit worked")
	}
}

// TestShrinkTimeLimitMidway: when the limit passes while shrinking (each
// run outlasts it), the failure is still reported as a failure, with the
// last failing case the shrinker reached, not turned into discarded draws.
func TestShrinkTimeLimitMidway(t *testing.T) {
	e := slowBrokenEnv(t, 20*time.Millisecond)
	seed := Options{}.resolve().Seed
	r := checkProperty(e, properties[0], seed, 200, 5*time.Millisecond, -1, nil)
	if r.result.Status != gopter.TestFailed {
		t.Fatalf("status %v after %d cases (%d discarded), want a failure", r.result.Status, r.result.Succeeded, r.result.Discarded)
	}
	if r.shrinkCut != 5*time.Millisecond {
		t.Errorf("shrinkCut = %v, want 5ms", r.shrinkCut)
	}
	if r.result.Discarded != 0 {
		t.Errorf("%d draws discarded after the limit, want 0", r.result.Discarded)
	}
}

// TestBrokenVariantIsCaughtAndShrunk runs the agreement property on the
// broken variant and asserts that gopter finds the bug and shrinks the
// failing case to a tiny one: a 3-wide filter on an image of one or two
// pixels, one channel, nothing else that the bug does not need.
func TestBrokenVariantIsCaughtAndShrunk(t *testing.T) {
	e := brokenEnv(t)
	agreement := properties[0]
	if agreement.name != "agreement" {
		t.Fatalf("properties[0] is %q, want agreement", agreement.name)
	}
	seed := Options{}.resolve().Seed
	r := checkProperty(e, agreement, seed, 200, 0, -1, nil)
	res := r.result
	if res.Status != gopter.TestFailed {
		t.Fatalf("broken variant not caught: status %v after %d cases (seed %d)", res.Status, res.Succeeded, seed)
	}
	if len(res.Args) != 1 {
		t.Fatalf("failed result has %d arguments, want 1", len(res.Args))
	}
	arg := res.Args[0]
	shrunk, ok := arg.Arg.(testCase)
	orig := arg.OrigArg.(testCase)
	if !ok {
		t.Fatalf("shrunk argument is a %T, want testCase", arg.Arg)
	}
	t.Logf("caught after %d passing cases; %d shrinks\n  original: %v\n  shrunk:   %v\n  failure:  %s",
		res.Succeeded, arg.Shrinks, orig, shrunk, firstLines(fmt.Sprint(res.Labels), 3))
	small := shrunk.Op == convolve.Filter2D && shrunk.W <= 2 && shrunk.H <= 2 && shrunk.Channels == 1 &&
		shrunk.KW >= 3 && shrunk.KW <= 5 && shrunk.KH <= 3 && shrunk.Pad == 0
	if !small {
		t.Errorf("failing case shrunk only to %v (from %v); want a 1- or 2-pixel one-channel image with a 3- or 5-wide filter", shrunk, orig)
	}
	// The shrunk case must itself fail, and for the reason planted.
	if err := checkAgreement(e, shrunk); err == nil {
		t.Errorf("shrunk case %v passes the agreement check", shrunk)
	}
	fixed := shrunk
	fixed.Border = convolve.Replicate // the planted bug equals the Replicate border
	if err := checkAgreement(e, fixed); err != nil {
		t.Errorf("shrunk case with the Replicate border %v should pass (the bug reads what Replicate reads): %v", fixed, err)
	}
}

// TestFailureReproducesFromSeed makes sure a failure printed with its seed
// comes back the same: the same seed gives the same failing case and the
// same shrunk case, whatever -props.n is (as long as the failure is
// reached).
func TestFailureReproducesFromSeed(t *testing.T) {
	e := brokenEnv(t)
	var got []string
	for _, n := range []int{200, 50} {
		res := checkProperty(e, properties[0], 99, n, 0, -1, nil).result
		if res.Status != gopter.TestFailed {
			t.Fatalf("n=%d: broken variant not caught (%v)", n, res.Status)
		}
		got = append(got, res.Args[0].OrigArgFormatted+" -> "+res.Args[0].ArgFormatted)
	}
	if got[0] != got[1] {
		t.Errorf("same seed, different failures:\n  %s\n  %s", got[0], got[1])
	}
}

// TestTimeBound: under a bound already passed, a correct variant is
// checked on MinCases cases and then stopped, the run counting only those;
// without a bound every case is checked. A broken variant is still caught
// under the bound, and its failure shrinks.
func TestTimeBound(t *testing.T) {
	naive, err := convolve.Lookup("cpu-naive")
	if err != nil {
		t.Fatal(err)
	}
	d := naive.Describe()
	e := &env{name: d.Name, variant: naive, desc: d}
	seed := Options{}.resolve().Seed
	r := checkProperty(e, properties[0], seed, 200, 0, time.Nanosecond, nil)
	if !r.result.Passed() || !r.timeCut || r.checked != MinCases || r.passed != MinCases {
		t.Errorf("1ns bound: passed=%v timeCut=%v checked=%d passed=%d, want a pass stopped after %d cases",
			r.result.Passed(), r.timeCut, r.checked, r.passed, MinCases)
	}
	r = checkProperty(e, properties[0], seed, 40, 0, -1, nil)
	if !r.result.Passed() || r.timeCut || r.checked != 40 {
		t.Errorf("no bound: passed=%v timeCut=%v checked=%d, want all 40 checked", r.result.Passed(), r.timeCut, r.checked)
	}
	broken := checkProperty(brokenEnv(t), properties[0], seed, 200, 0, time.Nanosecond, nil)
	if broken.result.Status != gopter.TestFailed || broken.result.Args[0].Shrinks == 0 {
		t.Errorf("broken variant under a 1ns bound: %v with %d args; want a shrunk failure", broken.result.Status, len(broken.result.Args))
	}
}

// TestTimeBoundLong: $CONVBENCH_TEST_LONG=1 lifts the default time bound.
func TestTimeBoundLong(t *testing.T) {
	for _, tc := range []struct {
		env  string
		want time.Duration
	}{{"", DefaultTime}, {"0", DefaultTime}, {"1", 0}} {
		t.Setenv(EnvLong, tc.env)
		if got := TimeBound(); got != tc.want {
			t.Errorf("%s=%q: TimeBound() = %v, want %v", EnvLong, tc.env, got, tc.want)
		}
	}
}
