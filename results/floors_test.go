package results

import (
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"
	"testing"
)

func TestFloorsOf(t *testing.T) {
	tests := []struct {
		k            int
		size         string
		bw, peak     float64
		dram, fp32   float64
		binding      float64
		bindingFloor string
	}{
		// 1e6 pixels: 8e6 bytes over 1000 GB/s is 8000 ns; 2·9·1e6 FLOP
		// over 9000 GFLOP/s is 2000 ns.
		{3, "1000x1000", 1000, 9000, 8000, 2000, 8000, "DRAM"},
		// 2·961·1e6 FLOP over 9000 GFLOP/s: 213555.6 ns, past the DRAM floor.
		{31, "1000x1000", 1000, 9000, 8000, 2 * 961 * 1e6 / 9000, 2 * 961 * 1e6 / 9000, "FP32"},
		// Equal floors: DRAM is named.
		{2, "100x10", 8, 8, 1000, 1000, 1000, "DRAM"},
	}
	for _, tt := range tests {
		f, err := floorsOf(tt.k, tt.size, tt.bw, tt.peak)
		if err != nil {
			t.Fatalf("floorsOf(%d, %s): %v", tt.k, tt.size, err)
		}
		if math.Abs(f.DRAM-tt.dram) > 1e-9*tt.dram || math.Abs(f.FP32-tt.fp32) > 1e-9*tt.fp32 {
			t.Errorf("floorsOf(%d, %s) = %+v, want DRAM %v FP32 %v", tt.k, tt.size, f, tt.dram, tt.fp32)
		}
		if b, name := f.Binding(); math.Abs(b-tt.binding) > 1e-9*b || name != tt.bindingFloor {
			t.Errorf("floorsOf(%d, %s).Binding() = %v %s, want %v %s", tt.k, tt.size, b, name, tt.binding, tt.bindingFloor)
		}
	}
	for _, bad := range []struct {
		k        int
		size     string
		bw, peak float64
		want     string
	}{
		{3, "4096", 1, 1, `"4096"`}, {0, "8x8", 1, 1, "filter size 0"}, {3, "8x8", 0, 1, "copy bandwidth 0"}, {3, "8x8", 1, math.NaN(), "NaN"},
	} {
		if _, err := floorsOf(bad.k, bad.size, bad.bw, bad.peak); err == nil || !strings.Contains(err.Error(), bad.want) {
			t.Errorf("floorsOf(%d, %q, %v, %v) error %v, want one naming %s", bad.k, bad.size, bad.bw, bad.peak, err, bad.want)
		}
	}
}

// floorSample is a case of preset roofline, one sample set.
func floorSample(variant, size, filter string, ns float64) *Sample {
	return &Sample{Keys: map[string]string{"variant": variant, "size": size, "filter": filter, "block": "default", "border": "zero",
		"type": "f32", "ch": "1", "layout": "interleaved", "cache": "hot", "timing": "kernel-graph", "mem": "none", "opts": "default", "tune": "default"},
		Values: map[string][]float64{"gpu-ns/op": {ns}}}
}

// On a GPU of 1000 GB/s and 10000 GFLOP/s, 4096x4096 has a DRAM floor of
// 134217.728 ns and 8192x8192 four times it; the FP32 floor of K=3 is
// 30199 ns at 4096x4096, of K=31 3224581 ns.
var floorConfig = map[string]string{"gpu": "G", "gpu-copy-gbps": "1000", "gpu-peak-gflops": "10000"}

func floorHost(runs ...*Run) *Host {
	return &Host{Slug: "g", Title: "G", GPU: true, Runs: runs}
}

