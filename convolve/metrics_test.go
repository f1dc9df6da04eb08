package convolve

import (
	"math"
	"strings"
	"testing"
	"time"
)

func f32Image(t *testing.T, w, h int, vals ...float32) *Image {
	t.Helper()
	im, err := WrapFloat32(Geometry{Width: w, Height: h, Channels: 1}, vals)
	if err != nil {
		t.Fatal(err)
	}
	return im
}

func TestCompare(t *testing.T) {
	ref := f32Image(t, 2, 2, 1, 2.5, 3, 4)
	out := f32Image(t, 2, 2, 1, 2, 3, 4)
	m, err := Compare(out, ref, nil)
	if err != nil {
		t.Fatal(err)
	}
	// One difference of 0.5 at (1, 0); ||ref||^2 = 1+6.25+9+16 = 32.25.
	if m.N != 4 || m.MaxAbs != 0.5 || m.Violations != 1 || m.OK() {
		t.Errorf("metrics %+v", m)
	}
	if m.First != (Mismatch{X: 1, Y: 0, C: 0, Got: 2, Want: 2.5, Tol: 0}) {
		t.Errorf("first mismatch %+v", m.First)
	}
	if want := math.Sqrt(0.25 / 32.25); math.Abs(m.RelL2-want) > 1e-15 {
		t.Errorf("RelL2 %v, want %v", m.RelL2, want)
	}
	// 2 and 2.5 are 2^21 float32 steps apart (ulp 2^-22 in [2, 4)).
	if m.MaxULP != 1<<21 {
		t.Errorf("MaxULP %d, want %d", m.MaxULP, 1<<21)
	}
	if !strings.Contains(m.String(), "violations=1 first at (x=1,y=0,c=0)") {
		t.Errorf("String %q", m.String())
	}

	// A tolerance equal to the difference passes.
	tol := f32Image(t, 2, 2, 0, 0.5, 0, 0)
	m, _ = Compare(out, ref, tol)
	if !m.OK() || m.MaxAbs != 0.5 {
		t.Errorf("with tolerance: %+v", m)
	}
	tol.F32[1] = 0.4999
	if m, _ = Compare(out, ref, tol); m.Violations != 1 {
		t.Errorf("tolerance just below the difference: %+v", m)
	}

	// NaN output is a violation even with an infinite tolerance, and the
	// error measures describe the finite elements only.
	nan := f32Image(t, 2, 2, 1, 2.5, float32(math.NaN()), 4)
	inf := f32Image(t, 2, 2, float32(math.Inf(1)), float32(math.Inf(1)), float32(math.Inf(1)), float32(math.Inf(1)))
	m, _ = Compare(nan, ref, inf)
	if m.Violations != 1 || m.First.X != 0 || m.First.Y != 1 || m.MaxAbs != 0 || m.MaxULP != 0 ||
		m.NonFinite != 1 || m.ClassMismatches != 1 {
		t.Errorf("NaN output: %+v", m)
	}
	if !strings.Contains(m.String(), "non-finite=1 class-mismatches=1") {
		t.Errorf("NaN output: String %q does not count the non-finite element", m.String())
	}

	// Exact match of zeros: RelL2 0; nonzero against zeros: +Inf.
	z := f32Image(t, 1, 1, 0)
	if m, _ := Compare(z, z, nil); m.RelL2 != 0 || !m.OK() {
		t.Errorf("zeros: %+v", m)
	}
	if m, _ := Compare(f32Image(t, 1, 1, 1), z, nil); !math.IsInf(m.RelL2, 1) {
		t.Errorf("one against zero: %+v", m)
	}

	// Types may differ: u8 output against f32 reference.
	u8, _ := WrapUint8(Geometry{Width: 2, Height: 2, Channels: 1}, []uint8{1, 3, 3, 4})
	if m, _ := Compare(u8, ref, nil); m.MaxAbs != 0.5 || m.Violations != 1 {
		t.Errorf("u8 against f32: %+v", m)
	}

	if _, err := Compare(f32Image(t, 1, 4, 1, 2, 3, 4), ref, nil); err == nil || !strings.Contains(err.Error(), "shapes differ") {
		t.Errorf("shape mismatch: %v", err)
	}
	if _, err := Compare(out, ref, z); err == nil || !strings.Contains(err.Error(), "tolerance") {
		t.Errorf("tolerance shape mismatch: %v", err)
	}
}

