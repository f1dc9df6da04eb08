package variants

import (
	"fmt"
	"unsafe"

	"github.com/convbench/convbench/convolve"
	"github.com/convbench/convbench/cudabind"
)

// HostData is the address of an image's first element, for copies
// between the image and device memory.
func HostData(im *convolve.Image) unsafe.Pointer {
	switch im.Type {
	case convolve.Uint8:
		return unsafe.Pointer(unsafe.SliceData(im.U8))
	case convolve.Int16:
		return unsafe.Pointer(unsafe.SliceData(im.I16))
	}
	return unsafe.Pointer(unsafe.SliceData(im.F32))
}

func (b *Base) copyIn(x *cudabind.Exec, in *convolve.Image) error {
	if b.CopyIn != nil {
		return b.CopyIn(x, in)
	}
	return x.CopyHtoD(b.In, HostData(in), b.InBytes)
}

// Run uploads in, runs the device work once and downloads out, in one
// device task.
func (b *Base) Run(in, out *convolve.Image) error {
	return b.runTask(in, out, func(x *cudabind.Exec) error {
		if err := b.copyIn(x, in); err != nil {
			return err
		}
		if err := b.Enqueue(x, b.stream); err != nil {
			return err
		}
		if err := x.Sync(); err != nil {
			return err
		}
		return b.copyOut(x, out)
	})
}

// runTask is the frame of a plan's Run: it checks in and out (CheckRun),
// runs task as one device task and names the plan in task's error.
func (b *Base) runTask(in, out *convolve.Image, task func(x *cudabind.Exec) error) error {
	if err := b.CheckRun(in, out); err != nil {
		return err
	}
	if err := b.Dev.Do(task); err != nil {
		return fmt.Errorf("variants: %s: %w", b.Name, err)
	}
	return nil
}

// copyOut copies the device output into out: with one two-dimensional
// copy where the device rows are padded (PadOutputRows), else the packed
// rows whole, through a packed scratch image when out has padded rows.
func (b *Base) copyOut(x *cudabind.Exec, out *convolve.Image) error {
	want := b.Problem.OutputGeometry()
	if b.outStride > 0 {
		es := int64(want.Type.Size())
		return x.CopyDtoH2D(HostData(out), int64(out.RowStride())*es, b.Out, int64(b.outStride)*es,
			int64(want.RowElems())*es, int64(inRows(want)))
	}
	if out.RowStride() == want.RowStride() {
		return x.CopyDtoH(HostData(out), b.Out, b.OutBytes)
	}
	tmp, err := convolve.NewImage(want)
	if err != nil {
		return err
	}
	if err := x.CopyDtoH(HostData(tmp), b.Out, b.OutBytes); err != nil {
		return err
	}
	for c := 0; c < want.Channels; c++ {
		for y := 0; y < want.Height; y++ {
			for xx := 0; xx < want.Width; xx++ {
				out.Set(xx, y, c, tmp.At(xx, y, c))
			}
		}
	}
	return nil
}

func (b *Base) usable() error {
	if b.closed {
		return fmt.Errorf("variants: %s: %w", b.Name, convolve.ErrClosed)
	}
	return nil
}

// Upload copies in to the device.
func (b *Base) Upload(in *convolve.Image) error {
	if err := b.usable(); err != nil {
		return err
	}
	if err := b.checkInput(in); err != nil {
		return err
	}
	return b.Dev.Do(func(x *cudabind.Exec) error { return b.copyIn(x, in) })
}

// Download copies the device output into out.
func (b *Base) Download(out *convolve.Image) error {
	if err := b.usable(); err != nil {
		return err
	}
	if err := b.checkOutput(out); err != nil {
		return err
	}
	return b.Dev.Do(func(x *cudabind.Exec) error { return b.copyOut(x, out) })
}