func TestFloorsSection(t *testing.T) {
	const dram4096, dram8192 = 134217.728, 4 * 134217.728
	fp32k31 := 2 * 961 * 16777216 / 10000.0
	run := &Run{Preset: "roofline", Config: floorConfig, Samples: []*Sample{
		floorSample("a", "4096x4096", "dense3", dram4096/0.85),  // 85% of the DRAM floor
		floorSample("b", "4096x4096", "dense3", 200000),         // 67%
		floorSample("a", "8192x8192", "dense3", dram8192/0.80),  // 80%: below the goal
		floorSample("a", "4096x4096", "dense31", fp32k31/0.80),  // 80% of the FP32 floor
		floorSample("b", "4096x4096", "dense31", fp32k31/0.50),  // 50%
		floorSample("sep", "4096x4096", "gauss3", dram4096/0.9), // the fused path at 90%
		floorSample("gpu-sepfused", "4096x4096", "gauss31", dram4096/0.81),
		floorSample("a", "4096x4096", "gauss31", fp32k31/0.5),
		floorSample("a", "512x512", "dense3", 1), // not a size of the preset
		floorSample("a", "4096x4096", "box3", 1), // not a family of the preset
	}}
	sec := sectionFloors([]*Host{floorHost(run)})
	byID := map[string]*Table{}
	for _, tb := range sec.Tables {
		byID[tb.ID] = tb
	}
	dense := byID["floors-dense-g"]
	if dense == nil {
		t.Fatalf("no dense table among %d", len(sec.Tables))
	}
	if want := []string{"Size", "K", "DRAM floor (ms)", "FP32 floor (ms)", "Binds", "a (ms, share)", "b (ms, share)", "Best", "Best share"}; !slices.Equal(dense.Header, want) {
		t.Errorf("dense header %q, want %q", dense.Header, want)
	}
	wantRows := [][]string{
		{"4096x4096", "3", "0.134", "0.0302", "DRAM", "0.158 (85%)", "0.200 (67%)", "a", "85%"},
		{"4096x4096", "31", "0.134", "3.22", "FP32", "4.03 (80%)", "6.45 (50%)", "a", "80%"},
		{"8192x8192", "3", "0.537", "0.121", "DRAM", "0.671 (80%)", "—", "a", "80%"},
		{"8192x8192", "31", "0.537", "12.9", "FP32", "—", "—", "—", "—"},
	}
	if !slices.EqualFunc(dense.Rows, wantRows, slices.Equal) {
		t.Errorf("dense rows\n%q\nwant\n%q", dense.Rows, wantRows)
	}
	if gauss := byID["floors-gauss-g"]; gauss == nil || !strings.Contains(gauss.Caption, "passes 100%") {
		t.Errorf("gauss table missing or its caption does not say why a separable path passes the FP32 floor: %+v", gauss)
	}
	if !strings.Contains(dense.Caption, "run `roofline` (the preset's own axes)") {
		t.Errorf("caption does not name the run: %s", dense.Caption)
	}
	goals := byID["floors-goals"]
	if goals == nil {
		t.Fatal("no goals table")
	}
	wantGoals := [][]string{
		{"G", floorGoals[0].Name, "85% of the DRAM floor", "1 of 2", "80%", "8192x8192 dense3 a", "not met"},
		{"G", floorGoals[1].Name, "75% of the FP32 floor", "1 of 1", "80%", "4096x4096 dense31 a", "met"},
		{"G", floorGoals[2].Name, "80% of the DRAM floor", "1 of 1", "81%", "4096x4096 gauss31 gpu-sepfused", "met"},
	}
	if !slices.EqualFunc(goals.Rows, wantGoals, slices.Equal) {
		t.Errorf("goals\n%q\nwant\n%q", goals.Rows, wantGoals)
	}
	if len(sec.Plots) != 2 || sec.Plots[0].ID != "floors-dense" {
		t.Fatalf("plots %+v, want dense and gauss", sec.Plots)
	}
	p := sec.Plots[0]
	if !slices.Equal(p.XValue, []float64{3, 31}) {
		t.Errorf("dense plot X %v, want K 3 and 31", p.XValue)
	}
	var a4096 []float64
	for _, s := range p.Series {
		if s.Variant == "a" && strings.HasSuffix(s.Source, "4096x4096") {
			a4096 = s.Y
		}
	}
	if len(a4096) != 2 || math.Abs(a4096[0]-85) > 1e-9 || math.Abs(a4096[1]-80) > 1e-9 {
		t.Errorf("variant a at 4096x4096 plotted %v, want 85 and 80 (%% of the binding floor)", a4096)
	}

	// A goal with no case is not met: it has no data.
	empty := sectionFloors([]*Host{floorHost(&Run{Preset: "roofline", Config: floorConfig, Samples: []*Sample{floorSample("a", "4096x4096", "gauss3", 1e6)}})})
	if got := empty.Tables[0].Rows[0]; got[3] != "0 of 0" || got[6] != "no data" {
		t.Errorf("goal without cases: %q", got)
	}
	// A run without its floors' rates, or a host without the preset, has no section.
	for _, h := range []*Host{
		floorHost(&Run{Preset: "roofline", Config: map[string]string{"gpu": "G"}, Samples: run.Samples}),
		floorHost(&Run{Preset: "default", Config: floorConfig, Samples: run.Samples}),
	} {
		if sec := sectionFloors([]*Host{h}); len(sec.Tables)+len(sec.Plots) != 0 {
			t.Errorf("host with runs %q got %d tables, %d plots", h.Runs[0].Preset, len(sec.Tables), len(sec.Plots))
		}
	}
}

