package convtest

import (
	"testing"

	"github.com/convbench/convbench/convolve"
)

// The bit-exact property follows the capabilities of the variant under
// test, registered or not: a variant handed to TestVariant without being
// in the registry is held to its own ReferenceOrder promise.
func TestBitExactAppliesByCapabilities(t *testing.T) {
	for _, tc := range []struct {
		caps convolve.Capabilities
		want bool
	}{
		{convolve.Capabilities{GPU: true, ReferenceOrder: true}, true},
		{convolve.Capabilities{GPU: true}, false},
		{convolve.Capabilities{ReferenceOrder: true}, false},
	} {
		e := &env{name: "unregistered-variant", desc: convolve.Description{Name: "unregistered-variant", Caps: tc.caps}}
		reason := bitExactApplies(e)
		if got := reason == ""; got != tc.want {
			t.Errorf("caps %+v: bitExactApplies = %q, want applies=%v", tc.caps, reason, tc.want)
		}
	}
}
