package main

import (
	"fmt"
	"os"
	"slices"
	"strings"

	"github.com/convbench/convbench/runfile"
	"golang.org/x/perf/benchfmt"
)

// A file is the benchmark results of one results file.
type file struct {
	path  string
	label string   // its column's name: "old", "new", or "A", "B", ...
	host  string   // "gpu: ..." or "cpu: ..." from its configuration, or ""
	cases []string // case names (runfile.PairingName), in order of appearance
	// values holds every value of each case, by case name and tidied
	// unit ("sec/op"), in the order read.
	values map[string]map[string][]float64
	units  []string // tidied units, in order of appearance
	meta   benchfmt.UnitMetadataMap
}

// readFile reads the results file at path. A file without benchmark
// results is an error.
func readFile(path string) (*file, error) {
	r, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer r.Close()
	f := &file{path: path, values: map[string]map[string][]float64{}, meta: benchfmt.UnitMetadataMap{}}
	rd := benchfmt.NewReader(r, path)
	for rd.Scan() {
		switch rec := rd.Result().(type) {
		case *benchfmt.Result:
			if err := f.add(rec); err != nil {
				return nil, err
			}
		case *benchfmt.UnitMetadata:
			f.meta[rec.UnitMetadataKey] = rec
		}
	}
	if err := rd.Err(); err != nil {
		return nil, err
	}
	if len(f.cases) == 0 {
		return nil, fmt.Errorf("%s: no benchmark results", path)
	}
	return f, nil
}

// add records the values of one result line.
func (f *file) add(res *benchfmt.Result) error {
	name := string(res.Name)
	if base, _ := res.Name.Parts(); string(base) == "Conv" {
		pn, err := runfile.PairingName(name)
		if err != nil {
			file, line := res.Pos()
			return fmt.Errorf("%s:%d: %w", file, line, err)
		}
		name = pn
	}
	if f.host == "" {
		f.host = hostOf(res)
	}
	byUnit, ok := f.values[name]
	if !ok {
		byUnit = map[string][]float64{}
		f.values[name] = byUnit
		f.cases = append(f.cases, name)
	}
	for _, v := range res.Values {
		if !slices.Contains(f.units, v.Unit) {
			f.units = append(f.units, v.Unit)
		}
		byUnit[v.Unit] = append(byUnit[v.Unit], v.Value)
	}
	return nil
}

// hostOf names the machine that ran res: its GPU, or its CPU where the
// run had no GPU, without the padding the name may carry.
func hostOf(res *benchfmt.Result) string {
	if g := strings.Join(strings.Fields(res.GetConfig("gpu")), " "); g != "" && g != "none" {
		return "gpu: " + g
	}
	if c := strings.Join(strings.Fields(res.GetConfig("cpu")), " "); c != "" {
		return "cpu: " + c
	}
	return ""
}

// labelFiles names the files' columns: "old" and "new" for two files,
// "A", "B", ... for more.
func labelFiles(files []*file) {
	for i, f := range files {
		switch {
		case len(files) == 2 && i == 0:
			f.label = "old"
		case len(files) == 2:
			f.label = "new"
		default:
			f.label = string(rune('A' + i%26))
			if i >= 26 {
				f.label += fmt.Sprint(i / 26)
			}
		}
	}
}

// A keyValue is one part of a case's name.
type keyValue struct{ key, value string }

// caseKeys splits a case name into its keys. A BenchmarkConv case has
// every key of runfile.Keys, those its name leaves out holding the
// value they imply; other benchmarks have the key "benchmark" for their
// base name and one key for each part of their name ("part2" for the
// second part where it is not key=value). A GOMAXPROCS suffix is the key
// "procs".
func caseKeys(name string) []keyValue {
	n := benchfmt.Name(name)
	base, parts := n.Parts()
	kvs := []keyValue{{"benchmark", string(base)}}
	if string(base) == "Conv" {
		if m, err := runfile.Parse(name); err == nil {
			for _, k := range runfile.Keys() {
				kvs = append(kvs, keyValue{k, m[k]})
			}
			if p := parts[len(parts)-1]; len(p) > 0 && p[0] == '-' {
				kvs = append(kvs, keyValue{"procs", string(p[1:])})
			}
			return kvs
		}
	}
	for i, p := range parts {
		s := string(p)
		switch {
		case strings.HasPrefix(s, "-"):
			kvs = append(kvs, keyValue{"procs", s[1:]})
		case strings.Contains(s, "="):
			k, v, _ := strings.Cut(s[1:], "=")
			kvs = append(kvs, keyValue{k, v})
		default:
			kvs = append(kvs, keyValue{fmt.Sprintf("part%d", i+1), strings.TrimPrefix(s, "/")})
		}
	}
	return kvs
}
