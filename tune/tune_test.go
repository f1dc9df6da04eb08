package tune

import (
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/convbench/convbench/convolve"
	"github.com/convbench/convbench/tables/tuning"
)

// standIn is a CPU stand-in for a tunable GPU variant: it computes with
// cpu-naive, and its tunables a and b and its block set a made-up kernel
// time with one minimum among the correct points (a=5, b=3, block 16x8).
// One point (a=6, b=3, block 16x8) is faster still but wrong: it changes
// an output element. Point a=8, b=8 fails to plan, and the space keeps b=7
// out.
type standIn struct {
	as, bs []int
	blocks []convolve.Block
}

func (s standIn) Describe() convolve.Description {
	return convolve.Description{Name: "stand-in", Caps: convolve.Capabilities{
		Ops: []convolve.Operation{convolve.Filter2D}, Types: []convolve.ElemType{convolve.Float32},
		Borders: []convolve.Border{convolve.Zero, convolve.Replicate},
		GPU:     true, Tunables: []string{"a", "b"},
		Space: &convolve.TuningSpace{
			Blocks:   s.blocks,
			Tunables: []convolve.Tunable{{Name: "a", Values: s.as}, {Name: "b", Values: s.bs}},
			Allow: func(p convolve.Problem, st convolve.Setting, lim convolve.DeviceLimits) error {
				if st.Tunables["b"] == 7 {
					return errors.New("b=7 does not fit")
				}
				return nil
			},
			Default: func(convolve.Problem, convolve.Block, convolve.DeviceLimits) convolve.Setting {
				return convolve.Setting{Block: convolve.Block{X: 8, Y: 8}, Tunables: map[string]int{"a": 1, "b": 1}}
			},
		},
	}}
}

var blockCost = map[convolve.Block]float64{{X: 8, Y: 8}: 20, {X: 16, Y: 8}: 0, {X: 16, Y: 16}: 15, {X: 32, Y: 8}: 30}

func (s standIn) Plan(p convolve.Problem, cfg convolve.Config) (convolve.Plan, error) {
	a, b := cfg.Tunables["a"], cfg.Tunables["b"]
	if a == 8 && b == 8 {
		return nil, fmt.Errorf("stand-in: a=8 b=8 needs too many registers")
	}
	naive, err := convolve.Lookup("cpu-naive")
	if err != nil {
		return nil, err
	}
	inner, err := naive.Plan(p, convolve.Config{})
	if err != nil {
		return nil, err
	}
	wrong := a == 6 && b == 3 && cfg.Block == convolve.Block{X: 16, Y: 8}
	ns := 100 + 10*float64((a-5)*(a-5)+(b-3)*(b-3)) + blockCost[cfg.Block]
	if wrong {
		ns = 1
	}
	return &standInPlan{Plan: inner, prob: p, wrong: wrong, ns: ns}, nil
}

// standInPlan is a DevicePlan: Upload keeps a copy of the input, the
// timing methods compute into a result that Download copies out, and
// report the made-up time.
type standInPlan struct {
	convolve.Plan
	prob    convolve.Problem
	in, res *convolve.Image
	wrong   bool
	ns      float64
}

func (p *standInPlan) Run(in, out *convolve.Image) error {
	if err := p.Plan.Run(in, out); err != nil {
		return err
	}
	if p.wrong {
		out.F32[len(out.F32)/2] += 0.5
	}
	return nil
}

func (p *standInPlan) Upload(in *convolve.Image) error {
	if err := in.Check(); err != nil {
		return err
	}
	if in.Geometry.Packed() != p.prob.Input.Packed() || in.RowStride() != p.prob.Input.RowStride() {
		return fmt.Errorf("stand-in: input %v does not match the problem's %v", in.Geometry, p.prob.Input)
	}
	p.in = in.Clone()
	return nil
}

func (p *standInPlan) Download(out *convolve.Image) error {
	if p.res == nil {
		return errors.New("stand-in: Download before a run")
	}
	return out.CopyFrom(p.res)
}

