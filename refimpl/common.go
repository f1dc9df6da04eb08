package refimpl

import (
	"fmt"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/convbench/convbench/convolve"
)

// cpuCaps are the capabilities every variant of this package has: every
// operation, element type, channel count, layout and border, and no GPU.
func cpuCaps() convolve.Capabilities {
	return convolve.Capabilities{
		Ops:      slices.Clone(convolve.Operations),
		Types:    slices.Clone(convolve.ElemTypes),
		Channels: []int{1, 2, 3, 4},
		Layouts:  slices.Clone(convolve.Layouts),
		Borders:  slices.Clone(convolve.Borders),
	}
}

// checkPlan repeats convolve.PlanFor's checks of the problem and the
// configuration, then checks that the host has scratch bytes of memory
// for the plan's own buffers.
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

// checkRun checks that the plan is open, in and out fit the problem, and
// out does not overlap in (the plans read input rows after writing
// output rows).
func checkRun(name string, closed bool, p convolve.Problem, in, out *convolve.Image) error {
	if closed {
		return fmt.Errorf("refimpl: %s: %w", name, convolve.ErrClosed)
	}
	if err := p.CheckIO(in, out); err != nil {
		return err
	}
	return convolve.CheckNoOverlap(in, out)
}

// closeOnce marks a plan closed; a second Close wraps convolve.ErrClosed.
func closeOnce(name string, closed *bool) error {
	if *closed {
		return fmt.Errorf("refimpl: %s: Close: %w", name, convolve.ErrClosed)
	}
	*closed = true
	return nil
}

// floatBytes is the size of n float32 values, saturated (convolve.MulBytes).
func floatBytes(n ...int64) int64 { return convolve.MulBytes(append(n, 4)...) }

// sobelWeights returns the SobelX and SobelY weights, which
// SobelMagnitude correlates with whatever the problem's Mode.
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
// must hold in.Width values; the conversion is exact for every type.
func loadRow(in *convolve.Image, c, y int, dst []float32) {
	dst = dst[:in.Width]
	base, step := in.Offset(0, y, c), elemStep(in.Geometry)
	switch in.Type {
	case convolve.Float32:
		if step == 1 {
			copy(dst, in.F32[base:][:len(dst)])
			return
		}
		gather(dst, in.F32[base:], step)
	case convolve.Uint8:
		gather(dst, in.U8[base:], step)
	case convolve.Int16:
		gather(dst, in.I16[base:], step)
	}
}

// gather sets dst[x] to float32(src[x*step]).
func gather[T float32 | uint8 | int16](dst []float32, src []T, step int) {
	for x := range dst {
		dst[x] = float32(src[x*step])
	}
}

// storeRow writes src (out.Width values) to channel c of row y of the
// Float32 image out.
func storeRow(out *convolve.Image, c, y int, src []float32) {
	storeRowAt(out, c, y, 0, src[:out.Width])
}

// storeRowAt writes src to channel c of row y of the Float32 image out
// from column x0.
func storeRowAt(out *convolve.Image, c, y, x0 int, src []float32) {
	dst := out.F32[out.Offset(x0, y, c):]
	if step := elemStep(out.Geometry); step != 1 {
		for x, v := range src {
			dst[x*step] = v
		}
		return
	}
	copy(dst[:len(src)], src)
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
// goroutines; no two concurrent calls share a worker in 0..workers-1.
func parallel(n, workers int, fn func(worker, i int)) {
	workers = min(workers, n)
	if workers <= 1 {
		for i := range n {
			fn(0, i)
		}
		return
	}
	var next atomic.Int64
	var wg sync.WaitGroup
	for w := range workers {
		wg.Go(func() {
			for i := int(next.Add(1) - 1); i < n; i = int(next.Add(1) - 1) {
				fn(w, i)
			}
		})
	}
	wg.Wait()
}
