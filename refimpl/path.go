package refimpl

import (
	"fmt"

	"github.com/convbench/convbench/convolve"
)

// FastPath names the loops cpu-fast sums its rows with. Every path gives
// the same float32 values; they differ in speed only.
type FastPath int

const (
	// FastAuto is the widest path the CPU has, chosen at start-up: the
	// registered "cpu-fast".
	FastAuto FastPath = iota
	// FastPortable is the portable Go loops, on every CPU.
	FastPortable
	// FastVector is the AVX assembly loops (amd64 with AVX only) for the
	// row sums and the conversion of uint8 and int16 rows, with the
	// portable loops for a row's last len%8 values.
	FastVector
	// FastVector512 is FastVector with the row sums in AVX-512 assembly
	// (amd64 with AVX-512F only), sixteen values per instruction.
	FastVector512
)

// FastPaths are the paths cpu-fast has, in the order of their constants.
var FastPaths = []FastPath{FastAuto, FastPortable, FastVector, FastVector512}

var fastPathNames = []string{"auto", "portable", "vector", "vector512"}

func (p FastPath) String() string {
	if p < FastAuto || p > FastVector512 {
		return fmt.Sprintf("FastPath(%d)", int(p))
	}
	return fastPathNames[p]
}

// Available reports whether this CPU runs path p.
func (p FastPath) Available() bool {
	switch p {
	case FastAuto, FastPortable:
		return true
	case FastVector:
		return hasVector
	case FastVector512:
		return hasVector512
	}
	return false
}

// width is the number of values an instruction of path p's row sums
// takes: 16 (vectorSum512), 8 (vectorSum) or 0 for the portable loops.
func (p FastPath) width() int {
	switch {
	case p == FastVector512 || p == FastAuto && autoWidth == 16:
		return 16
	case p == FastVector || p == FastAuto && autoWidth == 8:
		return 8
	}
	return 0
}

// NewFast returns cpu-fast with its row sums on path p, described as the
// registered "cpu-fast" (NewFast(FastAuto)). It returns an error for an
// unknown path or one this CPU lacks (FastPath.Available).
func NewFast(p FastPath) (convolve.Variant, error) {
	switch {
	case p < FastAuto || p > FastVector512:
		return nil, fmt.Errorf("refimpl: cpu-fast has no path %v (want auto, portable, vector or vector512)", p)
	case p == FastVector512 && !p.Available():
		return nil, fmt.Errorf("refimpl: cpu-fast's %v path needs a CPU with AVX-512F on amd64", p)
	case !p.Available():
		return nil, fmt.Errorf("refimpl: cpu-fast's %v path needs a CPU with AVX on amd64", p)
	}
	return fast{path: p}, nil
}

// autoWidth is the width of FastAuto's row sums, the widest this CPU
// has; a test sets it 0 to run the registered cpu-fast on the portable
// loops.
var autoWidth = bestWidth()

func bestWidth() int {
	switch {
	case hasVector512:
		return 16
	case hasVector:
		return 8
	}
	return 0
}

// vectorSum and vectorSum512 are the passes of the vector paths, in
// variables so that tests can break them.
var (
	vectorSum    = sumVector
	vectorSum512 = sumVector512
)
