package main

import (
	"fmt"
	"slices"
	"strings"

	"github.com/convbench/convbench/internal/median"
	"github.com/convbench/convbench/runfile"
)

// referenceVariant is the variant -col variant compares the others with
// by default where the files hold it: the float64 ground truth.
const referenceVariant = "reference"

// byKey regroups the cases of files into one column per value of key
// (benchstat's -col): each column holds, for every case of any file with
// that value, the case's values under its name without key, the files'
// runs of a case pooled. The column of base comes first, the others in
// order of appearance; base "" picks the reference for -col variant
// where the files hold it, else the column whose cases are slowest
// (slowestColumn). A key no case has, or a base no case has, is an
// error naming the values there are.
func byKey(files []*file, key, base string) ([]*file, error) {
	var cols []*file
	index := map[string]*file{}
	var paths []string
	for _, f := range files {
		paths = append(paths, f.Path)
		for _, name := range f.Names {
			kvs := caseKeys(name)
			v := valueOf(kvs, key)
			if v == "-" {
				return nil, fmt.Errorf("%s: case %s has no key %s (-col takes a key of the cases' names, such as variant)", f.Path, name, key)
			}
			col, ok := index[v]
			if !ok {
				col = &file{label: v, host: f.host, Cases: runfile.Cases{Meta: f.Meta}}
				index[v] = col
				cols = append(cols, col)
			}
			rest := nameWithout(kvs, key)
			for _, u := range f.Units {
				col.Add(rest, u, f.Values[name][u]...)
			}
		}
	}
	for _, c := range cols {
		c.Path = strings.Join(paths, ", ")
	}
	switch {
	case base == "" && key == "variant" && index[referenceVariant] != nil:
		base = referenceVariant
	case base == "":
		base = slowestColumn(cols)
	}
	b, ok := index[base]
	if !ok {
		var values []string
		for _, c := range cols {
			values = append(values, c.label)
		}
		return nil, fmt.Errorf("-baseline %s: no case has %s=%s (the files have %s)", base, key, base, strings.Join(values, ", "))
	}
	if len(cols) < 2 {
		return nil, fmt.Errorf("-col %s: every case has %s=%s, nothing to compare it with", key, key, base)
	}
	cols = slices.DeleteFunc(cols, func(c *file) bool { return c == b })
	return append([]*file{b}, cols...), nil
}

// nameWithout is the name of a case of keys kvs without key: its other
// parts, "Conv/size=64x48/...", as caseKeys reads them back.
func nameWithout(kvs []keyValue, key string) string {
	var b strings.Builder
	for _, kv := range kvs {
		switch kv.key {
		case key:
		case "benchmark":
			b.WriteString(kv.value)
		case "procs":
			b.WriteString("-" + kv.value)
		default:
			b.WriteString("/" + kv.key + "=" + kv.value)
		}
	}
	return b.String()
}

// slowestColumn is the label of the column of cols whose cases are
// slowest: the highest geometric mean, over the cases it shares with
// another column, of its median time per operation over theirs.
func slowestColumn(cols []*file) string {
	best, bestScore := cols[0].label, 0.0
	for _, c := range cols {
		var tl runfile.Tally
		for _, name := range c.Names {
			mine, ok := medianTime(c, name)
			if !ok {
				continue
			}
			for _, o := range cols {
				if theirs, ok := medianTime(o, name); ok && o != c {
					tl.Add(theirs, mine, false)
				}
			}
		}
		if tl.Pairs > 0 && tl.Geomean() > bestScore {
			best, bestScore = c.label, tl.Geomean()
		}
	}
	return best
}

// medianTime is the median of the first time metric f has for case
// name, if it is positive.
func medianTime(f *file, name string) (float64, bool) {
	for _, u := range f.Units {
		if vs := f.Values[name][u]; isTime(u) && len(vs) > 0 {
			med := median.Of(vs)
			return med, med > 0
		}
	}
	return 0, false
}
