// Package tune finds the fastest correct setting of a variant for a
// problem class by searching its tuning space (convolve.TuningSpace).
//
// Every candidate is first verified against the reference on a few random
// problems of the class; a wrong one, or one that fails to plan or run,
// is recorded and never chosen. A verified candidate is timed by the
// median of its kernel time replayed from CUDA graphs. The family's
// default setting is tried first, so the result is never slower than it.
// A space within the budget is searched exhaustively; a larger one from
// seeds and a random sample, then by best-first local search over
// neighbours until the budget of candidates or time is spent.
package tune

import (
	"errors"
	"fmt"
	"maps"
	"math"
	"math/rand/v2"
	"slices"
	"time"

	"github.com/convbench/convbench/benchmarks"
	"github.com/convbench/convbench/convolve"
	"github.com/convbench/convbench/internal/median"
	"github.com/convbench/convbench/tables/tuning"
	"github.com/convbench/convbench/verify"
)

// Class is a problem class a variant is tuned for.
type Class struct {
	Type convolve.ElemType
	K    int // the filter's side, as the tables match it (convolve.Problem.K)
	Size convolve.SizeClass
}

func (c Class) String() string { return fmt.Sprintf("%v k=%d %s", c.Type, c.K, c.Size) }

// Problem is the problem the class is timed on by a variant of caps: a
// dense<K> filter (convolve.Dense), or the K x K Gaussian of its default
// sigma for a variant that takes separable filters only, on a
// one-channel square image of the class's side, zero border.
func (c Class) Problem(caps convolve.Capabilities) (convolve.Problem, error) {
	var f *convolve.Filter
	var err error
	if caps.SeparableOnly {
		f, err = convolve.Gaussian(c.K, convolve.GaussianDefaultSigma(c.K))
	} else {
		f, err = convolve.Dense(c.K)
	}
	if err != nil {
		return convolve.Problem{}, fmt.Errorf("tune: class %v: %w", c, err)
	}
	side := c.Size.Side()
	if side == 0 {
		return convolve.Problem{}, fmt.Errorf("tune: class %v: unknown size class %q", c, c.Size)
	}
	p := convolve.Problem{Op: convolve.Filter2D, Filter: f, Border: convolve.Zero,
		Input: convolve.Geometry{Width: side, Height: side, Channels: 1, Type: c.Type}}
	return p, p.Validate()
}

// Options bound a search and set how candidates are verified and timed.
type Options struct {
	// Budget is the most candidates tried; 0 means DefaultBudget.
	Budget int
	// Time, when positive, stops the search once it has run this long
	// (the candidate under way finishes).
	Time time.Duration
	// Seed seeds the random sample and the verification problems.
	Seed uint64
	// Verify is the number of random problems each candidate must pass;
	// 0 means DefaultVerify.
	Verify int
	// Samples is the number of timed samples per candidate, SampleTime
	// the least time of one; zero means DefaultSamples and
	// defaultSampleTime.
	Samples    int
	SampleTime time.Duration
	// Limits are the device's limits that the space's restrictions read.
	Limits convolve.DeviceLimits
	// Warm, when set, is called with the problems and configurations a
	// batch of candidates is about to plan, to compile their kernels.
	Warm func(v convolve.Variant, problems []convolve.Problem, configs []convolve.Config)
	// Seeds are settings tried right after the default, before the
	// random sample of a large space; those the space does not hold or
	// the problem does not allow are left out.
	Seeds []convolve.Setting
	// Resume holds the candidates an earlier, stopped run of the same
	// search tried: a setting found there is not tried again but takes
	// that candidate as it is, whatever the time budget.
	Resume []tuning.Candidate
	// Trying and Tried, when set, are called just before a setting is
	// verified and timed and with its candidate afterwards; not for the
	// settings taken from Resume.
	Trying func(pt convolve.Setting)
	Tried  func(c tuning.Candidate)
	// Log, when set, receives a line per candidate.
	Log func(format string, args ...any)
	// Now is the clock of the time budget; nil means time.Now.
	Now func() time.Time
}

