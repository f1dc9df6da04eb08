package benchmarks

import (
	"testing"

	"github.com/convbench/convbench/internal/allvariants/names"
)

// registered are the names of the variants the binary's imports register,
// taken before any init function of the package's own tests registers
// stand-ins.
var registered = names.Registered()

// TestRegistry checks that the benchmark binary knows the variants
// package allvariants registers: the names that every command resolving
// variants by name is checked against.
func TestRegistry(t *testing.T) { names.Test(t, registered) }
