// Package extmod is a module of its own that implements a convolution
// variant outside convbench and proves it with convtest, as a user's
// module would.
package extmod

import (
	"errors"

	"github.com/convbench/convbench/convolve"
)

// Direct is a CPU variant: a direct float32 2-D filter of one-channel
// float32 images, with the Zero and Replicate borders. With OffByOne set
// its Zero border lets the tap just past the right edge of a row through,
// reading the next element of the buffer instead of 0: a deliberate
// off-by-one border bug.
type Direct struct{ OffByOne bool }

func (d Direct) Describe() convolve.Description {
	name := "extmod-direct"
	if d.OffByOne {
		name = "extmod-direct-off-by-one"
	}
	return convolve.Description{
		Name:    name,
		Summary: "direct float32 2-D filter from another module",
		Caps: convolve.Capabilities{
			Ops:      []convolve.Operation{convolve.Filter2D},
			Types:    []convolve.ElemType{convolve.Float32},
			Channels: []int{1},
			Layouts:  []convolve.Layout{convolve.Interleaved},
			Borders:  []convolve.Border{convolve.Zero, convolve.Replicate},
		},
	}
}

func (d Direct) Plan(p convolve.Problem, cfg convolve.Config) (convolve.Plan, error) {
	desc := d.Describe()
	if err := desc.Caps.Check(p); err != nil {
		return nil, convolve.NameVariant(desc.Name, err)
	}
	if err := desc.Caps.CheckConfig(cfg); err != nil {
		return nil, convolve.NameVariant(desc.Name, err)
	}
	return &directPlan{p: p, w: p.Filter.Oriented(p.Mode), offByOne: d.OffByOne}, nil
}

type directPlan struct {
	p        convolve.Problem
	w        *convolve.Filter
	offByOne bool
	closed   bool
}

var errClosed = errors.New("extmod: plan closed")

func (dp *directPlan) Run(in, out *convolve.Image) error {
	if dp.closed {
		return errors.Join(errClosed, convolve.ErrClosed)
	}
	if err := dp.p.CheckIO(in, out); err != nil {
		return err
	}
	if err := convolve.CheckNoOverlap(in, out); err != nil {
		return err
	}
	width, height := in.Width, in.Height
	kw, kh := dp.w.Width, dp.w.Height
	for y := 0; y < height; y++ {
		for x := 0; x < width; x++ {
			var s float32
			for j := 0; j < kh; j++ {
				for i := 0; i < kw; i++ {
					px, ok := dp.at(in, x+i-kw/2, y+j-kh/2)
					if !ok {
						px = 0
					}
					s += float32(dp.w.Weights[j*kw+i] * px)
				}
			}
			out.F32[out.Offset(x, y, 0)] = s
		}
	}
	return nil
}

// at reads the input at (x, y) through the border; false means the Zero
// border's 0.
func (dp *directPlan) at(in *convolve.Image, x, y int) (float32, bool) {
	w, h := in.Width, in.Height
	switch dp.p.Border {
	case convolve.Replicate:
		x, y = min(max(x, 0), w-1), min(max(y, 0), h-1)
	default:
		last := w - 1
		if dp.offByOne {
			last = w // the bug: one column too many
		}
		if x < 0 || x > last || y < 0 || y >= h {
			return 0, false
		}
	}
	i := in.Offset(0, y, 0) + x
	if i >= len(in.F32) {
		return 0, false
	}
	return in.F32[i], true
}

func (dp *directPlan) Close() error {
	if dp.closed {
		return errors.Join(errClosed, convolve.ErrClosed)
	}
	dp.closed = true
	return nil
}

func init() { convolve.Register(Direct{}) }
