package convtest

import (
	"errors"
	"fmt"
	"math"
	"math/rand"
	"slices"
	"testing"
	"unsafe"

	"github.com/convbench/convbench/convolve"
)

// badPlan is one invalid problem or configuration.
type badPlan struct {
	name string
	p    convolve.Problem
	cfg  convolve.Config
	// capability: the error must be a *convolve.CapabilityError.
	capability bool
	// nonFinite: the error must be a *convolve.NonFiniteError.
	nonFinite bool
}

// badPlans lists the invalid problems and configurations for a variant,
// built from a valid problem p of it.
func badPlans(caps convolve.Capabilities, p convolve.Problem) []badPlan {
	s := &badPlanSet{p: p}
	s.invalid(caps)
	s.undeclared(caps)
	s.config(caps)
	return s.bs
}

// badPlanSet gathers the bad plans of a valid problem p.
type badPlanSet struct {
	p  convolve.Problem
	bs []badPlan
}

// add adds the plan of p and a zero configuration as mod changes them,
// named name; capability says whether the variant must refuse it with a
// *convolve.CapabilityError.
func (s *badPlanSet) add(name string, capability bool, mod func(*convolve.Problem, *convolve.Config)) {
	q, cfg := s.p, convolve.Config{}
	mod(&q, &cfg)
	s.bs = append(s.bs, badPlan{name: name, p: q, cfg: cfg, capability: capability})
}

// invalid adds the problems and configurations no variant accepts: bad
// filters (and non-finite weights for a variant that declares
// FiniteInput), bad geometry, unknown enumerations and tunables.
func (s *badPlanSet) invalid(caps convolve.Capabilities) {
	if s.p.Op == convolve.Filter2D {
		s.add("even filter width", false, func(q *convolve.Problem, _ *convolve.Config) {
			q.Filter = &convolve.Filter{Name: "even", Width: 4, Height: 3, Weights: make([]float32, 12)}
		})
		s.add("even filter height", false, func(q *convolve.Problem, _ *convolve.Config) {
			q.Filter = &convolve.Filter{Name: "even", Width: 3, Height: 2, Weights: make([]float32, 6)}
		})
		s.add("nil filter", false, func(q *convolve.Problem, _ *convolve.Config) { q.Filter = nil })
		s.add("too few weights", false, func(q *convolve.Problem, _ *convolve.Config) {
			q.Filter = &convolve.Filter{Name: "short", Width: 3, Height: 3, Weights: make([]float32, 8)}
		})
		if caps.FiniteInput {
			// Only variants that declare FiniteInput refuse non-finite
			// weights; the others compute with them (property
			// nonfinite-weights).
			for _, v := range []float64{math.NaN(), math.Inf(1), math.Inf(-1)} {
				s.add(fmt.Sprintf("%v weight for a finite-only variant", v), false, func(q *convolve.Problem, _ *convolve.Config) {
					w := make([]float32, 9)
					w[3], w[4] = 1, float32(v)
					q.Filter = &convolve.Filter{Name: "non-finite", Width: 3, Height: 3, Weights: w}
				})
				s.bs[len(s.bs)-1].nonFinite = true
			}
		}
	}
	s.add("zero image width", false, func(q *convolve.Problem, _ *convolve.Config) { q.Input.Width = 0 })
	s.add("negative image height", false, func(q *convolve.Problem, _ *convolve.Config) { q.Input.Height = -3 })
	s.add("five channels", false, func(q *convolve.Problem, _ *convolve.Config) { q.Input.Channels = 5 })
	s.add("stride shorter than a row", false, func(q *convolve.Problem, _ *convolve.Config) { q.Input.Stride = q.Input.RowElems() - 1 })
	s.add("unknown element type", false, func(q *convolve.Problem, _ *convolve.Config) { q.Input.Type = 7 })
	s.add("unknown border", false, func(q *convolve.Problem, _ *convolve.Config) { q.Border = 99 })
	s.add("unknown mode", false, func(q *convolve.Problem, _ *convolve.Config) { q.Mode = -1 })
	s.add("unknown operation", false, func(q *convolve.Problem, _ *convolve.Config) { q.Op = 42 })
	s.add("unknown tunable", false, func(_ *convolve.Problem, cfg *convolve.Config) {
		cfg.Tunables = map[string]int{"no-such-tunable": 1}
	})
}

