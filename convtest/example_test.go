package convtest_test

import (
	"fmt"
	"testing"

	"github.com/convbench/convbench/convolve"
	"github.com/convbench/convbench/convtest"
)

// Example shows the two lines a test file of another module needs to
// prove and time its own variant; here cpu-naive stands in for it.
// testdata/extmod is a whole module that does this.
//
// TestVariant draws its problems within the capabilities the variant
// describes, holds its outputs to the error model it declares, and skips
// a variant that needs a GPU this machine lacks. Importing convtest
// registers the variants some properties compare with: cpu-naive (bit
// exactness) and gpu-naive (the 2-D partner of a separable GPU variant).
func Example() {
	myVariant, err := convolve.Lookup("cpu-naive")
	if err != nil {
		fmt.Println(err)
		return
	}

	// In the other module's _test.go file:
	//
	//	func TestMyVariant(t *testing.T)      { convtest.TestVariant(t, myVariant) }
	//	func BenchmarkMyVariant(b *testing.B) { convtest.BenchmarkVariant(b, myVariant) }
	_ = func(t *testing.T) { convtest.TestVariant(t, myVariant) }
	_ = func(b *testing.B) { convtest.BenchmarkVariant(b, myVariant) }

	d := myVariant.Describe()
	fmt.Printf("%s: needs a GPU %v, held to the %v error model\n", d.Name, d.Caps.GPU, d.Caps.Accuracy)
	for _, partner := range []string{"cpu-naive", "gpu-naive"} {
		_, err := convolve.Lookup(partner)
		fmt.Printf("partner %s registered: %v\n", partner, err == nil)
	}
	// Output:
	// cpu-naive: needs a GPU false, held to the direct error model
	// partner cpu-naive registered: true
	// partner gpu-naive registered: true
}
