package main

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/convbench/convbench/convolve"
	"github.com/convbench/convbench/cudabind"
	"github.com/convbench/convbench/tables/tuning"
	"github.com/convbench/convbench/tune"
)

func TestParse(t *testing.T) {
	_, jobs, err := parse([]string{"-variants", "gpu-regtile,gpu-tiled", "-k", "3,21", "-sizes", "large,huge"}, &bytes.Buffer{})
	if err != nil {
		t.Fatal(err)
	}
	if len(jobs) != 8 {
		t.Errorf("%d jobs, want 2 variants x 2 K x 2 sizes = 8", len(jobs))
	}
	bad := map[string][]string{
		"no space":     {"-variants", "gpu-naive"},
		"unknown":      {"-variants", "gpu-nothing"},
		"even k":       {"-k", "4"},
		"bad size":     {"-sizes", "tiny"},
		"bad type":     {"-types", "f64"},
		"zero budget":  {"-budget", "0"},
		"nothing":      {"-k", ""},
		"stray args":   {"extra"},
		"unknown flag": {"-nope"},
	}
	for name, args := range bad {
		if _, _, err := parse(args, &bytes.Buffer{}); err == nil {
			t.Errorf("%s: parse(%q) = nil error", name, args)
		}
	}
	// The errors of the flags' values: one line, naming the value.
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"-case-timeout", "0s"}, "-case-timeout 0s: want a positive duration"},
		{[]string{"-case-timeout", "-1m"}, "-case-timeout -1m0s: want a positive duration"},
		{[]string{"-budget", "0"}, "-budget 0: want 1 or more"},
		{[]string{"-k", "3,4"}, `-k "3,4": "4" is not an odd positive filter side`},
		{[]string{"-k", ""}, "nothing to tune: -variants, -k, -sizes and -types must each name one at least"},
		{[]string{"-time", "-5s"}, "-time -5s: want a positive duration (0: none)"},
		{[]string{"-verify", "-1"}, "-verify -1: want 1 or more (0: the default, 3)"},
		{[]string{"-samples", "-2"}, "-samples -2: want 1 or more (0: the default, 7)"},
		{[]string{"-setting", "rx=2"}, `-setting "rx=2": the other flags select 15 variants and classes, want one (a single -variants, -types, -k and -sizes)`},
		{[]string{"-variants", "gpu-regtile", "-k", "3", "-setting", "block=3x"}, `-setting "block=3x": convolve: block "3x": want WxH such as 32x8`},
		{[]string{"-variants", "gpu-regtile", "-k", "3", "-setting", "zz=1"}, `-setting "zz=1": gpu-regtile has no tunable "zz" (its tunables: `},
	} {
		_, _, err := parse(tt.args, &bytes.Buffer{})
		if err == nil || !strings.HasPrefix(err.Error(), tt.want) || strings.Contains(err.Error(), "\n") {
			t.Errorf("parse(%q) = %v, want one line starting %q", tt.args, err, tt.want)
		}
	}
}

func TestRunWithoutGPU(t *testing.T) {
	if _, err := cudabind.Default(); err == nil {
		t.Skip("a GPU is present: this test checks the error without one")
	}
	var out, errb bytes.Buffer
	if rc := run([]string{"-k", "3", "-out", t.TempDir()}, strings.NewReader(""), &out, &errb); rc != 1 || !strings.Contains(errb.String(), "needs a GPU") {
		t.Errorf("run without a GPU: rc %d, stderr %q", rc, errb.String())
	}
}

// kVariant declares a tuning space whose default block width is the
// filter size, so that each K class has its own default.
type kVariant struct{ name string }

func (v kVariant) Describe() convolve.Description {
	return convolve.Description{Name: v.name, Caps: convolve.Capabilities{Space: &convolve.TuningSpace{
		Default: func(p convolve.Problem, _ convolve.Block, _ convolve.DeviceLimits) convolve.Setting {
			return convolve.Setting{Block: convolve.Block{X: p.Filter.Width, Y: 1}}
		},
	}}}
}

