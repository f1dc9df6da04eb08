package convtest_test

import (
	"testing"

	"github.com/convbench/convbench/convolve"
	"github.com/convbench/convbench/convtest"
)

// Example shows the two lines a test file of another module needs to
// prove and time its own variant; here cpu-naive stands in for it.
// testdata/extmod is a whole module that does this.
func Example() {
	var myVariant convolve.Variant
	myVariant, _ = convolve.Lookup("cpu-naive")

	// In the other module's _test.go file:
	//
	//	func TestMyVariant(t *testing.T)      { convtest.TestVariant(t, myVariant) }
	//	func BenchmarkMyVariant(b *testing.B) { convtest.BenchmarkVariant(b, myVariant) }
	_ = func(t *testing.T) { convtest.TestVariant(t, myVariant) }
	_ = func(b *testing.B) { convtest.BenchmarkVariant(b, myVariant) }
}
