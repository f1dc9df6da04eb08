package main

import (
	"bytes"
	"strings"
	"testing"

	"github.com/convbench/convbench/cudabind"
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
}

func TestRunWithoutGPU(t *testing.T) {
	if _, err := cudabind.Default(); err == nil {
		t.Skip("a GPU is present: this test checks the error without one")
	}
	var out, errb bytes.Buffer
	if rc := run([]string{"-k", "3", "-out", t.TempDir()}, &out, &errb); rc != 1 || !strings.Contains(errb.String(), "needs a GPU") {
		t.Errorf("run without a GPU: rc %d, stderr %q", rc, errb.String())
	}
}