// TestCompareNonFinite: non-finite values match by class (NaN meets NaN,
// +Inf meets +Inf, -Inf meets -Inf), whatever the tolerance; every other
// pairing with a non-finite value is a violation, and the finite elements
// keep their own error measures.
func TestCompareNonFinite(t *testing.T) {
	nan, pinf, ninf := float32(math.NaN()), float32(math.Inf(1)), float32(math.Inf(-1))
	tests := []struct {
		name          string
		out, ref      float32
		tol           float32
		wantViolation bool
	}{
		{"NaN meets NaN", nan, nan, 0, false},
		{"+Inf meets +Inf", pinf, pinf, 0, false},
		{"-Inf meets -Inf", ninf, ninf, 0, false},
		{"finite out, NaN ref", 1, nan, pinf, true},
		{"NaN out, finite ref", nan, 1, pinf, true},
		{"+Inf out, -Inf ref", pinf, ninf, pinf, true},
		{"-Inf out, +Inf ref", ninf, pinf, pinf, true},
		{"NaN out, +Inf ref", nan, pinf, pinf, true},
		{"+Inf out, NaN ref", pinf, nan, pinf, true},
		{"+Inf out, finite ref", pinf, 3, pinf, true},
		{"finite out, -Inf ref", -3, ninf, pinf, true},
		{"NaN tolerance at a finite element", 1, 1, nan, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			// One element under test beside two finite ones that differ by 0.25.
			out := f32Image(t, 3, 1, tt.out, 2, 4.25)
			ref := f32Image(t, 3, 1, tt.ref, 2, 4)
			tol := f32Image(t, 3, 1, tt.tol, 0, 1)
			m, err := Compare(out, ref, tol)
			if err != nil {
				t.Fatal(err)
			}
			if got := m.Violations == 1; got != tt.wantViolation || (!tt.wantViolation && m.Violations != 0) {
				t.Errorf("violations %d, want violation %v: %v", m.Violations, tt.wantViolation, m)
			}
			if tt.wantViolation && (m.First.X != 0 || !sameFloat(m.First.Got, float64(tt.out)) || !sameFloat(m.First.Want, float64(tt.ref))) {
				t.Errorf("first mismatch %+v, want element 0 (%v against %v)", m.First, tt.out, tt.ref)
			}
			finitePair := ClassOf(float64(tt.out)) == ClassFinite && ClassOf(float64(tt.ref)) == ClassFinite
			wantNonFinite := 1
			if finitePair {
				wantNonFinite = 0
			}
			wantMismatch := 0
			if ClassOf(float64(tt.out)) != ClassOf(float64(tt.ref)) {
				wantMismatch = 1
			}
			if m.NonFinite != wantNonFinite || m.ClassMismatches != wantMismatch {
				t.Errorf("non-finite %d, class mismatches %d; want %d, %d", m.NonFinite, m.ClassMismatches, wantNonFinite, wantMismatch)
			}
			// The finite elements keep their measures: 0.25 at 4.
			if m.MaxAbs != 0.25 || m.MaxULP != 1<<19 || math.IsNaN(m.RelL2) || m.RelL2 <= 0 || math.IsInf(m.RelL2, 0) {
				t.Errorf("finite measures: max-abs %v max-ulp %d rel-l2 %v; want 0.25, %d and a finite positive rel-l2", m.MaxAbs, m.MaxULP, m.RelL2, 1<<19)
			}
			if s := m.String(); (wantNonFinite > 0) != strings.Contains(s, "non-finite=") {
				t.Errorf("String %q: non-finite count shown %v, want %v", s, !(wantNonFinite > 0), wantNonFinite > 0)
			}
		})
	}
}

