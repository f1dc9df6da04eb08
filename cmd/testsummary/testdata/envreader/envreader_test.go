// Package envreader stands in for a package whose tests read
// $CONVBENCH_COMPILE_LOG without compiling, as cudabind/nvrtc's do, so
// that go test caches its result under that variable's value.
// TestRunKeepsGoTestsCache runs it through testsummary twice.
package envreader

import (
	"os"
	"testing"
)

func TestReadsCompileLogVariable(t *testing.T) {
	if os.Getenv("CONVBENCH_COMPILE_LOG") == "" {
		t.Error("CONVBENCH_COMPILE_LOG is not set")
	}
}
