package results

import (
	"fmt"
	"slices"
	"strings"
	"testing"
)

// synthetic002 writes a small benchmark file of the exactness cases:
// gpu-naive at box 3 under each compile option (with the opts key when
// withOpts, as runs before the key was written otherwise), two runs each.
func synthetic002(withOpts bool) string {
	var sb strings.Builder
	sb.WriteString("# synthetic run\nsweep: 002-exactness\ngpu: Test GPU\nUnit max-ulp better=lower assume=exact\n")
	type line struct {
		opts   string
		ns     [2]float64
		maxULP [2]float64
		hasULP bool
	}
	lines := []line{
		{opts: "default", ns: [2]float64{2000, 2200}, maxULP: [2]float64{3, 3}, hasULP: true},
		{opts: "nofma", ns: [2]float64{3000, 3400}, maxULP: [2]float64{0, 0}, hasULP: true},
		{opts: "fast-math", ns: [2]float64{1000, 1000}, maxULP: [2]float64{4, 6}, hasULP: true},
	}
	if !withOpts {
		lines = lines[:1]
		lines[0].hasULP = false
	}
	for run := range 2 {
		for _, l := range lines {
			name := "BenchmarkConv/variant=gpu-naive/size=1024x1024/filter=box3/k=3/block=32x32/border=zero/type=f32/ch=1/layout=interleaved/cache=hot/timing=kernel/mem=none"
			if withOpts {
				name += "/opts=" + l.opts
			}
			fmt.Fprintf(&sb, "%s 100 %d ns/op %g gpu-ns/op", name, 5000, l.ns[run])
			if l.hasULP {
				fmt.Fprintf(&sb, " %g max-ulp", l.maxULP[run])
			}
			sb.WriteString("\n")
		}
		// A CPU case, to check the implied opts=none.
		cpu := "BenchmarkConv/variant=cpu-naive/size=1024x1024/filter=box3/k=3/block=none/border=zero/type=f32/ch=1/layout=interleaved/cache=hot/timing=cpu/mem=none"
		if withOpts {
			cpu += "/opts=none"
		}
		fmt.Fprintf(&sb, "%s 10 9000000 ns/op\n", cpu)
	}
	return sb.String()
}

func syntheticHost(t *testing.T, withOpts bool) *Host {
	t.Helper()
	r, err := ReadRun(strings.NewReader(synthetic002(withOpts)), "data/test-gpu/002-exactness.txt")
	if err != nil {
		t.Fatal(err)
	}
	hosts := GroupHosts([]*Run{r})
	if len(hosts) != 1 || !hosts[0].GPU {
		t.Fatalf("hosts %v: want one GPU host", hosts)
	}
	return hosts[0]
}

// Runs stored before the opts key parse with the values they used, and
// say which keys were implied.
func TestReadRunImpliedOpts(t *testing.T) {
	tests := []struct {
		withOpts bool
		gpuOpts  []string // of the gpu-naive samples, in file order
		implied  bool
	}{
		{true, []string{"default", "nofma", "fast-math"}, false},
		{false, []string{"default"}, true},
	}
	for _, tt := range tests {
		h := syntheticHost(t, tt.withOpts)
		var gpuOpts []string
		for _, s := range h.Runs[0].Samples {
			if s.Keys["variant"] == "gpu-naive" {
				gpuOpts = append(gpuOpts, s.Keys["opts"])
			} else if s.Keys["opts"] != "none" {
				t.Errorf("withOpts %v: CPU sample opts %q, want none", tt.withOpts, s.Keys["opts"])
			}
			if got := slices.Contains(s.Implied, "opts"); got != tt.implied {
				t.Errorf("withOpts %v: %v: opts implied %v, want %v", tt.withOpts, s.Keys, got, tt.implied)
			}
		}
		if !slices.Equal(gpuOpts, tt.gpuOpts) {
			t.Errorf("withOpts %v: gpu-naive opts %v, want %v", tt.withOpts, gpuOpts, tt.gpuOpts)
		}
	}
}