func sameFloat(a, b float64) bool { return a == b || (math.IsNaN(a) && math.IsNaN(b)) }

// TestCompareNil: a nil image is an error, not a panic.
func TestCompareNil(t *testing.T) {
	im := f32Image(t, 1, 1, 1)
	for _, tt := range []struct {
		name          string
		out, ref, tol *Image
	}{
		{"nil output", nil, im, nil},
		{"nil reference", im, nil, nil},
		{"nil both", nil, nil, nil},
		{"short data", &Image{Geometry: im.Geometry}, im, nil},
		{"short tolerance", im, im, &Image{Geometry: im.Geometry}},
	} {
		if _, err := Compare(tt.out, tt.ref, tt.tol); err == nil {
			t.Errorf("%s: no error", tt.name)
		}
	}
}

func TestULPDistance(t *testing.T) {
	tests := []struct {
		a, b float32
		want int64
	}{
		{1, 1, 0},
		{0, float32(math.Copysign(0, -1)), 0},
		{1, math.Nextafter32(1, 2), 1},
		{1, 2, 1 << 23},
		{math.SmallestNonzeroFloat32, -math.SmallestNonzeroFloat32, 2},
		{-1, 1, 2 * 0x3F800000},
		{float32(math.Inf(1)), math.MaxFloat32, 1},
		{-2, -1, 1 << 23},
		{float32(math.NaN()), 1, math.MaxInt64},
		{1, float32(math.NaN()), math.MaxInt64},
	}
	for _, tc := range tests {
		if got := ULPDistance(tc.a, tc.b); got != tc.want {
			t.Errorf("ULPDistance(%v, %v) = %d, want %d", tc.a, tc.b, got, tc.want)
		}
		if got := ULPDistance(tc.b, tc.a); got != tc.want {
			t.Errorf("ULPDistance(%v, %v) = %d, want %d (symmetry)", tc.b, tc.a, got, tc.want)
		}
	}
}

func TestTolerance(t *testing.T) {
	const u = 0x1p-24
	// 3x3: n = 9+3+3 = 15, gamma = 15u/(1-15u).
	g15 := 15 * u / (1 - 15*u)
	tests := []struct {
		kw, kh      int
		absSum, ref float64
		want        float64
	}{
		{3, 3, 2, 1, 2*g15 + u + 0x1p-126},
		{3, 3, 0, 0, 0x1p-126},
		{3, 3, 4, -1, 4*g15 + u + 0x1p-126},
		// 1x1: n = 3.
		{1, 1, 1, 1, 3*u/(1-3*u) + u + 0x1p-126},
	}
	for _, tc := range tests {
		if got := Tolerance(tc.kw, tc.kh, tc.absSum, tc.ref); got != tc.want {
			t.Errorf("Tolerance(%d,%d,%v,%v) = %v, want %v", tc.kw, tc.kh, tc.absSum, tc.ref, got, tc.want)
		}
	}
	// About 15*2^-24 relative for a 3x3 sum of positive terms.
	if got := Tolerance(3, 3, 1, 1); math.Abs(got-16*u) > 1e-12 {
		t.Errorf("Tolerance(3,3,1,1) = %v, want about 16u = %v", got, 16*u)
	}
	if Tolerance(7, 7, 1, 1) <= Tolerance(5, 5, 1, 1) {
		t.Error("tolerance does not grow with the filter size")
	}
}

