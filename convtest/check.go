package convtest

import (
	"errors"
	"fmt"
	"math"
	"runtime/debug"
	"strings"
	"sync/atomic"

	"github.com/convbench/convbench/convolve"
	"github.com/convbench/convbench/verify"
	"github.com/google/go-cmp/cmp"
)

// refusedError marks a case the variant declined at plan time with a
// *convolve.CapabilityError that its validity rule predicts: not a
// failure, but counted and reported. The generator consults the rule, so
// drawn cases are refused only where a property plans a problem of its
// own making.
type refusedError struct{ err error }

func (e *refusedError) Error() string { return "refused: " + e.err.Error() }
func (e *refusedError) Unwrap() error { return e.err }

// env is what the checks of one variant share.
type env struct {
	name    string
	variant convolve.Variant
	desc    convolve.Description
	// open counts this variant's plans opened and not yet closed.
	open atomic.Int64
	// pool is the GPU specialization pool (nil for CPU variants).
	pool []testCase
	// poolSize is the number of specializations specPool draws for the
	// pool (Options.Pool); 0 is DefaultPool.
	poolSize int
	// rule is the variant's validity rule on its device.
	rule *rule
}

// expect is the reference of p on in with the tolerance of the error
// model the variant's results for p under cfg are held to (model).
func (e *env) expect(p convolve.Problem, cfg convolve.Config, in *convolve.Image) (ref, tol *convolve.Image, err error) {
	return verify.Reference(p, in, e.model(p, cfg))
}

// model is the error model the variant's results for p under cfg are held
// to: its declared Capabilities.Accuracy, or the model of the path it
// picks for p where it picks one per problem (convolve.ModelOf).
func (e *env) model(p convolve.Problem, cfg convolve.Config) convolve.ErrorModel {
	return convolve.ModelOf(e.variant, p, cfg)
}

// countedPlan counts itself in env.open until closed.
type countedPlan struct {
	convolve.Plan
	e      *env
	closed bool
}

func (p *countedPlan) Close() error {
	if !p.closed {
		p.closed = true
		p.e.open.Add(-1)
	}
	return p.Plan.Close()
}

// planOn plans p on variant v through convolve.PlanFor and counts the plan
// in e. A *CapabilityError that v's validity rule predicts (convolve.Supports
// on e's device refuses p too) becomes a *refusedError; one the rule did
// not predict is a failure, a bug of the variant's rule or plan.
func (e *env) planOn(v convolve.Variant, p convolve.Problem, cfg convolve.Config) (*countedPlan, error) {
	pl, err := convolve.PlanFor(v, p, cfg)
	if err != nil {
		if pl != nil {
			pl.Close()
			return nil, fmt.Errorf("plan %v: returned both a plan and the error %v", p, err)
		}
		if convolve.IsUnsupported(err) {
			var lim convolve.DeviceLimits
			if e.rule != nil {
				lim = e.rule.lim
			}
			if rerr := convolve.Supports(v, p, cfg, lim); rerr == nil {
				return nil, fmt.Errorf("plan %v (%v) refused what the validity rule (Supports) accepts on %s: %w", p, cfg, deviceName(lim), err)
			}
			return nil, &refusedError{err}
		}
		return nil, fmt.Errorf("plan %v (%v): %w", p, cfg, err)
	}
	if pl == nil {
		return nil, fmt.Errorf("plan %v: nil plan and nil error", p)
	}
	e.open.Add(1)
	return &countedPlan{Plan: pl, e: e}, nil
}

func (e *env) plan(p convolve.Problem, cfg convolve.Config) (*countedPlan, error) {
	return e.planOn(e.variant, p, cfg)
}

// closePlan closes pl and folds a Close error into *err.
func closePlan(pl *countedPlan, err *error) {
	if cerr := pl.Close(); cerr != nil && *err == nil {
		*err = fmt.Errorf("close: %w", cerr)
	}
}

// poisons are the values outputs are filled with before a run: NaN for
// float outputs (any NaN left is an unwritten element); for uint8 outputs
// two runs, over 0 and over 255, must both be right.
func poisons(t convolve.ElemType) []float64 {
	if t == convolve.Float32 {
		return []float64{math.NaN()}
	}
	return []float64{0, 255}
}

// runPoisoned runs pl on in into a fresh output of p filled with poison,
// the plan's own output buffer too where it is an OutputPoisoner.
func runPoisoned(pl convolve.Plan, p convolve.Problem, in *convolve.Image, poison float64) (*convolve.Image, error) {
	out, err := p.NewOutput()
	if err != nil {
		return nil, err
	}
	out.Fill(poison)
	target := pl
	if cp, ok := pl.(*countedPlan); ok {
		target = cp.Plan
	}
	if po, ok := target.(OutputPoisoner); ok {
		if err := po.PoisonOutput(poison); err != nil && !errors.Is(err, errors.ErrUnsupported) {
			return nil, fmt.Errorf("poisoning the plan's output: %w", err)
		}
	}
	if err := pl.Run(in, out); err != nil {
		return nil, fmt.Errorf("run: %w", err)
	}
	return out, nil
}

