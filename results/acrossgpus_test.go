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
		acrossSample("gpu-b", "dense3", fast6...),    // the case's fastest accurate path
		acrossSample("gpu-loose", "dense3", 1, 1, 1), // faster, of a looser model: not the path shown
		acrossSample("auto", "dense3", 1, 1, 1),      // an auto variant: never the path shown
		acrossSample("cudnn", "dense3", 1, 1, 1),     // a peer: not one of our paths
		acrossSample("gpu-a", "dense7", fast6...),    // only g1 ran dense7 with gpu-a
		acrossSample("gpu-b", "gauss3", fast6...),
	)
	second := acrossHost("g2",
		acrossSample("gpu-a", "dense3", fast6...), // faster on g2
		acrossSample("gpu-b", "dense3", slow6...), // slower on g2
		acrossSample("gpu-loose", "dense3", 1, 1, 1),
		acrossSample("auto", "dense3", 1, 1, 1),
		acrossSample("cudnn", "dense3", 1, 1, 1),
		acrossSample("gpu-b", "gauss3", mid6...), // no significant difference
	)
	cpu := &Host{Slug: "c", Title: "c", Runs: []*Run{{Preset: "roofline", Config: map[string]string{}}}}
	sec := sectionAcrossGPUs([]*Host{first, cpu, second})
	if len(sec.Tables) != 2 {
		t.Fatalf("%d tables, want the summary and the paths of preset roofline", len(sec.Tables))
	}
	sum, best := sec.Tables[0], sec.Tables[1]
	// dense3: gpu-a faster (by as much as gpu-b is slower), gpu-b slower,
	// three equal; gauss3 gpu-b equal.
	if want := []string{"g2", "6", "1", "1", "4", "1.00×"}; len(sum.Rows) != 1 || !slices.Equal(sum.Rows[0], want) {
		t.Errorf("summary rows %q, want one, %q", sum.Rows, want)
	}
	wantBest := [][]string{
		{"dense", "4096x4096", "3", "gpu-b", "0.000102 ±2%", "0.000202 ±1%", "1.98×"},
		{"dense", "4096x4096", "7", "gpu-a", "0.000102 ±2%", missing, missing},
		{"gauss", "4096x4096", "3", "gpu-b", "0.000102 ±2%", "0.000102 ±2%", "~"},
	}
	if !slices.EqualFunc(best.Rows, wantBest, slices.Equal) {
		t.Errorf("paths rows\n%q\nwant\n%q", best.Rows, wantBest)
	}

	// One GPU host with the preset: nothing to set side by side.
	if sec := sectionAcrossGPUs([]*Host{first, cpu}); len(sec.Tables) != 0 {
		t.Errorf("one GPU: %d tables, want none", len(sec.Tables))
	}
}
