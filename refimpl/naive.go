package refimpl

import (
	"math"

	"github.com/convbench/convbench/convolve"
)

// naive is the "cpu-naive" variant: the reports' sequential CPU baseline
// in float32. Each output element is
//
//	var s float32
//	for j := 0; j < KH; j++ {
//		for i := 0; i < KW; i++ {
//			s += float32(w[j*KW+i] * pixel(x+i-KW/2, y+j-KH/2))
//		}
//	}
//
// over channels, rows and columns in that order, with w the oriented
// filter and pixel read through Border.Index (Zero's outside taps read 0
// and are still added). The float32 conversion keeps every product
// rounded, unfused, so GPU kernels compiled with --fmad=false that sum in
// this order match it bit for bit.
type naive struct{}

func (naive) Describe() convolve.Description {
	return convolve.Description{
		Name:    "cpu-naive",
		Summary: "float32 four nested loops on one goroutine, every product rounded (the reports' CPU baseline)",
		Report:  "000",
		Caps:    cpuCaps(),
	}
}

func (n naive) Plan(p convolve.Problem, cfg convolve.Config) (convolve.Plan, error) {
	if err := checkPlan(n.Describe(), p, cfg, naiveScratch); err != nil {
		return nil, err
	}
	p.Filter = p.Filter.Clone()
	np := &naivePlan{p: p}
	switch p.Op {
	case convolve.Filter2D:
		np.w = p.Filter.Oriented(p.Mode)
	case convolve.SobelMagnitude:
		np.w, np.w2 = sobelWeights()
	}
	if p.Op != convolve.RGBToYUV {
		np.plane = make([]float32, p.Input.Pixels())
	}
	return np, nil
}

// naiveScratch is the host memory a cpu-naive plan allocates: one
// float32 plane.
func naiveScratch(p convolve.Problem) int64 {
	if p.Op == convolve.RGBToYUV {
		return 0
	}
	return floatBytes(int64(p.Input.Width), int64(p.Input.Height))
}

type naivePlan struct {
	p      convolve.Problem
	w, w2  *convolve.Filter // oriented filter; SobelX and SobelY for the magnitude
	plane  []float32        // one channel of the input, converted to float32
	closed bool
}

func (np *naivePlan) Run(in, out *convolve.Image) error {
	if err := checkRun("cpu-naive", np.closed, np.p, in, out); err != nil {
		return err
	}
	if np.p.Op == convolve.RGBToYUV {
		for y := 0; y < in.Height; y++ {
			yuvRow(in, out, y)
		}
		return nil
	}
	w, h, b := in.Width, in.Height, np.p.Border
	for c := 0; c < in.Channels; c++ {
		for y := 0; y < h; y++ {
			loadRow(in, c, y, np.plane[y*w:(y+1)*w])
		}
		for y := 0; y < h; y++ {
			for x := 0; x < w; x++ {
				var v float32
				if np.p.Op == convolve.SobelMagnitude {
					gx := naiveDot(np.plane, w, h, x, y, np.w, b)
					gy := naiveDot(np.plane, w, h, x, y, np.w2, b)
					v = float32(math.Sqrt(float64(float32(gx*gx) + float32(gy*gy))))
				} else {
					v = naiveDot(np.plane, w, h, x, y, np.w, b)
				}
				out.F32[out.Offset(x, y, c)] = v
			}
		}
	}
	return nil
}

func (np *naivePlan) Close() error {
	np.plane = nil
	return closeOnce("cpu-naive", &np.closed)
}

// naiveDot is the float32 correlation of f with the w x h plane at (x, y),
// in the order the type comment of naive documents.
func naiveDot(plane []float32, w, h, x, y int, f *convolve.Filter, b convolve.Border) float32 {
	kw, kh := f.Width, f.Height
	wt := f.Weights
	var s float32
	for j := 0; j < kh; j++ {
		iy, oky := b.Index(y+j-kh/2, h)
		for i := 0; i < kw; i++ {
			ix, okx := b.Index(x+i-kw/2, w)
			var pixel float32
			if oky && okx {
				pixel = plane[iy*w+ix]
			}
			s += float32(wt[j*kw+i] * pixel)
		}
	}
	return s
}

func init() {
	convolve.Register(naive{})
}
