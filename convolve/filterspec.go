package convolve

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// fixedFilters maps the names of the fixed filters to their constructors.
var fixedFilters = []struct {
	name string
	make func() *Filter
}{
	{"gauss3-int", GaussianInt3},
	{"gauss5-int", GaussianInt5},
	{"sobel-x", SobelX},
	{"sobel-y", SobelY},
	{"prewitt-x", PrewittX},
	{"prewitt-y", PrewittY},
	{"laplacian", Laplacian},
	{"edge8", EdgeDetect8},
	{"sharpen", Sharpen},
	{"emboss", Emboss},
}

// sizedFamilies are the filter families a spec gives with a size.
var sizedFamilies = []struct {
	name  string
	size  int    // default size; 0: a spec must give one
	min   int    // smallest size, as the constructor checks it
	what  string // the family in the constructor's errors
	sigma bool   // takes a sigma
	make  func(k int, sigma float64) (*Filter, error)
}{
	{"identity", DefaultIdentitySize, 1, "identity", false, func(k int, _ float64) (*Filter, error) { return Identity(k) }},
	{"box", DefaultBoxSize, 1, "box", false, func(k int, _ float64) (*Filter, error) { return Box(k) }},
	{"gauss", DefaultGaussianSize, 1, "gaussian", true, Gaussian},
	{"log", DefaultLoGSize, 3, "log", true, LoG},
	{"dense", 0, 1, "dense", false, func(k int, _ float64) (*Filter, error) { return Dense(k) }},
}

// Library returns every named filter at its default size, in a stable
// order: the sized families (without dense), then the fixed filters.
func Library() []*Filter {
	var fs []*Filter
	for _, fam := range sizedFamilies {
		if fam.size == 0 {
			continue
		}
		f, err := fam.make(fam.size, 0)
		if err != nil {
			panic("convolve: default library filter: " + err.Error()) // unreachable: fixed arguments
		}
		fs = append(fs, f)
	}
	for _, ff := range fixedFilters {
		fs = append(fs, ff.make())
	}
	return fs
}

// FilterSpec names a library filter: a sized family at a size, with a
// sigma for gauss and log, or a fixed filter. String writes its canonical
// name, the Name of the filter it stands for.
type FilterSpec struct {
	Family string  // a sized family (identity, box, gauss, log, dense) or a fixed filter's name
	K      int     // the filter's side
	Sigma  float64 // of gauss and log; 0 for OpenCV's choice for K
}

// String is the canonical name of the filter s stands for: the fixed
// filter's name, or the family, K and for a positive Sigma "-s" and the
// sigma ("box7", "gauss9-s2.5").
func (s FilterSpec) String() string {
	for _, ff := range fixedFilters {
		if s.Family == ff.name {
			return ff.name
		}
	}
	name := s.Family + strconv.Itoa(s.K)
	if s.Sigma > 0 {
		name += "-s" + strconv.FormatFloat(s.Sigma, 'g', -1, 64)
	}
	return name
}

