// Package properties runs the convtest conformance suite over every registered variant.
//
// That is the CPU variants of refimpl and the GPU variants of
// gpu/variants, before any of them is timed. It holds tests only; the
// properties, the case generator, shrinking, the edge cases and the
// bad-input checks live in convtest.
//
// Flags:
//
//	-props.seed=N     seed of every random draw (default convtest.DefaultSeed, logged; 0 picks one from the clock)
//	-props.n=N        random cases per variant and property (-short runs fewer)
//	-props.variant=RE run only the variants whose name matches the regular expression
//	-props.case=CASE  check only this case, as a failure prints it (no random cases, no shrinking)
//	-props.list       print the names of the variants -props.variant selects, one a line, and run no test
//
// Each variant is a subtest of TestProperties with one subtest per
// property, "edge-cases" and "bad-input"; its run ends with a line such as
// "variant=cpu-fast cases=2250 pass elapsed=1.2s". A failure prints the
// shrunk case, the seed and the go test command that reproduces it.
//
// Without a GPU the CPU variants run and the GPU ones skip with the reason.
// On a GPU host without a Go toolchain, build the test binary elsewhere with
// `make gpu-bins`, copy the tree over and run, from the repository root:
//
//	cd properties && ../.gpu/properties.test -test.v -props.variant=gpu- -props.n=300
package properties
