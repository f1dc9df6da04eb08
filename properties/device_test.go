package properties

import (
	"errors"
	"fmt"
	"testing"

	"github.com/convbench/convbench/convolve"
	"github.com/convbench/convbench/convtest"
	"github.com/convbench/convbench/cudabind"
)

// Every registered GPU variant (gpu/variants, gpu/auto, gpu/gpuslab) is
// warmed, checked for leaked device allocations and asked to release a
// poisoned device by the suite: it implements convtest's optional
// interfaces. It needs no GPU.
func TestGPUVariantsAreDeviceVariants(t *testing.T) {
	n := 0
	for _, v := range convolve.Variants() {
		d := v.Describe()
		if !d.Caps.GPU {
			continue
		}
		n++
		if _, ok := v.(convtest.Warmer); !ok {
			t.Errorf("%s (%T) is not a convtest.Warmer", d.Name, v)
		}
		if _, ok := v.(convtest.AllocationCounter); !ok {
			t.Errorf("%s (%T) is not a convtest.AllocationCounter", d.Name, v)
		}
		if _, ok := v.(convtest.DeviceReleaser); !ok {
			t.Errorf("%s (%T) is not a convtest.DeviceReleaser", d.Name, v)
		}
	}
	if n == 0 {
		t.Fatal("no GPU variant is registered")
	}
}

// The bindings' error for a missing GPU or library skips the suite:
// wrapped or not, it is a convtest.UnavailableError that reports true.
func TestUnavailableErrorSkips(t *testing.T) {
	ue := &cudabind.UnavailableError{Lib: "libcuda.so.1", Reason: "cannot be opened"}
	for _, err := range []error{ue, fmt.Errorf("gpu-naive: plan: %w", ue)} {
		var u convtest.UnavailableError
		if !errors.As(err, &u) || !u.Unavailable() {
			t.Errorf("%v: not a convtest.UnavailableError reporting true", err)
		}
	}
	var _ convtest.UnavailableError = ue
}
