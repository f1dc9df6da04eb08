package refimpl_test

import (
	"math/rand/v2"
	"testing"

	"github.com/convbench/convbench/convolve"
	"github.com/convbench/convbench/internal/imagetest"
	"github.com/convbench/convbench/refimpl"
)

// fuzzProblem turns fuzz bytes into a problem: sides -1..38, shifted
// left by shift%24 bits, filter sides -1..17, channels 0..5, and one value
// past the valid ones for the element type, layout, border, mode and
// operation, so that invalid and huge problems are drawn as well as small
// valid ones. pad 0 means packed rows, else the stride is the row plus
// pad-2 elements (one short at pad 1).
func fuzzProblem(w, h, shift, kw, kh, ch, typ, layout, border, mode, op, pad uint8, r *rand.Rand) convolve.Problem {
	g := convolve.Geometry{
		Width:    (int(w%40) - 1) << (shift % 24),
		Height:   (int(h%40) - 1) << (shift % 24),
		Channels: int(ch % 6),
		Type:     convolve.ElemType(typ % 4),
		Layout:   convolve.Layout(layout % 3),
	}
	if pad%8 != 0 && g.Width > 0 && g.Channels > 0 {
		g.Stride = g.RowElems() + int(pad%8) - 2
	}
	p := convolve.Problem{
		Op:     convolve.Operation(op % 4),
		Input:  g,
		Border: convolve.Border(border % 6),
		Mode:   convolve.Mode(mode % 3),
	}
	fw, fh := int(kw%19)-1, int(kh%19)-1
	if p.Op == convolve.Filter2D && fw > 0 && fh > 0 {
		weights := make([]float32, fw*fh)
		switch r.IntN(3) {
		case 0: // random, some zero
			for i := range weights {
				if r.IntN(4) != 0 {
					weights[i] = float32(2*r.Float64() - 1)
				}
			}
		case 1: // separable: an outer product
			row, col := make([]float32, fw), make([]float32, fh)
			for i := range row {
				row[i] = float32(2*r.Float64() - 1)
			}
			for j := range col {
				col[j] = float32(2*r.Float64() - 1)
			}
			for j := range col {
				for i := range row {
					weights[j*fw+i] = col[j] * row[i]
				}
			}
		default: // one tap
			weights[r.IntN(len(weights))] = 1
		}
		p.Filter = &convolve.Filter{Name: "fuzz", Width: fw, Height: fh, Weights: weights}
	}
	return p
}

// FuzzCPUVariants plans and runs reference, cpu-naive and cpu-fast on
// random problems, valid and not: an invalid problem (such as a 2^20 x
// 2^20 image, over convolve.MaxImageBytes) is refused by PlanFor and
// Expect with an error; a valid one of at most 2^16 elements is planned,
// run into an output with padded or packed rows, and agrees with Expect
// within its tolerance, run after run. Nothing may panic.
func FuzzCPUVariants(f *testing.F) {
	// w, h, shift, kw, kh, channels, type, layout, border, mode, op, pad, seed
	f.Add(uint8(2), uint8(2), uint8(20), uint8(4), uint8(4), uint8(1), uint8(1), uint8(0), uint8(0), uint8(0), uint8(0), uint8(0), uint64(0))
	f.Add(uint8(33), uint8(33), uint8(15), uint8(4), uint8(4), uint8(4), uint8(0), uint8(1), uint8(1), uint8(0), uint8(1), uint8(3), uint64(0))
	f.Add(uint8(9), uint8(7), uint8(0), uint8(4), uint8(6), uint8(1), uint8(0), uint8(0), uint8(0), uint8(0), uint8(0), uint8(0), uint64(1))
	f.Add(uint8(2), uint8(2), uint8(0), uint8(18), uint8(18), uint8(3), uint8(1), uint8(1), uint8(4), uint8(1), uint8(0), uint8(5), uint64(2))
	f.Add(uint8(34), uint8(18), uint8(0), uint8(6), uint8(4), uint8(4), uint8(2), uint8(1), uint8(2), uint8(0), uint8(1), uint8(3), uint64(3))
	f.Add(uint8(6), uint8(5), uint8(0), uint8(0), uint8(0), uint8(3), uint8(1), uint8(0), uint8(1), uint8(0), uint8(2), uint8(2), uint64(4))
	f.Add(uint8(0), uint8(1), uint8(0), uint8(5), uint8(5), uint8(0), uint8(3), uint8(2), uint8(5), uint8(2), uint8(3), uint8(1), uint64(5))
	f.Add(uint8(2), uint8(2), uint8(0), uint8(3), uint8(3), uint8(2), uint8(0), uint8(1), uint8(3), uint8(1), uint8(0), uint8(1), uint64(6))
	names := []string{"reference", "cpu-naive", "cpu-fast"}
	f.Fuzz(func(t *testing.T, w, h, shift, kw, kh, ch, typ, layout, border, mode, op, pad uint8, seed uint64) {
		r := rand.New(rand.NewPCG(seed, 0x66757a7a))
		p := fuzzProblem(w, h, shift, kw, kh, ch, typ, layout, border, mode, op, pad, r)
		if err := p.Validate(); err != nil {
			for _, name := range names {
				v, lerr := convolve.Lookup(name)
				if lerr != nil {
					t.Fatal(lerr)
				}
				if plan, perr := convolve.PlanFor(v, p, convolve.Config{}); perr == nil {
					plan.Close()
					t.Fatalf("%s planned the invalid problem %v (%v)", name, p, err)
				}
			}
			if _, _, eerr := refimpl.Expect(p, nil); eerr == nil {
				t.Fatalf("Expect accepted the invalid problem %v (%v)", p, err)
			}
			return
		}
		if p.Input.Len() > 1<<16 || p.OutputGeometry().Len() > 1<<16 {
			return // valid, but too large to run here
		}
		in := imagetest.Random(r, p.Input, imagetest.Mixed)
		ref, tol, err := refimpl.Expect(p, in)
		if err != nil {
			t.Fatalf("%v: Expect: %v", p, err)
		}
		og := p.OutputGeometry()
		if pad%2 == 1 {
			og.Stride = og.RowElems() + int(pad%5)
		}
		for _, name := range names {
			v, err := convolve.Lookup(name)
			if err != nil {
				t.Fatal(err)
			}
			plan, err := convolve.PlanFor(v, p, convolve.Config{})
			if err != nil {
				t.Fatalf("%v: %s: plan: %v", p, name, err)
			}
			out, err := convolve.NewImage(og)
			if err != nil {
				t.Fatalf("%v: output %v: %v", p, og, err)
			}
			for run := 0; run < 2; run++ {
				if err := plan.Run(in, out); err != nil {
					t.Fatalf("%v: %s: run %d: %v", p, name, run, err)
				}
				m, err := convolve.Compare(out, ref, tol)
				if err != nil {
					t.Fatalf("%v: %s: compare: %v", p, name, err)
				}
				if !m.OK() {
					t.Fatalf("%v: %s: run %d: %v", p, name, run, m)
				}
			}
			if err := plan.Close(); err != nil {
				t.Fatalf("%v: %s: close: %v", p, name, err)
			}
		}
	})
}
