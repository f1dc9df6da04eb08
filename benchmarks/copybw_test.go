package benchmarks

import (
	"math"
	"testing"
	"time"

	"github.com/convbench/convbench/convolve"
)

func TestCopyBWPercent(t *testing.T) {
	prob := func(w, h, ch int, typ convolve.ElemType, k int) convolve.Problem {
		f, err := convolve.ParseFilter("gauss" + string(rune('0'+k)))
		if err != nil {
			t.Fatal(err)
		}
		return convolve.Problem{Op: convolve.Filter2D, Filter: f,
			Input: convolve.Geometry{Width: w, Height: h, Channels: ch, Type: typ}}
	}
	tests := []struct {
		name    string
		p       convolve.Problem
		per     time.Duration
		copyGBs float64
		want    float64
	}{
		// 8*4096*4096 = 134217728 bytes in 100 us: 1342.17728 GB/s.
		{"f32 4096 at half the copy rate", prob(4096, 4096, 1, convolve.Float32, 3), 100 * time.Microsecond, 2684.35456, 50},
		// The filter size does not change the bytes.
		{"f32 4096 K=7 at the copy rate", prob(4096, 4096, 1, convolve.Float32, 7), 100 * time.Microsecond, 1342.17728, 100},
		// u8 in, f32 out: 5 bytes a pixel; 3 channels: 15. 1000*1000*15 =
		// 1.5e7 bytes in 10 us: 1500 GB/s, over 3000.
		{"u8 RGB", prob(1000, 1000, 3, convolve.Uint8, 3), 10 * time.Microsecond, 3000, 50},
		// i16: 6 bytes a pixel, 6e6 bytes in 2 us: 3000 GB/s, over 2000.
		{"i16 gray above the copy rate", prob(1000, 1000, 1, convolve.Int16, 5), 2 * time.Microsecond, 2000, 150},
		{"no copy rate", prob(64, 64, 1, convolve.Float32, 3), time.Microsecond, 0, 0},
		{"no time", prob(64, 64, 1, convolve.Float32, 3), 0, 1000, 0},
	}
	for _, tt := range tests {
		got := copyBWPercent(tt.p, tt.per, tt.copyGBs)
		if math.Abs(got-tt.want) > 1e-9*math.Max(1, tt.want) {
			t.Errorf("%s: copyBWPercent = %v, want %v", tt.name, got, tt.want)
		}
	}
}
