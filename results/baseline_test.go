package results

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/convbench/convbench/internal/golden"
)

// readSummaryRun reads the run of testdata/summary/NAME.txt.
func readSummaryRun(t *testing.T, name string) *Run {
	t.Helper()
	path := filepath.Join("testdata", "summary", name+".bench")
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	r, err := ReadRun(f, "data/cpu-amd-epyc-test-processor/"+name+".txt")
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// The summary a sweep prints on the terminal: which variant wins by how
// much (the speed-up column), the keys every case shares in the
// caption, the host's name without its padding, and every line within
// TerminalWidth columns. testdata/summary/cpu.bench has two problems whose
// slowest variant is cpu-naive and one the reference variant holds.
func TestSummaryGolden(t *testing.T) {
	for _, tt := range []struct {
		golden, baseline string
	}{
		{"cpu", ""},
		{"cpu-baseline-fast", "cpu-fast"},
	} {
		t.Run(tt.golden, func(t *testing.T) {
			r := readSummaryRun(t, "cpu")
			var out bytes.Buffer
			if err := Summary(r, tt.baseline).RenderTerminal(&out); err != nil {
				t.Fatal(err)
			}
			golden.Check(t, filepath.Join("testdata", "summary", tt.golden+".golden"), out.Bytes())
			for i, l := range strings.Split(out.String(), "\n") {
				if n := utf8.RuneCountInString(l); n > TerminalWidth {
					t.Errorf("line %d is %d columns wide, over %d: %s", i+1, n, TerminalWidth, l)
				}
			}
			if !strings.HasPrefix(out.String(), "cpu on AMD EPYC Test Processor (no GPU)\n") {
				t.Errorf("title %q, want the CPU's name without its padding", strings.SplitN(out.String(), "\n", 2)[0])
			}
		})
	}
}

// Each case is compared with a case of the same problem: the variant
// named, else the reference where the problem has one, else the
// problem's slowest variant; of that variant's cases, the one whose
// setup (timing, ...) is the case's.
func TestBaselines(t *testing.T) {
	type c struct{ variant, size, timing string }
	cases := []c{
		{"cpu-naive", "64x48", "cpu"},       // 0: slowest at 64x48
		{"cpu-fast", "64x48", "cpu"},        // 1
		{"gpu-naive", "64x48", "kernel"},    // 2
		{"cpu-naive", "128x96", "cpu"},      // 3
		{"reference", "128x96", "cpu"},      // 4: faster, but the reference
		{"gpu-naive", "256x256", "kernel"},  // 5: alone: no baseline
		{"gpu-shared", "512x512", "kernel"}, // 6
		{"gpu-naive", "512x512", "total"},   // 7: the slowest at 512x512
		{"gpu-naive", "512x512", "kernel"},  // 8
	}
	times := []float64{900, 100, 10, 2000, 1000, 50, 10, 500, 20}
	samples := make([]*Sample, len(cases))
	for i, cs := range cases {
		var ts []float64
		for j := range 6 {
			ts = append(ts, times[i]*(1+float64(j)/100))
		}
		samples[i] = sample(map[string]string{"variant": cs.variant, "size": cs.size, "timing": cs.timing, "filter": "gauss3"}, ts, nil)
	}
	for _, tt := range []struct {
		named string
		want  []int // index of each case's baseline, -1 for none
		name  string
	}{
		{"", []int{0, 0, 0, 4, 4, -1, 8, 7, 8}, ""},
		{"gpu-naive", []int{2, 2, 2, -1, -1, -1, 8, 7, 8}, "gpu-naive"},
		{"cpu-fast", []int{1, 1, 1, -1, -1, -1, -1, -1, -1}, "cpu-fast"},
	} {
		b := NewBaselines(samples, tt.named)
		for i, s := range samples {
			got := -1
			for j, o := range samples {
				if b.Of(s) == o {
					got = j
				}
			}
			if got != tt.want[i] {
				t.Errorf("baseline %q: case %d (%v) compared with %d, want %d", tt.named, i, cases[i], got, tt.want[i])
			}
		}
		if b.Name != tt.name {
			t.Errorf("baseline %q: Name %q, want %q", tt.named, b.Name, tt.name)
		}
	}
}

// A speed-up is the baseline's median over the case's, with the range
// the intervals allow where the runs differ, and "~" where they do not.
func TestSpeedupCell(t *testing.T) {
	m := func(vs ...float64) Measure {
		return measureOf(&Sample{Values: map[string][]float64{"ns/op": vs}}, "ns/op")
	}
	for _, tt := range []struct {
		base, m Measure
		want    string
	}{
		{m(100, 101, 102, 103, 104, 105), m(10, 10.1, 10.2, 10.3, 10.4, 10.5), "10.0× (9.52–10.5)"},
		{m(100, 101, 102, 103, 104, 105), m(100, 101, 102, 103, 104, 106), "~ 1.00×"},
		{m(100, 101), m(10, 11), "~ 9.57×"},
		{m(100, 101, 102, 103, 104, 105), Measure{}, missing},
	} {
		if got := SpeedupCell(tt.base, tt.m); got != tt.want {
			t.Errorf("SpeedupCell = %q, want %q", got, tt.want)
		}
	}
}

// A -baseline that no run holds is refused, naming the closest variants
// the runs hold.
func TestCheckBaseline(t *testing.T) {
	runs := []*Run{readSummaryRun(t, "cpu")}
	if err := checkBaseline(runs, "cpu-fast"); err != nil {
		t.Errorf("checkBaseline(cpu-fast) = %v, want nil", err)
	}
	err := checkBaseline(runs, "cpu-fsat")
	if err == nil || !strings.Contains(err.Error(), "did you mean cpu-fast") {
		t.Errorf("checkBaseline(cpu-fsat) = %v, want one naming cpu-fast", err)
	}
}

// Of is the case s is compared with; nil where it has none.
func (b *Baselines) Of(s *Sample) *Sample { return b.of[s] }
