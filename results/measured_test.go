package results

import (
	"strings"
	"testing"

	"github.com/convbench/convbench/runfile"
)

// A run's measured values read the same from measured lines as from the
// configuration lines runs were written with before them: each sample
// has those its block measured, and the run the median of its blocks'
// copy bandwidths (the shards of a merged run) and its first block's
// other values.
func TestReadRunMeasured(t *testing.T) {
	const name = "BenchmarkConv/variant=gpu-tiled/size=8x8/filter=box3/k=3/block=16x16/border=zero/type=f32/ch=1/layout=interleaved/cache=hot/timing=kernel/mem=none/opts=default"
	block := func(line func(k, v string) string, bw, mhz, size string) string {
		return strings.Join([]string{
			runfile.ConfigLine(runfile.KeyGPU, "G"),
			line(runfile.KeyGPUCopyGBps, bw),
			line(runfile.KeyGPUMaxSMMHz, mhz),
			strings.Replace(name, "size=8x8", "size="+size, 1) + " 1 100 ns/op 80 gpu-ns/op",
		}, "\n") + "\n"
	}
	for _, tt := range []struct {
		how  string
		line func(k, v string) string
	}{
		{"measured lines", runfile.MeasuredLine},
		{"configuration lines", runfile.ConfigLine},
	} {
		t.Run(tt.how, func(t *testing.T) {
			in := "# header\n" + block(tt.line, "1000", "1980", "8x8") + block(tt.line, "1200", "1980", "16x16") + block(tt.line, "1100", "1755", "32x32")
			r, err := ReadRun(strings.NewReader(in), "data/g/merged.txt")
			if err != nil {
				t.Fatal(err)
			}
			if len(r.Samples) != 3 {
				t.Fatalf("%d samples, want 3", len(r.Samples))
			}
			for i, want := range []string{"1000", "1200", "1100"} {
				if got := r.Samples[i].Config[runfile.KeyGPUCopyGBps]; got != want {
					t.Errorf("sample %d: %s %q, want its block's %s", i, runfile.KeyGPUCopyGBps, got, want)
				}
			}
			if got := r.Samples[2].Config[runfile.KeyGPUMaxSMMHz]; got != "1755" {
				t.Errorf("sample 2: %s %q, want 1755", runfile.KeyGPUMaxSMMHz, got)
			}
			if got := r.Config[runfile.KeyGPUCopyGBps]; got != "1100" {
				t.Errorf("run: %s %q, want the median 1100", runfile.KeyGPUCopyGBps, got)
			}
			if got := r.Config[runfile.KeyGPUMaxSMMHz]; got != "1980" {
				t.Errorf("run: %s %q, want the first block's 1980", runfile.KeyGPUMaxSMMHz, got)
			}
			if got := r.Config[runfile.KeyGPU]; got != "G" {
				t.Errorf("run: %s %q, want G", runfile.KeyGPU, got)
			}
		})
	}
	bad := "# header\n" + runfile.MeasuredLine(runfile.KeyGPUCopyGBps, "fast") + "\n" + name + " 1 100 ns/op\n"
	if _, err := ReadRun(strings.NewReader(bad), "data/g/bad.txt"); err == nil || !strings.Contains(err.Error(), "fast") {
		t.Errorf("a measured line that is not a number: error %v, want one naming the value", err)
	}
}
