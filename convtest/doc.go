// Package convtest implements a conformance suite for convolve.Variant implementations.
//
// In the spirit of testing/fstest, a test of any module calls TestVariant
// on its variant (and a benchmark calls package benchmarks'
// BenchmarkVariant).
//
//	func TestMyVariant(t *testing.T) { convtest.TestVariant(t, myVariant{}) }
//
// TestVariant draws random problem
// descriptors (image size, filter size, border, mode, element type,
// channels, layout, row padding, block shape, compile options, tunables
// and a data seed) within the capabilities the variant declares (a
// tunable takes the values its tuning space lists, else those of
// Capabilities.TunableValues, else 0 and 1), and checks with
// github.com/leanovate/gopter that:
//
//   - the output agrees with refimpl's float64 reference within the
//     per-element tolerance of the error model the variant declares
//     (Capabilities.Accuracy, verify.Reference; Direct when it declares
//     none), or of the model it names for the problem where it picks its
//     path per problem (convolve.ModelOf), and every output element is written (outputs are poisoned
//     before each run); the metamorphic relations below use the same
//     model's tolerances, and a variant of another model than Direct meets
//     the identity filter within its bound rather than exactly;
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
//   - open plans, and a GPU variant's device allocations, return to their
//     starting counts;
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
// A case that fails with a sticky device error (an error with a Sticky
// method that reports true, as the CUDA bindings' illegal address, trap
// and launch failure do) leaves the process's device unusable, so every
// later case would fail with it. The shrink candidates after it are then
// checked each in a child process (the test binary run again on the
// property and that one case, -convtest.case), so the shrunk case is one
// that faults by itself; the failure says how many were checked so. A
// child killed at its time limit (what is left of the shrink time) leaves
// its candidate undecided: shrinking stops there, and the last case that
// failed is reported with its own error; the child is sent SIGQUIT
// first (where the platform has it), and its output, with every
// goroutine's stack, is kept in a file of the temporary directory that
// the failure names beside the child's last line. A GPU may run no
// child's work while the faulted process holds its poisoned context, so
// before the first child a variant that is a DeviceReleaser releases it.
//
// Flags (in the test binary of any package that imports convtest):
//
//	-convtest.seed=N    seed of every random draw (default DefaultSeed, logged; 0 picks one from the clock)
//	-convtest.n=N       random cases per property (-short runs fewer)
//	-convtest.case=CASE check only this case, as a failure prints it (no random cases, no shrinking)
//	-convtest.shrink-time=D  longest a failure is shrunk (default DefaultShrinkTime); the smallest
//	                    failing case found by then is reported, and the report says shrinking stopped
//	-convtest.time=D    longest the random cases of one property run once MinCases passed
//	                    (default TimeBound(): DefaultTime, or 0 with CONVBENCH_TEST_LONG=1);
//	                    0 checks every case of -convtest.n
//
// TestVariantOptions takes the same as an Options from code (the
// properties package maps its own -props.* flags onto it). A variant's
// run ends with a line such as "variant=cpu-fast cases=2250 pass
// elapsed=1.2s", or "cases=3068 (3 properties stopped at the 3s bound)"
// where the time bound cut some properties short. A failure prints the
// shrunk case, the original one, a go-cmp diff of the first mismatching
// elements, the seed and the go test command that reproduces it.
//
// convtest imports the variant contract (convolve), the CPU reference
// (refimpl) and the verifier (verify), and no GPU binding. What it needs
// of a GPU variant (one that declares Capabilities.GPU) comes through
// optional interfaces, found as testing/fstest finds a file system's: a
// Warmer is warmed before its first case, an AllocationCounter's device
// allocations are counted; a GPU variant without them is planned as its
// cases come and checked for open plans only. A GPU variant whose first
// plan fails with an UnavailableError (the hardware or a library it needs
// is absent; cudabind's *UnavailableError is one) skips with its message.
// The GPU variants of this module (gpu/variants and the user kernels of
// gpu/userkernel, gpu/auto, gpu/gpuslab) are Warmers and
// AllocationCounters, and their plans fail with cudabind's
// *UnavailableError on a machine without a GPU.
//
// GPU specializations (filter size, block shape, border, element type,
// channels, layout, compile options) are drawn from a small pool chosen by
// the seed, so compiled modules are reused across cases; different seeds
// cover the whole filter-size range. A property whose own constraint no
// specialization of the pool meets (translation needs room around the
// filter) adds one drawn under that constraint, so every property finds
// cases at every seed. Before the first GPU case, the
// kernels of the pool and of the edge-case table are compiled on all cores
// (Warmer), so NVRTC does not run one module at a time. Tests of
// several GPU variants may run in parallel (t.Parallel): the checks that
// count the device's live allocations (no-leak, bad input) then wait for
// the others and run alone.
//
// Some properties compare with other registered variants: bit-exact with
// cpu-naive, separable with a 2-D partner (cpu-naive or gpu-naive).
// Importing convtest registers refimpl's variants, cpu-naive among them;
// gpu-naive is registered by gpu/variants, which the package of a GPU
// variant built on this module imports. A property whose partner is not
// registered skips with the reason.
//
// Package benchmarks' BenchmarkVariant times a variant on a small
// representative sweep in standard Go benchmark format, each case named as
// the sweeps name their cases, gated against the reference before timing.
package convtest
