package slab

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/convbench/convbench/convolve"
)

// filterProblem is a one-channel f32 Filter2D problem of a w x h image
// with a 1 x kh box filter.
func filterProblem(w, h, kh int, b convolve.Border) convolve.Problem {
	ws := make([]float32, kh)
	for i := range ws {
		ws[i] = 1
	}
	return convolve.Problem{
		Op:     convolve.Filter2D,
		Input:  convolve.Geometry{Width: w, Height: h, Channels: 1, Type: convolve.Float32},
		Filter: &convolve.Filter{Name: "column", Width: 1, Height: kh, Weights: ws},
		Border: b,
	}
}

// sources lists the image rows a slab's input holds.
func sources(pt *Partition, s Slab) []int {
	var rows []int
	for i := range s.InputRows() {
		rows = append(rows, pt.Source(s, i))
	}
	return rows
}

// TestDivideSources checks the rows of each slab's input, halo rows
// included, for a 6-row image in 2 slabs and a 5-row filter (two halo rows
// each side) under every border: the halo rows at the image's edges are
// the rows the whole image's border reads, from the far side under Wrap.
func TestDivideSources(t *testing.T) {
	tests := []struct {
		border     convolve.Border
		top, lower []int
	}{
		{convolve.Zero, []int{0, 1, 2, 3, 4}, []int{1, 2, 3, 4, 5}},
		{convolve.Replicate, []int{0, 0, 0, 1, 2, 3, 4}, []int{1, 2, 3, 4, 5, 5, 5}},
		{convolve.Reflect, []int{1, 0, 0, 1, 2, 3, 4}, []int{1, 2, 3, 4, 5, 5, 4}},
		{convolve.Mirror, []int{2, 1, 0, 1, 2, 3, 4}, []int{1, 2, 3, 4, 5, 4, 3}},
		{convolve.Wrap, []int{4, 5, 0, 1, 2, 3, 4}, []int{1, 2, 3, 4, 5, 0, 1}},
	}
	for _, tt := range tests {
		pt, err := Divide(filterProblem(4, 6, 5, tt.border), 2)
		if err != nil {
			t.Fatal(err)
		}
		if len(pt.Slabs) != 2 || pt.Above != 2 || pt.Below != 2 {
			t.Fatalf("%v: %d slabs with halo %d above and %d below, want 2 slabs, halo 2 and 2", tt.border, len(pt.Slabs), pt.Above, pt.Below)
		}
		top, lower := pt.Slabs[0], pt.Slabs[1]
		if top.Y0 != 0 || top.Y1 != 3 || lower.Y0 != 3 || lower.Y1 != 6 {
			t.Errorf("%v: output rows %d-%d and %d-%d, want 0-3 and 3-6", tt.border, top.Y0, top.Y1, lower.Y0, lower.Y1)
		}
		if got := sources(pt, top); !slices.Equal(got, tt.top) {
			t.Errorf("%v: top slab's input rows %v, want %v", tt.border, got, tt.top)
		}
		if got := sources(pt, lower); !slices.Equal(got, tt.lower) {
			t.Errorf("%v: lower slab's input rows %v, want %v", tt.border, got, tt.lower)
		}
		if got := sources(pt, top)[top.Top()]; got != 0 {
			t.Errorf("%v: top slab's input row Top()=%d holds image row %d, want 0", tt.border, top.Top(), got)
		}
	}
}

