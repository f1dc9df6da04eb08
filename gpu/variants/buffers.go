package variants

import (
	"errors"
	"fmt"
	"math"
	"unsafe"

	"github.com/convbench/convbench/convolve"
	"github.com/convbench/convbench/cudabind"
)

// UploadFloats allocates a device buffer (freed by Close) holding v.
func (b *Base) UploadFloats(v []float32) (cudabind.DevPtr, error) {
	var p cudabind.DevPtr
	if len(v) == 0 {
		return p, fmt.Errorf("variants: %s: upload of an empty array", b.Name)
	}
	err := b.Dev.Do(func(x *cudabind.Exec) error {
		var err error
		if p, err = b.alloc(x, int64(len(v))*4); err != nil {
			return err
		}
		return x.CopyHtoD(p, unsafe.Pointer(&v[0]), int64(len(v))*4)
	})
	return p, err
}

// Alloc allocates bytes of device memory that Close frees.
func (b *Base) Alloc(bytes int64) (cudabind.DevPtr, error) {
	var p cudabind.DevPtr
	err := b.Dev.Do(func(x *cudabind.Exec) error {
		var err error
		p, err = b.alloc(x, bytes)
		return err
	})
	return p, err
}

func (b *Base) alloc(x *cudabind.Exec, bytes int64) (cudabind.DevPtr, error) {
	if err := b.CheckDeviceMemory(x, "a device buffer", bytes); err != nil {
		return 0, err
	}
	p, err := x.Alloc(bytes)
	if err != nil {
		return p, fmt.Errorf("variants: %s: allocate %d bytes: %w", b.Name, bytes, err)
	}
	b.allocs = append(b.allocs, p)
	return p, nil
}

// allocInOut allocates the input and output buffers In and Out.
func (b *Base) allocInOut(x *cudabind.Exec) error {
	var err error
	if b.In, err = b.alloc(x, b.InBytes); err != nil {
		return fmt.Errorf("input buffer: %w", err)
	}
	if b.Out, err = b.alloc(x, b.OutBytes); err != nil {
		return fmt.Errorf("output buffer: %w", err)
	}
	return nil
}

// deviceFree is the device memory the driver reports free. Tests of the
// refusals replace it to stand for a fuller device without filling it,
// which would starve the test processes beside them.
var deviceFree = func(x *cudabind.Exec) (int64, error) {
	free, _, err := x.MemInfo()
	return free, err
}

// CheckDeviceMemory returns a *convolve.MemoryError when bytes exceed the
// device memory the driver reports free (cuMemGetInfo); what says what
// the bytes are for. Plans call it before each allocation. Where the
// driver cannot report its free memory the allocation itself decides.
func (b *Base) CheckDeviceMemory(x *cudabind.Exec, what string, bytes int64) error {
	free, err := deviceFree(x)
	if err != nil {
		return nil
	}
	if bytes > free {
		kw, kh := b.Problem.KernelSize()
		return &convolve.MemoryError{Variant: b.Name, Memory: "device",
			What:   fmt.Sprintf("%s for %v with a %dx%d filter", what, b.Problem.Input, kw, kh),
			Needed: bytes, Available: free}
	}
	return nil
}

// ReleaseInput frees In, for variants whose CopyIn keeps the input in
// buffers of their own. In is zero afterwards.
func (b *Base) ReleaseInput() error {
	if b.In == 0 {
		return nil
	}
	return b.Dev.Do(func(x *cudabind.Exec) error {
		found, err := b.free(x, b.In)
		if err != nil {
			return err
		}
		if !found {
			return fmt.Errorf("variants: %s: input buffer not found among the plan's allocations", b.Name)
		}
		b.In = 0
		return nil
	})
}

// free frees p, if it is one of the plan's allocations, and takes it off
// the list Close frees; found reports whether it was there.
func (b *Base) free(x *cudabind.Exec, p cudabind.DevPtr) (found bool, err error) {
	for i, a := range b.allocs {
		if a == p {
			if err := x.Free(a); err != nil {
				return true, err
			}
			b.allocs = append(b.allocs[:i], b.allocs[i+1:]...)
			return true, nil
		}
	}
	return false, nil
}

