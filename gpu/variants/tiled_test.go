package variants

import (
	"fmt"
	"strings"
	"testing"

	"github.com/convbench/convbench/convolve/tiling"
	"github.com/convbench/convbench/gpu/kernels"
)

// tiling.Unrolled must agree with the test unroll.cuh makes in the
// preprocessor for tiled.cu's row walk, which tiling.DefaultRY relies on.
func TestTiledUnrollLimitMatchesKernel(t *testing.T) {
	src, ok := kernels.Headers()["unroll.cuh"]
	if !ok {
		t.Fatal("no unroll.cuh among the kernel headers")
	}
	want := fmt.Sprintf("#if KH >= RY && (KH - RY + 1) * KW * RY <= %d\n", tiling.UnrollLimit)
	if !strings.Contains(src, want) {
		t.Errorf("unroll.cuh lacks the line %q that tiling.Unrolled mirrors", strings.TrimSpace(want))
	}
}
