package tune

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/convbench/convbench/convolve"
	"github.com/convbench/convbench/tables/tuning"
)

func TestSaveMerges(t *testing.T) {
	dir := t.TempDir()
	e := func(k, ry int) tuning.Entry {
		return tuning.Entry{Variant: "gpu-tiled", Type: "f32", K: k, Size: convolve.SizeLarge,
			Chosen: tuning.Candidate{Block: "32x8", Tunables: map[string]int{"ry": ry}, Status: tuning.OK, MedianNS: 10}}
	}
	if _, err := Save(dir, "NVIDIA H200", []tuning.Entry{e(3, 8), e(7, 4)}); err != nil {
		t.Fatal(err)
	}
	path, err := Save(dir, "NVIDIA H200", []tuning.Entry{e(7, 2), e(21, 1)})
	if err != nil {
		t.Fatal(err)
	}
	if path != filepath.Join(dir, "nvidia-h200.json") {
		t.Errorf("path %s", path)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	tab, err := tuning.Parse(data)
	if err != nil {
		t.Fatal(err)
	}
	got := map[int]int{}
	for _, x := range tab.Entries {
		got[x.K] = x.Chosen.Tunables["ry"]
	}
	if len(got) != 3 || got[3] != 8 || got[7] != 2 || got[21] != 1 {
		t.Errorf("merged table: %v, want k=3 ry=8, k=7 ry=2, k=21 ry=1", got)
	}
	if _, err := Save(dir, "NVIDIA H200", []tuning.Entry{{Variant: "gpu-tiled"}}); err == nil {
		t.Error("Save of an incomplete entry: nil error")
	}
	// A file of another GPU under the slug is not overwritten.
	if err := os.WriteFile(filepath.Join(dir, "nvidia-h100.json"), []byte(`{"gpu": "Other", "entries": []}`), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Save(dir, "NVIDIA H100", []tuning.Entry{e(3, 8)}); err == nil {
		t.Error("Save over another GPU's table: nil error")
	}
}
