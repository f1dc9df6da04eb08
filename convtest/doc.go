// Package convtest implements a conformance suite for convolve.Variant
// implementations, in the spirit of testing/fstest:
//
//	func TestMyVariant(t *testing.T) { convtest.TestVariant(t, myVariant{}) }
//
// TestVariant draws random problem descriptors (sizes, filter, border,
// mode, element type, channels, layout, padding, block shape, compile
// options, tunables and a data seed) within the capabilities the variant
// declares, and checks with github.com/leanovate/gopter that:
//
//   - the output agrees with refimpl's float64 reference within the
//     tolerance of the variant's error model (convolve.ModelOf), and every
//     element of the poisoned output is written;
//   - metamorphic relations hold within the same model: identity, impulse,
//     linearity in the filter, translation away from the borders, separable
//     equals 2-D, and convolve equals correlate with the flipped filter;
//   - kernels that sum in cpu-naive's order with --fmad=false equal
//     cpu-naive bit for bit;
//   - extreme input (non-finite pixels and weights, sums at and beyond the
//     float32 overflow, subnormals, integer range ends) gives the
//     reference's result, non-finite values matched by class; a variant
//     that declares Capabilities.FiniteInput refuses non-finite input with
//     a *convolve.NonFiniteError instead;
//   - the same input run twice gives the same bits;
//   - plans and device allocations return to their starting counts;
//   - invalid input (bad problems and images, overlapping output, Run
//     after Close, a second Close) is an error, without a panic and without
//     allocating.
//
// A failing case shrinks to a small one and prints in one line with the
// seed, a go-cmp diff and the go test command that reproduces it. A fixed
// table of edge cases runs beside the random cases. After a sticky device
// error (an error whose Sticky method reports true) the shrink candidates
// are checked each in a child process (-convtest.case), so that the case
// reported faults by itself; a DeviceReleaser releases its device first.
//
// Flags (in the test binary of any package that imports convtest):
//
//	-convtest.seed=N         seed of every draw (default DefaultSeed; 0 picks one from the clock)
//	-convtest.n=N            random cases per property (-short runs fewer)
//	-convtest.case=CASE      check only this case, as a failure prints it
//	-convtest.shrink-time=D  longest a failure is shrunk (default DefaultShrinkTime)
//	-convtest.time=D         longest a property's random cases run once MinCases passed
//	                         (default TimeBound()); 0 checks every case
//
// TestVariantOptions takes the same as an Options from code.
//
// convtest imports only convolve, refimpl and verify. What it needs of a
// GPU variant comes through optional interfaces: a Warmer compiles its
// kernels on all cores before its first case, an AllocationCounter's
// device allocations are checked for leaks, and a variant whose first plan
// fails with an UnavailableError skips with its message. GPU
// specializations are drawn from a small pool chosen by the seed, so that
// compiled modules are reused; a property whose own constraint no
// specialization of the pool meets (translation needs room around the
// filter) adds one drawn under it, so that every property finds cases at
// every seed. Properties that need a partner (cpu-naive, gpu-naive) skip
// when it is not registered. See docs/variants.md.
package convtest