func (p *standInPlan) TimeKernel(n int) (time.Duration, error) {
	if p.in == nil {
		return 0, errors.New("stand-in: TimeKernel before Upload")
	}
	if p.res == nil {
		res, err := p.prob.NewOutput()
		if err != nil {
			return 0, err
		}
		p.res = res
	}
	if err := p.Run(p.in, p.res); err != nil {
		return 0, err
	}
	return time.Duration(float64(n) * p.ns), nil
}
func (p *standInPlan) TimeKernelGraph(n int) (time.Duration, error) { return p.TimeKernel(n) }

var smallClass = Class{Type: convolve.Float32, K: 3, Size: convolve.SizeSmall}

func TestTuneExhaustive(t *testing.T) {
	v := standIn{as: []int{5, 6, 8}, bs: []int{3, 7, 8}, blocks: []convolve.Block{{X: 16, Y: 8}}}
	warmed := 0
	warm := func(_ convolve.Variant, ps []convolve.Problem, cfgs []convolve.Config) {
		if len(ps) != len(cfgs) {
			t.Errorf("Warm got %d problems and %d configurations", len(ps), len(cfgs))
		}
		warmed += len(ps)
	}
	e, err := Tune(v, smallClass, Options{Budget: 24, Verify: 2, Samples: 3, Warm: warm})
	if err != nil {
		t.Fatal(err)
	}
	// Each candidate's timed problem and its two verification problems.
	if warmed < 3*len(e.Candidates) {
		t.Errorf("Warm saw %d plans for %d candidates, want 3 each", warmed, len(e.Candidates))
	}
	if e.Search != "exhaustive" || e.Space != 6 || e.Excluded != 3 {
		t.Errorf("search %q, space %d, excluded %d; want exhaustive, 6, 3", e.Search, e.Space, e.Excluded)
	}
	want := map[string]string{ // setting -> status
		"block=8x8 a=1,b=1":  tuning.OK, // the default, first
		"block=16x8 a=5,b=3": tuning.OK, "block=16x8 a=5,b=8": tuning.OK,
		"block=16x8 a=6,b=3": tuning.Wrong, "block=16x8 a=6,b=8": tuning.OK,
		"block=16x8 a=8,b=3": tuning.OK, "block=16x8 a=8,b=8": tuning.Refused,
	}
	if len(e.Candidates) != len(want) {
		t.Fatalf("%d candidates, want %d: %+v", len(e.Candidates), len(want), e.Candidates)
	}
	for i, c := range e.Candidates {
		st, err := c.Setting()
		if err != nil {
			t.Fatal(err)
		}
		if i == 0 && st.String() != "block=8x8 a=1,b=1" {
			t.Errorf("first candidate %v, want the default", st)
		}
		if want[st.String()] != c.Status {
			t.Errorf("%v: status %s, want %s (%s)", st, c.Status, want[st.String()], c.Error)
		}
		if c.Status != tuning.OK && c.Error == "" {
			t.Errorf("%v: %s without its error", st, c.Status)
		}
		if c.Status == tuning.Wrong && !strings.Contains(c.Error, "differs from the reference") {
			t.Errorf("%v: wrong with error %q", st, c.Error)
		}
	}
	if got, _ := e.Chosen.Setting(); got.String() != "block=16x8 a=5,b=3" || e.Chosen.MedianNS != 100 {
		t.Errorf("chosen %v at %v ns, want block=16x8 a=5,b=3 at 100", got, e.Chosen.MedianNS)
	}
	if e.Default.MedianNS != 100+10*(16+4)+20 || e.Chosen.VsDefault >= 1 {
		t.Errorf("default %v ns, chosen/default %v", e.Default.MedianNS, e.Chosen.VsDefault)
	}
}