// TestDivideShapes checks the slab count and the tiling of the output
// rows for more slabs than rows, slabs shorter than the filter and one
// slab, and that a slab's input never reaches past the halo.
func TestDivideShapes(t *testing.T) {
	for _, b := range convolve.Borders {
		for _, h := range []int{1, 2, 3, 5, 8, 13} {
			for _, kh := range []int{1, 3, 7, 15} {
				for n := 1; n <= 9; n++ {
					p := filterProblem(3, h, kh, b)
					pt, err := Divide(p, n)
					if err != nil {
						t.Fatal(err)
					}
					if want := min(n, h); len(pt.Slabs) != want {
						t.Errorf("%v h=%d n=%d: %d slabs, want %d", b, h, n, len(pt.Slabs), want)
					}
					y := 0
					for i, s := range pt.Slabs {
						if s.Y0 != y || s.Y1 <= s.Y0 {
							t.Fatalf("%v h=%d kh=%d n=%d: slab %d has rows %d-%d after row %d", b, h, kh, n, i, s.Y0, s.Y1, y)
						}
						y = s.Y1
						above, below := s.Y0-s.In0, s.In1-s.Y1
						wantAbove, wantBelow := kh/2, kh-1-kh/2
						if b == convolve.Zero {
							wantAbove, wantBelow = min(wantAbove, s.Y0), min(wantBelow, h-s.Y1)
						}
						if above != wantAbove || below != wantBelow {
							t.Errorf("%v h=%d kh=%d n=%d: slab %d halo %d above, %d below; want %d, %d", b, h, kh, n, i, above, below, wantAbove, wantBelow)
						}
						for r := y - s.Rows(); r < y; r++ {
							if pt.Owner(r) != i {
								t.Errorf("%v h=%d n=%d: Owner(%d) = %d, want %d", b, h, n, r, pt.Owner(r), i)
							}
						}
					}
					if y != h {
						t.Errorf("%v h=%d n=%d: slabs end at row %d", b, h, n, y)
					}
					if pt.Owner(-1) != -1 || pt.Owner(h) != -1 {
						t.Errorf("Owner outside the image: %d, %d; want -1", pt.Owner(-1), pt.Owner(h))
					}
				}
			}
		}
	}
}

// TestDivideErrors: a slab count or row count below 1 and an invalid
// problem are refused with errors that name the value.
func TestDivideErrors(t *testing.T) {
	p := filterProblem(4, 4, 3, convolve.Zero)
	if _, err := Divide(p, 0); err == nil || !contains(err, "0 slabs") {
		t.Errorf("Divide(0 slabs) = %v, want an error naming 0 slabs", err)
	}
	if _, err := DivideRows(p, -2); err == nil || !contains(err, "-2 rows") {
		t.Errorf("DivideRows(-2) = %v, want an error naming -2 rows", err)
	}
	if pt, err := Divide(p, 1<<62); err != nil || len(pt.Slabs) != 4 {
		t.Errorf("Divide(2^62 slabs) of 4 rows: %v, want 4 slabs", err)
	}
	bad := p
	bad.Input.Height = 0
	if _, err := Divide(bad, 2); err == nil {
		t.Error("Divide of an image of height 0: no error")
	}
}

// contains reports whether err is not nil and its text holds s.
func contains(err error, s string) bool {
	return err != nil && strings.Contains(err.Error(), s)
}

// TestStreamRows checks the rows a limit allows and the refusal of a
// limit too small for one row and its halo.
func TestStreamRows(t *testing.T) {
	p := filterProblem(10, 50, 5, convolve.Reflect)
	perRow := int64(2 * (10*4 + 10*4)) // one f32 input row and one f32 output row, for two slabs
	tests := []struct {
		limit int64
		rows  int
	}{
		{5 * perRow, 1},
		{6*perRow - 1, 1},
		{6 * perRow, 2},
		{1 << 30, 50},
	}
	for _, tt := range tests {
		if got, err := streamRows(p, tt.limit); err != nil || got != tt.rows {
			t.Errorf("streamRows(%d) = %d, %v; want %d", tt.limit, got, err, tt.rows)
		}
	}
	_, err := streamRows(p, 5*perRow-1)
	var me *convolve.MemoryError
	if !errors.As(err, &me) || me.Needed != 5*perRow || me.Available != 5*perRow-1 {
		t.Errorf("streamRows below one row: %v, want a *convolve.MemoryError needing %d of %d bytes", err, 5*perRow, 5*perRow-1)
	}
	v, _ := Stream(lookup(t, "cpu-naive"), 5*perRow-1)
	if _, err := convolve.PlanFor(v, p, convolve.Config{}); !errors.As(err, &me) || me.Variant != v.Describe().Name {
		t.Errorf("plan under too small a limit: %v, want a *convolve.MemoryError naming %s", err, v.Describe().Name)
	}
}

