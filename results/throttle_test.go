package results

import (
	"slices"
	"strings"
	"testing"
)

// freshRun is a run whose lines carry the clock guard's and the noise
// target's metrics, as fresh benchmark output does.
const freshRun = `# commit 0123456789abcdef, gpu: Test GPU
sweep: default
gpu: Test GPU
BenchmarkConv/variant=gpu-naive/size=1024x1024/filter=gauss5/k=5/block=16x16/border=zero/type=f32/ch=1/layout=interleaved/cache=hot/timing=kernel/mem=none/opts=default 1000 9000 ns/op 8000 gpu-ns/op 0.8 median-ci95-% 40 samples 2 throttled-samples 0 throttled-kept
BenchmarkConv/variant=gpu-naive/size=1024x1024/filter=gauss5/k=5/block=16x16/border=zero/type=f32/ch=1/layout=interleaved/cache=hot/timing=kernel/mem=none/opts=default 1000 9100 ns/op 8100 gpu-ns/op 0.6 median-ci95-% 40 samples 3 throttled-samples 1 throttled-kept
BenchmarkConv/variant=gpu-shared/size=1024x1024/filter=gauss5/k=5/block=16x16/border=zero/type=f32/ch=1/layout=interleaved/cache=hot/timing=kernel/mem=none/opts=default 1000 7000 ns/op 6000 gpu-ns/op 0.5 median-ci95-% 40 samples 0 throttled-samples 0 throttled-kept
BenchmarkConv/variant=cpu-naive/size=1024x1024/filter=gauss5/k=5/block=none/border=zero/type=f32/ch=1/layout=interleaved/cache=hot/timing=cpu/mem=none 10 9000000 ns/op 1.5 median-ci95-% 10 samples
`

// oldRun is a run stored before those metrics existed.
const oldRun = `# commit 89abcdef01234567, gpu: Test GPU
sweep: 000
gpu: Test GPU
BenchmarkConv/variant=gpu-naive/size=1024x1024/filter=gauss5/k=5/block=16x16/border=zero/type=f32/ch=1/layout=interleaved/cache=hot/timing=kernel/mem=none/opts=default 1000 9000 ns/op 8000 gpu-ns/op
`

func readRun(t *testing.T, text, path string) *Run {
	t.Helper()
	r, err := ReadRun(strings.NewReader(text), path)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// The report counts the throttled samples per case and per run where a
// run records them, and leaves the columns out where none does.
func TestThrottledSamples(t *testing.T) {
	fresh := readRun(t, freshRun, "data/test-gpu/default.txt")
	old := readRun(t, oldRun, "data/test-gpu/000.txt")
	if d, k, ok := fresh.Throttled(); !ok || d != 5 || k != 1 {
		t.Errorf("fresh Throttled() = %d, %d, %v; want 5, 1, true", d, k, ok)
	}
	if _, _, ok := old.Throttled(); ok {
		t.Errorf("old run: Throttled says recorded")
	}

	sum := Summary(fresh, "")
	col := slices.Index(sum.Header, "throttled samples")
	noise := slices.Index(sum.Header, "median spread")
	if col < 0 || noise < 0 {
		t.Fatalf("summary header %q lacks the throttled and spread columns", sum.Header)
	}
	cells := map[string][2]string{}
	for _, row := range sum.Rows {
		cells[row[0]] = [2]string{row[noise], row[col]}
	}
	want := map[string][2]string{
		"gpu-naive":  {"0.70%", "5+1 kept"},
		"gpu-shared": {"0.50%", "0"},
		"cpu-naive":  {"1.5%", missing},
	}
	for v, w := range want {
		if cells[v] != w {
			t.Errorf("summary %s: spread, throttled = %q, want %q", v, cells[v], w)
		}
	}
	if h := Summary(old, "").Header; slices.Contains(h, "throttled samples") || slices.Contains(h, "median spread") {
		t.Errorf("summary of a run without the metrics has their columns: %q", h)
	}

	hosts := GroupHosts([]*Run{old, fresh})
	sec := sectionSpread(hosts)
	tb := sec.Tables[0]
	dcol := slices.Index(tb.Header, "Throttled samples discarded")
	if dcol < 0 {
		t.Fatalf("spread header %q lacks the throttled columns", tb.Header)
	}
	got := map[string][]string{}
	for _, row := range tb.Rows {
		got[row[0]] = row[dcol:]
	}
	if !slices.Equal(got["default"], []string{"5", "1"}) || !slices.Equal(got["000"], []string{missing, missing}) {
		t.Errorf("spread throttled cells %q", got)
	}
	md := string((&Report{Hosts: hosts, Sections: sections(hosts)}).Markdown())
	if !strings.Contains(md, "`default`: 3 cases at 0123456, 5 throttled samples discarded and taken again (1 kept)") {
		t.Errorf("hosts list lacks the run's throttled count:\n%s", md[:min(len(md), 2000)])
	}

	// Without any run that records them, no throttled column anywhere.
	oldHosts := GroupHosts([]*Run{old})
	if h := sectionSpread(oldHosts).Tables[0].Header; slices.Contains(h, "Throttled samples discarded") {
		t.Errorf("spread of old runs has throttled columns: %q", h)
	}
}

// A run's caveats count its throttled samples, where its lines record
// them, and the cases that failed their gate.
func TestCaveats(t *testing.T) {
	fresh := readRun(t, freshRun, "data/test-gpu/default.txt")
	if got, want := fresh.Caveats(), ", 5 throttled samples discarded and taken again (1 kept)"; got != want {
		t.Errorf("fresh run's caveats %q, want %q", got, want)
	}
	old := readRun(t, oldRun+"--- FAIL: BenchmarkConv/variant=gpu-naive\n", "data/test-gpu/000.txt")
	if got, want := old.Caveats(), ", 1 failed their correctness gate"; got != want {
		t.Errorf("old run's caveats %q, want %q", got, want)
	}
	if got := readRun(t, oldRun, "data/test-gpu/000.txt").Caveats(); got != "" {
		t.Errorf("old run's caveats %q, want none", got)
	}
}

// A host's setup is its first run's host keys, in their order.
func TestSetup(t *testing.T) {
	h := &Host{Runs: []*Run{{Config: map[string]string{"cpu": "Test CPU", "gpu-sms": "132", "sweep": "default"}}, {Config: map[string]string{"driver": "1"}}}}
	if got, want := h.Setup(), [][2]string{{"gpu-sms", "132"}, {"cpu", "Test CPU"}}; !slices.Equal(got, want) {
		t.Errorf("Setup = %v, want %v", got, want)
	}
	if got := (&Host{}).Setup(); got != nil {
		t.Errorf("Setup of a host without runs = %v, want nil", got)
	}
}
