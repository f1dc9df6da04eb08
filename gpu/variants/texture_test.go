package variants

import (
	"testing"
	"unsafe"

	"github.com/convbench/convbench/convolve"
	"github.com/convbench/convbench/cudabind"
)

// TestTextureCopyIn runs the texture plans' CopyIn on a fake device into
// pitched planes wider than the rows: each plane of the layout (one for
// interleaved channels) arrives with one 2-D copy, row by row at the
// pitch, holding the image's elements of that plane.
func TestTextureCopyIn(t *testing.T) {
	fd, plan := fakePlanner(t, func(*cudabind.Exec, cudabind.Stream) error { return nil })
	for _, tt := range []struct {
		typ      convolve.ElemType
		channels int
		layout   convolve.Layout
	}{
		{convolve.Float32, 1, convolve.Interleaved},
		{convolve.Float32, 3, convolve.Interleaved},
		{convolve.Uint8, 2, convolve.Planar},
		{convolve.Float32, 4, convolve.Planar},
	} {
		p := fakeProblem(t)
		p.Input.Type, p.Input.Channels, p.Input.Layout = tt.typ, tt.channels, tt.layout
		b := plan(p)
		lay := texLayoutOf(p.Input)
		size := p.Input.Type.Size()
		pitch := int64(lay.width*size) + 64
		ptrs := make([]cudabind.DevPtr, lay.planes)
		for i := range ptrs {
			var err error
			if ptrs[i], err = b.Alloc(pitch * int64(lay.height)); err != nil {
				t.Fatal(err)
			}
		}
		in, err := convolve.NewImage(p.Input)
		if err != nil {
			t.Fatal(err)
		}
		for c := 0; c < in.Channels; c++ {
			for y := 0; y < in.Height; y++ {
				for x := 0; x < in.Width; x++ {
					in.Set(x, y, c, float64((1+x+10*y+100*c)%250))
				}
			}
		}
		before := len(fd.Calls())
		got := make([]byte, pitch*int64(lay.height))
		err = b.Dev.Do(func(x *cudabind.Exec) error {
			if err := textureCopyIn(p.Input, lay, ptrs, pitch)(x, in); err != nil {
				return err
			}
			copies := 0
			for _, c := range fd.Calls()[before:] {
				if c == "cuMemcpy2D" {
					copies++
				}
			}
			if copies != lay.planes {
				t.Errorf("%v: %d 2-D copies, want %d", p.Input, copies, lay.planes)
			}
			host := unsafe.Slice((*byte)(HostData(in)), int64(in.Len())*int64(size))
			rowBytes := int64(lay.width * size)
			for i, ptr := range ptrs {
				if err := x.CopyDtoH(unsafe.Pointer(&got[0]), ptr, int64(len(got))); err != nil {
					return err
				}
				plane := host[int64(i)*rowBytes*int64(lay.height):]
				for y := int64(0); y < int64(lay.height); y++ {
					if string(got[y*pitch:y*pitch+rowBytes]) != string(plane[y*rowBytes:(y+1)*rowBytes]) {
						t.Errorf("%v: plane %d row %d differs from the image's", p.Input, i, y)
					}
				}
			}
			return nil
		})
		if err != nil {
			t.Fatalf("%v: %v", p.Input, err)
		}
		if err := b.Close(); err != nil {
			t.Fatal(err)
		}
	}
}
