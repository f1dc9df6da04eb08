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
// the exact value ref: Higham's gamma_n * absSum for a sum of n rounded
// products in any order (u = 2^-24), with n = KW*KH + KW + KH to cover a
// separable variant's rounded intermediate, plus u*|ref| for the result's
// rounding, plus the smallest normal float32 for flushed subnormals.
func Tolerance(kw, kh int, absSum, ref float64) float64 {
	n := float64(kw*kh + kw + kh)
	g := n * unitRoundoff / (1 - n*unitRoundoff)
	return g*absSum + unitRoundoff*math.Abs(ref) + 0x1p-126
}

// Metrics summarises how an output differs from the reference. Elements
// finite in both are compared within their tolerance and enter MaxAbs,
// MaxULP and RelL2; elsewhere the two must be of the same Class.
type Metrics struct {
	N               int      // elements compared
	MaxAbs          float64  // max |out - ref| over the elements finite in both
	MaxULP          int64    // max distance in float32 units in the last place, same elements
	RelL2           float64  // ||out - ref||_2 / ||ref||_2 over the same elements (0 when both are 0)
	Violations      int      // elements outside their tolerance or of another class than the reference
	NonFinite       int      // elements where the reference or the output is NaN or infinite
	ClassMismatches int      // elements of another class than the reference, each a violation
	First           Mismatch // the first violation, when Violations > 0
}

// Mismatch locates one element outside its tolerance.
type Mismatch struct {
	X, Y, C        int
	Got, Want, Tol float64
}

func (m Metrics) String() string {
	s := fmt.Sprintf("n=%d max-abs=%.3g max-ulp=%d rel-l2=%.3g", m.N, m.MaxAbs, m.MaxULP, m.RelL2)
	if m.NonFinite > 0 || m.ClassMismatches > 0 {
		s += fmt.Sprintf(" (finite elements only) non-finite=%d class-mismatches=%d", m.NonFinite, m.ClassMismatches)
	}
	if m.Violations > 0 {
		s += fmt.Sprintf(" violations=%d first at (x=%d,y=%d,c=%d): got %v want %v tol %.3g",
			m.Violations, m.First.X, m.First.Y, m.First.C, m.First.Got, m.First.Want, m.First.Tol)
	}
	return s
}

// OK reports whether every element was within its tolerance and of the
// reference's class.
func (m Metrics) OK() bool { return m.Violations == 0 }

// Class is the IEEE class of a value as Compare matches it.
type Class int

const (
	ClassFinite Class = iota
	ClassNaN
	ClassPosInf
	ClassNegInf
)

// ClassOf returns the class of v.
func ClassOf(v float64) Class {
	switch {
	case math.IsNaN(v):
		return ClassNaN
	case math.IsInf(v, 1):
		return ClassPosInf
	case math.IsInf(v, -1):
		return ClassNegInf
	}
	return ClassFinite
}

// Compare compares out with ref element by element. tol, when not nil,
// holds the per-element tolerance in ref's geometry (refimpl.Expect); with
// a nil tol any difference is a violation, and so is a NaN tolerance.
// Non-finite values compare by class (see Metrics).
func Compare(out, ref, tol *Image) (Metrics, error) {
	if out == nil || ref == nil {
		return Metrics{}, fmt.Errorf("convolve: compare: nil image (output %v, reference %v)", out != nil, ref != nil)
	}
	if err := out.Check(); err != nil {
		return Metrics{}, wrapf(err, "compare: output")
	}
	if err := ref.Check(); err != nil {
		return Metrics{}, wrapf(err, "compare: reference")
	}
	if out.Width != ref.Width || out.Height != ref.Height || out.Channels != ref.Channels {
		return Metrics{}, fmt.Errorf("convolve: compare %v with %v: shapes differ", out.Geometry, ref.Geometry)
	}
	if tol != nil {
		if err := tol.Check(); err != nil {
			return Metrics{}, wrapf(err, "compare: tolerance")
		}
		if tol.Width != ref.Width || tol.Height != ref.Height || tol.Channels != ref.Channels {
			return Metrics{}, fmt.Errorf("convolve: tolerance %v does not match reference %v", tol.Geometry, ref.Geometry)
		}
	}
	var m Metrics
	var num, den float64
	for c := 0; c < ref.Channels; c++ {
		for y := 0; y < ref.Height; y++ {
			for x := 0; x < ref.Width; x++ {
				got, want := out.At(x, y, c), ref.At(x, y, c)
				t := 0.0
				if tol != nil {
					t = tol.At(x, y, c)
				}
				m.N++
				cg, cw := ClassOf(got), ClassOf(want)
				var violation bool
				if cg != ClassFinite || cw != ClassFinite {
					m.NonFinite++
					violation = cg != cw
					if violation {
						m.ClassMismatches++
					}
				} else {
					d := math.Abs(got - want)
					num += d * d
					den += want * want
					violation = !(d <= t)
					m.MaxAbs = max(m.MaxAbs, d)
					m.MaxULP = max(m.MaxULP, ULPDistance(float32(got), float32(want)))
				}
				if violation {
					if m.Violations == 0 {
						m.First = Mismatch{X: x, Y: y, C: c, Got: got, Want: want, Tol: t}
					}
					m.Violations++
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

// ULPDistance is the number of float32 values between a and b
// (math.MaxInt64 when either is NaN).
func ULPDistance(a, b float32) int64 {
	if a != a || b != b {
		return math.MaxInt64
	}
	d := orderedBits(a) - orderedBits(b)
	return max(d, -d)
}

// orderedBits maps float32 values to integers in order, +0 and -0 equal.
func orderedBits(f float32) int64 {
	b := int64(int32(math.Float32bits(f)))
	if b < 0 {
		b = math.MinInt32 - b
	}
	return b
}

// Throughput is the work of one run of a problem.
type Throughput struct {
	Pixels       int64 // Width*Height
	Channels     int
	KW, KH       int
	BytesRead    int64 // input bytes read once
	BytesWritten int64 // output bytes written once
}

// ThroughputOf returns the work of one run of p: each input byte read once
// and each output byte written once (the filter's bytes are ignored).
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

// HostCopyBound is the least time a run can take that copies inBytes
// from pinned host memory to its GPUs at h2dGBps and outBytes back at
// d2hGBps (one link's bandwidths), spread over links GPUs each with its
// own link. The directions overlap, so the bound is the slower one's
// time, or inBytes + outBytes at bothGBps (the bandwidth of copies both
// ways at once) when that is positive and slower. It is 0 when a one-way
// bandwidth or the link count is not positive.
func HostCopyBound(inBytes, outBytes int64, links int, h2dGBps, d2hGBps, bothGBps float64) time.Duration {
	if h2dGBps <= 0 || d2hGBps <= 0 || links < 1 {
		return 0
	}
	secs := max(float64(inBytes)/h2dGBps, float64(outBytes)/d2hGBps)
	if bothGBps > 0 {
		secs = max(secs, float64(inBytes+outBytes)/bothGBps)
	}
	return time.Duration(secs / 1e9 / float64(links) * 1e9)
}
