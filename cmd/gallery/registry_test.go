package main

import (
	"testing"

	"github.com/convbench/convbench/internal/allvariants/names"
)

// registered are the names of the variants the binary's imports register,
// taken before any init function of the package's own tests registers
// stand-ins.
var registered = names.Registered()

// TestRegistry checks that the command knows the variants the benchmark
// binary knows: those package allvariants registers.
func TestRegistry(t *testing.T) { names.Test(t, registered) }
