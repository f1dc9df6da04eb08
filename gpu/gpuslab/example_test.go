package gpuslab_test

import (
	"fmt"

	"github.com/convbench/convbench/gpu/gpuslab"
)

// The family's names wrap any registered GPU variant: on the devices a
// case names (or every GPU), on n logical devices, or streamed under a
// cap of slab buffers per device.
func ExampleLookup() {
	for _, name := range []string{"gpu-slab-gpu-tiled", "gpu-slab2-gpu-sepfused", "gpu-stream1GiB-gpu-regtile"} {
		v, err := gpuslab.Lookup(name)
		if err != nil {
			fmt.Println(err)
			continue
		}
		d := v.Describe()
		fmt.Printf("%s: multi-device %v, tunables %v\n", d.Name, d.Caps.MultiDevice, d.Caps.Tunables[len(d.Caps.Tunables)-3:])
	}
	// Output:
	// gpu-slab-gpu-tiled: multi-device true, tunables [chunks streams memcap-kib]
	// gpu-slab2-gpu-sepfused: multi-device true, tunables [chunks streams memcap-kib]
	// gpu-stream1GiB-gpu-regtile: multi-device true, tunables [chunks streams memcap-kib]
}