// TestConstructors: Wrap and Stream refuse a nil variant, fewer than one
// slab and a limit below one byte; the family's names and capabilities.
func TestConstructors(t *testing.T) {
	naive := lookup(t, "cpu-naive")
	for _, err := range []error{
		second(Wrap(nil, 2)), second(Wrap(naive, 0)), second(Stream(nil, 10)), second(Stream(naive, 0)),
	} {
		if err == nil {
			t.Error("constructor with a bad argument: no error")
		}
	}
	w, _ := Wrap(naive, 3)
	s, _ := Stream(naive, 64<<10)
	for _, tt := range []struct {
		v    convolve.Variant
		name string
	}{{w, "slab3-cpu-naive"}, {s, "stream64KiB-cpu-naive"}} {
		d := tt.v.Describe()
		if d.Name != tt.name {
			t.Errorf("name %q, want %q", d.Name, tt.name)
		}
		inner := naive.Describe().Caps
		if fmt.Sprint(d.Caps) != fmt.Sprint(inner) {
			t.Errorf("%s: capabilities %+v, want the wrapped variant's %+v", d.Name, d.Caps, inner)
		}
	}
}

func second[T any](_ T, err error) error { return err }

// TestPlanChecks: a slab plan refuses an overlapping output, runs after
// Close and a second Close, and a problem outside the capabilities.
func TestPlanChecks(t *testing.T) {
	v, _ := Wrap(lookup(t, "cpu-naive"), 2)
	p := filterProblem(4, 4, 3, convolve.Mirror)
	pl, err := convolve.PlanFor(v, p, convolve.Config{})
	if err != nil {
		t.Fatal(err)
	}
	data := make([]float32, 16)
	in, _ := convolve.WrapFloat32(p.Input, data)
	out, _ := convolve.WrapFloat32(p.OutputGeometry(), data)
	if err := pl.Run(in, out); !errors.Is(err, convolve.ErrOverlap) {
		t.Errorf("Run in place: %v, want ErrOverlap", err)
	}
	if err := pl.Close(); err != nil {
		t.Fatal(err)
	}
	out, _ = p.NewOutput()
	if err := pl.Run(in, out); !errors.Is(err, convolve.ErrClosed) {
		t.Errorf("Run after Close: %v, want ErrClosed", err)
	}
	if err := pl.Close(); !errors.Is(err, convolve.ErrClosed) {
		t.Errorf("second Close: %v, want ErrClosed", err)
	}
	if _, err := v.Plan(p, convolve.Config{Block: convolve.Block{X: 8, Y: 8}}); err == nil {
		t.Error("Plan with a block shape for a CPU variant: no error")
	}
}

// finiteOnly is cpu-naive declaring FiniteInput, as a variant that cannot
// compute with NaN or infinities does.
type finiteOnly struct{ convolve.Variant }

func (f finiteOnly) Describe() convolve.Description {
	d := f.Variant.Describe()
	d.Name, d.Caps.FiniteInput = "finite-naive", true
	return d
}

