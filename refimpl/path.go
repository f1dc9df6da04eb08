package refimpl

import (
	"fmt"

	"github.com/convbench/convbench/convolve"
)

// FastPath names the loops cpu-fast sums its rows with. Every path gives
// the same float32 values (each product rounded, the terms added in the
// same order); they differ in speed only.
type FastPath int

const (
	// FastAuto is the vector loop where the CPU has it, the portable
	// loops elsewhere: the registered "cpu-fast".
	FastAuto FastPath = iota
	// FastPortable is the portable Go loops, on every CPU.
	FastPortable
	// FastVector is the AVX assembly loops (amd64 with AVX only) for the
	// row sums and the conversion of uint8 and int16 rows, with the
	// portable Go loops for a row's last len%8 values.
	FastVector
)

// FastPaths are the paths cpu-fast has, in the order of their constants.
var FastPaths = []FastPath{FastAuto, FastPortable, FastVector}

func (p FastPath) String() string {
	switch p {
	case FastAuto:
		return "auto"
	case FastPortable:
		return "portable"
	case FastVector:
		return "vector"
	}
	return fmt.Sprintf("FastPath(%d)", int(p))
}

// Available reports whether this CPU runs path p.
func (p FastPath) Available() bool {
	switch p {
	case FastAuto, FastPortable:
		return true
	case FastVector:
		return hasVector
	}
	return false
}

// vector reports whether plans of path p sum in the vector loop.
func (p FastPath) vector() bool {
	return p == FastVector || p == FastAuto && autoVector
}

// NewFast returns cpu-fast with its row sums on path p, for tests and
// benchmarks that must run one path whatever the CPU prefers; its
// Describe names it "cpu-fast" as the registered variant, which is
// NewFast(FastAuto). It returns an error for an unknown path or one this
// CPU lacks (FastPath.Available).
func NewFast(p FastPath) (convolve.Variant, error) {
	switch {
	case p < FastAuto || p > FastVector:
		return nil, fmt.Errorf("refimpl: cpu-fast has no path %v (want auto, portable or vector)", p)
	case !p.Available():
		return nil, fmt.Errorf("refimpl: cpu-fast's %v path needs a CPU with AVX on amd64", p)
	}
	return fast{path: p}, nil
}

// autoVector is whether FastAuto plans use the vector loop: hasVector,
// unless a test sets it false to run the registered cpu-fast on the
// portable loops.
var autoVector = hasVector

// vectorSum is the pass of the vector path; tests put a broken pass in
// its place to show that the property suite catches it.
var vectorSum = sumVector
