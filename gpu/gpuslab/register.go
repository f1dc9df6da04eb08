package gpuslab

// registered are the family's variants registered with convolve for the
// property suite and the benchmarks: gpu-tiled on 1 to 4 logical devices
// (round robin over the GPUs present) and on every GPU present, the
// direct and separable families of the floors on every GPU present, and
// gpu-tiled streamed under 16 KiB of slab buffers per device (problems whose rows do not fit are refused). Lookup and
// Register give any other.
var registered = []string{
	"gpu-slab1-gpu-tiled", "gpu-slab2-gpu-tiled", "gpu-slab3-gpu-tiled", "gpu-slab4-gpu-tiled",
	"gpu-slab-gpu-tiled", "gpu-slab-gpu-regtile", "gpu-slab-gpu-sepfused",
	"gpu-stream16KiB-gpu-tiled",
}

func init() {
	if err := Register(registered...); err != nil {
		panic(err) // a fixed list of names: a programming error found at start-up
	}
}