// OnClose registers f to run on the device goroutine at Close, before the
// buffers are freed (texture objects, for instance). Closers run in
// reverse order of registration.
func (b *Base) OnClose(f func(x *cudabind.Exec) error) { b.closers = append(b.closers, f) }

// InStride is the row stride, in elements, of the device input In: the
// host image's (Problem.Input.RowStride), or the wider one PadInputRows
// set.
func (b *Base) InStride() int {
	if b.inStride > 0 {
		return b.inStride
	}
	return b.Problem.Input.RowStride()
}

// paddedStride is the row stride of s elements rounded up to a multiple
// of align (s itself for align 1 or less).
func paddedStride(s, align int) int {
	if align <= 1 {
		return s
	}
	return (s + align - 1) / align * align
}

// inRows is the number of rows of the input's data: its height, times
// its channels for planar layout.
func inRows(g convolve.Geometry) int {
	if g.Layout == convolve.Planar {
		return g.Channels * g.Height
	}
	return g.Height
}

// setInStride sets the device input's row stride to the host's rounded up
// to a multiple of align elements, and the buffer size and Index64 with
// it, without touching the device.
func (b *Base) setInStride(align int) {
	in := b.Problem.Input
	ds := paddedStride(in.RowStride(), align)
	if ds == in.RowStride() {
		return
	}
	b.inStride = ds
	b.InBytes = int64(inRows(in)) * int64(ds) * int64(in.Type.Size())
	b.Index64 = b.Index64 || int64(inRows(in))*int64(ds) > math.MaxInt32
}

// PadInputRows gives the device input rows that start on multiples of
// align elements, for kernels that read it in aligned vectors whatever
// the image's width (4099 columns, say): where the host stride is not
// such a multiple, In is replaced by a buffer of the wider stride, which
// Upload and Run fill with a two-dimensional copy, and InStride and
// Stride return the wider stride. It must run before the kernels'
// arguments are taken (Decl.InRowAlign runs it first in Setup).
func (b *Base) PadInputRows(align int) error {
	if b.CopyIn != nil {
		return fmt.Errorf("variants: %s: PadInputRows after CopyIn was set", b.Name)
	}
	b.setInStride(align)
	if b.inStride == 0 {
		return nil
	}
	if err := b.ReleaseInput(); err != nil {
		return err
	}
	in := b.Problem.Input
	es := int64(in.Type.Size())
	err := b.Dev.Do(func(x *cudabind.Exec) error {
		var err error
		b.In, err = b.alloc(x, b.InBytes)
		return err
	})
	if err != nil {
		return fmt.Errorf("input buffer: %w", err)
	}
	b.CopyIn = func(x *cudabind.Exec, im *convolve.Image) error {
		return x.CopyHtoD2D(b.In, int64(b.inStride)*es, HostData(im), int64(im.RowStride())*es,
			int64(im.RowElems())*es, int64(inRows(im.Geometry)))
	}
	return nil
}

// OutGeometry is the geometry of the device output Out: the problem's
// output geometry, with the wider row stride PadOutputRows set, if any.
func (b *Base) OutGeometry() convolve.Geometry {
	g := b.Problem.OutputGeometry()
	if b.outStride > 0 {
		g.Stride = b.outStride
	}
	return g
}

// setOutStride sets the device output's row stride to the packed one
// rounded up to a multiple of align elements, and the buffer size and
// Index64 with it, without touching the device.
func (b *Base) setOutStride(align int) {
	g := b.Problem.OutputGeometry()
	ds := paddedStride(g.RowStride(), align)
	if ds == g.RowStride() {
		return
	}
	b.outStride = ds
	n := int64(inRows(g)) * int64(ds)
	b.OutBytes = n * int64(g.Type.Size())
	b.Index64 = b.Index64 || n > math.MaxInt32
}

