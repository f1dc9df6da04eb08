package main

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/convbench/convbench/internal/golden"
	"github.com/convbench/convbench/runfile"
)

// TestMain runs the command itself when the tests start their own
// binary with COMPARE_RUN_MAIN=1, so that TestExit sees its exit status.
func TestMain(m *testing.M) {
	if os.Getenv("COMPARE_RUN_MAIN") == "1" {
		main()
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// The files under testdata are cases of two committed runs of the default
// sweep (results/data/nvidia-h100-80gb-hbm3/default.txt as old.txt,
// results/data/nvidia-h200/default.txt as new.txt), five runs a case, with
// the CPU cases of old.txt named as runs before this form were
// (opts=none). Each file has a case the other lacks.
func TestGolden(t *testing.T) {
	for _, tt := range []struct {
		golden string
		args   []string
	}{
		{"default", []string{"testdata/old.txt", "testdata/new.txt"}},
		{"all", []string{"-all", "testdata/old.txt", "testdata/new.txt"}},
		{"three", []string{"testdata/old.txt", "testdata/new.txt", "testdata/old.txt"}},
	} {
		t.Run(tt.golden, func(t *testing.T) {
			var out bytes.Buffer
			if err := run(tt.args, &out); err != nil {
				t.Fatal(err)
			}
			checkGolden(t, tt.golden, out.Bytes())
		})
	}
}

// -col compares within one run, a column per value of a key of the
// cases' names, against the reference variant where the run has it, the
// column -baseline names, or the slowest. testdata/cpu.txt is a CPU run
// of cpu-naive and cpu-fast on four problems, with the reference on one
// of them, six runs a case.
func TestGoldenColumns(t *testing.T) {
	for _, tt := range []struct {
		golden string
		args   []string
	}{
		{"col-reference", []string{"-col", "variant", "testdata/cpu.txt"}},
		{"col-baseline", []string{"-col", "/variant", "-baseline", "cpu-naive", "testdata/cpu.txt"}},
		{"col-size", []string{"-col", "size", "testdata/cpu.txt"}},
	} {
		t.Run(tt.golden, func(t *testing.T) {
			var out bytes.Buffer
			if err := run(tt.args, &out); err != nil {
				t.Fatal(err)
			}
			checkGolden(t, tt.golden, out.Bytes())
			for _, l := range strings.Split(out.String(), "\n") {
				if n := width(l); n > maxWidth {
					t.Errorf("line of %d columns, want at most %d: %q", n, maxWidth, l)
				}
			}
		})
	}
}

// With -col and no -baseline the base is the reference variant, else
// the column whose cases are slowest.
func TestColumnBase(t *testing.T) {
	files := readTestFiles(t, "testdata/cpu.txt")
	for _, tt := range []struct {
		key, base, want string
	}{
		{"variant", "", "reference"},
		{"size", "", "128x96"},
		{"variant", "cpu-fast", "cpu-fast"},
	} {
		cols, err := byKey(files, tt.key, tt.base)
		if err != nil {
			t.Fatal(err)
		}
		if cols[0].label != tt.want {
			t.Errorf("-col %s -baseline %q: base %s, want %s", tt.key, tt.base, cols[0].label, tt.want)
		}
	}
	two := []*file{{Cases: runfile.Cases{Path: "x.txt"}}}
	two[0].Add("Conv/variant=a/size=1x1", "sec/op", 1, 2)
	two[0].Add("Conv/variant=b/size=1x1", "sec/op", 3, 4)
	if cols, err := byKey(two, "variant", ""); err != nil || cols[0].label != "b" {
		t.Errorf("byKey without a reference: %v, want b, the slower, first", err)
	}
}

// A narrow table moves keys from its columns to group lines.
func TestGoldenNarrow(t *testing.T) {
	files := readTestFiles(t, "testdata/old.txt", "testdata/new.txt")
	c, err := newComparison(files, false, "")
	if err != nil {
		t.Fatal(err)
	}
	c.width = 90
	var out bytes.Buffer
	if err := c.write(&out); err != nil {
		t.Fatal(err)
	}
	checkGolden(t, "narrow", out.Bytes())
}

func readTestFiles(t *testing.T, paths ...string) []*file {
	t.Helper()
	var files []*file
	for _, p := range paths {
		f, err := readFile(p)
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, f)
	}
	labelFiles(files)
	return files
}

// checkGolden compares got with testdata/NAME.golden (golden.Check).
func checkGolden(t *testing.T, name string, got []byte) {
	t.Helper()
	golden.Check(t, filepath.Join("testdata", name+".golden"), got)
}

// Two default runs compare with finite intervals and called changes, in
// 120 columns, of time metrics only, saying the level and the test.
func TestDefaultRuns(t *testing.T) {
	var out bytes.Buffer
	if err := run([]string{"testdata/old.txt", "testdata/new.txt"}, &out); err != nil {
		t.Fatal(err)
	}
	s := out.String()
	for _, l := range strings.Split(s, "\n") {
		if len(l) > maxWidth {
			t.Errorf("line of %d bytes, want at most %d: %q", len(l), maxWidth, l)
		}
	}
	for _, want := range []string{"90% confidence interval", "93.75% confidence", "Mann-Whitney U", "p=0.008", "gpu-sec/op", "total-sec/op"} {
		if !strings.Contains(s, want) {
			t.Errorf("output lacks %q:\n%s", want, s)
		}
	}
	for _, unwanted := range []string{"∞", "median-ci95-%", "samples\n", "GB/s"} {
		if strings.Contains(s, unwanted) {
			t.Errorf("output has %q:\n%s", unwanted, s)
		}
	}
	// The CPU case named with opts=none in old.txt pairs with new.txt's.
	if !strings.Contains(s, "cpu-fast") {
		t.Errorf("the CPU case did not pair:\n%s", s)
	}
}

func TestErrors(t *testing.T) {
	dir := t.TempDir()
	empty := filepath.Join(dir, "empty.txt")
	if err := os.WriteFile(empty, []byte("goos: linux\nsome text\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	other := filepath.Join(dir, "other.txt")
	if err := os.WriteFile(other, []byte("BenchmarkOther 1 100 ns/op\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	badName := filepath.Join(dir, "bad.txt")
	if err := os.WriteFile(badName, []byte("BenchmarkConv/variant=cpu-fast/size=8x8 1 1 ns/op\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	missing := filepath.Join(dir, "missing.txt")
	for _, tt := range []struct {
		name string
		args []string
		want []string // in the error
	}{
		{"no files", nil, []string{"got 0 files", "usage"}},
		{"one file", []string{"testdata/old.txt"}, []string{"got 1 files", "-col", "usage"}},
		{"-col without files", []string{"-col", "variant"}, []string{"no file", "usage"}},
		{"-baseline without -col", []string{"-baseline", "cpu-naive", "testdata/cpu.txt"}, []string{"-baseline cpu-naive", "-col"}},
		{"-col of no key", []string{"-col", "colour", "testdata/cpu.txt"}, []string{"testdata/cpu.txt", "no key colour"}},
		{"-baseline of no column", []string{"-col", "variant", "-baseline", "cpu-nave", "testdata/cpu.txt"}, []string{"-baseline cpu-nave", "the files have cpu-naive, cpu-fast, reference"}},
		{"-col of a key every case shares", []string{"-col", "type", "testdata/cpu.txt"}, []string{"-col type", "type=f32"}},
		{"unknown flag", []string{"-x", "testdata/old.txt", "testdata/new.txt"}, []string{"-x", "usage"}},
		{"missing file", []string{"testdata/old.txt", missing}, []string{missing}},
		{"no benchmark lines", []string{empty, "testdata/new.txt"}, []string{empty, "no benchmark results"}},
		{"no case in common", []string{"testdata/old.txt", other}, []string{"testdata/old.txt", other, "no case in common"}},
		{"a name without its keys", []string{badName, "testdata/new.txt"}, []string{badName + ":1"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var out bytes.Buffer
			err := run(tt.args, &out)
			if err == nil {
				t.Fatalf("no error; output:\n%s", out.String())
			}
			for _, w := range tt.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q lacks %q", err, w)
				}
			}
			if strings.Contains(err.Error(), "\n") {
				t.Errorf("error %q: want one line", err)
			}
		})
	}
}

// The command exits with status 2 and one line on standard error.
func TestExit(t *testing.T) {
	cmd := exec.Command(os.Args[0], "testdata/old.txt", filepath.Join(t.TempDir(), "missing.txt"))
	cmd.Env = append(os.Environ(), "COMPARE_RUN_MAIN=1")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	err := cmd.Run()
	var exit *exec.ExitError
	if !errors.As(err, &exit) || exit.ExitCode() != 2 {
		t.Fatalf("exit: %v, want status 2", err)
	}
	if s := stderr.String(); !strings.HasPrefix(s, "compare: ") || strings.Count(s, "\n") != 1 || !strings.Contains(s, "missing.txt") {
		t.Errorf("stderr %q: want one line naming missing.txt", s)
	}
}

func TestNotes(t *testing.T) {
	for _, tt := range []struct {
		note string
		want []string
	}{
		{levelNote(0.90, []int{5}), []string{"90% confidence interval", "95%, needs 6 runs", "With 5 runs the interval is their range, of 93.75% confidence."}},
		{levelNote(0.90, []int{3, 10}), []string{"With 3 runs there is none (±∞): 5 are needed.", "With 10 runs it spans the 2nd to the 8th smallest, of 93.46% confidence."}},
		{testNote("old", []int{5}), []string{"vs old:", "p <= 0.05", "5 runs against 5 reach p = 0.008 at best."}},
		{testNote("A", []int{3}), []string{"3 runs against 3 reach p = 0.100 at best, never a change."}},
	} {
		for _, w := range tt.want {
			if !strings.Contains(tt.note, w) {
				t.Errorf("note %q lacks %q", tt.note, w)
			}
		}
	}
}

func TestIsTime(t *testing.T) {
	for unit, want := range map[string]bool{
		"sec/op": true, "gpu-sec/op": true, "total-sec/op": true, "copy-bound-sec/op": true,
		"B/s": false, "MPix/s": false, "median-ci95-%": false, "samples": false, "secs": false,
	} {
		if got := isTime(unit); got != want {
			t.Errorf("isTime(%q) = %v, want %v", unit, got, want)
		}
	}
}

func TestCaseKeys(t *testing.T) {
	const conv = "Conv/variant=gpu-naive/size=8x8/filter=box3/k=3/block=default/border=zero/type=f32/ch=1/layout=interleaved/cache=hot/timing=kernel/mem=none/opts=default"
	for _, tt := range []struct {
		name string
		want string
	}{
		{conv, "benchmark=Conv variant=gpu-naive size=8x8 filter=box3 k=3 block=default border=zero type=f32 ch=1 layout=interleaved cache=hot timing=kernel mem=none opts=default tune=default gpus=default"},
		{conv + "/tune=opt=1-4", "benchmark=Conv variant=gpu-naive size=8x8 filter=box3 k=3 block=default border=zero type=f32 ch=1 layout=interleaved cache=hot timing=kernel mem=none opts=default tune=opt=1 gpus=default procs=4"},
		{"Copy/bytes=1024/pinned-8", "benchmark=Copy bytes=1024 part2=pinned procs=8"},
	} {
		if got := joinKeys(caseKeys(tt.name)); got != tt.want {
			t.Errorf("caseKeys(%q) = %s\nwant %s", tt.name, got, tt.want)
		}
	}
}

func TestSpellsOut(t *testing.T) {
	rows := func(pairs ...string) []*row {
		var rs []*row
		for i := 0; i < len(pairs); i += 2 {
			rs = append(rs, &row{keys: []keyValue{{"filter", pairs[i]}, {"k", pairs[i+1]}}})
		}
		return rs
	}
	for _, tt := range []struct {
		rows []*row
		want bool
	}{
		{rows("gauss5", "5", "box11", "11"), true},
		{rows("gauss5", "5", "sobel-mag", "3"), false},
		{rows("gauss15", "5"), false},
		{rows("5", "5"), false},
	} {
		if got := spellsOut(tt.rows, "filter", "k"); got != tt.want {
			t.Errorf("spellsOut(%s) = %v, want %v", joinKeys(append(tt.rows[0].keys, tt.rows[len(tt.rows)-1].keys...)), got, tt.want)
		}
	}
}

func TestWrap(t *testing.T) {
	for _, tt := range []struct {
		text  string
		width int
		want  []string
	}{
		{"a bb ccc", 4, []string{"a bb", "ccc"}},
		{"a bb ccc", 8, []string{"a bb ccc"}},
		{"abcdef g", 3, []string{"abcdef", "g"}},
		{"", 3, nil},
	} {
		if got := wrap(tt.text, tt.width); strings.Join(got, "|") != strings.Join(tt.want, "|") {
			t.Errorf("wrap(%q, %d) = %q, want %q", tt.text, tt.width, got, tt.want)
		}
	}
}
