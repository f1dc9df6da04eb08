package results

import (
	"slices"
	"strings"
	"testing"
)

// The tables of a host without a GPU show its CPU cases: no column and no
// row of dashes alone, and the CPU times where the data has them.
func TestCPUHostTables(t *testing.T) {
	r := committedReport(t)
	// The host without a GPU whose 000 run feeds report 000's tables.
	var cpuHost *Host
	for _, h := range r.Hosts {
		if !h.GPU && slices.ContainsFunc(h.Runs, func(run *Run) bool { return run.Preset == "000" }) {
			cpuHost = h
		}
	}
	if cpuHost == nil {
		t.Fatal("the committed data has no host without a GPU with a 000 run")
	}
	n := 0
	for _, s := range r.Sections {
		for _, tb := range s.Tables {
			if !strings.HasSuffix(tb.ID, "-"+cpuHost.Slug) {
				continue
			}
			n++
			for c := 1; c < len(tb.Header); c++ {
				empty := true
				for _, row := range tb.Rows {
					empty = empty && row[c] == missing
				}
				if empty {
					t.Errorf("%s: column %q is dashes alone", tb.ID, tb.Header[c])
				}
			}
			for _, row := range tb.Rows {
				if len(row) > 1 && !slices.ContainsFunc(row[1:], func(c string) bool { return c != missing }) {
					t.Errorf("%s: row %q is dashes alone", tb.ID, row)
				}
			}
		}
	}
	if n == 0 {
		t.Errorf("no table of %s", cpuHost.Slug)
	}
	md := string(r.Markdown())
	if !strings.Contains(md, "### Image size sweep, Gaussian 3x3, 16x16 blocks — "+cpuHost.Title) {
		t.Errorf("report lacks the CPU host's image size table")
	}
}

func TestTableCPUOnly(t *testing.T) {
	tb := &Table{Header: []string{"Impl", "Variant", "ms", "GB/s", "gpu"}, Keys: 2, Rows: [][]string{
		{"a", "cpu-naive", "1.0", "2", missing},
		{"b", "gpu-naive", missing, missing, missing},
		{"c", "cpu-fast", "0.5", missing, missing},
	}}
	if !tb.CPUOnly() {
		t.Fatal("CPUOnly = false for a table with CPU values")
	}
	if want := []string{"Impl", "Variant", "ms", "GB/s"}; !slices.Equal(tb.Header, want) {
		t.Errorf("header %q, want %q", tb.Header, want)
	}
	if len(tb.Rows) != 2 || tb.Rows[1][1] != "cpu-fast" || tb.Rows[1][3] != missing {
		t.Errorf("rows %q", tb.Rows)
	}
	gpuOnly := &Table{Header: []string{"Block", "Threads", "V1"}, Keys: 2, Rows: [][]string{{"8x8", "64", missing}}}
	if gpuOnly.CPUOnly() {
		t.Errorf("CPUOnly = true for a table of GPU cases alone")
	}
}
