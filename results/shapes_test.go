package results

import (
	"slices"
	"testing"
)

// shapeSample is a case of preset roofline-shapes, one sample set.
func shapeSample(variant, size, filter, border, typ, ch, layout string, ns float64) *Sample {
	return &Sample{Keys: map[string]string{"variant": variant, "size": size, "filter": filter, "block": "default", "border": border,
		"type": typ, "ch": ch, "layout": layout, "cache": "hot", "timing": "kernel-graph", "mem": "none", "opts": "default", "tune": "default"},
		Values: map[string][]float64{"gpu-ns/op": {ns}}}
}

func TestShapesSection(t *testing.T) {
	// At 1000 GB/s, 4096x4096 one channel has a DRAM floor of
	// 16777216·(1+4) bytes = 83886.08 ns in u8 and 100663.296 ns in i16.
	const u8floor, i16floor = 83886.08, 100663.296
	const even = 100000.0
	oddPx, evenPx := 4099.0*4097.0, 4096.0*4096.0
	run := &Run{Preset: "roofline-shapes", Config: map[string]string{"gpu": "G", "gpu-copy-gbps": "1000"}, Samples: []*Sample{
		shapeSample("a", "4096x4096", "dense3", "zero", "u8", "1", "interleaved", u8floor/0.75),       // 75%: met
		shapeSample("b", "4096x4096", "dense3", "zero", "u8", "1", "interleaved", u8floor/0.5),        // slower
		shapeSample("a", "4096x4096", "dense3", "zero", "i16", "3", "planar", 3*i16floor/0.6),         // 60%: missed
		shapeSample("a", "4096x4096", "dense3", "zero", "f32", "1", "interleaved", even),              // zero border
		shapeSample("a", "4096x4096", "dense3", "wrap", "f32", "1", "interleaved", 1.05*even),         // within 10%
		shapeSample("a", "4096x4096", "dense3", "reflect", "f32", "1", "interleaved", 1.2*even),       // 20% slower
		shapeSample("a", "4099x4097", "dense3", "zero", "f32", "1", "interleaved", even*oddPx/evenPx), // same per pixel
	}}
	sec := sectionShapes([]*Host{floorHost(run)})
	if len(sec.Tables) == 0 || sec.Tables[0].ID != "shapes-goals" {
		t.Fatalf("no goals table first among %d tables", len(sec.Tables))
	}
	want := [][]string{
		{"G", "u8 and i16, 1 channel and RGB, K ≤ 7", "70% of their DRAM floor", "1 of 2", "60%", "i16 RGB planar dense3 a", "not met"},
		{"G", "every border mode against zero", "≤ 1.10x", "1 of 2", "1.20x", "dense3 reflect a", "not met"},
		{"G", "4099x4097 against 4096x4096 per pixel", "≤ 1.10x", "1 of 1", "1.00x", "dense3 a", "met"},
	}
	if got := sec.Tables[0].Rows; !slices.EqualFunc(got, want, slices.Equal) {
		t.Errorf("goals\n%q\nwant\n%q", got, want)
	}
	ids := []string{}
	for _, tb := range sec.Tables[1:] {
		ids = append(ids, tb.ID)
	}
	if wantIDs := []string{"shapes-types-g", "shapes-borders-g", "shapes-odd-g"}; !slices.Equal(ids, wantIDs) {
		t.Errorf("tables %q, want %q", ids, wantIDs)
	}
	// A host without the preset, or a run without its copy bandwidth, has no section.
	for _, h := range []*Host{
		floorHost(&Run{Preset: "roofline", Config: run.Config, Samples: run.Samples}),
		floorHost(&Run{Preset: "roofline-shapes", Config: map[string]string{"gpu": "G"}, Samples: run.Samples}),
	} {
		if s := sectionShapes([]*Host{h}); len(s.Tables) != 0 {
			t.Errorf("host with run %q got %d tables", h.Runs[0].Preset, len(s.Tables))
		}
	}
}
