package variants

import (
	"fmt"
	"strconv"

	"github.com/convbench/convbench/convolve"
	"github.com/convbench/convbench/convolve/tiling"
)

// tunableRY is the gpu-tiled tunable for the outputs each thread computes
// (stacked vertically): 1, 2, 4 or 8. Left unset, tiling.DefaultRY picks it
// from the filter size, the image and the GPU.
const tunableRY = "ry"

// tiledBlock is gpu-tiled's default block: a warp wide, 8 rows of threads,
// each with RY outputs.
var tiledBlock = convolve.Block{X: 32, Y: 8}

func init() {
	caps := directCaps()
	caps.Tunables = []string{tunableRY}
	caps.Space = tiledSpace
	convolve.Register(Declare(Decl{
		Desc: convolve.Description{Name: "gpu-tiled",
			Summary: "shared tile with register blocking (ry outputs per thread), constant filter, interior tiles without border mapping",
			Caps:    caps},
		Block:     tiledBlock,
		Family:    "tiled",
		Defines:   tiledDefines,
		Constants: constFilter,
		Kernels:   []Kernel{{Name: "conv_tiled", Grid: PerRows, Shared: Tile.Bytes, Args: directArgs}},
	}))
}

// tiledDefines sets RY from the tunable, or tiling.DefaultRY.
func tiledDefines(b *Base) (map[string]string, error) {
	ry := tiling.DefaultRY(b.Problem, b.Block, b.Info.SMs)
	if v, ok := b.Config.Tunables[tunableRY]; ok {
		ry = v
	}
	if ry != 1 && ry != 2 && ry != 4 && ry != 8 {
		return nil, fmt.Errorf("variants: %s: tunable %s=%d: want 1, 2, 4 or 8", b.Name, tunableRY, ry)
	}
	return map[string]string{"RY": strconv.Itoa(ry)}, nil
}
