package benchmarks

import (
	"strings"
	"testing"
	"time"
)

func TestRemaining(t *testing.T) {
	tests := []struct {
		done, total int
		elapsed     time.Duration
		want        string
	}{
		{0, 10, time.Minute, "time left unknown"},
		{5, 10, time.Minute, "about 1m0s left"},
		{1, 4, 10 * time.Second, "about 30s left"},
		{3, 4, 1500 * time.Millisecond, "about 500ms left"},
		{4, 4, time.Hour, "finished"},
	}
	for _, tt := range tests {
		if got := remaining(tt.done, tt.total, tt.elapsed); got != tt.want {
			t.Errorf("remaining(%d, %d, %v) = %q, want %q", tt.done, tt.total, tt.elapsed, got, tt.want)
		}
	}
}

func TestProgress(t *testing.T) {
	var sb strings.Builder
	t0 := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	p := newProgress(&sb, "demo", 3, t0)
	p.Start("a", t0)
	p.Start("a", t0.Add(time.Second)) // testing calls the same case again
	p.Start("b", t0.Add(10*time.Second))
	p.Start("c", t0.Add(20*time.Second))
	p.Finish(t0.Add(30 * time.Second))
	want := []string{
		"sweep demo: 0/3 done, 0s elapsed, time left unknown a",
		"sweep demo: 1/3 done, 10s elapsed, about 20s left b",
		"sweep demo: 2/3 done, 20s elapsed, about 10s left c",
		"sweep demo: 3/3 done, 30s elapsed, finished",
	}
	got := strings.Split(strings.TrimSpace(sb.String()), "\n")
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("progress lines:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if p.Done() != 3 {
		t.Errorf("Done() = %d, want 3", p.Done())
	}
}

func nowForTest() time.Time { return time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC) }

// Every line Progress prints parses back into its parts; other lines do
// not parse.
func TestParseProgressLine(t *testing.T) {
	for _, l := range []ProgressLine{
		{Sweep: "demo", Done: 0, Total: 3, Elapsed: 0, Left: "time left unknown", Case: "variant=cpu-fast/size=64x48"},
		{Sweep: "default-custom", Done: 12, Total: 40, Elapsed: 62 * time.Second, Left: "about 3m6s left", Case: "variant=a"},
		{Sweep: "demo", Done: 3, Total: 3, Elapsed: 30 * time.Second, Left: "finished"},
	} {
		got, ok := ParseProgressLine(l.String())
		if !ok || got != l {
			t.Errorf("ParseProgressLine(%q) = %+v, %v; want %+v", l.String(), got, ok, l)
		}
	}
	for _, s := range []string{"", "sweep: wrote x.txt", "sweep demo: 1/x done, 1s elapsed, finished", "[benchmarks] no GPU"} {
		if l, ok := ParseProgressLine(s); ok {
			t.Errorf("ParseProgressLine(%q) = %+v, want no line", s, l)
		}
	}
}

// A progress line names its case by the keys that vary across the
// sweep's cases, not by its whole name.
func TestCaseLabels(t *testing.T) {
	const rest = "/block=none/border=zero/type=f32/ch=1/layout=interleaved/cache=hot/timing=cpu/mem=none"
	names := []string{
		"variant=cpu-fast/size=64x48/filter=gauss3/k=3" + rest,
		"variant=cpu-fast/size=64x48/filter=dense5/k=5" + rest,
		"variant=cpu-naive/size=64x48/filter=gauss3/k=3" + rest,
		"variant=cpu-naive/size=64x48/filter=dense5/k=5" + rest,
	}
	label := CaseLabels(names)
	for _, tt := range []struct{ name, want string }{
		{names[0], "cpu-fast filter=gauss3"},
		{names[3], "cpu-naive filter=dense5"},
		{"variant=other/size=1x1", "variant=other/size=1x1"},
	} {
		if got := label(tt.name); got != tt.want {
			t.Errorf("label(%q) = %q, want %q", tt.name, got, tt.want)
		}
	}
	// One case: its variant.
	if got := CaseLabels(names[:1])(names[0]); got != "cpu-fast" {
		t.Errorf("the label of a sweep's only case = %q, want its variant", got)
	}
	// k stays where a filter has more than one.
	two := []string{"variant=a/filter=sobel-mag/k=3", "variant=a/filter=sobel-mag/k=5"}
	if got := CaseLabels(two)(two[1]); got != "a k=5" {
		t.Errorf("label = %q, want \"a k=5\"", got)
	}
}
