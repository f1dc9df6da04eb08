// Package allvariants registers every variant family with convolve.
//
// Importing it blank registers the variants of every package of the
// module whose initialisation registers some: the CPU variants
// (refimpl), the GPU variants and vendor peers (gpu/variants), auto over
// them (gpu/auto) and the multi-GPU slabs (gpu/gpuslab). The GPU
// variants register on a host without a GPU too. Every command that
// resolves variants by name imports it, and so does the benchmark binary
// (the tests of package benchmarks), so that they know the same names:
//
//	import _ "github.com/convbench/convbench/internal/allvariants"
//
// Package names lists those names; the test of each such command checks
// its registry against the list.
package allvariants

import (
	_ "github.com/convbench/convbench/gpu/auto"
	_ "github.com/convbench/convbench/gpu/gpuslab"
	_ "github.com/convbench/convbench/gpu/variants"
	_ "github.com/convbench/convbench/refimpl"
)
