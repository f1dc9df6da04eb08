package benchmarks

import (
	"bytes"
	"math"
	"os"
	"os/exec"
	"strings"
	"testing"

	"golang.org/x/perf/benchfmt"
)

// A benchmark run with stdout and stderr merged, as scripts keep it, holds
// every result line whole: one sample set per line, carrying its spread
// and sample count, with the progress notes of each line beside them. A
// -test.benchtime given on the command line is replaced by 1x, and said so.
func TestRunLinesAndNotes(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the benchmark binary (about a second)")
	}
	exe, err := os.Executable()
	if err != nil {
		t.Skip("cannot find the test binary: " + err.Error())
	}
	cmd := exec.Command(exe, "-test.run", "^$", "-test.bench", "^BenchmarkConv$/^variant=cpu-fast$/^size=512x512$/^filter=gauss5$",
		"-test.cpu", "1", "-test.count", "3", "-test.benchtime", "50ms", "-sweep=default", "-max-time=1s")
	cmd.Env = append(os.Environ(), "CONVBENCH_LIBCUDA=/nonexistent/libcuda.so.1")
	var merged bytes.Buffer
	cmd.Stdout, cmd.Stderr = &merged, &merged
	if err := cmd.Run(); err != nil {
		t.Fatalf("%v\n%s", err, merged.String())
	}
	out := merged.String()
	r := benchfmt.NewReader(strings.NewReader(out), "merged")
	lines := 0
	for r.Scan() {
		switch rec := r.Result().(type) {
		case *benchfmt.SyntaxError:
			t.Errorf("%v", rec)
		case *benchfmt.Result:
			lines++
			if rec.Iters != 1 {
				t.Errorf("line %d: %d iterations, want 1 call per line", lines, rec.Iters)
			}
			n, ok1 := rec.Value("samples")
			spread, ok2 := rec.Value("median-ci95-%")
			ns, ok3 := rec.Value("sec/op")
			if !ok1 || !ok2 || !ok3 || n < MinCISamples || n != math.Trunc(n) || !(spread >= 0) || math.IsInf(spread, 0) || !(ns > 0) {
				t.Errorf("line %d: samples %v (%v), median-ci95-%% %v (%v), sec/op %v (%v)", lines, n, ok1, spread, ok2, ns, ok3)
			}
			if _, ok := rec.Value("throttled-samples"); ok {
				t.Errorf("line %d: a CPU case reports throttled-samples", lines)
			}
		}
	}
	if lines != 3 {
		t.Errorf("%d result lines, want 3:\n%s", lines, out)
	}
	for _, want := range []string{
		"[benchmarks] -test.benchtime=50ms replaced by 1x",
		"noise: median-ci95 <= 1% (of 50µs for medians below it), at least 10 samples, at most 1s per line",
		"clock-guard: off (no GPU)",
		"  line 1: ", "  line 2: ", "  line 3: ",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
}
