package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/convbench/convbench/benchmarks"
	"github.com/convbench/convbench/internal/golden"
)

// A dry run prints the estimate and the cases, runs no case (the binary
// is never started) and writes nothing under -data.
func TestDryRun(t *testing.T) {
	if _, err := gitOutput("rev-parse", "--show-toplevel"); err != nil {
		t.Skip("not in a git checkout: " + err.Error())
	}
	dir := t.TempDir()
	marker := filepath.Join(dir, "started")
	bin := filepath.Join(dir, "benchmarks.test")
	if err := os.WriteFile(bin, []byte("#!/bin/sh\ntouch '"+marker+"'\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	data := filepath.Join(dir, "data")
	var stdout, stderr strings.Builder
	code := sweepMain([]string{"-dry-run", "-bin", bin, "-variants", "cpu-naive|cpu-fast", "-sizes", "64x48,128x96", "-filters", "gauss3", "-data", data}, &stdout, &stderr)
	if code != 0 {
		t.Fatalf("exit %d\n%s", code, stderr.String())
	}
	for _, want := range []string{"4 cases, 6 lines each; estimated duration", "dry run of custom-", "nothing written"} {
		if !strings.Contains(stderr.String(), want) {
			t.Errorf("stderr lacks %q:\n%s", want, stderr.String())
		}
	}
	rows := 0
	for _, l := range strings.Split(stdout.String(), "\n") {
		if strings.HasPrefix(l, "cpu-") {
			rows++
		}
	}
	if rows != 4 || !strings.HasPrefix(stdout.String(), "4 cases, each with filter=gauss3 ") || !strings.Contains(stdout.String(), "\nvariant ") {
		t.Errorf("stdout: want the count, a heading and the 4 cases:\n%s", stdout.String())
	}
	if _, err := os.Stat(marker); err == nil {
		t.Error("the dry run started the benchmark binary")
	}
	if _, err := os.Stat(data); err == nil {
		t.Error("the dry run made the data directory")
	}
}

// listCases names each case by the keys that vary, in columns, and
// gives the keys all cases share in one line, wrapped.
func TestListCases(t *testing.T) {
	axes := benchmarks.Axes{}
	for _, f := range []struct{ name, value string }{{"variants", "cpu-naive|cpu-fast"}, {"sizes", "64x48,1920x1080"}, {"filters", "gauss3,sharpen,dense9"}, {"types", "u8"}} {
		for _, af := range benchmarks.AxisFlags() {
			if af.Name == f.name {
				if err := af.Apply(&axes, f.value); err != nil {
					t.Fatal(err)
				}
			}
		}
	}
	p, err := benchmarks.BuildSweep("", axes)
	if err != nil {
		t.Fatal(err)
	}
	ex := p.Expand(hostEnv(benchmarks.DefaultCPUCap))
	var b strings.Builder
	if err := listCases(&b, ex.Cases, 60); err != nil {
		t.Fatal(err)
	}
	for _, l := range strings.Split(b.String(), "\n") {
		if len(l) > 60 {
			t.Errorf("line of %d characters, over 60: %q", len(l), l)
		}
	}
	golden.Check(t, filepath.Join("testdata", "list-cases.golden"), []byte(b.String()))
}