// undeclared adds the problems of capabilities the variant does not
// declare: an element type, a channel count, a layout, a border, an
// operation, a filter side, a non-separable filter.
func (s *badPlanSet) undeclared(caps convolve.Capabilities) {
	for _, t := range convolve.ElemTypes {
		if len(caps.Types) > 0 && !slices.Contains(caps.Types, t) && s.p.Op != convolve.RGBToYUV {
			s.add("unsupported element type "+t.String(), true, func(q *convolve.Problem, _ *convolve.Config) { q.Input.Type = t })
			break
		}
	}
	for ch := 1; ch <= convolve.MaxChannels; ch++ {
		if len(caps.Channels) > 0 && !slices.Contains(caps.Channels, ch) && s.p.Op != convolve.RGBToYUV {
			s.add(fmt.Sprintf("unsupported channel count %d", ch), true, func(q *convolve.Problem, _ *convolve.Config) {
				keepPadding(&q.Input, func(g *convolve.Geometry) { g.Channels = ch })
			})
			break
		}
	}
	for _, l := range convolve.Layouts {
		if len(caps.Layouts) > 0 && !slices.Contains(caps.Layouts, l) && s.p.Input.Channels > 1 {
			s.add("unsupported layout "+l.String(), true, func(q *convolve.Problem, _ *convolve.Config) {
				keepPadding(&q.Input, func(g *convolve.Geometry) { g.Layout = l })
			})
			break
		}
	}
	for _, b := range convolve.Borders {
		if len(caps.Borders) > 0 && !slices.Contains(caps.Borders, b) && s.p.Op != convolve.RGBToYUV {
			s.add("unsupported border "+b.String(), true, func(q *convolve.Problem, _ *convolve.Config) { q.Border = b })
			break
		}
	}
	for _, o := range []convolve.Operation{convolve.Filter2D, convolve.SobelMagnitude} {
		if len(caps.Ops) > 0 && !slices.Contains(caps.Ops, o) {
			s.add("unsupported operation "+o.String(), true, func(q *convolve.Problem, _ *convolve.Config) {
				q.Op = o
				if o == convolve.Filter2D {
					q.Filter = convolve.GaussianInt3()
				}
			})
			break
		}
	}
	if s.p.Op == convolve.Filter2D && caps.MaxFilterSide > 0 && caps.MaxFilterSide < convolve.MaxFilterSide {
		k := caps.MaxFilterSide + 1 + caps.MaxFilterSide%2 // the next odd size
		s.add(fmt.Sprintf("filter side %d above the largest %d", k, caps.MaxFilterSide), true, func(q *convolve.Problem, _ *convolve.Config) {
			f, _ := makeFilter(outerWeights, k, 1, 1, "big")
			q.Filter = f
		})
	}
	if s.p.Op == convolve.Filter2D && caps.SeparableOnly {
		s.add("non-separable filter", true, func(q *convolve.Problem, _ *convolve.Config) { q.Filter = convolve.Laplacian() })
	}
}

// config adds the configurations the variant refuses: a block too large
// and one outside its fixed blocks for a GPU variant, a block or
// fmad=false for a CPU one.
func (s *badPlanSet) config(caps convolve.Capabilities) {
	if caps.GPU {
		s.add("block of 2048 threads", false, func(_ *convolve.Problem, cfg *convolve.Config) { cfg.Block = convolve.Block{X: 64, Y: 32} })
		if len(caps.FixedBlocks) > 0 {
			for _, b := range []convolve.Block{{X: 7, Y: 3}, {X: 1, Y: 1}, {X: 32, Y: 8}, {X: 16, Y: 16}} {
				if !slices.Contains(caps.FixedBlocks, b) {
					s.add("block "+b.String()+" not among the fixed ones", true, func(_ *convolve.Problem, cfg *convolve.Config) { cfg.Block = b })
					break
				}
			}
		}
	} else {
		s.add("block shape for a CPU variant", true, func(_ *convolve.Problem, cfg *convolve.Config) { cfg.Block = convolve.Block{X: 32, Y: 8} })
		s.add("fmad=false for a CPU variant", true, func(_ *convolve.Problem, cfg *convolve.Config) { cfg.NoFMA = true })
	}
}