// The dense goals count the fastest variant held to float32's error
// model: a path that only auto-bf16 may take (the run's auto-paths line)
// is the table's Best, but not the goal's, and the table gives the best
// float32-accurate variant beside it. A run without the line counts
// every variant.
func TestFloorsGoalsLooserModel(t *testing.T) {
	fp32k31 := 2 * 961 * 16777216 / 10000.0
	samples := []*Sample{
		floorSample("a", "4096x4096", "dense31", fp32k31/0.5),  // 50% of the FP32 floor
		floorSample("x", "4096x4096", "dense31", fp32k31/1.2),  // 120%, bfloat16
		floorSample("y", "4096x4096", "dense31", fp32k31/0.25), // 25%, float32
	}
	config := maps.Clone(floorConfig)
	config["auto-paths"] = "auto=a,y; auto-bf16=a,x,y"
	tests := []struct {
		name     string
		config   map[string]string
		goal     []string
		header   []string
		denseRow []string
	}{
		{"auto-paths names x looser", config,
			[]string{"G", floorGoals[1].Name, "75% of the FP32 floor", "0 of 1", "50%", "4096x4096 dense31 a", "not met"},
			[]string{"Best", "Best share", "Best float32-accurate", "Its share"},
			[]string{"x", "120%", "a", "50%"}},
		{"no auto-paths line", floorConfig,
			[]string{"G", floorGoals[1].Name, "75% of the FP32 floor", "1 of 1", "120%", "4096x4096 dense31 x", "met"},
			[]string{"y (ms, share)", "Best", "Best share"},
			[]string{"x", "120%"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			sec := sectionFloors([]*Host{floorHost(&Run{Preset: "roofline", Config: tt.config, Samples: samples})})
			byID := map[string]*Table{}
			for _, tb := range sec.Tables {
				byID[tb.ID] = tb
			}
			goals, dense := byID["floors-goals"], byID["floors-dense-g"]
			if goals == nil || dense == nil || len(goals.Rows) < 2 || len(dense.Rows) == 0 {
				t.Fatalf("tables %v", byID)
			}
			if !slices.Equal(goals.Rows[1], tt.goal) {
				t.Errorf("goal row %q, want %q", goals.Rows[1], tt.goal)
			}
			if h := dense.Header[len(dense.Header)-len(tt.header):]; !slices.Equal(h, tt.header) {
				t.Errorf("dense header ends %q, want %q", h, tt.header)
			}
			if r := dense.Rows[0][len(dense.Rows[0])-len(tt.denseRow):]; !slices.Equal(r, tt.denseRow) {
				t.Errorf("dense row ends %q, want %q", r, tt.denseRow)
			}
		})
	}
}

// Each family's cases get a table of the fastest variant beside the most
// frugal one where the run records energy, and none where it does not.
func TestFloorsEnergy(t *testing.T) {
	withEnergy := func(smp *Sample, mJ ...float64) *Sample {
		smp.Values[energyUnit] = mJ
		return smp
	}
	run := &Run{Preset: "roofline", Config: floorConfig, Samples: []*Sample{
		withEnergy(floorSample("a", "4096x4096", "dense3", 200000), 10, 10),
		withEnergy(floorSample("b", "4096x4096", "dense3", 400000), 4, 4),
		withEnergy(floorSample("a", "8192x8192", "dense3", 800000), 30, 30),
		floorSample("a", "4096x4096", "gauss3", 200000), // no energy: no gauss table
	}}
	sec := sectionFloors([]*Host{floorHost(run)})
	byID := map[string]*Table{}
	for _, tb := range sec.Tables {
		byID[tb.ID] = tb
	}
	if byID["floors-energy-gauss-g"] != nil {
		t.Error("a gauss energy table where no gauss line records energy")
	}
	et := byID["floors-energy-dense-g"]
	if et == nil {
		t.Fatalf("no dense energy table among %v", byID)
	}
	// 2·9·4096² FLOP = 0.302 GFLOP a run: 1510 GFLOP/s in 200us, 30.2
	// GFLOP/J at 10 mJ, 75.5 at 4 mJ.
	want := [][]string{
		{"4096x4096", "3", "a", "1510", "10.0 ±∞", "30.2", "b", "4.00 ±∞", "75.5", "755", "2.50×"},
		{"8192x8192", "3", "a", "1510", "30.0 ±∞", "40.3", "a", "30.0 ±∞", "40.3", "1510", "—"},
	}
	if !slices.EqualFunc(et.Rows, want, slices.Equal) {
		t.Errorf("rows\n%q\nwant\n%q", et.Rows, want)
	}
	if !strings.Contains(et.Caption, "run `roofline`") {
		t.Errorf("caption does not name the run: %s", et.Caption)
	}
}

