package benchmarks

import (
	"errors"
	"fmt"
	"testing"

	"github.com/convbench/convbench/convolve"
	"github.com/convbench/convbench/cudabind"
)

func TestUnavailableHere(t *testing.T) {
	missing := &cudabind.UnavailableError{Lib: "libcudnn.so.9", Reason: "not found"}
	tests := []struct {
		name string
		err  error
		want bool
	}{
		{"missing library", missing, true},
		{"wrapped", fmt.Errorf("planning cudnn: %w", missing), true},
		{"capability", &convolve.CapabilityError{Variant: "cudnn", What: "border", Value: "wrap"}, false},
		{"other", errors.New("launch failed"), false},
		{"nil", nil, false},
	}
	for _, tt := range tests {
		if got := unavailableHere(tt.err); got != tt.want {
			t.Errorf("%s: unavailableHere(%v) = %v, want %v", tt.name, tt.err, got, tt.want)
		}
	}
}