// Defaults of Options.
const (
	DefaultBudget     = 24
	DefaultVerify     = 3
	DefaultSamples    = 7
	defaultSampleTime = time.Millisecond
)

func (o Options) withDefaults() Options {
	if o.Budget <= 0 {
		o.Budget = DefaultBudget
	}
	if o.Verify <= 0 {
		o.Verify = DefaultVerify
	}
	if o.Samples <= 0 {
		o.Samples = DefaultSamples
	}
	if o.SampleTime <= 0 {
		o.SampleTime = defaultSampleTime
	}
	if o.Log == nil {
		o.Log = func(string, ...any) {}
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	return o
}

// errNoneCorrect is the error of a search in which no candidate passed
// verification.
var errNoneCorrect = errors.New("no candidate passed verification")

// Tune searches v's tuning space for class c. The entry it returns has
// every field but the commit, driver, NVRTC version and date, which
// describe the host. Its Chosen is the fastest verified candidate.
func Tune(v convolve.Variant, c Class, o Options) (tuning.Entry, error) {
	o = o.withDefaults()
	d := v.Describe()
	sp := d.Caps.Space
	if sp == nil {
		return tuning.Entry{}, fmt.Errorf("tune: %s declares no tuning space", d.Name)
	}
	if err := sp.Check(d.Caps); err != nil {
		return tuning.Entry{}, fmt.Errorf("tune: %s: %w", d.Name, err)
	}
	p, err := c.Problem(d.Caps)
	if err != nil {
		return tuning.Entry{}, err
	}
	ok, excluded := candidates(v, p, o.Limits)
	def := sp.Default(p, convolve.Block{}, o.Limits)
	e := tuning.Entry{Variant: d.Name, Type: c.Type.String(), K: c.K, Size: c.Size,
		Problem: fmt.Sprintf("%dx%d %s %s border=%v", p.Input.Width, p.Input.Height, p.Input.Type, p.Filter.Name, p.Border),
		Space:   len(ok), Excluded: len(excluded),
		Timing: fmt.Sprintf("kernel-graph, median of %d samples of at least %v", o.Samples, o.SampleTime)}
	s := &search{v: v, class: c, prob: p, o: o, start: o.Now(), tried: map[string]int{}}
	if s.resumed, err = resumeIndex(o.Resume); err != nil {
		return tuning.Entry{}, fmt.Errorf("tune: %s %v: %w", d.Name, c, err)
	}
	if s.verifyProbs, err = verifyProblems(c, d.Caps, o.Verify, o.Seed); err != nil {
		return tuning.Entry{}, err
	}
	if len(ok)+1 <= o.Budget {
		e.Search = "exhaustive"
		s.tryAll(append([]convolve.Setting{def}, ok...))
	} else {
		var batch []convolve.Setting
		batch, e.Search = sampled(ok, def, o)
		s.tryAll(batch)
		s.local(sp)
	}
	e.Candidates = s.cands
	base, best := s.cands[0], -1
	for i, cd := range s.cands {
		if cd.Status != tuning.OK {
			continue
		}
		if base.Status == tuning.OK {
			s.cands[i].VsDefault = cd.MedianNS / base.MedianNS
		}
		if best < 0 || cd.MedianNS < s.cands[best].MedianNS {
			best = i
		}
	}
	e.Default = e.Candidates[0]
	if best < 0 {
		return e, fmt.Errorf("tune: %s %v: %w (%d tried)", d.Name, c, errNoneCorrect, len(s.cands))
	}
	e.Chosen = e.Candidates[best]
	return e, nil
}

// sampled is the first batch of a search of more candidates than the
// budget, with its description: def, then the seeds in ok (completed
// with def's tunables), then candidates drawn at random, half the budget
// in all.
func sampled(ok []convolve.Setting, def convolve.Setting, o Options) ([]convolve.Setting, string) {
	n := o.Budget / 2
	rng := rand.New(rand.NewPCG(o.Seed, 0x7475))
	batch, search := []convolve.Setting{def}, ""
	for _, sd := range o.Seeds {
		if len(batch) > n {
			break
		}
		sd = completed(sd, def)
		if slices.ContainsFunc(ok, sd.Equal) && !slices.ContainsFunc(batch, sd.Equal) {
			batch = append(batch, sd)
		}
	}
	if seeds := len(batch) - 1; seeds > 0 {
		search = fmt.Sprintf("seeded with %d, sampled %d of %d, then local search", seeds, n-seeds, len(ok))
	} else {
		search = fmt.Sprintf("sampled %d of %d, then local search", n, len(ok))
	}
	for _, i := range rng.Perm(len(ok)) {
		if len(batch) > n {
			break
		}
		if !slices.ContainsFunc(batch, ok[i].Equal) {
			batch = append(batch, ok[i])
		}
	}
	return batch, search
}

// completed is s with each tunable of def that s does not set at def's
// value.
func completed(s, def convolve.Setting) convolve.Setting {
	for k := range def.Tunables {
		if _, ok := s.Tunables[k]; !ok {
			t := maps.Clone(def.Tunables)
			maps.Copy(t, s.Tunables)
			return convolve.Setting{Block: s.Block, Tunables: t}
		}
	}
	return s
}

// search is the state of one Tune.
type search struct {
	v     convolve.Variant
	class Class
	prob  convolve.Problem
	o     Options
	start time.Time
	tried map[string]int // setting -> index in cands
	cands []tuning.Candidate
	sets  []convolve.Setting
	// resumed are Options.Resume by setting; taken counts those taken.
	resumed     map[string]tuning.Candidate
	taken       int
	verifyProbs []convolve.Problem // the problems every candidate must pass
	in          *convolve.Image    // the input of the timed problem, made once
}

// tryAll tries the points of pts in order while the budget lasts,
// warming their kernels first when Options.Warm is set.
func (s *search) tryAll(pts []convolve.Setting) {
	var todo []convolve.Setting
	for _, pt := range pts {
		if _, done := s.tried[pt.String()]; !done {
			todo = append(todo, pt)
		}
	}
	if n := s.o.Budget - len(s.cands); len(todo) > n {
		todo = todo[:max(n, 0)]
	}
	if s.o.Warm != nil && len(todo) > 0 {
		var probs []convolve.Problem
		var cfgs []convolve.Config
		for _, pt := range todo {
			if _, resumed := s.resumed[pt.String()]; resumed {
				continue
			}
			for _, p := range append([]convolve.Problem{s.prob}, s.verifyProbs...) {
				probs, cfgs = append(probs, p), append(cfgs, pt.Apply(convolve.Config{}))
			}
		}
		s.o.Warm(s.v, probs, cfgs)
	}
	for i, pt := range todo {
		if i > 0 && s.spent() { // the first, the default, is tried whatever the time
			return
		}
		s.try(pt)
	}
}

// spent reports whether the budget of candidates or of time is spent;
// the time budget waits for the candidates of Options.Resume.
func (s *search) spent() bool {
	return len(s.cands) >= s.o.Budget || s.o.Time > 0 && s.o.Now().Sub(s.start) >= s.o.Time && s.taken == len(s.resumed)
}

// try verifies and times pt once, or takes its candidate from
// Options.Resume; a second try of the same point does nothing.
func (s *search) try(pt convolve.Setting) {
	key := pt.String()
	if _, done := s.tried[key]; done {
		return
	}
	c, resumed := s.resumed[key]
	if !resumed {
		if s.o.Trying != nil {
			s.o.Trying(pt)
		}
		c = s.measure(pt)
	}
	s.tried[key] = len(s.cands)
	s.cands = append(s.cands, c)
	s.sets = append(s.sets, pt)
	if resumed {
		s.taken++
		return
	}
	if c.Status == tuning.OK {
		s.o.Log("%s %v: %v: %.0f ns", s.v.Describe().Name, s.class, pt, c.MedianNS)
	} else {
		s.o.Log("%s %v: %v: %s: %s", s.v.Describe().Name, s.class, pt, c.Status, c.Error)
	}
	if s.o.Tried != nil {
		s.o.Tried(c)
	}
}

// measure verifies pt and, when it is correct, times it.
func (s *search) measure(pt convolve.Setting) tuning.Candidate {
	c := tuning.CandidateOf(pt)
	if err := Verify(s.v, pt, s.verifyProbs, s.o.Seed); err != nil {
		var w *wrongError
		if errors.As(err, &w) {
			c.Status = tuning.Wrong
		} else {
			c.Status = tuning.Refused
		}
		c.Error = err.Error()
	} else if med, err := s.time(pt); err != nil {
		c.Status, c.Error = tuning.Refused, err.Error()
	} else {
		c.Status, c.MedianNS = tuning.OK, med
	}
	return c
}

// local expands the best verified candidate not yet expanded, trying its
// allowed neighbours, until the budget is spent or none is left.
func (s *search) local(sp *convolve.TuningSpace) {
	expanded := map[string]bool{}
	for !s.spent() {
		best := -1
		for i, c := range s.cands {
			if c.Status == tuning.OK && !expanded[s.sets[i].String()] && (best < 0 || c.MedianNS < s.cands[best].MedianNS) {
				best = i
			}
		}
		if best < 0 {
			return
		}
		expanded[s.sets[best].String()] = true
		var next []convolve.Setting
		for _, n := range sp.Neighbours(s.sets[best]) {
			if sp.Allowed(s.prob, n, s.o.Limits) == nil && convolve.Supports(s.v, s.prob, n.Apply(convolve.Config{}), s.o.Limits) == nil {
				next = append(next, n)
			}
		}
		s.tryAll(next)
	}
}

// candidates are the points of v's tuning space for p that the space's
// restriction and convolve.Supports both accept, and those kept out.
func candidates(v convolve.Variant, p convolve.Problem, lim convolve.DeviceLimits) (ok []convolve.Setting, out []convolve.Excluded) {
	in, out := v.Describe().Caps.Space.Settings(p, lim)
	for _, s := range in {
		if err := convolve.Supports(v, p, s.Apply(convolve.Config{}), lim); err != nil {
			out = append(out, convolve.Excluded{Setting: s, Reason: err.Error()})
			continue
		}
		ok = append(ok, s)
	}
	return ok, out
}

// wrongError is a candidate's output that differs from the reference.
type wrongError struct{ msg string }

func (e *wrongError) Error() string { return e.msg }

// verifyProblems are the n random problems a candidate of class c must
// pass: one channel of c's type, sizes from K to about 300 by 200,
// random weights in [-1, 1) (a separable product for a variant that takes
// separable filters only), zero border for the first and a random border
// of caps for the others.
func verifyProblems(c Class, caps convolve.Capabilities, n int, seed uint64) ([]convolve.Problem, error) {
	rng := rand.New(rand.NewPCG(seed, uint64(c.K)))
	borders := caps.Borders
	if len(borders) == 0 {
		borders = []convolve.Border{convolve.Zero}
	}
	uniform := func() float32 { return float32(2*rng.Float64() - 1) }
	var ps []convolve.Problem
	for i := range n {
		w := make([]float32, c.K*c.K)
		if caps.SeparableOnly {
			row, col := make([]float32, c.K), make([]float32, c.K)
			for j := range c.K {
				row[j], col[j] = uniform(), uniform()
			}
			for j := range c.K {
				for i := range c.K {
					w[j*c.K+i] = col[j] * row[i]
				}
			}
		} else {
			for j := range w {
				w[j] = uniform()
			}
		}
		f, err := convolve.NewFilter(fmt.Sprintf("random%d", i), c.K, c.K, w)
		if err != nil {
			return nil, err
		}
		b := convolve.Zero
		if i > 0 {
			b = borders[rng.IntN(len(borders))]
		}
		p := convolve.Problem{Op: convolve.Filter2D, Filter: f, Border: b,
			Input: convolve.Geometry{Width: c.K + rng.IntN(300), Height: c.K + rng.IntN(200), Channels: 1, Type: c.Type}}
		if err := p.Validate(); err != nil {
			return nil, err
		}
		ps = append(ps, p)
	}
	return ps, nil
}

// Verify runs setting pt of v on each problem and compares its output
// with the reference (verify.Output). It returns nil when every output
// is within tolerance, a *wrongError for a differing output, and any
// other error for a candidate that cannot plan or run.
func Verify(v convolve.Variant, pt convolve.Setting, ps []convolve.Problem, seed uint64) error {
	for i, p := range ps {
		if err := verifyOne(v, pt, p, seed+uint64(i)); err != nil {
			return err
		}
	}
	return nil
}

func verifyOne(v convolve.Variant, pt convolve.Setting, p convolve.Problem, seed uint64) error {
	in, err := benchmarks.NewInput(p, seed)
	if err != nil {
		return err
	}
	out, err := p.NewOutput()
	if err != nil {
		return err
	}
	cfg := pt.Apply(convolve.Config{})
	plan, err := convolve.PlanFor(v, p, cfg)
	if err != nil {
		return fmt.Errorf("plan %v: %w", p, err)
	}
	defer plan.Close()
	out.Fill(math.NaN())
	if err := plan.Run(in, out); err != nil {
		return fmt.Errorf("run %v: %w", p, err)
	}
	m, err := verify.Output(v, p, cfg, in, out)
	if err != nil {
		return err
	}
	if !m.OK() {
		return &wrongError{fmt.Sprintf("%v: output differs from the reference: %v", p, m)}
	}
	return nil
}

// time is the median kernel time of one run of pt on the class's
// problem, in nanoseconds.
func (s *search) time(pt convolve.Setting) (float64, error) {
	if s.in == nil {
		in, err := benchmarks.NewInput(s.prob, s.o.Seed)
		if err != nil {
			return 0, err
		}
		s.in = in
	}
	plan, err := convolve.PlanFor(s.v, s.prob, pt.Apply(convolve.Config{}))
	if err != nil {
		return 0, fmt.Errorf("plan %v: %w", s.prob, err)
	}
	defer plan.Close()
	dp, ok := plan.(convolve.DevicePlan)
	if !ok {
		return 0, fmt.Errorf("plan of %s (%T) cannot time its kernel alone: not a convolve.DevicePlan", s.v.Describe().Name, plan)
	}
	if err := dp.Upload(s.in); err != nil {
		return 0, fmt.Errorf("upload: %w", err)
	}
	one, err := dp.TimeKernelGraph(1)
	if err != nil {
		return 0, err
	}
	n := 1
	if one > 0 {
		n = int(min(max(s.o.SampleTime/one, 1), 1<<14))
	}
	per := make([]float64, s.o.Samples)
	for i := range per {
		d, err := dp.TimeKernelGraph(n)
		if err != nil {
			return 0, err
		}
		per[i] = float64(d.Nanoseconds()) / float64(n)
	}
	return median.Of(per), nil
}

// resumeIndex maps the settings of cands, by convolve.Setting.String,
// to their candidates.
func resumeIndex(cands []tuning.Candidate) (map[string]tuning.Candidate, error) {
	m := make(map[string]tuning.Candidate, len(cands))
	for i, c := range cands {
		st, err := c.Setting()
		if err != nil {
			return nil, fmt.Errorf("resumed candidate %d: %w", i, err)
		}
		m[st.String()] = c
	}
	return m, nil
}

// Try verifies and times setting pt of v for class c once, as Tune does
// each candidate, whether or not the space's restrictions allow it. The
// candidate says how pt fared; the error is for a class or variant that
// cannot be tried at all.
func Try(v convolve.Variant, c Class, pt convolve.Setting, o Options) (tuning.Candidate, error) {
	o = o.withDefaults()
	d := v.Describe()
	p, err := c.Problem(d.Caps)
	if err != nil {
		return tuning.Candidate{}, err
	}
	s := &search{v: v, class: c, prob: p, o: o, start: o.Now(), tried: map[string]int{}}
	if s.verifyProbs, err = verifyProblems(c, d.Caps, o.Verify, o.Seed); err != nil {
		return tuning.Candidate{}, err
	}
	return s.measure(pt), nil
}
