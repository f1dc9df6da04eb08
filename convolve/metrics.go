package convolve

import (
	"fmt"
	"math"
	"time"
)

// unitRoundoff is float32's unit roundoff u = 2^-24.
const unitRoundoff = 1.0 / (1 << 24)

// Tolerance is the largest error a correct float32 computation of one
// output element may make, given absSum = sum |w_i * x_i| over its taps and
// the exact value ref. It is Higham's bound gamma_n * absSum for a sum of n
// rounded products in any order (gamma_n = n*u / (1 - n*u), u = 2^-24;
// fused or separate multiply-add alike), plus one rounding of the result
// (u*|ref|), plus the smallest normal float32 so that a zero sum does not
// demand an exact zero when subnormal intermediates flush. The weights
// themselves are not a source of error: the reference and the variants
// use the same float32 weights. A separable variant computes a different
// but equally valid sum through a rounded intermediate, so n is taken as
// KW*KH + KW + KH for every variant.
func Tolerance(kw, kh int, absSum, ref float64) float64 {
	n := float64(kw*kh + kw + kh)
	g := n * unitRoundoff / (1 - n*unitRoundoff)
	return g*absSum + unitRoundoff*math.Abs(ref) + 0x1p-126
}

// Metrics summarises how an output differs from the reference.
type Metrics struct {
	N          int     // elements compared
	MaxAbs     float64 // max |out - ref|
	MaxULP     int64   // max distance in float32 units in the last place
	RelL2      float64 // ||out - ref||_2 / ||ref||_2 (0 when both are 0)
	Violations int     // elements outside their tolerance (or NaN)
	// First is the first element outside tolerance, when Violations > 0.
	First Mismatch
}

// Mismatch locates one element outside its tolerance.
type Mismatch struct {
	X, Y, C        int
	Got, Want, Tol float64
}

func (m Metrics) String() string {
	s := fmt.Sprintf("n=%d max-abs=%.3g max-ulp=%d rel-l2=%.3g", m.N, m.MaxAbs, m.MaxULP, m.RelL2)
	if m.Violations > 0 {
		s += fmt.Sprintf(" violations=%d first at (x=%d,y=%d,c=%d): got %v want %v tol %.3g",
			m.Violations, m.First.X, m.First.Y, m.First.C, m.First.Got, m.First.Want, m.First.Tol)
	}
	return s
}

// OK reports whether every element was within its tolerance.
func (m Metrics) OK() bool { return m.Violations == 0 }

// Compare compares out with ref element by element. tol, when not nil,
// holds the per-element tolerance in ref's geometry (as
// refimpl.Expect produces it); with a nil tol any difference is a
// violation. NaN in out is always a violation (poisoned, unwritten output).
func Compare(out, ref, tol *Image) (Metrics, error) {
	if out.Width != ref.Width || out.Height != ref.Height || out.Channels != ref.Channels {
		return Metrics{}, fmt.Errorf("convolve: compare %v with %v: shapes differ", out.Geometry, ref.Geometry)
	}
	if tol != nil && (tol.Width != ref.Width || tol.Height != ref.Height || tol.Channels != ref.Channels) {
		return Metrics{}, fmt.Errorf("convolve: tolerance %v does not match reference %v", tol.Geometry, ref.Geometry)
	}
	var m Metrics
	var num, den float64
	for c := 0; c < ref.Channels; c++ {
		for y := 0; y < ref.Height; y++ {
			for x := 0; x < ref.Width; x++ {
				got, want := out.At(x, y, c), ref.At(x, y, c)
				d := math.Abs(got - want)
				m.N++
				num += d * d
				den += want * want
				t := 0.0
				if tol != nil {
					t = tol.At(x, y, c)
				}
				if math.IsNaN(got) || d > t {
					if m.Violations == 0 {
						m.First = Mismatch{X: x, Y: y, C: c, Got: got, Want: want, Tol: t}
					}
					m.Violations++
				}
				if d > m.MaxAbs || math.IsNaN(d) {
					m.MaxAbs = d
				}
				if u := ULPDistance(float32(got), float32(want)); u > m.MaxULP {
					m.MaxULP = u
				}
			}
		}
	}
	switch {
	case den > 0:
		m.RelL2 = math.Sqrt(num / den)
	case num > 0:
		m.RelL2 = math.Inf(1)
	}
	return m, nil
}

// ULPDistance is the number of float32 values between a and b (0 when
// equal; math.MaxInt64 when either is NaN).
func ULPDistance(a, b float32) int64 {
	if a != a || b != b {
		return math.MaxInt64
	}
	ia, ib := orderedBits(a), orderedBits(b)
	if ia > ib {
		return ia - ib
	}
	return ib - ia
}

// orderedBits maps float32 values to integers in the same order, with +0
// and -0 equal.
func orderedBits(f float32) int64 {
	b := int64(int32(math.Float32bits(f)))
	if b < 0 {
		b = math.MinInt32 - b
	}
	return b
}

// Throughput is the work of one run of a problem, for turning a time into
// rates.
type Throughput struct {
	Pixels       int64 // Width*Height
	Channels     int
	KW, KH       int
	BytesRead    int64 // input bytes read once
	BytesWritten int64 // output bytes written once
}

// ThroughputOf returns the work of one run of p: each input byte read once
// and each output byte written once (the filter's own bytes are ignored).
func ThroughputOf(p Problem) Throughput {
	kw, kh := p.KernelSize()
	return Throughput{
		Pixels:       int64(p.Input.Width) * int64(p.Input.Height),
		Channels:     p.Input.Channels,
		KW:           kw,
		KH:           kh,
		BytesRead:    p.Input.Bytes(),
		BytesWritten: p.OutputGeometry().Bytes(),
	}
}

// Flops is 2*KW*KH*pixels*channels: one multiply and one add per tap.
func (t Throughput) Flops() float64 {
	return 2 * float64(t.KW*t.KH) * float64(t.Pixels) * float64(t.Channels)
}

// MPixPerSec is millions of pixels per second for one run taking d.
func (t Throughput) MPixPerSec(d time.Duration) float64 {
	return float64(t.Pixels) / d.Seconds() / 1e6
}

// GBPerSec is the effective bandwidth, (read + written) bytes / d, in 1e9 B/s.
func (t Throughput) GBPerSec(d time.Duration) float64 {
	return float64(t.BytesRead+t.BytesWritten) / d.Seconds() / 1e9
}

// GFLOPPerSec is Flops / d in 1e9 FLOP/s.
func (t Throughput) GFLOPPerSec(d time.Duration) float64 {
	return t.Flops() / d.Seconds() / 1e9
}

// PercentOf returns 100*achieved/peak, or 0 when peak is not positive.
func PercentOf(achieved, peak float64) float64 {
	if peak <= 0 {
		return 0
	}
	return 100 * achieved / peak
}

// Roofline returns the time floor of one run on a device with the given
// copy bandwidth (GB/s, bytes read + written) and FP32 peak (GFLOP/s): the
// larger of the bytes and FLOP terms, and which one it is.
func (t Throughput) Roofline(bwGBps, fp32GFLOPs float64) (floor time.Duration, bound string) {
	mem := float64(t.BytesRead+t.BytesWritten) / (bwGBps * 1e9)
	fl := t.Flops() / (fp32GFLOPs * 1e9)
	if mem >= fl {
		return time.Duration(mem * 1e9), "memory"
	}
	return time.Duration(fl * 1e9), "fp32"
}
