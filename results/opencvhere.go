package results

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"golang.org/x/perf/benchfmt"
	"golang.org/x/perf/benchmath"
)

// openCVHereFile holds OpenCV's times measured on a host, under its directory.
const openCVHereFile = "peers/opencv.txt"

// openCVHere is OpenCV measured on a host.
type openCVHere struct {
	path   string
	times  map[[2]string]Measure // by filter and element type
	config map[string]string
}

// readOpenCVHere reads openCVHereFile beside run's file; nil without one.
func readOpenCVHere(run *Run) (*openCVHere, error) {
	path := filepath.Join(filepath.Dir(run.Path), openCVHereFile)
	f, err := os.Open(path)
	if os.IsNotExist(err) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	defer f.Close()
	o := &openCVHere{path: path, times: map[[2]string]Measure{}, config: map[string]string{}}
	values := map[[2]string][]float64{}
	r := benchfmt.NewReader(f, path)
	for r.Scan() {
		switch rec := r.Result().(type) {
		case *benchfmt.SyntaxError:
			return nil, fmt.Errorf("results: %w", rec)
		case *benchfmt.Result:
			if string(rec.Name.Base()) != "OpenCV" {
				continue
			}
			for _, c := range rec.Config {
				if c.File {
					o.config[c.Key] = string(c.Value)
				}
			}
			keys := map[string]string{}
			_, parts := rec.Name.Parts()
			for _, p := range parts {
				if k, v, ok := strings.Cut(strings.TrimPrefix(string(p), "/"), "="); ok {
					keys[k] = v
				}
			}
			filter, typ := keys["filter"], keys["type"]
			ns, ok := rec.Value("sec/op")
			if filter == "" || typ == "" || !ok || !(ns > 0) {
				return nil, fmt.Errorf("results: %s: line %q lacks a filter, a type or a positive time", path, rec.Name.Full())
			}
			k := [2]string{filter, typ}
			values[k] = append(values[k], ns*1e9)
		}
	}
	if err := r.Err(); err != nil {
		return nil, fmt.Errorf("results: %s: %w", path, err)
	}
	for k, v := range values {
		o.times[k] = Measure{benchmath.NewSample(slices.Clone(v), &thresholds)}
	}
	return o, nil
}

// median of the times of a case in milliseconds, NaN when absent.
func (o *openCVHere) ms(filter, typ string) float64 {
	if o == nil {
		return nan()
	}
	return o.times[[2]string{filter, typ}].Center() / 1e6
}