// TestFiniteInputNamesImageRow: a NaN pixel given to a slab variant of a
// FiniteInput variant is refused with the pixel's row in the whole image,
// not in its slab.
func TestFiniteInputNamesImageRow(t *testing.T) {
	v, _ := Wrap(finiteOnly{lookup(t, "cpu-naive")}, 3)
	p := filterProblem(4, 9, 3, convolve.Zero)
	pl, err := convolve.PlanFor(v, p, convolve.Config{})
	if err != nil {
		t.Fatal(err)
	}
	defer pl.Close()
	in, _ := convolve.NewImage(p.Input)
	in.F32[in.Offset(2, 7, 0)] = float32(math.NaN())
	out, _ := p.NewOutput()
	var nf *convolve.NonFiniteError
	if err := pl.Run(in, out); !errors.As(err, &nf) || !contains(err, "y=7") || nf.Variant != "slab3-finite-naive" {
		t.Errorf("Run with a NaN at row 7: %v, want a *convolve.NonFiniteError at y=7 from slab3-finite-naive", err)
	}
}

// TestLookupAndRegister: names of the family resolve to the variants
// Wrap and Stream make, nested names included; bad names are refused;
// Register makes a name visible through convolve.Lookup.
func TestLookupAndRegister(t *testing.T) {
	for _, tt := range []struct{ name, want string }{
		{"slab2-cpu-naive", "slab2-cpu-naive"},
		{"slab12-cpu-fast", "slab12-cpu-fast"},
		{"stream64KiB-cpu-fast", "stream64KiB-cpu-fast"},
		{"stream1024B-cpu-fast", "stream1KiB-cpu-fast"},
		{"stream3MiB-slab2-cpu-naive", "stream3MiB-slab2-cpu-naive"},
	} {
		v, err := Lookup(tt.name)
		if err != nil || v.Describe().Name != tt.want {
			t.Errorf("Lookup(%q) = %v, %v; want %s", tt.name, v, err, tt.want)
		}
	}
	for _, name := range []string{"slab0-cpu-naive", "slab2-no-such", "stream0B-cpu-fast", "stream4kb-cpu-fast", "cpu-naive", "stream99999999999GiB-cpu-fast"} {
		if _, err := Lookup(name); err == nil {
			t.Errorf("Lookup(%q): no error", name)
		}
	}
	if err := Register("slab7-cpu-naive"); err != nil {
		t.Fatal(err)
	}
	if _, err := convolve.Lookup("slab7-cpu-naive"); err != nil {
		t.Errorf("after Register: %v", err)
	}
	if err := Register("slab7-cpu-naive"); err == nil {
		t.Error("second Register of slab7-cpu-naive: no error")
	}
	if err := Register("stream2048B-cpu-naive"); err == nil {
		t.Error("Register of a name written otherwise than the variant's: no error")
	}
}

// TestCopies rebuilds every slab's input from its copies alone, each run
// read from the output rows of the slab it names (as resident mode
// exchanges halos between devices), and checks it against Source; it
// also checks the runs of a Wrap partition by hand.
func TestCopies(t *testing.T) {
	for _, b := range convolve.Borders {
		for _, h := range []int{1, 2, 5, 9, 16} {
			for _, kh := range []int{1, 3, 5, 11} {
				for n := 1; n <= 5; n++ {
					pt, err := Divide(filterProblem(2, h, kh, b), n)
					if err != nil {
						t.Fatal(err)
					}
					for i, s := range pt.Slabs {
						got := make([]int, s.InputRows())
						for k := range got {
							got[k] = -1
						}
						for _, c := range pt.Copies(i) {
							owner := pt.Slabs[c.From]
							if c.Rows < 1 || c.Src < owner.Y0 || c.Src+c.Rows > owner.Y1 {
								t.Fatalf("%v h=%d kh=%d n=%d slab %d: copy %+v outside the output rows %d-%d of slab %d", b, h, kh, n, i, c, owner.Y0, owner.Y1, c.From)
							}
							for k := range c.Rows {
								got[c.Dst+k] = c.Src + k
							}
						}
						if want := sources(pt, s); !slices.Equal(got, want) {
							t.Errorf("%v h=%d kh=%d n=%d slab %d: copies give rows %v, want %v", b, h, kh, n, i, got, want)
						}
					}
				}
			}
		}
	}
	pt, _ := Divide(filterProblem(2, 9, 5, convolve.Wrap), 3)
	want := []Copy{{From: 2, Src: 7, Dst: 0, Rows: 2}, {From: 0, Src: 0, Dst: 2, Rows: 3}, {From: 1, Src: 3, Dst: 5, Rows: 2}}
	if got := pt.Copies(0); !slices.Equal(got, want) {
		t.Errorf("Wrap, 9 rows, 3 slabs, slab 0: copies %+v, want %+v", got, want)
	}
}

