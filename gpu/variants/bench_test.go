package variants

import (
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/convbench/convbench/convolve"
	"github.com/convbench/convbench/internal/gputest"
	"github.com/convbench/convbench/internal/imagetest"
)

// BenchmarkDirect times the direct kernels' device work (TimeKernel) on a
// 4096x4096 float32 image for small, medium and large filters, reporting
// the effective bandwidth (input read and output written once) and the
// arithmetic rate. The benchmarks package holds the full sweeps; this one
// is a quick check of the kernels of this package.
func BenchmarkDirect(b *testing.B) {
	gputest.DeviceNoLeakCheck(b)
	r := rand.New(rand.NewPCG(9, 9))
	g := convolve.Geometry{Width: 4096, Height: 4096, Channels: 1, Type: convolve.Float32}
	in := imagetest.Random(r, g, imagetest.NonZero)
	for _, k := range []int{3, 7, 15, 31} {
		f := imagetest.RandomFilter(r, k, k)
		p := convolve.Problem{Op: convolve.Filter2D, Input: g, Filter: f, Border: convolve.Mirror}
		for _, name := range []string{"gpu-naive", "gpu-const", "gpu-shared", "gpu-texture", "gpu-tiled"} {
			b.Run(fmt.Sprintf("variant=%s/k=%d", name, k), func(b *testing.B) {
				v, _ := convolve.Lookup(name)
				plan, err := convolve.PlanFor(v, p, convolve.Config{})
				if err != nil {
					b.Fatal(err)
				}
				defer plan.Close()
				dp := plan.(convolve.DevicePlan)
				if err := dp.Upload(in); err != nil {
					b.Fatal(err)
				}
				if _, err := dp.TimeKernel(3); err != nil {
					b.Fatal(err)
				}
				b.ResetTimer()
				d, err := dp.TimeKernel(b.N)
				if err != nil {
					b.Fatal(err)
				}
				per := d / time.Duration(b.N)
				tp := convolve.ThroughputOf(p)
				b.ReportMetric(float64(per.Nanoseconds())/1e3, "us/kernel")
				b.ReportMetric(tp.GBPerSec(per), "GB/s")
				b.ReportMetric(tp.GFLOPPerSec(per), "GFLOP/s")
			})
		}
	}
}