// PadOutputRows gives the device output rows that start on multiples of
// align elements, for kernels that store aligned vectors whatever the
// image's width: where packed rows are not such a multiple, Out is
// replaced by a buffer of the wider stride, which Download and Run read
// with a two-dimensional copy, and OutGeometry has the wider stride
// (the family reads it as the macro OUT_S, border.cuh's out_offset). It
// must run before the kernels' arguments are taken (Decl.OutRowAlign
// runs it in Setup).
func (b *Base) PadOutputRows(align int) error {
	b.setOutStride(align)
	if b.outStride == 0 {
		return nil
	}
	return b.Dev.Do(func(x *cudabind.Exec) error {
		if _, err := b.free(x, b.Out); err != nil {
			return err
		}
		var err error
		if b.Out, err = b.alloc(x, b.OutBytes); err != nil {
			return fmt.Errorf("output buffer: %w", err)
		}
		return nil
	})
}

// Stride is the device input's row stride (InStride) as the kernels'
// idx_t argument: int32, or int64 under Index64.
func (b *Base) Stride() any {
	s := b.InStride()
	if b.Index64 {
		return int64(s)
	}
	return int32(s)
}

// Dims returns the image width and height as kernel arguments.
func (b *Base) Dims() (w, h int32) {
	return int32(b.Problem.Input.Width), int32(b.Problem.Input.Height)
}

func (b *Base) checkInput(in *convolve.Image) error {
	if err := in.Check(); err != nil {
		return fmt.Errorf("variants: %s: input: %w", b.Name, err)
	}
	if in.Geometry.Packed() != b.Problem.Input.Packed() || in.RowStride() != b.Problem.Input.RowStride() {
		return fmt.Errorf("variants: %s: input %v does not match the planned %v", b.Name, in.Geometry, b.Problem.Input)
	}
	if b.FiniteInput {
		if err := convolve.CheckFiniteImage(in); err != nil {
			return named(b.Name, err)
		}
	}
	return nil
}

// CheckRun is what every Run of a GPU plan checks before it copies
// anything: the plan is open, in and out fit the plan, in is finite where
// the variant needs it (FiniteInput), and out's data does not overlap in's
// (convolve.CheckNoOverlap: the host side of the copies may run in chunks
// that interleave reads of in with writes of out).
func (b *Base) CheckRun(in, out *convolve.Image) error {
	if err := b.usable(); err != nil {
		return err
	}
	return b.Problem.CheckRun(b.Name, in, out, b.FiniteInput)
}

func (b *Base) checkOutput(out *convolve.Image) error {
	if err := out.Check(); err != nil {
		return fmt.Errorf("variants: %s: output: %w", b.Name, err)
	}
	want := b.Problem.OutputGeometry()
	if out.Width != want.Width || out.Height != want.Height || out.Channels != want.Channels ||
		out.Type != want.Type || out.Layout != want.Layout {
		return fmt.Errorf("variants: %s: output %v does not match the planned %v", b.Name, out.Geometry, want)
	}
	return nil
}

// PoisonOutput fills the device output Out with v in the output's element
// type (float32, or uint8 for RGB->YUV), so that an element the next Run
// does not write comes back as v instead of whatever the buffer held
// (convtest.OutputPoisoner).
func (b *Base) PoisonOutput(v float64) error {
	if err := b.usable(); err != nil {
		return err
	}
	t := b.Problem.OutputGeometry().Type
	// The memset is ordered on the legacy stream, which the plan's
	// stream (cudabind.Exec.NewStream) waits for: Run's work follows it.
	err := b.Dev.Do(func(x *cudabind.Exec) error {
		switch t {
		case convolve.Float32:
			return x.MemsetD32(b.Out, math.Float32bits(float32(v)), b.OutBytes/4)
		case convolve.Uint8:
			return x.MemsetD8(b.Out, uint8(v), b.OutBytes)
		}
		return fmt.Errorf("output type %v: %w", t, errors.ErrUnsupported)
	})
	if err != nil {
		return fmt.Errorf("variants: %s: PoisonOutput: %w", b.Name, err)
	}
	return nil
}