// ParseFilterSpec reads a filter specification:
//
//	spec   = fixed | family [K] ["-s" SIGMA] | family ":" K [":" SIGMA]
//	fixed  = "gauss3-int" | "gauss5-int" | "sobel-x" | "sobel-y" |
//	         "prewitt-x" | "prewitt-y" | "laplacian" | "edge8" |
//	         "sharpen" | "emboss"
//	family = "identity" | "box" | "gauss" | "log" | "dense"
//
// K is the size (default 3 for identity, 5 for box, gauss and log; dense
// needs one); SIGMA, a positive number, is taken by gauss and log only.
// A spec that parses names a filter ParseFilter can build.
func ParseFilterSpec(spec string) (FilterSpec, error) {
	for _, ff := range fixedFilters {
		if spec == ff.name {
			return FilterSpec{Family: ff.name, K: ff.make().Width}, nil
		}
	}
	for _, fam := range sizedFamilies {
		rest, ok := strings.CutPrefix(spec, fam.name)
		if !ok {
			continue
		}
		var ks, ss string
		hasSigma := false
		switch {
		case rest == "":
		case rest[0] == ':':
			ks, ss, hasSigma = strings.Cut(rest[1:], ":")
			if ks == "" {
				return FilterSpec{}, fmt.Errorf("convolve: filter spec %q: missing size after ':'", spec)
			}
		case rest[0] >= '0' && rest[0] <= '9':
			ks, ss, hasSigma = strings.Cut(rest, "-s")
		default:
			continue // another name with this prefix, or unknown
		}
		s := FilterSpec{Family: fam.name, K: fam.size}
		switch {
		case ks != "":
			n, err := strconv.Atoi(ks)
			if err != nil {
				return FilterSpec{}, fmt.Errorf("convolve: filter spec %q: size %q is not an integer", spec, ks)
			}
			s.K = n
		case fam.size == 0:
			return FilterSpec{}, fmt.Errorf("convolve: filter spec %q: %s needs a size, such as %s9", spec, fam.name, fam.name)
		}
		if err := checkSize(fam.what, s.K, fam.min); err != nil {
			return FilterSpec{}, wrapf(err, "filter spec %q", spec)
		}
		if hasSigma {
			if !fam.sigma {
				return FilterSpec{}, fmt.Errorf("convolve: filter spec %q: %s takes no sigma", spec, fam.name)
			}
			v, err := strconv.ParseFloat(ss, 64)
			if err != nil || !(v > 0) || math.IsInf(v, 0) {
				return FilterSpec{}, fmt.Errorf("convolve: filter spec %q: sigma %q must be a positive number", spec, ss)
			}
			s.Sigma = v
		}
		return s, nil
	}
	return FilterSpec{}, fmt.Errorf("convolve: unknown filter %q: %s", spec, wantFilter())
}

// wantFilter says what a filter spec may be, for errors.
func wantFilter() string {
	var sized, fixed []string
	for _, fam := range sizedFamilies {
		sized = append(sized, fam.name)
	}
	for _, ff := range fixedFilters {
		fixed = append(fixed, ff.name)
	}
	return fmt.Sprintf("want %s or %s with an odd size such as gauss7, gauss:9:2.5 or dense9, or one of %s",
		strings.Join(sized[:len(sized)-1], ", "), sized[len(sized)-1], strings.Join(fixed, ", "))
}

// filter builds the filter s names.
func (s FilterSpec) filter() (*Filter, error) {
	for _, ff := range fixedFilters {
		if s.Family != ff.name {
			continue
		}
		f := ff.make()
		if s.K != f.Width {
			return nil, fmt.Errorf("convolve: filter %s is %dx%d, not of size %d", ff.name, f.Width, f.Height, s.K)
		}
		return f, nil
	}
	for _, fam := range sizedFamilies {
		if s.Family != fam.name {
			continue
		}
		if s.Sigma != 0 && !fam.sigma {
			return nil, fmt.Errorf("convolve: filter %s: %s takes no sigma", s, fam.name)
		}
		if s.Sigma < 0 || math.IsNaN(s.Sigma) {
			return nil, fmt.Errorf("convolve: filter %s: sigma %v must be positive, or 0 for OpenCV's choice", s, s.Sigma)
		}
		return fam.make(s.K, s.Sigma)
	}
	return nil, fmt.Errorf("convolve: unknown filter family %q: %s", s.Family, wantFilter())
}

// ParseFilter builds the library filter a spec names; its Name is the
// spec's canonical spelling, so ParseFilter(f.Name) gives f's weights.
func ParseFilter(spec string) (*Filter, error) {
	s, err := ParseFilterSpec(spec)
	if err != nil {
		return nil, err
	}
	f, err := s.filter()
	if err != nil {
		return nil, wrapf(err, "filter spec %q", spec)
	}
	return f, nil
}
