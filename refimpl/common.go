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
// can honour (no block shape, no compile options, no tunables).
func checkPlan(d convolve.Description, p convolve.Problem, cfg convolve.Config) error {
	err := d.Caps.Check(p)
	if err == nil {
		err = d.Caps.CheckConfig(cfg)
	}
	if ce, ok := err.(*convolve.CapabilityError); ok {
		ce.Variant = d.Name
	}
	return err
}

// checkNoAlias returns an error when out's data shares its backing array
// with in's: the float32 variants read input rows after writing output rows,
// so running in place would silently give wrong numbers. Slices of one
// array are recognised when both reach the end of its capacity, which
// every slice made by NewImage, Wrap* or plain reslicing does.
func checkNoAlias(in, out *convolve.Image) error {
	if in.Type == convolve.Float32 && out.Type == convolve.Float32 && sameArray(in.F32, out.F32) {
		return fmt.Errorf("refimpl: output data shares memory with the input; running in place is not supported")
	}
	return nil
}

func sameArray(a, b []float32) bool {
	if cap(a) == 0 || cap(b) == 0 {
		return false
	}
	return &a[:cap(a)][cap(a)-1] == &b[:cap(b)][cap(b)-1]
}

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
