package convolve

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
)

// The filter library. Every call returns a fresh filter, named by its
// canonical spec (FilterSpec), which benchmark names embed.

// Default sizes of the sized families, for a bare family name and Library.
const (
	DefaultIdentitySize = 3
	DefaultBoxSize      = 5
	DefaultGaussianSize = 5
	DefaultLoGSize      = 5
)

func checkSize(family string, k, min int) error {
	if k < min || k%2 == 0 || k > MaxFilterSide {
		return fmt.Errorf("convolve: %s filter size %d: must be odd, %d to %d", family, k, min, MaxFilterSide)
	}
	return nil
}

func checkSigma(family string, sigma float64) error {
	if math.IsNaN(sigma) || math.IsInf(sigma, 0) {
		return fmt.Errorf("convolve: %s filter sigma %v: must be finite", family, sigma)
	}
	return nil
}

func fixed(name string, k int, scale float32, w ...float32) *Filter {
	ws := make([]float32, len(w))
	for i, v := range w {
		ws[i] = v * scale
	}
	return &Filter{Name: name, Width: k, Height: k, Weights: ws}
}

// Identity returns the k x k filter with a single 1 at the centre.
// Name: "identity<k>".
func Identity(k int) (*Filter, error) {
	if err := checkSize("identity", k, 1); err != nil {
		return nil, err
	}
	w := make([]float32, k*k)
	w[k*k/2] = 1
	return &Filter{Name: FilterSpec{Family: "identity", K: k}.String(), Width: k, Height: k, Weights: w}, nil
}

// Box returns the k x k mean filter, every weight float32(1/k^2).
// Name: "box<k>".
func Box(k int) (*Filter, error) {
	if err := checkSize("box", k, 1); err != nil {
		return nil, err
	}
	w := slices.Repeat([]float32{float32(1 / float64(k*k))}, k*k)
	return &Filter{Name: FilterSpec{Family: "box", K: k}.String(), Width: k, Height: k, Weights: w}, nil
}

// GaussianDefaultSigma is OpenCV's sigma for a Gaussian of size k.
func GaussianDefaultSigma(k int) float64 {
	return 0.3*((float64(k)-1)*0.5-1) + 0.8
}

// GaussianKernel1D returns the 1-D Gaussian of odd size k as OpenCV's
// getGaussianKernel computes it, normalised to sum 1 and rounded to
// float32: with sigma <= 0 OpenCV's fixed tables for k <= 7, else samples
// at GaussianDefaultSigma(k).
func GaussianKernel1D(k int, sigma float64) ([]float32, error) {
	if err := checkSize("gaussian", k, 1); err != nil {
		return nil, err
	}
	if err := checkSigma("gaussian", sigma); err != nil {
		return nil, err
	}
	if sigma <= 0 {
		switch k {
		case 1:
			return []float32{1}, nil
		case 3:
			return []float32{0.25, 0.5, 0.25}, nil
		case 5:
			return []float32{0.0625, 0.25, 0.375, 0.25, 0.0625}, nil
		case 7:
			return []float32{0.03125, 0.109375, 0.21875, 0.28125, 0.21875, 0.109375, 0.03125}, nil
		}
		sigma = GaussianDefaultSigma(k)
	}
	t := gaussianSamples(k, sigma)
	var sum float64
	for _, v := range t {
		sum += v
	}
	out := make([]float32, k)
	for i, v := range t {
		out[i] = float32(v / sum)
	}
	return out, nil
}

// gaussianSamples returns exp(-x^2/(2 sigma^2)) for x = -(k-1)/2 .. (k-1)/2.
func gaussianSamples(k int, sigma float64) []float64 {
	s := -0.5 / (sigma * sigma)
	t := make([]float64, k)
	for i := range t {
		x := float64(i) - float64(k-1)*0.5
		t[i] = math.Exp(s * x * x)
	}
	return t
}

// Gaussian returns the k x k Gaussian blur, the outer product of
// GaussianKernel1D(k, sigma) with itself, so exactly rank one; sigma <= 0
// picks OpenCV's default. Name: "gauss<k>", or "gauss<k>-s<sigma>" when
// sigma > 0.
func Gaussian(k int, sigma float64) (*Filter, error) {
	g, err := GaussianKernel1D(k, sigma)
	if err != nil {
		return nil, err
	}
	return &Filter{Name: FilterSpec{Family: "gauss", K: k, Sigma: sigma}.String(), Width: k, Height: k, Weights: outer(g)}, nil
}

// outer returns the weights g[j]*g[i] of row j, column i.
func outer(g []float32) []float32 {
	w := make([]float32, 0, len(g)*len(g))
	for _, a := range g {
		for _, b := range g {
			w = append(w, a*b)
		}
	}
	return w
}

