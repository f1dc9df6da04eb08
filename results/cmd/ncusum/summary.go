package main

import (
	"cmp"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/convbench/convbench/internal/median"
	"github.com/convbench/convbench/results"
)

// A kernel is the launches of one kernel name, block size and grid size,
// summarised.
type kernel struct {
	name, block, grid string
	launches          int
	total             float64 // summed duration of the launches that have one, microseconds
	figures                   // medians over the launches that have each
	limiter           string  // "compute (SM)", "memory (DRAM)", ...; "" where neither share is known
	share             float64 // the limiter's share of its roof, percent
}

// group summarises launches by kernel name, block and grid, longest
// total duration first; kernels without a duration come last, and ties
// go by name, block and grid.
func group(launches []*launch) []*kernel {
	type key struct{ name, block, grid string }
	byKey := map[key][]*launch{}
	for _, l := range launches {
		k := key{l.kernel, l.block, l.grid}
		byKey[k] = append(byKey[k], l)
	}
	var kernels []*kernel
	for k, ls := range byKey {
		g := &kernel{name: k.name, block: k.block, grid: k.grid, launches: len(ls)}
		for f := range nfigures {
			var vs []float64
			for _, l := range ls {
				if l.has[f] {
					vs = append(vs, l.val[f])
				}
				if f == duration && l.has[f] {
					g.total += l.val[f]
				}
			}
			if len(vs) > 0 {
				g.val[f], g.has[f] = median.Of(vs), true
			}
		}
		g.limiter, g.share = limiter(g.figures)
		kernels = append(kernels, g)
	}
	slices.SortStableFunc(kernels, func(a, b *kernel) int {
		if a.has[duration] != b.has[duration] {
			if a.has[duration] {
				return -1
			}
			return 1
		}
		return cmp.Or(cmp.Compare(b.total, a.total), cmp.Compare(a.name, b.name),
			cmp.Compare(a.block, b.block), cmp.Compare(a.grid, b.grid))
	})
	return kernels
}

// limiter names the roof that limits a kernel and gives its share:
// compute (SM) where the SM's share is at least the memory's, else
// memory. The memory's share is the largest known of Memory Throughput
// and the DRAM, L2 and L1/TEX shares (ncu's Memory Throughput can be
// below L1/TEX's), qualified by the first unit of DRAM, L2 and L1/TEX
// with the largest share, where one is known. It returns "" where no
// share is known.
func limiter(f figures) (name string, share float64) {
	name, mem, known := "memory", math.Inf(-1), f.has[memory]
	if known {
		mem = f.val[memory]
	}
	best := math.Inf(-1)
	for _, u := range []struct {
		f    figure
		name string
	}{{dram, "memory (DRAM)"}, {l2, "memory (L2)"}, {l1, "memory (L1/TEX)"}} {
		if f.has[u.f] && f.val[u.f] > best {
			name, best, known = u.name, f.val[u.f], true
		}
	}
	mem = max(mem, best)
	switch {
	case f.has[sm] && (!known || f.val[sm] >= mem):
		return "compute (SM)", f.val[sm]
	case !known:
		return "", 0
	}
	return name, mem
}

// header is the table's header row.
var header = []string{"kernel", "block", "grid", "launches", "duration (us)", "total (us)",
	"SM %", "memory %", "DRAM %", "L1/TEX %", "L2 %", "limiter", "share of roof %"}

// cells returns k's row of the table, numbers formatted by format and
// unknown values empty.
func (k *kernel) cells(format func(float64) string) []string {
	num := func(v float64, ok bool) string {
		if !ok {
			return ""
		}
		return format(v)
	}
	return []string{k.name, k.block, k.grid, strconv.Itoa(k.launches),
		num(k.val[duration], k.has[duration]), num(k.total, k.has[duration]),
		num(k.val[sm], k.has[sm]), num(k.val[memory], k.has[memory]), num(k.val[dram], k.has[dram]),
		num(k.val[l1], k.has[l1]), num(k.val[l2], k.has[l2]), k.limiter, num(k.share, k.limiter != "")}
}

// writeTSV writes the header and a line a kernel, tab-separated, the
// numbers to at most six decimal places; a tab or line break in a name
// becomes a space.
func writeTSV(w io.Writer, kernels []*kernel) error {
	var sb strings.Builder
	clean := strings.NewReplacer("\t", " ", "\n", " ", "\r", " ")
	line := func(cells []string) {
		for i, c := range cells {
			cells[i] = clean.Replace(c)
		}
		sb.WriteString(strings.Join(cells, "\t") + "\n")
	}
	line(slices.Clone(header))
	for _, k := range kernels {
		line(k.cells(func(v float64) string { return strconv.FormatFloat(math.Round(v*1e6)/1e6, 'f', -1, 64) }))
	}
	_, err := io.WriteString(w, sb.String())
	return err
}

// writeMarkdown writes the table as results' Markdown tables are written
// (results.Table), a caption naming the files and counting launches and
// kernels, and its legend.
func writeMarkdown(w io.Writer, kernels []*kernel, files []string) error {
	launches := 0
	for _, k := range kernels {
		launches += k.launches
	}
	t := &results.Table{
		Title:   "Nsight Compute's Speed Of Light section, by kernel",
		Caption: fmt.Sprintf("%s: %d launches of %d kernels.", strings.Join(files, ", "), launches, len(kernels)),
		Header:  header,
		Keys:    3,
		Legend: []string{
			"A row is the launches of one kernel with the same block and grid, longest total duration first.",
			"duration, SM %, memory %, DRAM %, L1/TEX %, L2 %: medians over the launches, of ncu's " +
				"Duration and the Compute (SM), Memory, DRAM, L1/TEX Cache and L2 Cache Throughput, each " +
				"a percentage of its peak; total: the launches' durations summed. An empty cell: ncu gave no value.",
			"limiter: compute (SM) where the SM's share is at least the memory's (the largest of memory %, " +
				"DRAM %, L1/TEX % and L2 %), else memory and the unit with the largest share of DRAM, L2 and " +
				"L1/TEX; share of roof: the limiter's share.",
		},
	}
	for _, k := range kernels {
		r := k.cells(func(v float64) string { return results.Sig(v, 3) })
		r[0] = "`" + r[0] + "`"
		t.Rows = append(t.Rows, r)
	}
	return t.RenderMarkdown(w)
}
