// Package allvariants registers every variant family with convolve when
// imported blank; package names lists the names it registers.
//
//	import _ "github.com/convbench/convbench/internal/allvariants"
package allvariants

import (
	_ "github.com/convbench/convbench/gpu/auto"
	_ "github.com/convbench/convbench/gpu/gpuslab"
	_ "github.com/convbench/convbench/gpu/variants"
	_ "github.com/convbench/convbench/refimpl"
)
