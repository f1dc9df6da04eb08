package variants

import (
	"errors"
	"math"
	"slices"
	"testing"

	"github.com/convbench/convbench/convolve"
	"github.com/convbench/convbench/cudabind"
	"github.com/convbench/convbench/internal/gputest"
)

// gpuNames lists every registered GPU variant.
func gpuNames() []string {
	var names []string
	for _, v := range convolve.Variants() {
		if d := v.Describe(); d.Caps.GPU {
			names = append(names, d.Name)
		}
	}
	return names
}

// validProblem is a small problem within the variant's capabilities.
func validProblem(t *testing.T, d convolve.Description) convolve.Problem {
	t.Helper()
	ch := 1
	if len(d.Caps.Channels) > 0 && !slices.Contains(d.Caps.Channels, 1) {
		ch = d.Caps.Channels[0]
	}
	op := convolve.Filter2D
	if len(d.Caps.Ops) > 0 {
		op = d.Caps.Ops[0]
	}
	typ := convolve.Float32
	if len(d.Caps.Types) > 0 && !slices.Contains(d.Caps.Types, typ) {
		typ = d.Caps.Types[0]
	}
	box, _ := convolve.Box(3)
	p := convolve.Problem{Op: op, Input: convolve.Geometry{Width: 20, Height: 12, Channels: ch, Type: typ}, Filter: box}
	if err := d.Caps.Check(p); err != nil {
		t.Fatalf("%s: no valid small problem: %v", d.Name, err)
	}
	return p
}

// TestFiniteInputDeclared pins which GPU variants declare FiniteInput
// (the reasons are beside each declaration): dropping the flag would let
// a variant compute wrong classes from non-finite input unchecked.
func TestFiniteInputDeclared(t *testing.T) {
	var got []string
	for _, v := range convolve.Variants() {
		if d := v.Describe(); d.Caps.GPU && d.Caps.FiniteInput {
			got = append(got, d.Name)
		}
	}
	if want := []string{"cudnn", "cudnn-tf32", "gpu-fft", "gpu-separable", "gpu-sepfused", "gpu-sobel", "gpu-tc-3xtf32", "gpu-tc-bf16", "gpu-tc-tf32", "npp", "npp-interior"}; !slices.Equal(got, want) {
		t.Errorf("GPU variants declaring FiniteInput = %v, want %v", got, want)
	}
}

// TestFiniteOnlyRefusesNonFiniteFilter: a finite-only variant is refused a
// filter with a NaN or infinite weight at plan time, with a
// *convolve.NonFiniteError naming it, before any device is opened (so
// this holds without a GPU).
func TestFiniteOnlyRefusesNonFiniteFilter(t *testing.T) {
	for _, name := range gpuNames() {
		v, _ := convolve.Lookup(name)
		d := v.Describe()
		if !d.Caps.FiniteInput || !slices.Contains(d.Caps.Ops, convolve.Filter2D) {
			continue
		}
		p := validProblem(t, d)
		for _, bad := range []float32{float32(math.NaN()), float32(math.Inf(1)), float32(math.Inf(-1))} {
			f := p.Filter.Clone()
			f.Weights[4] = bad
			q := p
			q.Filter = f
			for _, via := range []string{"PlanFor", "Plan"} {
				var pl convolve.Plan
				var err error
				if via == "PlanFor" {
					pl, err = convolve.PlanFor(v, q, convolve.Config{})
				} else {
					pl, err = v.Plan(q, convolve.Config{})
				}
				if pl != nil {
					pl.Close()
				}
				var nf *convolve.NonFiniteError
				if !errors.As(err, &nf) || nf.Variant != name {
					t.Errorf("%s: %s with weight %v: %v, want a *convolve.NonFiniteError naming the variant", name, via, bad, err)
				}
			}
		}
	}
}

