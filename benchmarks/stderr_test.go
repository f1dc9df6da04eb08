package benchmarks

import (
	"bytes"
	"strings"
	"testing"

	"golang.org/x/perf/benchfmt"
)

// What the sweep writes on stderr must not read as benchfmt configuration
// when the two streams are merged, or every later result would carry it.
func TestStderrIsNotConfiguration(t *testing.T) {
	saved := bench
	defer func() { bench = saved }()
	var stdout, stderr bytes.Buffer
	if err := setupBench(&stdout, &stderr); err != nil {
		t.Fatal(err)
	}
	p := bench.runner.Progress
	p.Start(bench.cases[0].Name(), p.start)
	p.Finish(p.start)
	if stderr.Len() == 0 {
		t.Fatal("setupBench wrote nothing on stderr")
	}
	in := stderr.String() + "BenchmarkProbe 1 1 ns/op\n"
	r := benchfmt.NewReader(strings.NewReader(in), "stderr")
	for r.Scan() {
		res, ok := r.Result().(*benchfmt.Result)
		if !ok {
			continue
		}
		for _, c := range res.Config {
			t.Errorf("stderr line reads as configuration %q: %q", c.Key, c.Value)
		}
	}
	t.Logf("stderr:\n%s", stderr.String())
}
