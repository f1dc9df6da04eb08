package main

import (
	"fmt"
	"strings"

	"github.com/convbench/convbench/runfile"
	"golang.org/x/perf/benchfmt"
)

// A file is the cases of one results file, or of one column of -col,
// and the column it is shown in.
type file struct {
	runfile.Cases
	label string // its column's name: "old", "new", or "A", "B", ...
	host  string // "gpu: ..." or "cpu: ..." from its configuration, or ""
}

// readFile reads the results file at path. A file without benchmark
// results is an error.
func readFile(path string) (*file, error) {
	cs, err := runfile.ReadCases(path)
	if err != nil {
		return nil, err
	}
	if len(cs.Names) == 0 {
		return nil, fmt.Errorf("%s: no benchmark results", path)
	}
	return &file{Cases: *cs, host: hostOf(cs.Config)}, nil
}

// hostOf names the machine that ran a file of configuration cfg: its
// GPU, or its CPU where the run had no GPU, without the padding the name
// may carry.
func hostOf(cfg map[string]string) string {
	if g := strings.Join(strings.Fields(cfg["gpu"]), " "); g != "" && g != "none" {
		return "gpu: " + g
	}
	if c := strings.Join(strings.Fields(cfg["cpu"]), " "); c != "" {
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
