package tune

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/convbench/convbench/convolve"
	"github.com/convbench/convbench/tables/tuning"
)

// A search given the first candidates of a stopped run (Options.Resume)
// ends as the run would have: the same candidates in the same order and
// the same choice, trying (Trying, Tried, Warm) only the settings after
// them; a resumed candidate that crashed is kept as it was and never
// chosen or expanded.
func TestTuneResume(t *testing.T) {
	v := standIn{as: []int{1, 2, 3, 4, 5, 6, 7, 8}, bs: []int{1, 2, 3, 4, 5, 6, 7, 8},
		blocks: []convolve.Block{{X: 8, Y: 8}, {X: 16, Y: 8}, {X: 16, Y: 16}, {X: 32, Y: 8}}}
	opts := Options{Budget: 16, Verify: 1, Samples: 1, Seed: 2}
	whole, err := Tune(v, smallClass, opts)
	if err != nil {
		t.Fatal(err)
	}
	settings := func(cs []tuning.Candidate) []string {
		var s []string
		for _, c := range cs {
			st, err := c.Setting()
			if err != nil {
				t.Fatal(err)
			}
			s = append(s, st.String()+" "+c.Status)
		}
		return s
	}
	for _, n := range []int{1, 9, len(whole.Candidates)} {
		var trying, tried, warmed []string
		o := opts
		o.Resume = whole.Candidates[:n]
		o.Trying = func(pt convolve.Setting) { trying = append(trying, pt.String()) }
		o.Tried = func(c tuning.Candidate) { tried = append(tried, settings([]tuning.Candidate{c})[0]) }
		o.Warm = func(_ convolve.Variant, _ []convolve.Problem, cfgs []convolve.Config) {
			for _, c := range cfgs {
				warmed = append(warmed, convolve.Setting{Block: c.Block, Tunables: c.Tunables}.String())
			}
		}
		e, err := Tune(v, smallClass, o)
		if err != nil {
			t.Fatal(err)
		}
		all := settings(whole.Candidates)
		if got := settings(e.Candidates); !slices.Equal(got, all) {
			t.Errorf("resumed after %d: candidates\n%q\nwant\n%q", n, got, all)
		}
		if !slices.Equal(tried, all[n:]) || len(trying) != len(all)-n {
			t.Errorf("resumed after %d: tried %q (%d announced), want %q", n, tried, len(trying), all[n:])
		}
		for _, w := range warmed {
			for _, r := range all[:n] {
				if strings.HasPrefix(r, w+" ") {
					t.Errorf("resumed after %d: warmed %s, a resumed setting", n, w)
				}
			}
		}
		if e.Chosen.MedianNS != whole.Chosen.MedianNS || e.Chosen.Block != whole.Chosen.Block {
			t.Errorf("resumed after %d: chose %+v, want %+v", n, e.Chosen, whole.Chosen)
		}

		// With its time spent, the search still takes every resumed
		// candidate, and tries nothing more.
		now := time.Unix(0, 0)
		o.Time, o.Now = time.Nanosecond, func() time.Time { now = now.Add(time.Second); return now }
		tried = nil
		e, err = Tune(v, smallClass, o)
		if err != nil {
			t.Fatal(err)
		}
		if got := settings(e.Candidates); !slices.Equal(got, all[:n]) || len(tried) > 0 {
			t.Errorf("resumed after %d with no time left: candidates\n%q\nwant\n%q; tried %q", n, got, all[:n], tried)
		}
	}

	// The best point crashed its process in the run before: the search
	// chooses among the others.
	best := slices.IndexFunc(whole.Candidates, func(c tuning.Candidate) bool {
		st, _ := c.Setting()
		chosen, _ := whole.Chosen.Setting()
		return st.Equal(chosen)
	})
	if best < 1 {
		t.Fatalf("the whole run chose candidate %d: the test needs a later one", best)
	}
	crashed := slices.Clone(whole.Candidates[:best+1])
	crashed[best] = tuning.Candidate{Block: crashed[best].Block, Tunables: crashed[best].Tunables, Status: tuning.Crash, Error: "sticky CUDA error"}
	o := opts
	o.Resume = crashed
	e, err := Tune(v, smallClass, o)
	if err != nil {
		t.Fatal(err)
	}
	if e.Candidates[best].Status != tuning.Crash || e.Candidates[best].Error != "sticky CUDA error" {
		t.Errorf("the crashed candidate became %+v", e.Candidates[best])
	}
	was, _ := whole.Chosen.Setting()
	if got, _ := e.Chosen.Setting(); e.Chosen.Status != tuning.OK || got.Equal(was) {
		t.Errorf("chose %+v, want an ok candidate other than the crashed one", e.Chosen)
	}

	o.Resume = []tuning.Candidate{{Block: "32", Status: tuning.OK}}
	if _, err := Tune(v, smallClass, o); err == nil || !strings.Contains(err.Error(), `resumed candidate 0: convolve: block "32"`) {
		t.Errorf("Tune with a resumed candidate of a bad block: %v", err)
	}
}

// Try verifies and times one setting as Tune does each candidate.
func TestTry(t *testing.T) {
	v := standIn{as: []int{5, 6, 8}, bs: []int{3, 7, 8}, blocks: []convolve.Block{{X: 16, Y: 8}}}
	for _, tt := range []struct {
		setting convolve.Setting
		status  string
		ns      float64
		err     string
	}{
		{convolve.Setting{Block: convolve.Block{X: 16, Y: 8}, Tunables: map[string]int{"a": 5, "b": 3}}, tuning.OK, 100, ""},
		{convolve.Setting{Block: convolve.Block{X: 16, Y: 8}, Tunables: map[string]int{"a": 6, "b": 3}}, tuning.Wrong, 0, "differs from the reference"},
		{convolve.Setting{Block: convolve.Block{X: 16, Y: 8}, Tunables: map[string]int{"a": 8, "b": 8}}, tuning.Refused, 0, "needs too many registers"},
		// Outside the space (b=7) but tried all the same.
		{convolve.Setting{Block: convolve.Block{X: 16, Y: 8}, Tunables: map[string]int{"a": 5, "b": 7}}, tuning.OK, 260, ""},
	} {
		c, err := Try(v, smallClass, tt.setting, Options{Verify: 1, Samples: 1})
		if err != nil {
			t.Fatal(err)
		}
		if c.Status != tt.status || c.MedianNS != tt.ns || !strings.Contains(c.Error, tt.err) {
			t.Errorf("Try(%v) = %+v, want %s at %v ns, error with %q", tt.setting, c, tt.status, tt.ns, tt.err)
		}
	}
	if _, err := Try(v, Class{Type: convolve.Float32, K: 3, Size: "tiny"}, convolve.Setting{}, Options{}); err == nil {
		t.Error("Try of an unknown size class: nil error")
	}
}
