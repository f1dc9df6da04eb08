package results

import "testing"

// Every sweep of report 000's published tables has one value per point of
// its axis in every column it has, and the block sweep has no CPU column.
func TestPublished000Shape(t *testing.T) {
	for _, pub := range report000 {
		for _, sw := range []struct {
			name string
			s    published000Sweep
			axis []string
			cpu  bool
		}{
			{"image size", pub.ImageSize, sizes000, true},
			{"filter size", pub.Kernel, ks000, true},
			{"block", pub.Block, blocks000, false},
		} {
			for col, vs := range map[string][]float64{"V1": sw.s.V1, "V1c": sw.s.V1c, "V2": sw.s.V2, "CPU": sw.s.CPU} {
				if col == "CPU" && !sw.cpu {
					if vs != nil {
						t.Errorf("%s %s: a CPU column %v", pub.GPU, sw.name, vs)
					}
					continue
				}
				if len(vs) != len(sw.axis) {
					t.Errorf("%s %s %s: %d values over %d points", pub.GPU, sw.name, col, len(vs), len(sw.axis))
				}
			}
		}
	}
}
