package results

import (
	"slices"
	"strings"
	"testing"
	"time"
)

// energyData is a synthetic fixture of a roofline and a crossover run
// whose lines carry mJ/op (see its README).
const energyData = "testdata/energy"

func energyHosts(t *testing.T) []*Host {
	t.Helper()
	runs, err := Load(energyData)
	if err != nil {
		t.Fatal(err)
	}
	if len(runs) != 2 {
		t.Fatalf("%d runs under %s, want the fixture's roofline and crossover", len(runs), energyData)
	}
	for _, r := range runs {
		r.Modified = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	}
	return GroupHosts(runs)
}

// The roofline and crossover sections of runs that record energy set,
// per case, the most energy-efficient variant beside the fastest, as the
// golden files say; they carry no note that energy was not recorded.
func TestEnergySectionsGolden(t *testing.T) {
	for _, b := range []struct {
		name  string
		build func([]*Host) *Section
		table string
	}{
		{"roofline", sectionRoofline, "roofline-energy-test-gpu"},
		{"crossover", sectionCrossover, "crossover-energy-test-gpu"},
	} {
		t.Run(b.name, func(t *testing.T) {
			s := b.build(energyHosts(t))
			tableOf(t, s, b.table)
			if len(s.Notes) != 0 {
				t.Errorf("notes %q in a section whose runs record energy", s.Notes)
			}
			md, _ := rendered(s)
			checkGoldenIn(t, energyData, b.name+".golden", md)
		})
	}
}

// The fastest and the most efficient variant of each case, and their
// cells: a dash where a line carries no energy.
func TestEnergyTables(t *testing.T) {
	hosts := energyHosts(t)
	roof := tableOf(t, sectionRoofline(hosts), "roofline-energy-test-gpu")
	want := map[string][]string{
		// Fastest gpu-sepfused; gpu-regtile draws less a run.
		"gauss3": {"gpu-sepfused", "gpu-regtile"},
		"gauss7": {"gpu-sepfused", "gpu-sepfused"},
		// The fastest line carries no energy: a dash, and the most
		// efficient of those that do.
		"gauss11": {"gpu-sepfused", "gpu-regtile"},
	}
	if len(roof.Rows) != len(want) {
		t.Fatalf("roofline energy rows %q, want one per filter of %v", roof.Rows, want)
	}
	for _, r := range roof.Rows {
		if w := want[r[0]]; r[1] != w[0] || r[5] != w[1] {
			t.Errorf("%s: fastest %s, most efficient %s; want %v", r[0], r[1], r[5], w)
		}
	}
	if r := roof.Rows[2]; r[0] != "gauss11" || r[3] != missing || r[4] != missing || r[2] == missing {
		t.Errorf("gauss11 row %q: want its fastest's GFLOP/s and dashes for its energy", r)
	}
	// gauss3 at 4096x4096: 2*9*4096^2 FLOP over 18.0 mJ (450 W x 40 us,
	// the median of 18 and 18.2) is about 16.7 GFLOP/J.
	if r := roof.Rows[0]; r[6] != "18.1 ±1%" || r[7] != "16.7" {
		t.Errorf("gauss3 most efficient: %q mJ, %q GFLOP/J; want 18.1 ±1%% and 16.7", r[6], r[7])
	}
	cross := tableOf(t, sectionCrossover(hosts), "crossover-energy-test-gpu")
	wantCross := map[string][]string{
		"4096x4096 dense3":  {"gpu-regtile", "gpu-regtile"}, // auto, more frugal, left aside
		"4096x4096 dense31": {"cudnn-tf32", "gpu-fft"},
		"4096x4096 gauss7":  {"gpu-sepfused", "gpu-regtile"},
	}
	if len(cross.Rows) != len(wantCross) {
		t.Fatalf("crossover energy rows %q", cross.Rows)
	}
	for _, r := range cross.Rows {
		if w := wantCross[r[0]+" "+r[1]]; r[2] != w[0] || r[6] != w[1] {
			t.Errorf("%s %s: fastest %s, most efficient %s; want %v", r[0], r[1], r[2], r[6], w)
		}
	}
}

