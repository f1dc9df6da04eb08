package runfile

import (
	"math"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
)

// A run file reads back as its cases under their pairing names, with
// every line's values by tidied unit, in order.
func TestReadCases(t *testing.T) {
	const cpu = "variant=cpu-fast/size=8x8/filter=box3/k=3/block=none/border=zero/type=f32/ch=1/layout=interleaved/cache=hot/timing=cpu/mem=none"
	const gpu = "variant=gpu-naive/size=8x8/filter=box3/k=3/block=16x16/border=zero/type=f32/ch=1/layout=interleaved/cache=hot/timing=kernel/mem=none"
	for _, tt := range []struct {
		name, text string
		names      []string
		values     map[string]map[string][]float64
		units      []string
		gpu        string
		err        string // in the error, or "" for none
	}{
		{
			name: "pairing names",
			text: "gpu: H100\nBenchmarkConv/" + cpu + "/opts=none 1 100 ns/op\n" +
				"BenchmarkConv/" + gpu + " 1 300 ns/op 200 gpu-ns/op\n" +
				"BenchmarkConv/" + cpu + " 1 120 ns/op 5 MPix/s\n" +
				"BenchmarkOther/x 1 7 ns/op\n",
			names: []string{"Conv/" + cpu, "Conv/" + gpu + "/opts=default", "Other/x"},
			values: map[string]map[string][]float64{
				"Conv/" + cpu:                   {"sec/op": {100e-9, 120e-9}, "MPix/s": {5}},
				"Conv/" + gpu + "/opts=default": {"sec/op": {300e-9}, "gpu-sec/op": {200e-9}},
				"Other/x":                       {"sec/op": {7e-9}},
			},
			units: []string{"sec/op", "gpu-sec/op", "MPix/s"},
			gpu:   "H100",
		},
		{name: "no result lines", text: "goos: linux\nsome text\n"},
		{name: "a case without its keys", text: "\nBenchmarkConv/variant=cpu-fast/size=8x8 1 1 ns/op\n", err: ".txt:2: runfile:"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "run.txt")
			if err := os.WriteFile(path, []byte(tt.text), 0o644); err != nil {
				t.Fatal(err)
			}
			c, err := ReadCases(path)
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("error %v, want one with %q", err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if c.Path != path || !reflect.DeepEqual(c.Names, tt.names) || !reflect.DeepEqual(c.Units, tt.units) || c.Config["gpu"] != tt.gpu {
				t.Errorf("got path %s, names %q, units %q, gpu %q", c.Path, c.Names, c.Units, c.Config["gpu"])
			}
			for name, byUnit := range tt.values {
				for unit, want := range byUnit {
					if got := c.Values[name][unit]; !slices.EqualFunc(got, want, func(a, b float64) bool { return math.Abs(a-b) <= 1e-12*b }) {
						t.Errorf("%s %s: %v, want %v", name, unit, got, want)
					}
				}
			}
			if len(c.Values) != len(tt.values) {
				t.Errorf("%d cases with values, want %d", len(c.Values), len(tt.values))
			}
		})
	}
	if _, err := ReadCases(filepath.Join(t.TempDir(), "missing.txt")); err == nil {
		t.Errorf("a missing file read without error")
	}
}
