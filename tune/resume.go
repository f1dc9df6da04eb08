package tune

import (
	"fmt"

	"github.com/convbench/convbench/convolve"
	"github.com/convbench/convbench/tables/tuning"
)

// resumeIndex maps the settings of cands (Options.Resume), by
// convolve.Setting.String, to their candidates. A candidate whose block
// does not parse is an error.
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
// each candidate: verified on Options.Verify random problems drawn from
// Options.Seed, then timed on the class's problem. It runs pt whether or
// not the space's restrictions allow it, so that it reproduces a
// candidate alone (the tune command's -setting). The candidate says how
// pt fared; the error is for a class or variant that cannot be tried at
// all.
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
