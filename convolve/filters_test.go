package convolve

import (
	"math"
	"slices"
	"strings"
	"testing"
)

func TestFixedFilterWeights(t *testing.T) {
	tests := []struct {
		f    *Filter
		name string
		k    int
		want []float32
	}{
		{GaussianInt3(), "gauss3-int", 3, []float32{1. / 16, 2. / 16, 1. / 16, 2. / 16, 4. / 16, 2. / 16, 1. / 16, 2. / 16, 1. / 16}},
		{SobelX(), "sobel-x", 3, []float32{-1, 0, 1, -2, 0, 2, -1, 0, 1}},
		{SobelY(), "sobel-y", 3, []float32{-1, -2, -1, 0, 0, 0, 1, 2, 1}},
		{PrewittX(), "prewitt-x", 3, []float32{-1, 0, 1, -1, 0, 1, -1, 0, 1}},
		{PrewittY(), "prewitt-y", 3, []float32{-1, -1, -1, 0, 0, 0, 1, 1, 1}},
		{Laplacian(), "laplacian", 3, []float32{0, 1, 0, 1, -4, 1, 0, 1, 0}},
		{EdgeDetect8(), "edge8", 3, []float32{-1, -1, -1, -1, 8, -1, -1, -1, -1}},
		{Sharpen(), "sharpen", 3, []float32{0, -1, 0, -1, 5, -1, 0, -1, 0}},
		{Emboss(), "emboss", 3, []float32{-2, -1, 0, -1, 1, 1, 0, 1, 2}},
		{GaussianInt5(), "gauss5-int", 5, []float32{
			1. / 256, 4. / 256, 6. / 256, 4. / 256, 1. / 256,
			4. / 256, 16. / 256, 24. / 256, 16. / 256, 4. / 256,
			6. / 256, 24. / 256, 36. / 256, 24. / 256, 6. / 256,
			4. / 256, 16. / 256, 24. / 256, 16. / 256, 4. / 256,
			1. / 256, 4. / 256, 6. / 256, 4. / 256, 1. / 256,
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if tc.f.Name != tc.name || tc.f.Width != tc.k || tc.f.Height != tc.k {
				t.Errorf("got %q %dx%d, want %q %dx%d", tc.f.Name, tc.f.Width, tc.f.Height, tc.name, tc.k, tc.k)
			}
			if !slices.Equal(tc.f.Weights, tc.want) {
				t.Errorf("weights %v, want %v", tc.f.Weights, tc.want)
			}
			if err := tc.f.Validate(); err != nil {
				t.Error(err)
			}
		})
	}
}

func TestFixedFiltersAreFresh(t *testing.T) {
	a := SobelX()
	a.Weights[0] = 42
	if b := SobelX(); b.Weights[0] != -1 {
		t.Fatalf("modifying one SobelX changed the next: %v", b.Weights)
	}
}

func TestIdentityAndBox(t *testing.T) {
	for _, k := range []int{1, 3, 5, 9} {
		id, err := Identity(k)
		if err != nil {
			t.Fatal(err)
		}
		for i, w := range id.Weights {
			want := float32(0)
			if i == k*k/2 {
				want = 1
			}
			if w != want {
				t.Errorf("identity%d weight %d = %v, want %v", k, i, w, want)
			}
		}
		box, err := Box(k)
		if err != nil {
			t.Fatal(err)
		}
		want := float32(1 / float64(k*k))
		for i, w := range box.Weights {
			if w != want {
				t.Errorf("box%d weight %d = %v, want %v", k, i, w, want)
			}
		}
	}
	b3, _ := Box(3)
	if b3.Weights[0] != float32(1.0/9) || b3.Name != "box3" {
		t.Errorf("box3 = %v %v", b3.Name, b3.Weights[0])
	}
}

func TestGaussianOpenCVTables(t *testing.T) {
	// With sigma <= 0 OpenCV's getGaussianKernel uses fixed tables for
	// k <= 7; 3 and 5 are the binomial kernels the reports print.
	g3, _ := Gaussian(3, 0)
	if !slices.Equal(g3.Weights, GaussianInt3().Weights) {
		t.Errorf("Gaussian(3, 0) = %v, want gauss3-int", g3.Weights)
	}
	g5, _ := Gaussian(5, -1)
	if !slices.Equal(g5.Weights, GaussianInt5().Weights) {
		t.Errorf("Gaussian(5, -1) = %v, want gauss5-int", g5.Weights)
	}
	g7, _ := GaussianKernel1D(7, 0)
	want7 := []float32{1. / 32, 3.5 / 32, 7. / 32, 9. / 32, 7. / 32, 3.5 / 32, 1. / 32}
	if !slices.Equal(g7, want7) {
		t.Errorf("GaussianKernel1D(7, 0) = %v, want %v", g7, want7)
	}
	if g5.Name != "gauss5" {
		t.Errorf("name %q, want gauss5", g5.Name)
	}
}