// TestPlanPartition: a Wrap plan runs its slab count (fewer for fewer
// rows), a Stream plan as many slabs as its limit makes.
func TestPlanPartition(t *testing.T) {
	fast := lookup(t, "cpu-fast")
	p := filterProblem(8, 13, 5, convolve.Wrap)
	for _, tt := range []struct {
		v     func() (convolve.Variant, error)
		h     int
		slabs int
	}{
		{func() (convolve.Variant, error) { return Wrap(fast, 3) }, 13, 3},
		{func() (convolve.Variant, error) { return Wrap(fast, 5) }, 2, 2},
		{func() (convolve.Variant, error) { return Stream(fast, streamLimit(p, 2)) }, 13, 7},
		{func() (convolve.Variant, error) { return Stream(fast, streamLimit(p, 1)) }, 13, 13},
		{func() (convolve.Variant, error) { return Stream(fast, 1<<20) }, 13, 1},
	} {
		v, err := tt.v()
		if err != nil {
			t.Fatal(err)
		}
		q := p
		q.Input.Height = tt.h
		pl, err := convolve.PlanFor(v, q, convolve.Config{})
		if err != nil {
			t.Fatal(err)
		}
		if got := len(pl.(Partitioned).Partition().Slabs); got != tt.slabs {
			t.Errorf("%s on %d rows: %d slabs, want %d", v.Describe().Name, tt.h, got, tt.slabs)
		}
		pl.Close()
	}
}

// errInjected is the error of failingPlan's runs.
var errInjected = errors.New("injected failure")

// failing is cpu-naive whose plans fail every Run after their first ok
// runs.
type failing struct {
	convolve.Variant
	ok int
}

func (f failing) Plan(p convolve.Problem, cfg convolve.Config) (convolve.Plan, error) {
	pl, err := f.Variant.Plan(p, cfg)
	if err != nil {
		return nil, err
	}
	return &failingPlan{Plan: pl, ok: f.ok}, nil
}

type failingPlan struct {
	convolve.Plan
	ok int
}

func (fp *failingPlan) Run(in, out *convolve.Image) error {
	if fp.ok == 0 {
		return errInjected
	}
	fp.ok--
	return fp.Plan.Run(in, out)
}

// TestRunErrors: a wrapped plan's failure comes back from Run, wrapped
// with the slab it hit, in memory and streaming (where the goroutine
// filling the next slab stops), and the plan still closes.
func TestRunErrors(t *testing.T) {
	p := filterProblem(4, 20, 3, convolve.Reflect)
	inner := failing{lookup(t, "cpu-naive"), 3}
	wrap, _ := Wrap(inner, 4)
	stream, _ := Stream(inner, streamLimit(p, 2))
	for _, v := range []convolve.Variant{wrap, stream} {
		pl, err := convolve.PlanFor(v, p, convolve.Config{})
		if err != nil {
			t.Fatal(err)
		}
		in, _ := convolve.NewImage(p.Input)
		out, _ := p.NewOutput()
		for run := 0; run < 5; run++ {
			err = pl.Run(in, out)
			if err != nil {
				break
			}
		}
		if !errors.Is(err, errInjected) || !contains(err, "slab ") {
			t.Errorf("%s: Run with a failing slab plan: %v, want the injected failure with its slab", v.Describe().Name, err)
		}
		if err := pl.Close(); err != nil {
			t.Errorf("%s: Close after a failed Run: %v", v.Describe().Name, err)
		}
	}
}
