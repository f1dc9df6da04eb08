package htmlreport

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strconv"

	"github.com/convbench/convbench/runfile"
	"golang.org/x/perf/benchmath"
)

// compareJSON is the compare view's data, embedded in the page as JSON:
// each case's median and its interval at runfile.Confidence, and for
// every two runs with cases in common the Mann-Whitney U test's p of each
// shared case, all by benchmath as benchmarks/cmd/compare computes them.
// The page's script divides two runs' medians and calls a change where
// p <= Alpha.
type compareJSON struct {
	Keys       []string    `json:"keys"`  // runfile.Keys, the order of a case's K
	Dict       []string    `json:"dict"`  // every key value once; a case's K index it
	Units      []string    `json:"units"` // the time units a case's U index
	Alpha      float64     `json:"alpha"`
	Confidence float64     `json:"confidence"`
	Runs       []cmpRun    `json:"runs"`
	Pairs      []cmpPaired `json:"pairs"`
}

// A cmpRun is one stored run: where it comes from and its cases.
type cmpRun struct {
	ID      string    `json:"id"` // "<host>/<preset>"
	Host    string    `json:"host"`
	Slug    string    `json:"slug"`
	Preset  string    `json:"preset"`
	Commit  string    `json:"commit"`
	Command string    `json:"command"`
	Header  string    `json:"header"`
	File    string    `json:"file"`
	Cases   []cmpCase `json:"cases"`
}

// A cmpCase is one case of a run: its keys, the unit of its time, how
// many runs it has, their median and the median's interval (ns; Lo and
// Hi null where the runs are too few for one).
type cmpCase struct {
	K      []int
	U      int
	N      int
	M      float64
	Lo, Hi float64
}

// MarshalJSON writes a case as an array, [K, U, N, M, Lo, Hi], to keep
// the page small.
func (c cmpCase) MarshalJSON() ([]byte, error) {
	k, err := json.Marshal(c.K)
	if err != nil {
		return nil, err
	}
	return fmt.Appendf(nil, "[%s,%d,%d,%s,%s,%s]", k, c.U, c.N, jsonNumber(c.M), jsonNumber(c.Lo), jsonNumber(c.Hi)), nil
}

// jsonNumber is v in JSON, null where it is not finite.
func jsonNumber(v float64) string {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return "null"
	}
	return strconv.FormatFloat(v, 'g', -1, 64)
}

// A cmpPaired is two runs with cases in common: A and B index Runs, and
// each of Cases is [case of A, case of B, p].
type cmpPaired struct {
	A     int          `json:"a"`
	B     int          `json:"b"`
	Cases [][3]float64 `json:"cases"`
}

// compareData returns the compare view's data for runs, in their order,
// as JSON that can stand inside a script element.
func compareData(runs []hostRun, dataName string) ([]byte, error) {
	th := &benchmath.DefaultThresholds
	d := &compareJSON{Keys: runfile.Keys(), Units: runfile.TimeUnits, Alpha: th.CompareAlpha, Confidence: runfile.Confidence}
	dict := map[string]int{}
	// byName maps each run's cases, by their keys' values and unit, to
	// their index.
	byName := make([]map[string]int, len(runs))
	samples := make([][]*benchmath.Sample, len(runs))
	for ri, hr := range runs {
		cr := cmpRun{ID: hr.id(), Host: hr.h.Title, Slug: hr.h.Slug, Preset: hr.r.Preset, Commit: hr.r.Commit(),
			Command: hr.r.Command, Header: hr.r.Header, File: dataName + "/" + hr.h.Slug + "/" + hr.r.Preset + ".txt"}
		byName[ri] = map[string]int{}
		for _, s := range hr.r.Samples {
			unit := s.TimeUnit()
			vs := s.Values[unit]
			if len(vs) == 0 {
				continue
			}
			c := cmpCase{U: slices.Index(runfile.TimeUnits, unit), N: len(vs)}
			for _, k := range d.Keys {
				i, ok := dict[s.Keys[k]]
				if !ok {
					i = len(d.Dict)
					dict[s.Keys[k]] = i
					d.Dict = append(d.Dict, s.Keys[k])
				}
				c.K = append(c.K, i)
			}
			smp := benchmath.NewSample(slices.Clone(vs), th)
			sum := benchmath.AssumeNothing.Summary(smp, runfile.Confidence)
			c.M, c.Lo, c.Hi = sum.Center, sum.Lo, sum.Hi
			byName[ri][fmt.Sprint(c.K, unit)] = len(cr.Cases)
			cr.Cases = append(cr.Cases, c)
			samples[ri] = append(samples[ri], smp)
		}
		d.Runs = append(d.Runs, cr)
	}
	for a := range runs {
		for b := a + 1; b < len(runs); b++ {
			pr := cmpPaired{A: a, B: b}
			for name, ia := range byName[a] {
				if ib, ok := byName[b][name]; ok {
					c := benchmath.AssumeNothing.Compare(samples[a][ia], samples[b][ib])
					pr.Cases = append(pr.Cases, [3]float64{float64(ia), float64(ib), c.P})
				}
			}
			if len(pr.Cases) > 0 {
				slices.SortFunc(pr.Cases, func(x, y [3]float64) int { return int(x[0] - y[0]) })
				d.Pairs = append(d.Pairs, pr)
			}
		}
	}
	var b bytes.Buffer
	// The encoder escapes <, > and &: the JSON cannot close its script element.
	if err := json.NewEncoder(&b).Encode(d); err != nil {
		return nil, err
	}
	return bytes.TrimSpace(b.Bytes()), nil
}
