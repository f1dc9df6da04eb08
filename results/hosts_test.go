package results

import (
	"fmt"
	"slices"
	"strings"
	"testing"
)

// A report's section lists only the hosts with a run of its presets.
func TestWithReport(t *testing.T) {
	cpu := &Host{Slug: "cpu-x", Runs: []*Run{{Preset: "000"}, {Preset: "default"}}}
	gpu := &Host{Slug: "gpu-x", GPU: true, Runs: []*Run{{Preset: "004-sobel"}, {Preset: "0040"}}}
	for _, tt := range []struct {
		report string
		want   []string
	}{
		{"000", []string{"cpu-x"}},
		{"004", []string{"gpu-x"}},
		{"003", nil},
	} {
		var got []string
		for _, h := range withReport([]*Host{cpu, gpu}, tt.report) {
			got = append(got, h.Slug)
		}
		if len(got) != len(tt.want) || (len(got) > 0 && got[0] != tt.want[0]) {
			t.Errorf("withReport(%s) = %v, want %v", tt.report, got, tt.want)
		}
	}
}

func TestRankGPU(t *testing.T) {
	var sb strings.Builder
	sb.WriteString("sweep: default\ngpu: Test GPU\n")
	const key = "size=1024x1024/filter=gauss5/k=5/block=%s/border=zero/type=f32/ch=1/layout=interleaved/cache=%s/timing=kernel/mem=none/opts=default"
	for _, c := range []struct {
		variant, block, cache string
		ns                    [3]float64
	}{
		{"gpu-shared", "16x16", "hot", [3]float64{13000, 12000, 90000}}, // median 13000
		{"gpu-shared", "32x8", "hot", [3]float64{11000, 11500, 11200}},  // best block: 11200
		{"gpu-tiled", "default", "hot", [3]float64{7000, 6800, 6900}},
		{"gpu-naive", "default", "hot", [3]float64{15000, 15000, 15000}},
		{"gpu-naive", "default", "cold", [3]float64{1000, 1000, 1000}}, // not RankingQ
	} {
		for _, ns := range c.ns {
			fmt.Fprintf(&sb, "BenchmarkConv/variant=%s/"+key+" 100 %g ns/op %g gpu-ns/op\n", c.variant, c.block, c.cache, ns, ns)
		}
	}
	r, err := ReadRun(strings.NewReader(sb.String()), "data/test-gpu/default.txt")
	if err != nil {
		t.Fatal(err)
	}
	h := GroupHosts([]*Run{r})[0]
	variants, ns := h.RankGPU()
	if want := []string{"gpu-tiled", "gpu-shared", "gpu-naive"}; !slices.Equal(variants, want) {
		t.Errorf("RankGPU variants = %v, want %v", variants, want)
	}
	if want := []float64{6900, 11200, 15000}; !slices.Equal(ns, want) {
		t.Errorf("RankGPU times = %v, want %v", ns, want)
	}
	if v, _ := (&Host{}).RankGPU(); len(v) != 0 {
		t.Errorf("RankGPU of a host with no runs = %v", v)
	}
}

// Table I of report 004 takes the naive and optimised GPU rows of one
// variant from the samples of its tunable.
func TestTableITunes(t *testing.T) {
	const key = "variant=gpu-sobel/size=1024x1024/filter=sobel-mag/k=3/block=default/border=zero/type=u8/ch=1/layout=interleaved/cache=hot/timing=kernel/mem=none/opts=default"
	in := "sweep: 004-sobel\ngpu: Test GPU\n" +
		"BenchmarkConv/" + key + " 100 9000 ns/op 8000 gpu-ns/op\n" +
		"BenchmarkConv/" + key + "/tune=shared=1 100 7000 ns/op 6000 gpu-ns/op\n"
	r, err := ReadRun(strings.NewReader(in), "data/test-gpu/004-sobel.txt")
	if err != nil {
		t.Fatal(err)
	}
	var table *Table
	for _, tb := range section004(GroupHosts([]*Run{r})).Tables {
		if tb.ID == "004-table1-test-gpu" {
			table = tb
		}
	}
	if table == nil {
		t.Fatal("no table I for the test host")
	}
	want := map[string][2]string{
		"Sobel GPU Naive": {"gpu-sobel", "0.00800 ±∞"}, // one run: no interval
		"Sobel GPU Opt.":  {"gpu-sobel (shared=1)", "0.00600 ±∞"},
	}
	for _, row := range table.Rows {
		if w, ok := want[row[0]]; ok {
			if row[1] != w[0] || row[2] != w[1] {
				t.Errorf("row %s = %q, %q; want %q, %q", row[0], row[1], row[2], w[0], w[1])
			}
			delete(want, row[0])
		}
	}
	if len(want) > 0 {
		t.Errorf("rows missing: %v", want)
	}
}