// A case's keys are its name's (runfile.Parse), those it lacks implied
// and listed; a name that lacks another key, or has a part that is not
// key=value, is an error naming the file.
func TestReadRunNames(t *testing.T) {
	const mid = "/size=8x8/filter=box3/k=3/block=16x16/border=zero/type=f32/ch=1/layout=interleaved/cache=hot/timing=kernel/mem=none"
	for _, tt := range []struct {
		name    string
		implied []string
		err     string
	}{
		{"BenchmarkConv/variant=gpu-naive" + mid + "/opts=nofma-8", []string{"tune", "gpus"}, ""},
		{"BenchmarkConv/variant=gpu-naive" + mid, []string{"opts", "tune", "gpus"}, ""},
		{"BenchmarkConv/variant=gpu-naive" + mid + "/opts=default/tune=shared=1/gpus=0,1", nil, ""},
		{"BenchmarkConv/variant=gpu-naive/size=8x8", nil, `lacks key "filter"`},
		{"BenchmarkConv/variant=gpu-naive" + mid + "/oops", nil, `"oops"`},
	} {
		r, err := ReadRun(strings.NewReader(tt.name+" 1 100 ns/op\n"), "data/g/x.txt")
		if tt.err != "" {
			if err == nil || !strings.Contains(err.Error(), tt.err) || !strings.Contains(err.Error(), "data/g/x.txt") {
				t.Errorf("%s: error %v, want one with %s naming the file", tt.name, err, tt.err)
			}
			continue
		}
		if err != nil || len(r.Samples) != 1 {
			t.Fatalf("%s: %v, %d samples", tt.name, err, len(r.Samples))
		}
		if s := r.Samples[0]; !slices.Equal(s.Implied, tt.implied) || s.Keys["variant"] != "gpu-naive" || s.Keys["tune"] == "" {
			t.Errorf("%s: keys %v, implied %q; want implied %q", tt.name, s.Keys, s.Implied, tt.implied)
		}
	}
}

func TestExactnessTable(t *testing.T) {
	tb := exactness002(syntheticHost(t, true))
	if tb == nil {
		t.Fatal("no exactness table for data with the opts key")
	}
	if len(tb.Rows) != 2*len(ks002Exact) {
		t.Fatalf("%d rows, want %d", len(tb.Rows), 2*len(ks002Exact))
	}
	// gpu-naive box 3: medians 2.1, 3.2 and 1.0 µs; max-ulp the largest
	// over the runs. Two runs give no finite interval and cannot show
	// fmad=false slower than the default, however far apart.
	want := []string{"gpu-naive", "3", "0.00210 ±∞", "3", "0.00320 ±∞", "0", "0.00100 ±∞", "6", "~"}
	if !slices.Equal(tb.Rows[0], want) {
		t.Errorf("gpu-naive box3 row %q, want %q", tb.Rows[0], want)
	}
	for _, row := range tb.Rows[1:] {
		for _, cell := range row[2:] {
			if cell != missing {
				t.Errorf("row %q: a case not in the data shows %q", row, cell)
			}
		}
	}
	var md strings.Builder
	if err := tb.RenderMarkdown(&md); err != nil || !strings.Contains(md.String(), "| fmad=false max-ulp |") {
		t.Errorf("markdown %v:\n%s", err, md.String())
	}
	// The table is part of report 002 only when the key is in the data.
	for _, withOpts := range []bool{true, false} {
		s := section002([]*Host{syntheticHost(t, withOpts)})
		found := false
		for _, tb := range s.Tables {
			found = found || strings.HasPrefix(tb.ID, "002-exactness-")
		}
		if found != withOpts {
			t.Errorf("data with the opts key %v: exactness table present %v", withOpts, found)
		}
	}
	if tb := exactness002(syntheticHost(t, false)); tb != nil {
		t.Errorf("data without the opts key: table %v, want none", tb.Rows)
	}
}