// badRun is one invalid pair of images for a valid plan.
type badRun struct {
	name    string
	in, out *convolve.Image
}

func badRuns(p convolve.Problem, in, out *convolve.Image) []badRun {
	rs := []badRun{{"nil input", nil, out}, {"nil output", in, nil}, {"nil input and output", nil, nil}}
	resized := func(g convolve.Geometry, dw, dh int) *convolve.Image {
		g.Width += dw
		g.Height += dh
		im, _ := convolve.NewImage(g)
		return im
	}
	rs = append(rs,
		badRun{"input one column wider", resized(in.Geometry, 1, 0), out},
		badRun{"input one row shorter", resized(in.Geometry, 0, -1), out},
		badRun{"output one column narrower", in, resized(out.Geometry, -1, 0)},
		badRun{"output one row taller", in, resized(out.Geometry, 0, 1)},
	)
	other := func(g convolve.Geometry, t convolve.ElemType) *convolve.Image {
		g.Type = t
		im, _ := convolve.NewImage(g)
		return im
	}
	for _, t := range convolve.ElemTypes {
		if t != in.Type {
			rs = append(rs, badRun{"input of type " + t.String(), other(in.Geometry, t), out})
			break
		}
	}
	for _, t := range convolve.ElemTypes {
		if t != out.Type {
			rs = append(rs, badRun{"output of type " + t.String(), in, other(out.Geometry, t)})
			break
		}
	}
	if p.Op != convolve.RGBToYUV {
		g := in.Geometry
		g.Channels = g.Channels%convolve.MaxChannels + 1
		wrongC, _ := convolve.NewImage(g)
		rs = append(rs, badRun{fmt.Sprintf("input with %d channels", g.Channels), wrongC, out})
	}
	g := in.Geometry
	g.Stride = g.RowStride() + 1
	restrided, _ := convolve.NewImage(g)
	rs = append(rs, badRun{"input with another row stride", restrided, out})
	short := in.Clone()
	short.F32, short.U8, short.I16 = trim(short.F32), trim(short.U8), trim(short.I16)
	rs = append(rs, badRun{"input data one element short", short, out})
	shortOut := out.Clone()
	shortOut.F32, shortOut.U8, shortOut.I16 = trim(shortOut.F32), trim(shortOut.U8), trim(shortOut.I16)
	rs = append(rs, badRun{"output data one element short", in, shortOut})
	// An image the geometry change made invalid comes back nil; only the
	// first three entries are meant to be nil.
	return append(rs[:3:3], slices.DeleteFunc(rs[3:], func(r badRun) bool { return r.in == nil || r.out == nil })...)
}

func trim[T any](s []T) []T {
	if len(s) == 0 {
		return s
	}
	return s[:len(s)-1]
}

// testBadInput checks that every validation error of e's variant is an
// error: no panic, no plan, no device allocation left behind, and that a
// plan whose Run was refused still works. It starts from one valid case
// of each operation the variant supports, a subtest each.
func testBadInput(t *testing.T, e *env, seed int64) {
	bases, missing := badInputBases(e, seed)
	for _, op := range missing {
		t.Errorf("no valid %v case to start from", op)
	}
	for _, base := range bases {
		t.Run(base.Op.String(), func(t *testing.T) {
			unlock := e.exclusive()
			problems, summary := checkBadInput(e, base)
			unlock()
			for _, p := range problems {
				t.Error(p)
			}
			t.Log(summary)
		})
	}
}

// badInputBases draws, for each operation e's variant supports, the
// valid case its bad-input checks start from (at least 2x2, within the
// validity rule), and lists the operations for which none was found.
func badInputBases(e *env, seed int64) (bases []testCase, missing []convolve.Operation) {
	d := newDomain(e.desc.Caps, nil, e.pool)
	d.rule = e.rule
	d.budget = 1 << 16
	rng := rand.New(rand.NewSource(derivedSeed(seed, e.name, "bad-input")))
	for _, op := range d.ops {
		var base testCase
		found := false
		for try := 0; try < 500 && !found; try++ {
			base, found = d.draw(rng)
			found = found && base.Op == op && base.W > 1 && base.H > 1
		}
		if found {
			bases = append(bases, base)
		} else {
			missing = append(missing, op)
		}
	}
	return bases, missing
}

