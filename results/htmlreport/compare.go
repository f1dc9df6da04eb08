package htmlreport

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/convbench/convbench/runfile"
	"golang.org/x/perf/benchmath"
)

// The compare view's data, embedded in the page as JSON. Every number
// in it is computed here, as benchmarks/cmd/compare computes it: each
// case's median and the median's confidence interval at
// runfile.Confidence (benchmath, assuming nothing of the distribution),
// and for every two runs with cases in common the Mann-Whitney U test's
// p of each shared case (benchmath's AssumeNothing.Compare, which is
// symmetric in its two samples). The page's script picks two runs,
// divides their medians and calls a change where p <= Alpha.
type compareJSON struct {
	// Keys are the keys of a case's name (runfile.Keys), the order
	// of each case's K.
	Keys []string `json:"keys"`
	// Dict holds every key value once; a case's K index it.
	Dict []string `json:"dict"`
	// Units are the time units a case's U index.
	Units      []string    `json:"units"`
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
	var b bytes.Buffer
	b.WriteString("[[")
	for i, k := range c.K {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(strconv.Itoa(k))
	}
	fmt.Fprintf(&b, "],%d,%d,%s,%s,%s]", c.U, c.N, jsonNumber(c.M), jsonNumber(c.Lo), jsonNumber(c.Hi))
	return b.Bytes(), nil
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
	keys := runfile.Keys()
	d := &compareJSON{Keys: keys, Units: runfile.TimeUnits, Alpha: benchmath.DefaultThresholds.CompareAlpha, Confidence: runfile.Confidence}
	dict := map[string]int{}
	intern := func(v string) int {
		i, ok := dict[v]
		if !ok {
			i = len(d.Dict)
			dict[v] = i
			d.Dict = append(d.Dict, v)
		}
		return i
	}
	// byName maps each run's case names (every key's value) to its index.
	byName := make([]map[string]int, len(runs))
	samples := make([][]*benchmath.Sample, len(runs))
	thresholds := benchmath.DefaultThresholds
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
			var name []string
			for _, k := range keys {
				c.K = append(c.K, intern(s.Keys[k]))
				name = append(name, s.Keys[k])
			}
			smp := benchmath.NewSample(slices.Clone(vs), &thresholds)
			sum := benchmath.AssumeNothing.Summary(smp, runfile.Confidence)
			c.M, c.Lo, c.Hi = sum.Center, sum.Lo, sum.Hi
			byName[ri][strings.Join(name, "/")+"@"+unit] = len(cr.Cases)
			cr.Cases = append(cr.Cases, c)
			samples[ri] = append(samples[ri], smp)
		}
		d.Runs = append(d.Runs, cr)
	}
	for a := range runs {
		for b := a + 1; b < len(runs); b++ {
			pr := cmpPaired{A: a, B: b}
			for name, ia := range byName[a] {
				ib, ok := byName[b][name]
				if !ok {
					continue
				}
				c := benchmath.AssumeNothing.Compare(samples[a][ia], samples[b][ib])
				pr.Cases = append(pr.Cases, [3]float64{float64(ia), float64(ib), c.P})
			}
			if len(pr.Cases) > 0 {
				slices.SortFunc(pr.Cases, func(x, y [3]float64) int { return int(x[0] - y[0]) })
				d.Pairs = append(d.Pairs, pr)
			}
		}
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b) // escapes <, > and &: the JSON cannot close its script element
	if err := enc.Encode(d); err != nil {
		return nil, err
	}
	return bytes.TrimSpace(b.Bytes()), nil
}