func TestRunCommit(t *testing.T) {
	for _, tt := range []struct{ header, want string }{
		{"# commit 220aa7370aea46e5c618550f8096db25f87cc963, gpu: NVIDIA H100 80GB HBM3, 580.159.04", "220aa73"},
		{"# convbench sweep 000, commit e5f665c5f0d4d82fd13deda6baaaf441534d0be2 (with uncommitted changes), command: go test", "e5f665c (with uncommitted changes)"},
		{"# a header without one", ""},
		{"", ""},
	} {
		if got := (&Run{Header: tt.header}).Commit(); got != tt.want {
			t.Errorf("Commit of %q = %q, want %q", tt.header, got, tt.want)
		}
	}
}

// hostRuns yields the hosts with a run of the preset, each with that run.
func TestHostRuns(t *testing.T) {
	a := &Host{Slug: "a", Runs: []*Run{{Preset: "default"}, {Preset: "cpu-peers"}}}
	b := &Host{Slug: "b", Runs: []*Run{{Preset: "cpu-peers-custom-1"}}}
	c := &Host{Slug: "c", Runs: []*Run{{Preset: "cpu-peers"}}}
	var got []string
	for h, r := range hostRuns([]*Host{a, b, c}, "cpu-peers") {
		got = append(got, h.Slug+":"+r.Preset)
	}
	if want := []string{"a:cpu-peers", "c:cpu-peers"}; !slices.Equal(got, want) {
		t.Errorf("hostRuns = %v, want %v", got, want)
	}
	for range hostRuns([]*Host{a, c}, "cpu-peers") {
		break // a yield that stops must end the loop without a panic
	}
}

// caseQ picks the CPU keys for a cpu-* variant and the GPU keys, with the
// block, for any other.
func TestCaseQ(t *testing.T) {
	if got := caseQ("cpu-naive", "16x16"); got["timing"] != "cpu" || got["block"] != "" {
		t.Errorf("caseQ(cpu-naive) = %v, want CPU timing and no block", got)
	}
	if got := caseQ("gpu-naive", "16x16").image("1024x1024", "gauss3", "u8", "3"); got["timing"] != "kernel" || got["block"] != "16x16" ||
		got["size"] != "1024x1024" || got["filter"] != "gauss3" || got["type"] != "u8" || got["ch"] != "3" {
		t.Errorf("caseQ(gpu-naive).image = %v", got)
	}
}

// gpuRuns yields the hosts with a GPU for which the picker finds a run.
func TestGPURuns(t *testing.T) {
	cpu := &Host{Slug: "cpu", Runs: []*Run{{Preset: "crossover"}}}
	none := &Host{Slug: "none", GPU: true, Runs: []*Run{{Preset: "default"}}}
	custom := &Host{Slug: "custom", GPU: true, Runs: []*Run{{Preset: "crossover-custom-1"}}}
	var got []string
	for h, r := range gpuRuns([]*Host{cpu, none, custom}, crossoverRun) {
		got = append(got, h.Slug+":"+r.Preset)
	}
	if want := []string{"custom:crossover-custom-1"}; !slices.Equal(got, want) {
		t.Errorf("gpuRuns = %v, want %v", got, want)
	}
}

// A section adds the tables it is given but nil ones.
func TestSectionAdd(t *testing.T) {
	var s Section
	a, b := &Table{ID: "a"}, &Table{ID: "b"}
	s.add(a, nil, b)
	s.add(nil)
	if len(s.Tables) != 2 || s.Tables[0] != a || s.Tables[1] != b {
		t.Errorf("tables %v, want a and b", s.Tables)
	}
}