func TestTuneSearchesLargeSpaces(t *testing.T) {
	v := standIn{as: []int{1, 2, 3, 4, 5, 6, 7, 8}, bs: []int{1, 2, 3, 4, 5, 6, 7, 8},
		blocks: []convolve.Block{{X: 8, Y: 8}, {X: 16, Y: 8}, {X: 16, Y: 16}, {X: 32, Y: 8}}}
	for seed := uint64(1); seed <= 3; seed++ {
		e, err := Tune(v, smallClass, Options{Budget: 48, Verify: 1, Samples: 1, Seed: seed})
		if err != nil {
			t.Fatal(err)
		}
		if e.Space != 4*8*7 || !strings.HasPrefix(e.Search, "sampled 24 of") {
			t.Errorf("seed %d: space %d, search %q", seed, e.Space, e.Search)
		}
		if len(e.Candidates) > 48 {
			t.Errorf("seed %d: %d candidates over the budget of 48", seed, len(e.Candidates))
		}
		if got, _ := e.Chosen.Setting(); got.String() != "block=16x8 a=5,b=3" {
			t.Errorf("seed %d: chose %v (%v ns), want block=16x8 a=5,b=3", seed, got, e.Chosen.MedianNS)
		}
		for _, c := range e.Candidates {
			if c.Status == tuning.OK && c.Tunables["b"] == 7 {
				t.Errorf("seed %d: tried %+v, which the space keeps out", seed, c)
			}
		}
	}
}

func TestTuneTimeBudget(t *testing.T) {
	v := standIn{as: []int{1, 2, 3, 4, 5, 6, 7, 8}, bs: []int{1, 2, 3, 4, 5, 6, 7, 8},
		blocks: []convolve.Block{{X: 8, Y: 8}, {X: 16, Y: 8}}}
	now := time.Unix(0, 0)
	clock := func() time.Time { now = now.Add(time.Second); return now }
	e, err := Tune(v, smallClass, Options{Budget: 100, Time: 10 * time.Second, Verify: 1, Samples: 1, Now: clock})
	if err != nil {
		t.Fatal(err)
	}
	if n := len(e.Candidates); n < 2 || n > 10 {
		t.Errorf("%d candidates in a 10s budget read once a second", n)
	}
}

// TestTuneNoneCorrect: when every candidate is wrong or refused, nothing
// is chosen.
func TestTuneNoneCorrect(t *testing.T) {
	v := wrongDefault{standIn{as: []int{6, 8}, bs: []int{3}, blocks: []convolve.Block{{X: 16, Y: 8}}}}
	_, err := Tune(v, smallClass, Options{Verify: 1, Samples: 1})
	if !errors.Is(err, errNoneCorrect) {
		t.Fatalf("Tune = %v, want errNoneCorrect", err)
	}
}

// wrongDefault is the stand-in with its default at the wrong point and
// a=8, b=3 refused too.
type wrongDefault struct{ standIn }

func (w wrongDefault) Describe() convolve.Description {
	d := w.standIn.Describe()
	sp := *d.Caps.Space
	sp.Default = func(convolve.Problem, convolve.Block, convolve.DeviceLimits) convolve.Setting {
		return convolve.Setting{Block: convolve.Block{X: 16, Y: 8}, Tunables: map[string]int{"a": 6, "b": 3}}
	}
	d.Caps.Space = &sp
	return d
}

func (w wrongDefault) Plan(p convolve.Problem, cfg convolve.Config) (convolve.Plan, error) {
	if cfg.Tunables["a"] == 8 {
		return nil, errors.New("stand-in: a=8 refused")
	}
	return w.standIn.Plan(p, cfg)
}

func TestVerifyProblems(t *testing.T) {
	caps := standIn{}.Describe().Caps
	ps, err := verifyProblems(Class{Type: convolve.Float32, K: 7, Size: convolve.SizeLarge}, caps, 4, 1)
	if err != nil {
		t.Fatal(err)
	}
	if len(ps) != 4 || ps[0].Border != convolve.Zero {
		t.Fatalf("problems %v", ps)
	}
	for _, p := range ps {
		if kw, kh := p.KernelSize(); kw != 7 || kh != 7 || p.Input.Width < 7 || p.Input.Height < 7 {
			t.Errorf("problem %v", p)
		}
	}
}