// checkBadInput returns every way the variant mishandles invalid input
// around the valid case base, and a summary line.
func checkBadInput(e *env, base testCase) (problems []string, summary string) {
	errorf := func(format string, args ...any) { problems = append(problems, fmt.Sprintf(format, args...)) }
	p, err := base.Problem()
	if err != nil {
		return []string{err.Error()}, ""
	}
	allocs0, haveAllocs := e.liveAllocations()
	noAllocs := func(what string) {
		if n := e.open.Load(); n != 0 {
			errorf("%s: %d plans open", what, n)
		}
		if haveAllocs {
			if n, _ := e.liveAllocations(); n != allocs0 {
				errorf("%s: device allocations %d, %d before", what, n, allocs0)
			}
		}
	}
	for _, b := range badPlans(e.desc.Caps, p) {
		for _, via := range []string{"Variant.Plan", "convolve.PlanFor"} {
			var pl convolve.Plan
			err := safely(func() (err error) {
				if via == "Variant.Plan" {
					pl, err = e.variant.Plan(b.p, b.cfg)
				} else {
					pl, err = convolve.PlanFor(e.variant, b.p, b.cfg)
				}
				return err
			})
			if problem := badPlanProblem(via, b, pl, err); problem != "" {
				errorf("%s", problem)
			}
			noAllocs(fmt.Sprintf("after %s with %s", via, b.name))
		}
	}

	in, err := base.Input()
	if err != nil {
		return append(problems, err.Error()), ""
	}
	ref, tol, err := e.expect(p, base.Config(), in)
	if err != nil {
		return append(problems, err.Error()), ""
	}
	pl, err := e.plan(p, base.Config())
	if err != nil {
		return append(problems, fmt.Sprintf("plan of the valid base case %v: %v", base, err)), ""
	}
	defer pl.Close()
	out, _ := p.NewOutput()
	allocsPlanned, _ := e.liveAllocations()
	for _, r := range badRuns(p, in, out) {
		err := safely(func() error { return pl.Run(r.in, r.out) })
		switch {
		case err == nil:
			errorf("Run with %s: no error", r.name)
		case errors.As(err, new(*panicError)):
			errorf("Run with %s: %v", r.name, err)
		}
		if haveAllocs {
			if n, _ := e.liveAllocations(); n != allocsPlanned {
				errorf("Run with %s: device allocations %d, %d before", r.name, n, allocsPlanned)
			}
		}
	}
	good, err := runPoisoned(pl, p, in, poisons(p.OutputGeometry().Type)[0])
	if err != nil {
		errorf("valid Run after the rejected ones: %v", err)
	} else if err := agree("valid Run after the rejected ones", good, ref, tol); err != nil {
		errorf("%v", err)
	}
	problems = append(problems, checkOverlapRefused(pl, p, in)...)
	if e.desc.Caps.FiniteInput {
		problems = append(problems, checkNonFiniteInputRefused(pl, p, in)...)
	}
	if err := pl.Close(); err != nil {
		errorf("Close: %v", err)
	}
	noAllocs("after Close")
	for what, err := range map[string]error{
		"Run after Close": safely(func() error { return pl.Run(in, out) }),
		"second Close":    safely(pl.Close),
	} {
		if !errors.Is(err, convolve.ErrClosed) {
			errorf("%s: %v, want an error wrapping convolve.ErrClosed", what, err)
		}
	}
	noAllocs("after the calls on the closed plan")
	return problems, fmt.Sprintf("base case %v: %d invalid plans and %d invalid runs tried", base, 2*len(badPlans(e.desc.Caps, p)), len(badRuns(p, in, out)))
}

// badPlanProblem is what is wrong with the answer pl, err of plan-maker
// via to bad plan b (a plan, a panic, an error of the wrong type), or ""
// when nothing is; a plan it was given is closed.
func badPlanProblem(via string, b badPlan, pl convolve.Plan, err error) string {
	var ce *convolve.CapabilityError
	switch {
	case err == nil:
		pl.Close()
		return fmt.Sprintf("%s with %s: no error", via, b.name)
	case pl != nil:
		pl.Close()
		return fmt.Sprintf("%s with %s: returned a plan beside the error %v", via, b.name, err)
	case errors.As(err, new(*panicError)):
		return fmt.Sprintf("%s with %s: %v", via, b.name, err)
	case b.capability && !errors.As(err, &ce):
		return fmt.Sprintf("%s with %s: error %q is not a *convolve.CapabilityError", via, b.name, err)
	case b.nonFinite && !errors.As(err, new(*convolve.NonFiniteError)):
		return fmt.Sprintf("%s with %s: error %q is not a *convolve.NonFiniteError", via, b.name, err)
	}
	return ""
}