// TestBaseRunChecks exercises the checks every GPU Run makes before
// touching a device, on a plan with no device behind it: overlap of input
// and output (capacity-capped slices included), non-finite input for a
// finite-only plan, use after Close and a second Close.
func TestBaseRunChecks(t *testing.T) {
	g := convolve.Geometry{Width: 6, Height: 4, Channels: 1}
	box, _ := convolve.Box(3)
	p := convolve.Problem{Op: convolve.Filter2D, Input: g, Filter: box}
	b := &Base{Name: "fake", Problem: p, FiniteInput: true}
	n := g.Len()
	buf := make([]float32, 2*n)
	in, _ := convolve.WrapFloat32(g, buf[0:n:n])
	overlapping, _ := convolve.WrapFloat32(g, buf[1:n+1:n+1])
	disjoint, _ := convolve.WrapFloat32(g, buf[n:2*n])
	if err := b.CheckRun(in, disjoint); err != nil {
		t.Errorf("disjoint images: %v", err)
	}
	if err := b.CheckRun(in, overlapping); !errors.Is(err, convolve.ErrOverlap) {
		t.Errorf("capacity-capped overlapping output: %v, want convolve.ErrOverlap", err)
	}
	buf[5] = float32(math.Inf(-1))
	var nf *convolve.NonFiniteError
	if err := b.CheckRun(in, disjoint); !errors.As(err, &nf) || nf.Variant != "fake" {
		t.Errorf("-Inf input to a finite-only plan: %v, want a *convolve.NonFiniteError", err)
	}
	if err := b.Upload(in); !errors.As(err, &nf) {
		t.Errorf("Upload of -Inf input to a finite-only plan: %v, want a *convolve.NonFiniteError", err)
	}
	b.FiniteInput = false
	if err := b.CheckRun(in, disjoint); err != nil {
		t.Errorf("-Inf input to an IEEE plan: %v", err)
	}
	if err := b.Close(); err != nil {
		t.Errorf("first Close: %v", err)
	}
	for what, err := range map[string]error{
		"Run":             b.Run(in, disjoint),
		"Upload":          b.Upload(in),
		"Download":        b.Download(disjoint),
		"TimeKernel":      func() error { _, err := b.TimeKernel(1); return err }(),
		"TimeKernelGraph": func() error { _, err := b.TimeKernelGraph(1); return err }(),
		"second Close":    b.Close(),
	} {
		if !errors.Is(err, convolve.ErrClosed) {
			t.Errorf("%s after Close: %v, want convolve.ErrClosed", what, err)
		}
	}
}

// TestPlansOnGPU checks, on every registered GPU variant, that a plan
// snapshots the filter (changing its weights after planning changes
// nothing), refuses overlapping images and, where it declares
// FiniteInput, non-finite input; and that Run after Close and a second
// Close are errors wrapping convolve.ErrClosed.
func TestPlansOnGPU(t *testing.T) {
	gputest.DeviceNoLeakCheck(t)
	for _, name := range gpuNames() {
		t.Run(name, func(t *testing.T) {
			v, _ := convolve.Lookup(name)
			d := v.Describe()
			p := validProblem(t, d)
			f := p.Filter
			in, err := convolve.NewImage(p.Input)
			if err != nil {
				t.Fatal(err)
			}
			for i := range in.F32 {
				in.F32[i] = float32(i%9) - 4
			}
			for i := range in.U8 {
				in.U8[i] = uint8(i * 37)
			}
			for i := range in.I16 {
				in.I16[i] = int16(i*311 - 3000)
			}
			pl, err := convolve.PlanFor(v, p, convolve.Config{})
			if ue := new(cudabind.UnavailableError); errors.As(err, &ue) {
				t.Skipf("%s: %v", name, err) // a library of its own (NPP, cuFFT) is missing
			}
			if err != nil {
				t.Fatalf("plan %v: %v", p, err)
			}
			want := poisoned(t, p)
			if err := pl.Run(in, want); err != nil {
				t.Fatal(err)
			}
			for i := range f.Weights {
				f.Weights[i] = -7
			}
			got := poisoned(t, p)
			if err := pl.Run(in, got); err != nil {
				t.Fatal(err)
			}
			if m, _ := convolve.Compare(got, want, nil); !m.OK() {
				t.Errorf("Run after the filter's weights changed differs from the first run: %v", m)
			}
			if in.Type == convolve.Float32 && d.Caps.FiniteInput {
				bad := in.Clone()
				bad.F32[3] = float32(math.NaN())
				if err := pl.Run(bad, got); !errors.As(err, new(*convolve.NonFiniteError)) {
					t.Errorf("Run of a NaN input: %v, want a *convolve.NonFiniteError", err)
				}
			}
			if in.Type == convolve.Float32 && p.OutputGeometry().Type == convolve.Float32 {
				n := in.Len()
				buf := make([]float32, n+1)
				a, _ := convolve.WrapFloat32(p.Input, buf[0:n:n])
				o, _ := convolve.WrapFloat32(p.OutputGeometry(), buf[1:n+1:n+1])
				if err := pl.Run(a, o); !errors.Is(err, convolve.ErrOverlap) {
					t.Errorf("Run with overlapping capacity-capped images: %v, want convolve.ErrOverlap", err)
				}
			}
			if err := pl.Close(); err != nil {
				t.Errorf("Close: %v", err)
			}
			if err := pl.Run(in, got); !errors.Is(err, convolve.ErrClosed) {
				t.Errorf("Run after Close: %v, want convolve.ErrClosed", err)
			}
			if err := pl.Close(); !errors.Is(err, convolve.ErrClosed) {
				t.Errorf("second Close: %v, want convolve.ErrClosed", err)
			}
		})
	}
}

