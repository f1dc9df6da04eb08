package results

import (
	"slices"
	"testing"
)

// acrossSample is a roofline case's sample with one kernel time a run.
func acrossSample(variant, filter string, ns ...float64) *Sample {
	s := floorSample(variant, "4096x4096", filter, 0)
	s.Values["gpu-ns/op"] = ns
	return s
}

// runs of six lines: far apart enough for the U test to call them.
var (
	fast6 = []float64{100, 101, 102, 103, 104, 105}
	slow6 = []float64{200, 201, 202, 203, 204, 205}
	mid6  = []float64{102, 100, 104, 101, 105, 103}
)

// withEnergy gives s an energy a run (mJ/op) for each of its runs.
func withEnergy(s *Sample, mj ...float64) *Sample {
	s.Values[energyUnit] = mj
	return s
}

func acrossHost(slug string, samples ...*Sample) *Host {
	cfg := map[string]string{"gpu": slug, "auto-paths": "auto=gpu-a,gpu-b; auto-bf16=gpu-a,gpu-b,gpu-loose"}
	run := &Run{Preset: "roofline", Header: "# sweep, commit 0123456789abcdef", Config: cfg, Samples: samples}
	for _, s := range samples {
		s.Config = cfg
	}
	return &Host{Slug: slug, Title: slug, GPU: true, Runs: []*Run{run}}
}

func TestAcrossGPUs(t *testing.T) {
	first := acrossHost("g1",
		acrossSample("gpu-a", "dense3", slow6...),
		withEnergy(acrossSample("gpu-b", "dense3", fast6...), slow6...), // the case's fastest accurate path
		acrossSample("gpu-loose", "dense3", 1, 1, 1),                    // faster, of a looser model: not the path shown
		acrossSample("auto", "dense3", 1, 1, 1),                         // an auto variant: never the path shown
		acrossSample("cudnn", "dense3", 1, 1, 1),                        // a peer: not one of our paths
		acrossSample("gpu-a", "dense7", fast6...),                       // only g1 ran dense7 with gpu-a
		withEnergy(acrossSample("gpu-b", "gauss3", fast6...), fast6...),
		acrossSample("gpu-a", "gauss3", fast6...), // as fast as gpu-b: the first by name is shown
	)
	second := acrossHost("g2",
		acrossSample("gpu-a", "dense3", fast6...),                       // faster on g2
		withEnergy(acrossSample("gpu-b", "dense3", slow6...), fast6...), // slower on g2, drawing less a run
		acrossSample("gpu-loose", "dense3", 1, 1, 1),
		acrossSample("auto", "dense3", 1, 1, 1),
		acrossSample("cudnn", "dense3", 1, 1, 1),
		withEnergy(acrossSample("gpu-b", "gauss3", mid6...), mid6...), // no significant difference
		acrossSample("gpu-a", "gauss3", fast6...),
	)
	cpu := &Host{Slug: "c", Title: "c", Runs: []*Run{{Preset: "roofline", Config: map[string]string{}}}}
	sec := sectionAcrossGPUs([]*Host{first, cpu, second})
	if len(sec.Tables) != 2 {
		t.Fatalf("%d tables, want the summary and the paths of preset roofline", len(sec.Tables))
	}
	sum, best := sec.Tables[0], sec.Tables[1]
	// Time: dense3 gpu-a faster (by as much as gpu-b is slower), gpu-b
	// slower, three equal; gauss3 gpu-a and gpu-b equal. Energy: dense3 gpu-b less
	// (about half), gauss3 gpu-b equal.
	wantSum := [][]string{
		{"g2", "kernel time", "7", "1", "1", "5", "1.00×"},
		{"g2", "energy a run", "2", "1", "0", "1", "0.711×"},
	}
	if !slices.EqualFunc(sum.Rows, wantSum, slices.Equal) {
		t.Errorf("summary rows\n%q\nwant\n%q", sum.Rows, wantSum)
	}
	wantBest := [][]string{
		{"dense", "4096x4096", "3", "gpu-b", "0.000102 ±2%", "0.000202 ±1%", "1.98×"},
		{"dense", "4096x4096", "7", "gpu-a", "0.000102 ±2%", missing, missing},
		{"gauss", "4096x4096", "3", "gpu-a", "0.000102 ±2%", "0.000102 ±2%", "~"},
	}
	if !slices.EqualFunc(best.Rows, wantBest, slices.Equal) {
		t.Errorf("paths rows\n%q\nwant\n%q", best.Rows, wantBest)
	}

	// One GPU host with the preset: nothing to set side by side.
	if sec := sectionAcrossGPUs([]*Host{first, cpu}); len(sec.Tables) != 0 {
		t.Errorf("one GPU: %d tables, want none", len(sec.Tables))
	}
}