// runOnce plans, runs into a NaN-poisoned output and closes.
func (e *env) runOnce(v convolve.Variant, p convolve.Problem, cfg convolve.Config, in *convolve.Image) (out *convolve.Image, err error) {
	pl, err := e.planOn(v, p, cfg)
	if err != nil {
		return nil, err
	}
	defer closePlan(pl, &err)
	return runPoisoned(pl, p, in, poisons(p.OutputGeometry().Type)[0])
}

// panicError is a recovered panic.
type panicError struct {
	value any
	stack string
}

func (e *panicError) Error() string { return fmt.Sprintf("panic: %v\n%s", e.value, e.stack) }

// safely runs fn and turns a panic into a *panicError, so that a panicking
// case shrinks like any other failure.
func safely(fn func() error) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = &panicError{r, firstLines(string(debug.Stack()), 24)}
		}
	}()
	return fn()
}

func firstLines(s string, n int) string {
	lines := strings.SplitN(s, "\n", n+1)
	if len(lines) > n {
		lines = append(lines[:n], "\t...")
	}
	return strings.Join(lines, "\n")
}

// agree checks out against ref element by element within tol (nil: exact)
// and describes the first mismatches.
func agree(what string, out, ref, tol *convolve.Image) error {
	m, err := convolve.Compare(out, ref, tol)
	if err != nil {
		return err
	}
	if m.OK() {
		return nil
	}
	head := fmt.Sprintf("%s: %v", what, m)
	if math.IsNaN(m.First.Got) {
		head = fmt.Sprintf("%s: output element (x=%d, y=%d, c=%d) not written (still the NaN poison); %v",
			what, m.First.X, m.First.Y, m.First.C, m)
	}
	return fmt.Errorf("%s\n%s", head, mismatchDiff(out, ref, tol, m.First))
}

// pixel names one element in a diff; the fixed-width numbers sort the
// diff's keys row by row.
type pixel string

func pixelAt(x, y, c int) pixel { return pixel(fmt.Sprintf("y=%04d x=%04d c=%d", y, x, c)) }

// value is one element's value with the tolerance it is compared under;
// diffs print it as "v ± tol".
type value struct{ v, tol float64 }

func (v value) String() string { return fmt.Sprintf("%.9g ± %.3g", v.v, v.tol) }

// withinTolerance compares two values as the correctness policy does: the
// difference must not exceed the larger tolerance, and NaN never matches.
var withinTolerance = cmp.Comparer(func(a, b value) bool {
	if math.IsNaN(a.v) || math.IsNaN(b.v) {
		return false
	}
	return math.Abs(a.v-b.v) <= max(a.tol, b.tol)
})

// mismatchDiff is a go-cmp diff (-want +got) of a window of the output
// around the first mismatch: up to three rows of 24 columns of its
// channel, so the neighbouring elements show whether the error is a single
// element, an edge or a whole row. Elements within tolerance are elided.
func mismatchDiff(out, ref, tol *convolve.Image, first convolve.Mismatch) string {
	want, got := map[pixel]value{}, map[pixel]value{}
	x0 := max(0, first.X-8)
	for y := first.Y; y < min(ref.Height, first.Y+3); y++ {
		for x := x0; x < min(ref.Width, x0+24); x++ {
			t := 0.0
			if tol != nil {
				t = tol.At(x, y, first.C)
			}
			k := pixelAt(x, y, first.C)
			want[k] = value{ref.At(x, y, first.C), t}
			got[k] = value{out.At(x, y, first.C), t}
		}
	}
	d := cmp.Diff(want, got, withinTolerance)
	return "first mismatches (-want +got):\n" + firstLines(d, 40)
}

// sameBits reports the first element where a and b differ in their bits.
func sameBits(what string, a, b *convolve.Image) error {
	if a.Geometry != b.Geometry {
		return fmt.Errorf("%s: geometries differ: %v and %v", what, a.Geometry, b.Geometry)
	}
	for i := range a.F32 {
		if math.Float32bits(a.F32[i]) != math.Float32bits(b.F32[i]) {
			return fmt.Errorf("%s: element %d (%s) differs: %v then %v", what, i, locate(a.Geometry, i), a.F32[i], b.F32[i])
		}
	}
	for i := range a.U8 {
		if a.U8[i] != b.U8[i] {
			return fmt.Errorf("%s: element %d (%s) differs: %v then %v", what, i, locate(a.Geometry, i), a.U8[i], b.U8[i])
		}
	}
	for i := range a.I16 {
		if a.I16[i] != b.I16[i] {
			return fmt.Errorf("%s: element %d (%s) differs: %v then %v", what, i, locate(a.Geometry, i), a.I16[i], b.I16[i])
		}
	}
	return nil
}

// locate names the pixel of element index i of g.
func locate(g convolve.Geometry, i int) string {
	s := g.RowStride()
	if g.Layout == convolve.Planar {
		plane := s * g.Height
		c, r := i/plane, i%plane
		return fmt.Sprintf("x=%d y=%d c=%d", r%s, r/s, c)
	}
	x := i % s
	if x >= g.RowElems() {
		return fmt.Sprintf("row %d padding", i/s)
	}
	return fmt.Sprintf("x=%d y=%d c=%d", x/g.Channels, i/s, x%g.Channels)
}