// Sections whose runs record no energy say so in one note, and nothing
// else changes; a section with no run shows no note.
func TestNoEnergyNote(t *testing.T) {
	// The excerpt's hosts whose runs predate the energy phase.
	var hosts []*Host
	for _, h := range sectionsHosts(t) {
		if !slices.ContainsFunc(h.Runs, func(r *Run) bool { return hasEnergy(r.Samples) }) {
			hosts = append(hosts, h)
		}
	}
	for _, s := range []*Section{sectionRoofline(hosts), sectionCrossover(hosts)} {
		if len(s.Notes) != 1 || s.Notes[0] != noEnergyRecorded {
			t.Errorf("section %s: notes %q, want the one that says energy was not recorded", s.Report, s.Notes)
		}
		for _, tb := range s.Tables {
			if strings.Contains(tb.ID, "energy") {
				t.Errorf("section %s has the energy table %s without energy", s.Report, tb.ID)
			}
		}
		md, _ := rendered(s)
		if strings.Count(md, "Energy was not recorded") != 1 {
			t.Errorf("section %s says it %d times", s.Report, strings.Count(md, "Energy was not recorded"))
		}
	}
	empty := []*Host{{Slug: "c", Title: "C", Runs: []*Run{{Preset: "default", Config: map[string]string{}}}}}
	for _, s := range []*Section{sectionRoofline(empty), sectionCrossover(empty)} {
		if len(s.Notes) != 0 {
			t.Errorf("section %s without a run: notes %q", s.Report, s.Notes)
		}
	}
}

func TestEnergyCells(t *testing.T) {
	one := &Sample{Values: map[string][]float64{energyUnit: {6, 6.1, 5.9, 6.05, 5.95}, "gpu-ns/op": {20000}}}
	if got := energyCell(energyOf(one)); got != "6.00 ±2%" {
		t.Errorf("energyCell = %q, want 6.00 ±2%%", got)
	}
	none := &Sample{Values: map[string][]float64{"gpu-ns/op": {20000}}}
	if got := energyCell(energyOf(none)); got != missing {
		t.Errorf("energyCell without energy = %q, want a dash", got)
	}
	// 1.2e8 FLOP a run: 20 GFLOP/J at 6 mJ, 6000 GFLOP/s at 20 us.
	if got := gflopPerJouleCell(1.2e8, energyOf(one)); got != "20.0" {
		t.Errorf("gflopPerJouleCell = %q, want 20.0", got)
	}
	if got := gflopPerJouleCell(1.2e8, energyOf(none)); got != missing {
		t.Errorf("gflopPerJouleCell without energy = %q", got)
	}
	if got := gflopsCell(1.2e8, timeOf(one)); got != "6000" {
		t.Errorf("gflopsCell = %q, want 6000", got)
	}
	other := &Sample{Values: map[string][]float64{energyUnit: {6}}}
	if got := frugalSample([]*Sample{none, one, other}); got != one {
		t.Errorf("frugalSample picked %v, want the first of the equals", got)
	}
	if frugalSample([]*Sample{none}) != nil {
		t.Error("frugalSample of samples without energy")
	}
}

// The summary of a run whose lines record energy has an mJ/op column, a
// dash where a line carries none; a run without energy has no column.
func TestSummaryEnergy(t *testing.T) {
	const keys = "/k=3/block=default/border=zero/type=f32/ch=1/layout=interleaved/cache=hot/timing=kernel-graph/mem=none/opts=default"
	in := "gpu: Test GPU\n" +
		"BenchmarkConv/variant=gpu-regtile/size=4096x4096/filter=gauss3" + keys + " 1 40000 ns/op 40000 gpu-ns/op 18 mJ/op 16.8 GFLOP/J\n" +
		"BenchmarkConv/variant=gpu-tiled/size=4096x4096/filter=gauss3" + keys + " 1 70000 ns/op 70000 gpu-ns/op\n"
	r, err := ReadRun(strings.NewReader(in), "data/test-gpu/x.txt")
	if err != nil {
		t.Fatal(err)
	}
	tb := Summary(r, "")
	col := slices.Index(tb.Header, "mJ/op")
	if col < 0 {
		t.Fatalf("header %q has no mJ/op column", tb.Header)
	}
	for i, want := range []string{"18.0 ±∞", missing} {
		if got := tb.Rows[i][col]; got != want {
			t.Errorf("row %d (%s): mJ/op %q, want %q", i, tb.Rows[i][0], got, want)
		}
	}
	r, err = ReadRun(strings.NewReader(strings.ReplaceAll(in, " 18 mJ/op 16.8 GFLOP/J", "")), "data/test-gpu/x.txt")
	if err != nil {
		t.Fatal(err)
	}
	if tb := Summary(r, ""); slices.Contains(tb.Header, "mJ/op") {
		t.Errorf("a run without energy has the header %q", tb.Header)
	}
}