// GaussianInt3 is the integer-binomial 3x3 Gaussian. Name: "gauss3-int".
func GaussianInt3() *Filter {
	return fixed("gauss3-int", 3, 1.0/16,
		1, 2, 1,
		2, 4, 2,
		1, 2, 1)
}

// GaussianInt5 is the integer-binomial 5x5 Gaussian, the outer product of
// [1 4 6 4 1] with itself over 256. Name: "gauss5-int".
func GaussianInt5() *Filter {
	return fixed("gauss5-int", 5, 1.0/256, outer([]float32{1, 4, 6, 4, 1})...)
}

// SobelX is the horizontal-gradient Sobel operator. Name: "sobel-x".
func SobelX() *Filter {
	return fixed("sobel-x", 3, 1,
		-1, 0, 1,
		-2, 0, 2,
		-1, 0, 1)
}

// SobelY is the vertical-gradient Sobel operator. Name: "sobel-y".
func SobelY() *Filter {
	return fixed("sobel-y", 3, 1,
		-1, -2, -1,
		0, 0, 0,
		1, 2, 1)
}

// PrewittX is the horizontal Prewitt operator. Name: "prewitt-x".
func PrewittX() *Filter {
	return fixed("prewitt-x", 3, 1,
		-1, 0, 1,
		-1, 0, 1,
		-1, 0, 1)
}

// PrewittY is the transpose of PrewittX. Name: "prewitt-y".
func PrewittY() *Filter {
	return fixed("prewitt-y", 3, 1,
		-1, -1, -1,
		0, 0, 0,
		1, 1, 1)
}

// Laplacian is OpenCV's 4-neighbour Laplacian. Name: "laplacian".
func Laplacian() *Filter {
	return fixed("laplacian", 3, 1,
		0, 1, 0,
		1, -4, 1,
		0, 1, 0)
}

// EdgeDetect8 is the 8-neighbour edge detector. Name: "edge8".
func EdgeDetect8() *Filter {
	return fixed("edge8", 3, 1,
		-1, -1, -1,
		-1, 8, -1,
		-1, -1, -1)
}

// LoG returns the k x k Laplacian of Gaussian, k >= 3: samples of
// (x^2+y^2-2 sigma^2)/sigma^4 * exp(-(x^2+y^2)/(2 sigma^2)) over the sum
// of the Gaussian samples, less their mean so that they sum to zero.
// sigma <= 0 picks GaussianDefaultSigma(k). Name: "log<k>", or
// "log<k>-s<sigma>" when sigma > 0.
func LoG(k int, sigma float64) (*Filter, error) {
	if err := checkSize("log", k, 3); err != nil {
		return nil, err
	}
	if err := checkSigma("log", sigma); err != nil {
		return nil, err
	}
	name := FilterSpec{Family: "log", K: k, Sigma: sigma}.String()
	if sigma <= 0 {
		sigma = GaussianDefaultSigma(k)
	}
	g := gaussianSamples(k, sigma)
	c := float64(k / 2)
	s2 := sigma * sigma
	w64 := make([]float64, k*k)
	norm, mean := 0.0, 0.0
	for j := range k {
		for i := range k {
			x, y := float64(i)-c, float64(j)-c
			gv := g[i] * g[j]
			norm += gv
			w64[j*k+i] = (x*x + y*y - 2*s2) / (s2 * s2) * gv
		}
	}
	for i := range w64 {
		w64[i] /= norm
		mean += w64[i]
	}
	mean /= float64(k * k)
	w := make([]float32, k*k)
	for i, v := range w64 {
		w[i] = float32(v - mean)
	}
	return &Filter{Name: name, Width: k, Height: k, Weights: w}, nil
}

// Sharpen is identity minus the 4-neighbour Laplacian. Name: "sharpen".
func Sharpen() *Filter {
	return fixed("sharpen", 3, 1,
		0, -1, 0,
		-1, 5, -1,
		0, -1, 0)
}

// Emboss is a relief filter summing to 1. Name: "emboss".
func Emboss() *Filter {
	return fixed("emboss", 3, 1,
		-2, -1, 0,
		-1, 1, 1,
		0, 1, 2)
}

// denseSeed seeds the weights of every dense<K> filter.
const denseSeed = 14

// Dense returns the k x k filter of weights drawn uniformly from
// [-1, 1) / k^2 by a PCG generator seeded with denseSeed and k: no zeros
// and no rank-1 structure. Name: "dense<k>".
func Dense(k int) (*Filter, error) {
	if err := checkSize("dense", k, 1); err != nil {
		return nil, err
	}
	r := rand.New(rand.NewPCG(denseSeed, uint64(k)))
	w := make([]float32, k*k)
	for i := range w {
		w[i] = float32((2*r.Float64() - 1) / float64(k*k))
	}
	return &Filter{Name: FilterSpec{Family: "dense", K: k}.String(), Width: k, Height: k, Weights: w}, nil
}
