package variants

import (
	"fmt"
	"strings"
	"testing"

	"github.com/convbench/convbench/convolve/tiling"
	"github.com/convbench/convbench/cudabind/kernels"
)

// tiling.Unrolled must agree with the test tiled.cu makes in the
// preprocessor, which tiling.DefaultRY relies on.
func TestTiledUnrollLimitMatchesKernel(t *testing.T) {
	src, err := kernels.Source("tiled")
	if err != nil {
		t.Fatal(err)
	}
	want := fmt.Sprintf("#if KH >= RY && (KH - RY + 1) * KW * RY <= %d\n", tiling.UnrollLimit)
	if !strings.Contains(src, want) {
		t.Errorf("tiled.cu lacks the line %q that tiling.Unrolled mirrors", strings.TrimSpace(want))
	}
}
