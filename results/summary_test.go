package results

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

// The summary lists cases by variant, then size by pixels, then filter,
// then the other keys, whatever order the file holds them in.
func TestSummaryOrder(t *testing.T) {
	// name keys of each case in the wanted order: variant, size, filter,
	// block, timing, opts.
	want := [][6]string{
		{"cpu-naive", "512x512", "gauss5", "none", "cpu", "none"},
		{"cpu-naive", "1024x1024", "gauss3", "none", "cpu", "none"},
		{"cpu-naive", "1024x1024", "gauss5", "none", "cpu", "none"},
		{"cpu-naive", "1024x1024", "gauss11", "none", "cpu", "none"},
		{"cpu-naive", "100x100000", "gauss5", "none", "cpu", "none"}, // 10 Mpix after 1 Mpix
		{"gpu-naive", "1024x1024", "box3", "8x8", "kernel", "default"},
		{"gpu-naive", "1024x1024", "box3", "8x8", "kernel", "fast-math"},
		{"gpu-naive", "1024x1024", "box3", "8x8", "kernel", "nofma"},
		{"gpu-naive", "1024x1024", "box3", "16x16", "kernel", "default"},
		{"gpu-naive", "1024x1024", "box3", "32x8", "kernel", "default"},
		{"gpu-naive", "1024x1024", "box3", "32x8", "total", "default"},
		{"gpu-naive", "1024x1024", "box3", "default", "kernel", "default"},
		{"gpu-naive", "1024x1024", "box9", "8x8", "kernel", "default"},
		{"gpu-naive", "1024x1024", "box25", "8x8", "kernel", "default"},
		{"gpu-naive", "2048x2048", "box3", "8x8", "kernel", "default"},
		{"gpu-shared", "256x256", "box3", "8x8", "kernel", "default"},
	}
	for seed := range uint64(5) {
		shuffled := slices.Clone(want)
		rand.New(rand.NewPCG(seed, 1)).Shuffle(len(shuffled), func(i, j int) { shuffled[i], shuffled[j] = shuffled[j], shuffled[i] })
		var sb strings.Builder
		sb.WriteString("gpu: Test GPU\n")
		for i, c := range shuffled {
			mem := "none"
			if c[4] == "total" {
				mem = "pageable"
			}
			fmt.Fprintf(&sb, "BenchmarkConv/variant=%s/size=%s/filter=%s/k=3/block=%s/border=zero/type=f32/ch=1/layout=interleaved/cache=hot/timing=%s/mem=%s/opts=%s 1 %d ns/op\n",
				c[0], c[1], c[2], c[3], c[4], mem, c[5], 1000+i)
		}
		r, err := ReadRun(strings.NewReader(sb.String()), "data/test-gpu/x.txt")
		if err != nil {
			t.Fatal(err)
		}
		tb := Summary(r, "")
		if len(tb.Rows) != len(want) {
			t.Fatalf("%d rows, want %d", len(tb.Rows), len(want))
		}
		col := func(name string) int {
			i := slices.Index(tb.Header, name)
			if i < 0 {
				t.Fatalf("no column %s in %q", name, tb.Header)
			}
			return i
		}
		variant, size, filter, block, timing := col("variant"), col("size"), col("filter"), col("block"), col("timing")
		for i, row := range tb.Rows {
			w := want[i]
			if row[variant] != w[0] || row[size] != w[1] || row[filter] != w[2] || row[block] != w[3] {
				t.Errorf("seed %d: row %d = %q, want %q", seed, i, row[:tb.Keys], w)
			}
		}
		// Compile options other than the default show in the timing column.
		if got := tb.Rows[7][timing]; got != "kernel nofma" {
			t.Errorf("seed %d: timing cell of the nofma case %q, want \"kernel nofma\"", seed, got)
		}
		if got := tb.Rows[10][timing]; got != "total pageable" {
			t.Errorf("seed %d: timing cell of the pipeline case %q, want \"total pageable\"", seed, got)
		}
	}
}

func TestNaturalCompare(t *testing.T) {
	tests := []struct {
		a, b string
		want int
	}{
		{"gauss3", "gauss11", -1},
		{"gauss11", "gauss3", 1},
		{"box7", "gauss3", -1},
		{"8x8", "16x16", -1},
		{"32x8", "32x16", -1},
		{"16x16", "default", -1},
		{"gpu-ch-grid", "gpu-ch-grid3d", -1},
		{"prewitt-x", "prewitt-x", 0},
		{"007", "7", 0},
		{"", "a", -1},
	}
	for _, tt := range tests {
		if got := NaturalCompare(tt.a, tt.b); got != tt.want {
			t.Errorf("NaturalCompare(%q, %q) = %d, want %d", tt.a, tt.b, got, tt.want)
		}
	}
	sizes := []string{"10000x100000", "100x1000", "1000x100", "100x100", "odd", "2048x2048"}
	slices.SortFunc(sizes, compareSizes)
	if want := []string{"100x100", "100x1000", "1000x100", "2048x2048", "10000x100000", "odd"}; !slices.Equal(sizes, want) {
		t.Errorf("sizes sorted %v, want %v", sizes, want)
	}
}