func (kVariant) Plan(convolve.Problem, convolve.Config) (convolve.Plan, error) { return nil, nil }

// A class's search is seeded with the defaults of the same variant's
// other K classes of its type and size, and of no other job.
func TestOtherDefaults(t *testing.T) {
	a, b := kVariant{"a"}, kVariant{"b"}
	class := func(k int, size convolve.SizeClass) tune.Class {
		return tune.Class{Type: convolve.Float32, K: k, Size: size}
	}
	jobs := []job{
		{a, class(3, convolve.SizeLarge)}, {a, class(7, convolve.SizeLarge)}, {a, class(11, convolve.SizeLarge)},
		{a, class(5, convolve.SizeSmall)}, {b, class(9, convolve.SizeLarge)},
	}
	var got []int
	for _, st := range otherDefaults(jobs[1], jobs, convolve.DeviceLimits{}) {
		got = append(got, st.Block.X)
	}
	if want := []int{3, 11}; !slices.Equal(got, want) {
		t.Errorf("seeds of a k=7 large: block widths %v, want %v", got, want)
	}
}

// The stored choices are the chosen settings of the table the run merges
// into, by entry key; with no table there are none.
func TestStoredChoices(t *testing.T) {
	dir := t.TempDir()
	if got := storedChoices(dir, "Test GPU"); len(got) != 0 {
		t.Errorf("no table: %v, want none", got)
	}
	e := tuning.Entry{Variant: "gpu-sepfused", Type: "f32", K: 31, Size: convolve.SizeLarge,
		Chosen:  tuning.Candidate{Block: "32x16", Tunables: map[string]int{"rxr": 8, "ry": 4}, Status: tuning.OK, MedianNS: 75000, VsDefault: 0.9},
		Default: tuning.Candidate{Block: "32x8", Tunables: map[string]int{"ry": 8}, Status: tuning.OK, MedianNS: 83000, VsDefault: 1}}
	if _, err := tune.Save(dir, "Test GPU", []tuning.Entry{e}); err != nil {
		t.Fatal(err)
	}
	got := storedChoices(dir, "Test GPU")
	want := convolve.Setting{Block: convolve.Block{X: 32, Y: 16}, Tunables: map[string]int{"rxr": 8, "ry": 4}}
	if len(got) != 1 || !got[e.Key()].Equal(want) {
		t.Errorf("stored choices %v, want %s: %v", got, e.Key(), want)
	}
}

// The default -out, read from the repository root as docs/tuning-and-auto.md runs the
// command, is the directory whose tables every plan reads: the stored
// choices the tuner starts from are the committed table's.
func TestDefaultOutIsTheEmbeddedTables(t *testing.T) {
	o, _, err := parse(nil, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	root := filepath.Join("..", "..", "..")
	files, _ := filepath.Glob(filepath.Join(root, o.out, "*.json"))
	if len(files) == 0 {
		t.Fatalf("-out %s holds no tables under the repository root", o.out)
	}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		tb, err := tuning.Parse(b)
		if err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		if got := storedChoices(filepath.Join(root, o.out), tb.GPUName()); len(got) == 0 {
			t.Errorf("%s: the tuner finds no stored choice for %s under its default -out", f, tb.GPUName())
		}
	}
}

// -h prints the flags and succeeds; an unknown flag is a usage error.
func TestHelpExitStatus(t *testing.T) {
	for _, tt := range []struct {
		args []string
		want int
	}{
		{[]string{"-h"}, 0},
		{[]string{"-bogus"}, 2},
	} {
		var stderr strings.Builder
		if got := run(tt.args, strings.NewReader(""), io.Discard, &stderr); got != tt.want {
			t.Errorf("tune %v: exit status %d, want %d; stderr:\n%s", tt.args, got, tt.want, stderr.String())
		}
		if !strings.Contains(stderr.String(), "-case-timeout") {
			t.Errorf("tune %v: stderr lacks the flags:\n%s", tt.args, stderr.String())
		}
	}
}