func TestThroughput(t *testing.T) {
	f, _ := Box(5)
	p := Problem{Op: Filter2D, Input: Geometry{Width: 1920, Height: 1080, Channels: 3, Type: Uint8}, Filter: f}
	tp := ThroughputOf(p)
	// 1920*1080 = 2073600 pixels; u8 in (1 B), f32 out (4 B), 3 channels.
	want := Throughput{Pixels: 2073600, Channels: 3, KW: 5, KH: 5, BytesRead: 6220800, BytesWritten: 24883200}
	if tp != want {
		t.Fatalf("ThroughputOf = %+v, want %+v", tp, want)
	}
	if got := tp.Flops(); got != 311040000 { // 2*25*2073600*3
		t.Errorf("Flops = %v", got)
	}
	d := time.Millisecond
	close := func(what string, got, want float64) {
		t.Helper()
		if math.Abs(got-want) > 1e-9*math.Abs(want) {
			t.Errorf("%s = %v, want %v", what, got, want)
		}
	}
	close("MPix/s", tp.MPixPerSec(d), 2073.6)
	close("GB/s", tp.GBPerSec(d), 31.104) // 31104000 B in 1 ms
	close("GFLOP/s", tp.GFLOPPerSec(d), 311.04)
	close("PercentOf", PercentOf(31.104, 311.04), 10)
	if PercentOf(1, 0) != 0 || PercentOf(1, -5) != 0 {
		t.Error("PercentOf with a non-positive peak is not 0")
	}

	// 1000 GB/s: 31104000 B take 31.104 us; 50 TFLOP/s: 6.2208 us.
	floor, bound := tp.Roofline(1000, 50000)
	if bound != "memory" || floor != 31104*time.Nanosecond {
		t.Errorf("Roofline(1000, 50000) = %v %s", floor, bound)
	}
	// 5 TFLOP/s: 62.208 us, above the memory floor.
	floor, bound = tp.Roofline(1000, 5000)
	if bound != "fp32" || floor != 62208*time.Nanosecond {
		t.Errorf("Roofline(1000, 5000) = %v %s", floor, bound)
	}

	// RGB->YUV: 1x1 "filter", u8 planar output of 3 channels.
	y := ThroughputOf(Problem{Op: RGBToYUV, Input: Geometry{Width: 100, Height: 10, Channels: 3, Type: Uint8}})
	if y.KW != 1 || y.KH != 1 || y.BytesRead != 3000 || y.BytesWritten != 3000 || y.Flops() != 6000 {
		t.Errorf("rgb2yuv throughput %+v flops %v", y, y.Flops())
	}
	// Sobel magnitude on f32 gray: 3x3, 4 B in and out.
	s := ThroughputOf(Problem{Op: SobelMagnitude, Input: Geometry{Width: 10, Height: 10, Channels: 1}})
	if s.KW != 3 || s.KH != 3 || s.BytesRead != 400 || s.BytesWritten != 400 {
		t.Errorf("sobel throughput %+v", s)
	}
}

// TestHostCopyBound: the slower direction sets the bound, distinct links
// divide it, and an unknown bandwidth or no link gives none.
func TestHostCopyBound(t *testing.T) {
	for _, tc := range []struct {
		in, out        int64
		links          int
		h2d, d2h, both float64
		want           time.Duration
	}{
		{50e9, 10e9, 1, 50, 50, 0, time.Second},              // H2D: 1 s, D2H: 0.2 s
		{10e9, 50e9, 1, 50, 25, 0, 2 * time.Second},          // D2H: 2 s
		{50e9, 50e9, 2, 50, 50, 0, time.Second / 2},          // two links
		{50e9, 50e9, 1, 50, 50, 80, 1250 * time.Millisecond}, // both ways: 100 GB at 80 GB/s
		{50e9, 50e9, 1, 50, 50, 200, time.Second},            // both ways faster than one: no effect
		{50e9, 50e9, 0, 50, 50, 0, 0},                        // no link
		{50e9, 50e9, 1, 0, 50, 0, 0},                         // unknown H2D
		{50e9, 50e9, 1, 50, -1, 0, 0},                        // unknown D2H
	} {
		got := HostCopyBound(tc.in, tc.out, tc.links, tc.h2d, tc.d2h, tc.both)
		if d := got - tc.want; d < -time.Microsecond || d > time.Microsecond {
			t.Errorf("HostCopyBound(%d, %d, %d, %g, %g, %g) = %v, want %v", tc.in, tc.out, tc.links, tc.h2d, tc.d2h, tc.both, got, tc.want)
		}
	}
}