// The summary's %copy-bw column shows a line's %copy-bw (CPU and GPU
// lines carry it), or %peak-bw for a line that predates it.
func TestSummaryCopyBW(t *testing.T) {
	const keys = "/k=3/block=none/border=zero/type=f32/ch=1/layout=interleaved/cache=hot/timing=cpu/mem=none/opts=none"
	in := "cpu: Test CPU\n" +
		"BenchmarkConv/variant=cpu-fast/size=64x64/filter=gauss3" + keys + " 1 1000 ns/op 42.5 %copy-bw\n" +
		"BenchmarkConv/variant=cpu-naive/size=64x64/filter=gauss3" + keys + " 1 2000 ns/op 17.5 %peak-bw\n"
	r, err := ReadRun(strings.NewReader(in), "data/test-cpu/x.txt")
	if err != nil {
		t.Fatal(err)
	}
	tb := Summary(r, "")
	col := slices.Index(tb.Header, "%copy-bw")
	if col < 0 {
		t.Fatalf("header %q has no %%copy-bw column", tb.Header)
	}
	for i, want := range []string{"42.5", "17.5"} {
		if got := tb.Rows[i][col]; got != want {
			t.Errorf("row %d (%s): %%copy-bw %q, want %q", i, tb.Rows[i][0], got, want)
		}
	}
}

// TestSummaryShowsVaryingAxes: a key the run varies beyond the fixed
// columns (border, gpus) gets a column, so no two rows differ only in
// time; a key only ever unset ("none" or "default") gets none.
func TestSummaryShowsVaryingAxes(t *testing.T) {
	for _, c := range []struct {
		name, lines string
		want        []string // extra columns
	}{
		{"borders", "BenchmarkConv/variant=gpu-naive/size=64x64/filter=dense9/k=9/block=none/border=zero/type=f32/ch=1/layout=interleaved/cache=hot/timing=kernel/mem=none/opts=default/gpus=0/tune=none 1 100 ns/op\n" +
			"BenchmarkConv/variant=gpu-naive/size=64x64/filter=dense9/k=9/block=none/border=reflect/type=f32/ch=1/layout=interleaved/cache=hot/timing=kernel/mem=none/opts=default/gpus=0/tune=default 1 120 ns/op\n", []string{"border"}},
		{"gpus", "BenchmarkConv/variant=gpu-naive/size=64x64/filter=dense9/k=9/block=none/border=zero/type=f32/ch=1/layout=interleaved/cache=hot/timing=kernel/mem=none/opts=default/gpus=0 1 100 ns/op\n" +
			"BenchmarkConv/variant=gpu-naive/size=64x64/filter=dense9/k=9/block=none/border=zero/type=f32/ch=1/layout=interleaved/cache=hot/timing=kernel/mem=none/opts=default/gpus=0,1 1 120 ns/op\n", []string{"gpus"}},
		{"none vary", "BenchmarkConv/variant=gpu-naive/size=64x64/filter=dense9/k=9/block=none/border=zero/type=f32/ch=1/layout=interleaved/cache=hot/timing=kernel/mem=none/opts=default/tune=none 1 100 ns/op\n" +
			"BenchmarkConv/variant=cpu-naive/size=64x64/filter=dense9/k=9/block=none/border=zero/type=f32/ch=1/layout=interleaved/cache=hot/timing=kernel/mem=none/opts=default/tune=default 1 120 ns/op\n", nil},
	} {
		r, err := ReadRun(strings.NewReader(c.lines), "data/test-gpu/x.txt")
		if err != nil {
			t.Fatal(err)
		}
		tb := Summary(r, "")
		var got []string
		for _, h := range tb.Header[:tb.Keys] {
			if !slices.Contains(summaryKeys, h) {
				got = append(got, h)
			}
		}
		if !slices.Equal(got, c.want) {
			t.Errorf("%s: extra columns %q, want %q (header %q)", c.name, got, c.want, tb.Header)
		}
		if !slices.Contains(tb.Header[:tb.Keys], "timing") && !strings.Contains(tb.Caption, "timing kernel") {
			t.Errorf("%s: timing neither a key column (%q) nor in the caption %q", c.name, tb.Header[:tb.Keys], tb.Caption)
		}
	}
}

// A key column whose value every case shares moves into the caption;
// one column stays where every key is shared.
func TestSummaryConstantColumns(t *testing.T) {
	const rest = "/k=3/block=none/border=zero/type=f32/ch=1/layout=interleaved/cache=hot/timing=cpu/mem=none/opts=none 1 %d ns/op\n"
	for _, tt := range []struct {
		name     string
		variants []string
		sizes    []string
		keys     []string // the key columns
		caption  []string // in the caption
	}{
		{"two variants", []string{"cpu-fast", "cpu-naive"}, []string{"64x48"}, []string{"variant"}, []string{"size 64x48", "filter gauss3", "type f32", "timing cpu"}},
		{"two sizes", []string{"cpu-fast"}, []string{"64x48", "128x96"}, []string{"size"}, []string{"variant cpu-fast", "ch 1"}},
		{"one case", []string{"cpu-fast"}, []string{"64x48"}, []string{"variant"}, []string{"size 64x48"}},
	} {
		var sb strings.Builder
		sb.WriteString("cpu: Test CPU\n")
		for _, v := range tt.variants {
			for _, sz := range tt.sizes {
				for i := range 2 {
					fmt.Fprintf(&sb, "BenchmarkConv/variant=%s/size=%s/filter=gauss3"+rest, v, sz, 1000+i)
				}
			}
		}
		r, err := ReadRun(strings.NewReader(sb.String()), "data/test-cpu/x.txt")
		if err != nil {
			t.Fatal(err)
		}
		tb := Summary(r, "")
		if got := tb.Header[:tb.Keys]; !slices.Equal(got, tt.keys) {
			t.Errorf("%s: key columns %q, want %q", tt.name, got, tt.keys)
		}
		for _, c := range tt.caption {
			if !strings.Contains(tb.Caption, c) {
				t.Errorf("%s: caption %q lacks %q", tt.name, tb.Caption, c)
			}
		}
		for _, row := range tb.Rows {
			if len(row) != len(tb.Header) {
				t.Errorf("%s: row %q has %d cells, header %d", tt.name, row, len(row), len(tb.Header))
			}
		}
	}
}
