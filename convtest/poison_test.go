package convtest

import (
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/convbench/convbench/convolve"
)

// bufferedSkip wraps a correct CPU variant into plans that compute into a
// buffer of their own and copy all of it into out, as a GPU plan copies
// its device output: the bottom-right element of each channel is never
// computed, so the buffer keeps there what it held. poison says whether
// its plans are OutputPoisoners; poisonErr is what PoisonOutput returns.
type bufferedSkip struct {
	inner     convolve.Variant
	poison    bool
	poisonErr error
}

func (b bufferedSkip) Describe() convolve.Description {
	d := b.inner.Describe()
	d.Name = "buffered-skip"
	d.Summary = "cpu-naive into a plan-owned buffer that leaves one element unwritten (test only)"
	return d
}

func (b bufferedSkip) Plan(p convolve.Problem, cfg convolve.Config) (convolve.Plan, error) {
	inner, err := convolve.PlanFor(b.inner, p, cfg)
	if err != nil {
		return nil, err
	}
	buf, err := p.NewOutput() // zero, as fresh device memory often is
	if err != nil {
		inner.Close()
		return nil, err
	}
	bp := &bufferedPlan{Plan: inner, p: p, buf: buf, err: b.poisonErr}
	if b.poison {
		return poisonablePlan{bp}, nil
	}
	return bp, nil
}

type bufferedPlan struct {
	convolve.Plan
	p   convolve.Problem
	buf *convolve.Image
	err error
}

func (bp *bufferedPlan) Run(in, out *convolve.Image) error {
	if err := bp.p.CheckIO(in, out); err != nil {
		return err
	}
	full, err := bp.p.NewOutput()
	if err != nil {
		return err
	}
	if err := bp.Plan.Run(in, full); err != nil {
		return err
	}
	for c := 0; c < out.Channels; c++ {
		for y := 0; y < out.Height; y++ {
			for x := 0; x < out.Width; x++ {
				if x == out.Width-1 && y == out.Height-1 {
					continue
				}
				bp.buf.Set(x, y, c, full.At(x, y, c))
			}
		}
	}
	return out.CopyFrom(bp.buf)
}

// poisonablePlan is a bufferedPlan that is an OutputPoisoner.
type poisonablePlan struct{ *bufferedPlan }

func (pp poisonablePlan) PoisonOutput(v float64) error {
	if pp.err != nil {
		return pp.err
	}
	pp.buf.Fill(v)
	return nil
}

// TestOutputPoisoner: an element a plan leaves unwritten in a buffer of
// its own is reported as not written when the plan lets the checks poison
// that buffer, and as a plain mismatch (the buffer's stale zero) when it
// does not or cannot; another poisoning error fails the case with it.
func TestOutputPoisoner(t *testing.T) {
	inner, err := convolve.Lookup("cpu-naive")
	if err != nil {
		t.Fatal(err)
	}
	boom := errors.New("device lost")
	for _, tt := range []struct {
		name     string
		v        bufferedSkip
		want     string
		dontWant string
	}{
		{"poisoner", bufferedSkip{poison: true}, "not written (still the NaN poison)", ""},
		{"plain", bufferedSkip{}, "got 0 want", "not written"},
		{"unsupported", bufferedSkip{poison: true, poisonErr: errors.ErrUnsupported}, "got 0 want", "not written"},
		{"failing", bufferedSkip{poison: true, poisonErr: boom}, "poisoning the plan's output: device lost", ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			tt.v.inner = inner
			e := newEnv(t, tt.v, Options{Seed: 5})
			r := checkProperty(e, propertyNamed(t, "agreement"), 5, 40, 0, -1, nil)
			if r.result.Passed() {
				t.Fatal("agreement passed a variant that leaves an element unwritten")
			}
			labels := strings.Join(r.result.Labels, "; ")
			if !strings.Contains(labels, tt.want) {
				t.Errorf("failure %q does not say %q", firstLines(labels, 3), tt.want)
			}
			if tt.dontWant != "" && strings.Contains(labels, tt.dontWant) {
				t.Errorf("failure %q says %q", firstLines(labels, 3), tt.dontWant)
			}
		})
	}
	if !math.IsNaN(poisons(convolve.Float32)[0]) {
		t.Fatal("the float32 poison is not NaN")
	}
}
