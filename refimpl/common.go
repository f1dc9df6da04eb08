package refimpl

import (
	"fmt"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/convbench/convbench/convolve"
)

// cpuCaps are the capabilities every variant of this package has: every
// operation, element type, channel count, layout and border, any filter
// size the problem model allows, and no GPU.
func cpuCaps() convolve.Capabilities {
	return convolve.Capabilities{
		Ops:      slices.Clone(convolve.Operations),
		Types:    slices.Clone(convolve.ElemTypes),
		Channels: []int{1, 2, 3, 4},
		Layouts:  slices.Clone(convolve.Layouts),
		Borders:  slices.Clone(convolve.Borders),
	}
}

// checkPlan repeats what convolve.PlanFor checks, so that a Plan called
// directly is as safe: the problem must be valid and within the
// capabilities, and the configuration must ask for nothing a CPU variant
// can honour (no block shape, no compile options, no tunables). It then
// checks that the host has scratch bytes of memory for the plan's own
// buffers (convolve.CheckHostMemory).
func checkPlan(d convolve.Description, p convolve.Problem, cfg convolve.Config, scratch func(convolve.Problem) int64) error {
	err := d.Caps.Check(p)
	if err == nil {
		err = d.Caps.CheckConfig(cfg)
	}
	if err == nil {
		err = convolve.CheckHostMemory("plan "+p.String(), scratch(p))
	}
	return convolve.NameVariant(d.Name, err)
}

// checkRun is what every Run checks before it touches the images: the
// plan is open, in and out fit the problem, and out's data does not
// overlap in's (the plans read input rows after writing output rows, so
// running in place would silently give wrong numbers).
func checkRun(name string, closed bool, p convolve.Problem, in, out *convolve.Image) error {
	if closed {
		return fmt.Errorf("refimpl: %s: %w", name, convolve.ErrClosed)
	}
	if err := p.CheckIO(in, out); err != nil {
		return err
	}
	return convolve.CheckNoOverlap(in, out)
}

// closeOnce marks a plan closed; a second Close is an error wrapping
// convolve.ErrClosed.
func closeOnce(name string, closed *bool) error {
	if *closed {
		return fmt.Errorf("refimpl: %s: Close: %w", name, convolve.ErrClosed)
	}
	*closed = true
	return nil
}

// floatBytes is the size of n float32 values, saturated (convolve.MulBytes).
func floatBytes(n ...int64) int64 { return convolve.MulBytes(append(n, 4)...) }

// sobelWeights returns the SobelX and SobelY weights. SobelMagnitude always
// correlates with them (the problem's Mode does not apply to it).
func sobelWeights() (gx, gy *convolve.Filter) {
	return convolve.SobelX(), convolve.SobelY()
}

// elemStep is the distance in elements between two horizontally adjacent
// values of one channel.
func elemStep(g convolve.Geometry) int {
	if g.Layout == convolve.Interleaved {
		return g.Channels
	}
	return 1
}

// loadRow converts channel c of row y of in to float32 into dst, which
// must hold in.Width values. The conversion is exact for every element
// type (uint8 and int16 values are representable in float32).
func loadRow(in *convolve.Image, c, y int, dst []float32) {
	dst = dst[:in.Width]
	base, step := in.Offset(0, y, c), elemStep(in.Geometry)
	switch in.Type {
	case convolve.Float32:
		src := in.F32[base:]
		if step == 1 {
			copy(dst, src[:len(dst)])
			return
		}
		for x := range dst {
			dst[x] = src[x*step]
		}
	case convolve.Uint8:
		src := in.U8[base:]
		for x := range dst {
			dst[x] = float32(src[x*step])
		}
	case convolve.Int16:
		src := in.I16[base:]
		for x := range dst {
			dst[x] = float32(src[x*step])
		}
	}
}

// storeRow writes src (out.Width values) to channel c of row y of the
// Float32 image out.
func storeRow(out *convolve.Image, c, y int, src []float32) {
	src = src[:out.Width]
	base, step := out.Offset(0, y, c), elemStep(out.Geometry)
	dst := out.F32[base:]
	if step == 1 {
		copy(dst[:len(src)], src)
		return
	}
	for x, v := range src {
		dst[x*step] = v
	}
}

// yuvRow converts row y of the 3-channel uint8 image in to the planar
// uint8 image out with convolve.RGBToYUVPixel.
func yuvRow(in, out *convolve.Image, y int) {
	step := elemStep(in.Geometry)
	r := in.U8[in.Offset(0, y, 0):]
	g := in.U8[in.Offset(0, y, 1):]
	b := in.U8[in.Offset(0, y, 2):]
	oy := out.U8[out.Offset(0, y, 0):][:in.Width]
	ou := out.U8[out.Offset(0, y, 1):][:in.Width]
	ov := out.U8[out.Offset(0, y, 2):][:in.Width]
	for x := range oy {
		k := x * step
		oy[x], ou[x], ov[x] = convolve.RGBToYUVPixel(r[k], g[k], b[k])
	}
}

// parallel calls fn(worker, i) for every i in 0..n-1 on at most workers
// goroutines; worker is in 0..workers-1 and no two concurrent calls share
// it, so fn may use per-worker scratch space.
func parallel(n, workers int, fn func(worker, i int)) {
	if workers > n {
		workers = n
	}
	if workers <= 1 {
		for i := 0; i < n; i++ {
			fn(0, i)
		}
		return
	}
	var next atomic.Int64
	var wg sync.WaitGroup
	for w := 0; w < workers; w++ {
		wg.Go(func() {
			for {
				i := int(next.Add(1) - 1)
				if i >= n {
					return
				}
				fn(w, i)
			}
		})
	}
	wg.Wait()
}
