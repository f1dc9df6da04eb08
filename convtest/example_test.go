package convtest_test

import (
	"fmt"
	"testing"

	"github.com/convbench/convbench/convolve"
	"github.com/convbench/convbench/convtest"
)

// Example shows the line a test file of another module needs to prove
// its own variant; here cpu-naive stands in for it. testdata/extmod is a
// whole module that does this, and times its variant with
// benchmarks.BenchmarkVariant.
//
// TestVariant draws its problems within the capabilities the variant
// describes, holds its outputs to the error model it declares, and skips
// a variant whose plan finds the hardware it needs absent
// (convtest.UnavailableError). Importing convtest registers refimpl's
// variants, among them cpu-naive, the partner of the bit-exactness
// property; a GPU variant's package registers gpu-naive, the 2-D partner
// of a separable GPU variant, by importing gpu/variants.
func Example() {
	myVariant, err := convolve.Lookup("cpu-naive")
	if err != nil {
		fmt.Println(err)
		return
	}

	// In the other module's _test.go file:
	//
	//	func TestMyVariant(t *testing.T) { convtest.TestVariant(t, myVariant) }
	_ = func(t *testing.T) { convtest.TestVariant(t, myVariant) }

	d := myVariant.Describe()
	fmt.Printf("%s: needs a GPU %v, held to the %v error model\n", d.Name, d.Caps.GPU, d.Caps.Accuracy)
	_, warms := myVariant.(convtest.Warmer)
	_, counts := myVariant.(convtest.AllocationCounter)
	fmt.Printf("warmed before its cases %v, device allocations counted %v\n", warms, counts)
	// Output:
	// cpu-naive: needs a GPU false, held to the direct error model
	// warmed before its cases false, device allocations counted false
}