// TestDeviceMemoryRefused: a plan whose buffers exceed the device's free
// memory is refused with a *convolve.MemoryError naming the bytes needed
// and available, before the allocation is tried, and leaves nothing
// allocated. A valid image is far smaller than a Hopper's memory, so the
// test first takes all but 64 MiB of the free memory as ballast and then
// plans a 8192x8192 float32 image (256 MiB in, 256 MiB out).
func TestDeviceMemoryRefused(t *testing.T) {
	dev := gputest.DeviceNoLeakCheck(t)
	var ballast []cudabind.DevPtr
	err := dev.Do(func(x *cudabind.Exec) error {
		for {
			free, _, err := x.MemInfo()
			if err != nil {
				return err
			}
			if free <= 64<<20 {
				return nil
			}
			chunk := min(free-64<<20, 1<<30)
			p, err := x.Alloc(chunk)
			if err != nil {
				// Free memory reported is not always allocatable in one
				// piece: stop once a small chunk fails.
				if chunk <= 256<<20 {
					return nil
				}
				p, err = x.Alloc(256 << 20)
				if err != nil {
					return nil
				}
			}
			ballast = append(ballast, p)
		}
	})
	t.Cleanup(func() {
		dev.Do(func(x *cudabind.Exec) error {
			for _, p := range ballast {
				x.Free(p)
			}
			return nil
		})
	})
	if err != nil {
		t.Fatal(err)
	}
	g := convolve.Geometry{Width: 8192, Height: 8192, Channels: 1}
	box, _ := convolve.Box(3)
	p := convolve.Problem{Op: convolve.Filter2D, Input: g, Filter: box}
	before := dev.LiveAllocations()
	for _, name := range []string{"gpu-naive", "gpu-tiled", "gpu-texture", "npp"} {
		v, err := convolve.Lookup(name)
		if err != nil {
			t.Fatal(err)
		}
		pl, err := convolve.PlanFor(v, p, convolve.Config{})
		if pl != nil {
			pl.Close()
		}
		var me *convolve.MemoryError
		var ce *convolve.CapabilityError
		switch {
		case errors.As(err, &me):
			if me.Memory != "device" || me.Needed <= me.Available || me.Variant != name {
				t.Errorf("%s: %v: want device memory needed above available, naming the variant", name, err)
			}
			t.Logf("%s: %v", name, err)
		case errors.As(err, &ce):
			t.Logf("%s: refused by its capabilities first: %v", name, err)
		default:
			t.Errorf("%s: plan of a 256 MiB image with at most 64 MiB free: %v, want a *convolve.MemoryError", name, err)
		}
		if n := dev.LiveAllocations(); n != before {
			t.Errorf("%s: %d device allocations live after the refused plan, %d before", name, n, before)
		}
	}
}
