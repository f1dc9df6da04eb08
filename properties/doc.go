// Package properties is the property-based test suite that every registered
// convolution variant must pass before it is timed. It holds tests only.
//
// For each variant in the convolve registry it draws random problem
// descriptors (image size, filter size, border, mode, element type,
// channels, layout, row padding, block shape, compile options and a data
// seed) within the variant's declared capabilities, and checks with
// github.com/leanovate/gopter that:
//
//   - the output agrees with refimpl's float64 reference within the
//     per-element tolerance of the correctness policy, and every output
//     element is written (outputs are poisoned before each run);
//   - metamorphic relations hold: the identity filter returns the input,
//     an impulse returns the (flipped or unflipped) filter, filtering is
//     linear in the filter, whole-pixel translation commutes with filtering
//     away from the borders, a separable filter gives the same result
//     through the separable and the 2-D paths, and convolve equals
//     correlate with the flipped filter;
//   - kernels that sum in cpu-naive's order, compiled with --fmad=false,
//     equal cpu-naive bit for bit;
//   - extreme input gives the reference's result, non-finite values
//     matched by class (NaN meets NaN, +Inf meets +Inf, -Inf meets -Inf):
//     NaN and infinite pixels beside zero weights (0 x Inf is NaN), NaN
//     and infinite weights, sums just below the float32 overflow, sums
//     beyond it (every output an infinity), subnormal pixels and weights
//     (within what flushing them to zero may change), and uint8 and int16
//     pixels at the ends of their ranges. A variant that declares
//     Capabilities.FiniteInput must instead refuse non-finite filters
//     (at plan time, in PlanFor and in its own Plan) and pixels (in Run
//     and Upload) with a *convolve.NonFiniteError;
//   - the same input run twice gives the same bits;
//   - device allocations and open plans return to their starting counts;
//   - invalid input is rejected with an error, without a panic and
//     without allocating: invalid problems and images, an output whose
//     data overlaps the input's (convolve.ErrOverlap), Run after Close
//     and a second Close (convolve.ErrClosed).
//
// Descriptors, not pixels, are generated, so a failing case shrinks to a
// small one and prints in one line together with the seed and a go test
// command that reproduces it. A fixed table of edge cases (1x1, 1xN, Nx1,
// filters larger than the image, every border) runs beside the random
// cases.
//
// Flags:
//
//	-props.seed=N     seed of every random draw (default fixed and logged; 0 picks one from the clock)
//	-props.n=N        random cases per variant and property (-short runs fewer)
//	-props.variant=RE run only the variants whose name matches the regular expression
//	-props.case=CASE  check only this case, as a failure prints it (no random cases, no shrinking)
//
// Each variant's run ends with a line such as
// "variant=cpu-fast cases=2250 pass elapsed=1.2s". A failure prints the
// shrunk case, the original one, a go-cmp diff of the first mismatching
// elements, the seed and the go test command that reproduces it.
//
// Without a GPU the CPU variants run and the GPU ones skip with the reason.
// On a GPU host without a Go toolchain, build the test binary elsewhere with
// `make gpu-bins`, copy the tree over and run, from the repository root:
//
//	cd properties && ../.gpu/properties.test -test.v -props.variant=gpu- -props.n=300
//
// GPU specializations (filter size, block shape, border, element type,
// channels, layout, compile options) are drawn from a small pool chosen by
// the seed, so compiled modules are reused across cases; different seeds
// cover the whole filter-size range. Before the first GPU case, the kernels
// of every pool and of the edge-case table are compiled on all cores
// (variants.Warm), so NVRTC does not run one module at a time.
package properties