func TestGaussianSampled(t *testing.T) {
	// k=3, sigma=1: samples e^-0.5, 1, e^-0.5 over their sum.
	e := math.Exp(-0.5)
	s := 1 + 2*e
	got, err := GaussianKernel1D(3, 1)
	if err != nil {
		t.Fatal(err)
	}
	want := []float32{float32(e / s), float32(1 / s), float32(e / s)}
	if !slices.Equal(got, want) {
		t.Errorf("GaussianKernel1D(3, 1) = %v, want %v", got, want)
	}
	// k=9 with the default sigma 0.3*((9-1)*0.5-1)+0.8 = 1.7.
	if d := GaussianDefaultSigma(9); math.Abs(d-1.7) > 1e-12 {
		t.Errorf("GaussianDefaultSigma(9) = %v, want 1.7", d)
	}
	g9, _ := GaussianKernel1D(9, 0)
	ratio := float64(g9[0]) / float64(g9[4]) // exp(-16/(2*1.7^2))
	if want := math.Exp(-16 / (2 * 1.7 * 1.7)); math.Abs(ratio-want) > 1e-6 {
		t.Errorf("gauss9 edge/centre = %v, want %v", ratio, want)
	}
	for _, tc := range []struct {
		k     int
		sigma float64
		name  string
	}{{9, 0, "gauss9"}, {9, 2.5, "gauss9-s2.5"}, {21, 3, "gauss21-s3"}, {1, 0, "gauss1"}} {
		f, err := Gaussian(tc.k, tc.sigma)
		if err != nil {
			t.Fatal(err)
		}
		if f.Name != tc.name {
			t.Errorf("name %q, want %q", f.Name, tc.name)
		}
		sum := 0.0
		for _, w := range f.Weights {
			sum += float64(w)
		}
		if math.Abs(sum-1) > 1e-5 {
			t.Errorf("%s sums to %v", f.Name, sum)
		}
		// Symmetric in both axes and about the diagonal.
		k := tc.k
		for j := range k {
			for i := range k {
				if f.At(i, j) != f.At(j, i) || f.At(i, j) != f.At(k-1-i, j) || f.At(i, j) != f.At(i, k-1-j) {
					t.Fatalf("%s not symmetric at (%d,%d)", f.Name, i, j)
				}
			}
		}
	}
}

func TestLoG(t *testing.T) {
	// k=3, sigma=1 by hand: Gaussian samples 1 (centre), e^-1/2 (edge),
	// e^-1 (corner), summing to n = 1+4e^-1/2+4e^-1; Laplacian factor
	// r^2-2 = -2, -1, 0; then the mean over the 9 taps is subtracted.
	e1, e2 := math.Exp(-0.5), math.Exp(-1)
	n := 1 + 4*e1 + 4*e2
	centre, edge, corner := -2/n, -e1/n, 0.0
	mean := (centre + 4*edge + 4*corner) / 9
	want := []float32{
		float32(corner - mean), float32(edge - mean), float32(corner - mean),
		float32(edge - mean), float32(centre - mean), float32(edge - mean),
		float32(corner - mean), float32(edge - mean), float32(corner - mean),
	}
	f, err := LoG(3, 1)
	if err != nil {
		t.Fatal(err)
	}
	for i := range want {
		if math.Abs(float64(f.Weights[i]-want[i])) > 1e-7 {
			t.Errorf("LoG(3,1) = %v, want %v", f.Weights, want)
			break
		}
	}
	if f.Name != "log3-s1" {
		t.Errorf("name %q", f.Name)
	}
	for _, k := range []int{3, 5, 9, 15} {
		f, err := LoG(k, 0)
		if err != nil {
			t.Fatal(err)
		}
		sum, max := 0.0, 0.0
		for _, w := range f.Weights {
			sum += float64(w)
			max = math.Max(max, math.Abs(float64(w)))
		}
		if math.Abs(sum) > 1e-6*max*float64(k) {
			t.Errorf("%s sums to %v", f.Name, sum)
		}
		if c := f.At(k/2, k/2); c >= 0 || math.Abs(float64(c)) != max {
			t.Errorf("%s centre %v: want the most negative weight (max |w| %v)", f.Name, c, max)
		}
	}
}

func TestFilterConstructorErrors(t *testing.T) {
	tests := []struct {
		name string
		call func() (*Filter, error)
		want string
	}{
		{"identity 0", func() (*Filter, error) { return Identity(0) }, "size 0"},
		{"identity -3", func() (*Filter, error) { return Identity(-3) }, "size -3"},
		{"box even", func() (*Filter, error) { return Box(4) }, "size 4"},
		{"box huge", func() (*Filter, error) { return Box(MaxFilterSide + 2) }, "size 1025"},
		{"gauss even", func() (*Filter, error) { return Gaussian(2, 1) }, "size 2"},
		{"gauss NaN", func() (*Filter, error) { return Gaussian(3, math.NaN()) }, "sigma NaN"},
		{"gauss Inf", func() (*Filter, error) { return Gaussian(3, math.Inf(1)) }, "sigma +Inf"},
		{"log 1", func() (*Filter, error) { return LoG(1, 1) }, "size 1"},
		{"log even", func() (*Filter, error) { return LoG(6, 1) }, "size 6"},
		{"log NaN", func() (*Filter, error) { return LoG(5, math.NaN()) }, "sigma NaN"},
		{"dense 0", func() (*Filter, error) { return Dense(0) }, "dense filter size 0"},
		{"dense even", func() (*Filter, error) { return Dense(4) }, "dense filter size 4"},
		{"dense huge", func() (*Filter, error) { return Dense(MaxFilterSide + 2) }, "size 1025"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f, err := tc.call()
			if err == nil {
				t.Fatalf("got %v, want an error", f)
			}
			if !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %q does not mention %q", err, tc.want)
			}
		})
	}
}
