// Package allvariants registers every variant family with convolve when
// imported blank: refimpl, gpu/variants (on hosts without a GPU too),
// gpu/auto and gpu/gpuslab. Every command that resolves variants by name,
// and the benchmark binary, imports it, so that they know the same names;
// package names lists them, and each importer's test checks its registry
// against the list.
//
//	import _ "github.com/convbench/convbench/internal/allvariants"
package allvariants

import (
	_ "github.com/convbench/convbench/gpu/auto"
	_ "github.com/convbench/convbench/gpu/gpuslab"
	_ "github.com/convbench/convbench/gpu/variants"
	_ "github.com/convbench/convbench/refimpl"
)