// checkOverlapRefused runs pl on an input and an output whose data share
// memory (capacity-capped views of one buffer, the output starting inside
// the input's last element) and reports a run that is not refused with
// convolve.ErrOverlap or that changed the buffer.
func checkOverlapRefused(pl convolve.Plan, p convolve.Problem, in *convolve.Image) []string {
	og := p.OutputGeometry()
	inBytes := in.Len() * in.Type.Size()
	outSize := og.Type.Size()
	outStart := (inBytes - 1) / outSize * outSize // inside the input's last element, aligned for the output
	buf := make([]uint64, (outStart+og.Len()*outSize)/8+1)
	base := unsafe.Pointer(unsafe.SliceData(buf))
	view := func(g convolve.Geometry, off int) *convolve.Image {
		im := &convolve.Image{Geometry: g}
		at := unsafe.Add(base, off)
		switch g.Type {
		case convolve.Float32:
			im.F32 = unsafe.Slice((*float32)(at), g.Len())
		case convolve.Uint8:
			im.U8 = unsafe.Slice((*uint8)(at), g.Len())
		case convolve.Int16:
			im.I16 = unsafe.Slice((*int16)(at), g.Len())
		}
		return im
	}
	a, o := view(in.Geometry, 0), view(og, outStart)
	if err := a.CopyFrom(in); err != nil {
		return []string{err.Error()}
	}
	before := slices.Clone(buf)
	err := safely(func() error { return pl.Run(a, o) })
	var problems []string
	if !errors.Is(err, convolve.ErrOverlap) {
		problems = append(problems, fmt.Sprintf("Run with the output overlapping the input's last element (capacity-capped views): %v, want convolve.ErrOverlap", err))
	}
	if !slices.Equal(before, buf) {
		problems = append(problems, "Run with overlapping images changed their data")
	}
	return problems
}

// checkNonFiniteInputRefused: a finite-only plan refuses an input with a
// NaN or infinite element, in Run and, for device plans, in Upload, with a
// *convolve.NonFiniteError.
func checkNonFiniteInputRefused(pl convolve.Plan, p convolve.Problem, in *convolve.Image) []string {
	if in.Type != convolve.Float32 {
		return nil
	}
	var problems []string
	for _, v := range []float64{math.NaN(), math.Inf(1), math.Inf(-1)} {
		bad := in.Clone()
		bad.Set(bad.Width/2, bad.Height-1, bad.Channels-1, v)
		out, err := p.NewOutput()
		if err != nil {
			return []string{err.Error()}
		}
		if err := safely(func() error { return pl.Run(bad, out) }); !errors.As(err, new(*convolve.NonFiniteError)) {
			problems = append(problems, fmt.Sprintf("Run of an input holding %v on a finite-only plan: %v, want a *convolve.NonFiniteError", v, err))
		}
		inner := pl
		if cp, ok := pl.(*countedPlan); ok {
			inner = cp.Plan
		}
		if dp, ok := inner.(convolve.DevicePlan); ok {
			if err := safely(func() error { return dp.Upload(bad) }); !errors.As(err, new(*convolve.NonFiniteError)) {
				problems = append(problems, fmt.Sprintf("Upload of an input holding %v on a finite-only plan: %v, want a *convolve.NonFiniteError", v, err))
			}
		}
	}
	return problems
}

// keepPadding applies change to g and then, where g has an explicit stride,
// sets it to the new row length plus the padding it had, so that a case
// made invalid in one field (its channel count, its layout) is not also
// invalid in its stride.
func keepPadding(g *convolve.Geometry, change func(*convolve.Geometry)) {
	pad := g.Stride - g.RowElems()
	change(g)
	if g.Stride != 0 {
		g.Stride = g.RowElems() + pad
	}
}