// The section reads the run of the preset's own axes when there is one,
// else the custom run with the most cases, and says which.
func TestFloorsRun(t *testing.T) {
	custom := func(name string, n int) *Run {
		r := &Run{Preset: name, Config: map[string]string{"sweep-axes": "-variants a"}}
		for range n {
			r.Samples = append(r.Samples, &Sample{})
		}
		return r
	}
	full := custom("roofline", 1)
	small, big, bigLater := custom("roofline-custom-0001", 2), custom("roofline-custom-0002", 5), custom("roofline-custom-0003", 5)
	other := custom("tuning-tiled", 9)
	tests := []struct {
		runs []*Run
		want *Run
	}{
		{[]*Run{small, big, full, other}, full},
		{[]*Run{small, big, other}, big},
		{[]*Run{bigLater, small, big}, bigLater},
		{[]*Run{other}, nil},
	}
	for _, tt := range tests {
		if got := floorsRun(floorHost(tt.runs...)); got != tt.want {
			t.Errorf("floorsRun over %d runs = %v, want %v", len(tt.runs), got, tt.want)
		}
	}
	run := &Run{Preset: "roofline-custom-0001", Header: "# sweep, commit 0123456789abcdef", Config: map[string]string{"gpu": "G", "gpu-copy-gbps": "1000", "gpu-peak-gflops": "10000", "sweep-axes": "-variants a"},
		Samples: []*Sample{floorSample("a", "4096x4096", "dense3", 2e5)}}
	sec := sectionFloors([]*Host{floorHost(run)})
	if len(sec.Tables) < 2 || !strings.Contains(sec.Tables[1].Caption, "run `roofline-custom-0001`, the preset with narrowed axes (-variants a), there being no run of its own axes at 0123456") {
		t.Errorf("caption does not name the custom run: %+v", sec.Tables)
	}
}

// On the committed runs, the share of the DRAM floor the section computes
// from each line's kernel time is the %copy-bw the benchmark wrote on it.
func TestFloorsMatchCopyBW(t *testing.T) {
	r := committedReport(t)
	checked := 0
	for _, h := range r.Hosts {
		run := floorsRun(h)
		if run == nil {
			continue
		}
		d := readFloors(run)
		for _, c := range d.cases {
			for v, m := range c.times {
				smp := fastestSample(run.Find(Q{"variant": v, "size": c.size, "filter": c.family + itoa(c.k), "timing": "kernel-graph"}))
				pct, ok := smp.Median("%copy-bw")
				if !ok {
					continue
				}
				// The line's share is of the copy bandwidth its own shard
				// measured; the section's floor is of the run's (for a
				// merged run the median of its shards').
				own, err := strconv.ParseFloat(smp.Config["gpu-copy-gbps"], 64)
				if err != nil {
					t.Fatalf("%s %s %s%d %s: gpu-copy-gbps: %v", h.Slug, c.size, c.family, c.k, v, err)
				}
				share := c.floors.DRAM / m.Center() * d.bw / own
				if math.Abs(100*share-pct) > 0.01*pct {
					t.Errorf("%s %s %s%d %s: DRAM floor share %.2f%% at the line's own copy bandwidth, line's %%copy-bw %.2f", h.Slug, c.size, c.family, c.k, v, 100*share, pct)
				}
				checked++
			}
		}
	}
	if checked == 0 {
		t.Fatal("no committed run of preset roofline has a line with the copy-bandwidth share")
	}
}

func itoa(k int) string { return intStrings([]int{k})[0] }