// A variant that takes separable filters only is timed on a Gaussian and
// verified on random rank-one filters; the others on dense and random
// full-rank ones.
func TestSeparableOnlyClassProblems(t *testing.T) {
	c := Class{Type: convolve.Float32, K: 5, Size: convolve.SizeLarge}
	for _, tt := range []struct {
		sep    bool
		filter string
	}{{false, "dense5"}, {true, "gauss5"}} {
		caps := standIn{}.Describe().Caps
		caps.SeparableOnly = tt.sep
		p, err := c.Problem(caps)
		if err != nil {
			t.Fatal(err)
		}
		if name := p.Filter.Name; !strings.HasPrefix(name, tt.filter) {
			t.Errorf("SeparableOnly=%v: class problem's filter %s, want %s", tt.sep, name, tt.filter)
		}
		ps, err := verifyProblems(c, caps, 4, 1)
		if err != nil {
			t.Fatal(err)
		}
		for _, vp := range ps {
			if _, _, ok := vp.Filter.Separable(); ok != tt.sep {
				t.Errorf("SeparableOnly=%v: verification filter %v separable: %v", tt.sep, vp.Filter, ok)
			}
		}
	}
}

// Seeds are tried right after the default: with a budget too small for
// the random sample and the local search to reach the best point, a seed
// holding it makes it the choice; a seed outside the space is left out.
func TestTuneSeeds(t *testing.T) {
	v := standIn{as: []int{1, 2, 3, 4, 5, 6, 7, 8}, bs: []int{1, 2, 3, 4, 5, 6, 7, 8},
		blocks: []convolve.Block{{X: 8, Y: 8}, {X: 16, Y: 8}, {X: 16, Y: 16}, {X: 32, Y: 8}}}
	best := convolve.Setting{Block: convolve.Block{X: 16, Y: 8}, Tunables: map[string]int{"a": 5, "b": 3}}
	outside := convolve.Setting{Block: convolve.Block{X: 64, Y: 2}, Tunables: map[string]int{"a": 5, "b": 3}}
	opts := Options{Budget: 4, Verify: 1, Samples: 1, Seed: 1}
	without, err := Tune(v, smallClass, opts)
	if err != nil {
		t.Fatal(err)
	}
	if got, _ := without.Chosen.Setting(); got.Equal(best) {
		t.Fatalf("without seeds the search already finds %v: the test needs a smaller budget", got)
	}
	opts.Seeds = []convolve.Setting{outside, best}
	with, err := Tune(v, smallClass, opts)
	if err != nil {
		t.Fatal(err)
	}
	if got, _ := with.Chosen.Setting(); !got.Equal(best) {
		t.Errorf("with the best point as a seed the search chose %v", got)
	}
	if second, _ := with.Candidates[1].Setting(); !second.Equal(best) {
		t.Errorf("second candidate %v, want the seed %v right after the default", second, best)
	}
	for _, c := range with.Candidates {
		if st, _ := c.Setting(); st.Equal(outside) {
			t.Errorf("the seed outside the space was tried: %+v", c)
		}
	}
	if !strings.HasPrefix(with.Search, "seeded with 1, sampled 1 of") {
		t.Errorf("search %q, want it to count the one seed used", with.Search)
	}
}

// A seed that leaves a tunable of the space unset is tried with the
// default's value for it.
func TestTuneSeedMissingTunable(t *testing.T) {
	v := standIn{as: []int{1, 2, 3, 4, 5, 6, 7, 8}, bs: []int{1, 2, 3, 4, 5, 6, 7, 8},
		blocks: []convolve.Block{{X: 8, Y: 8}, {X: 16, Y: 8}, {X: 16, Y: 16}, {X: 32, Y: 8}}}
	opts := Options{Budget: 4, Verify: 1, Samples: 1, Seed: 1,
		Seeds: []convolve.Setting{{Block: convolve.Block{X: 16, Y: 8}, Tunables: map[string]int{"a": 5}}}}
	e, err := Tune(v, smallClass, opts)
	if err != nil {
		t.Fatal(err)
	}
	want := convolve.Setting{Block: convolve.Block{X: 16, Y: 8}, Tunables: map[string]int{"a": 5, "b": 1}}
	if second, _ := e.Candidates[1].Setting(); !second.Equal(want) {
		t.Errorf("second candidate %v, want the seed completed from the default, %v", second, want)
	}
}
