package benchmarks

import (
	"regexp"
	"strings"
	"testing"
)

func TestSelectsBenchmark(t *testing.T) {
	for _, tt := range []struct {
		pattern string
		want    bool
	}{
		{"", false},
		{"^$", false},
		{".", true},
		{"BenchmarkConv", true},
		{"Conv/variant=gpu-fft", true},
		{"^BenchmarkConv$/size=[0-9]+/", true},
		{"BenchmarkOther", false},
		{"[/]Conv", false}, // a '/' inside brackets does not split
		{"(", false},       // invalid: the testing package reports it
		{"/variant=cpu", true},
	} {
		if got := selectsBenchmark(tt.pattern, "BenchmarkConv"); got != tt.want {
			t.Errorf("selectsBenchmark(%q, BenchmarkConv) = %v, want %v", tt.pattern, got, tt.want)
		}
	}
}

// TestBenchRuns checks the patterns against the testing package's rules
// for the names of sub-benchmarks: a level a '/' apart, alternatives at
// the top-level '|', skip only where it matches the whole name.
func TestBenchRuns(t *testing.T) {
	const (
		a = "BenchmarkConv/variant=gpu-naive/size=1024x1024/filter=gauss5"
		b = "BenchmarkConv/variant=gpu-fft/size=4096x4096/filter=dense21"
	)
	for _, tt := range []struct {
		run, skip string
		name      string
		want      bool
	}{
		{".", "", a, true},
		{"", "", a, false},
		{"^$", "", a, false},
		{"BenchmarkConv/variant=gpu-fft/", "", a, false},
		{"BenchmarkConv/variant=gpu-fft/", "", b, true},
		{"Conv/gpu-(naive|fft)/size=4096", "", a, false},
		{"Conv/gpu-(naive|fft)/size=4096", "", b, true},
		{"Conv/variant=gpu-naive/|Conv/variant=gpu-fft/size=4096", "", a, true},
		{"Conv/variant=gpu-naive/|Conv/variant=gpu-fft/size=4096", "", b, true},
		{"Conv/variant=gpu-naive/|Conv/variant=gpu-fft/size=1024", "", b, false},
		{"Conv/[/]", "", a, false}, // the '/' in brackets is a character of one level
		{`Conv/variant=gpu-naive\|x`, "", a, false},
		// Skip: a whole-name match skips; a pattern deeper than the name
		// does not, nor one that fails a level.
		{".", "^BenchmarkConv$/^variant=gpu-naive$", a, false},
		{".", "^BenchmarkConv$/^variant=gpu-naive$", b, true},
		{".", "Conv/variant=gpu-naive/size=1024x1024/filter=gauss5/k=5", a, true},
		{".", "^BenchmarkConv$/^variant=gpu-ch-loop$|^BenchmarkConv$/^variant=gpu-fft$/^size=4096x4096$", b, false},
		{".", "^BenchmarkConv$/^variant=gpu-ch-loop$|^BenchmarkConv$/^variant=gpu-fft$/^size=4096x4096$", a, true},
	} {
		run, err := parseBenchMatch(tt.run)
		if err != nil {
			t.Fatalf("-test.bench %q: %v", tt.run, err)
		}
		skip, err := parseBenchMatch(tt.skip)
		if err != nil {
			t.Fatalf("-test.skip %q: %v", tt.skip, err)
		}
		if got := benchRuns(run, skip, tt.name); got != tt.want {
			t.Errorf("-test.bench %q -test.skip %q: runs %s = %v, want %v", tt.run, tt.skip, tt.name, got, tt.want)
		}
	}
}

// TestProgressCountsSelectedCases runs this binary over a sweep of four
// cases with -test.bench and -test.skip leaving one: the progress counts
// the one it runs, not the four the sweep holds.
func TestProgressCountsSelectedCases(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the benchmark binary")
	}
	cmd := binaryWithoutGPU(t, "-test.run", "^$", "-test.cpu", "1",
		"-test.bench", "Conv/variant=cpu-naive/size=32x32/",
		"-test.skip", "Conv/variant=cpu-naive/size=32x32/filter=box5",
		"-variants", "cpu-naive", "-sizes", "32x32,48x48", "-filters", "gauss3,box5", "-test.count", "1", "-max-time=50ms")
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("%v\n%s\n%s", err, out, stderr.String())
	}
	lines := regexp.MustCompile(`(?m)^BenchmarkConv/\S+`).FindAllString(string(out), -1)
	if len(lines) != 1 || !strings.Contains(lines[0], "size=32x32/filter=gauss3/") {
		t.Errorf("benchmark lines %q, want the one of 32x32 gauss3", lines)
	}
	if !strings.Contains(stderr.String(), ": 0/1 done") || !strings.Contains(stderr.String(), ": 1/1 done") || strings.Contains(stderr.String(), "/4 done") {
		t.Errorf("progress does not count the one case selected of four:\n%s", stderr.String())
	}
}

// TestNoCaseSelected: a pattern that names none of the sweep's cases
// says so, with the form of their names, and times nothing.
func TestNoCaseSelected(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the benchmark binary")
	}
	cmd := binaryWithoutGPU(t, "-test.run", "^$", "-test.cpu", "1", "-test.bench", "Conv/variant=cpu-naive/size=1024x1024/",
		"-variants", "cpu-naive", "-sizes", "32x32", "-filters", "gauss3", "-test.count", "1", "-max-time=50ms")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	want := `[benchmarks] -test.bench "Conv/variant=cpu-naive/size=1024x1024/" and -test.skip "" select none of the sweep's 1 cases, named as BenchmarkConv/variant=cpu-naive/size=32x32/filter=gauss3/`
	if !strings.Contains(string(out), want) {
		t.Errorf("output lacks %q:\n%s", want, out)
	}
	if regexp.MustCompile(`(?m)^BenchmarkConv/\S+\s+\d`).Match(out) {
		t.Errorf("a case was timed:\n%s", out)
	}
}
