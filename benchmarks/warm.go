package benchmarks

import (
	"fmt"
	"io"
	"time"

	"github.com/convbench/convbench/convolve"
	"github.com/convbench/convbench/gpu/variants"
)

// precompile compiles the kernels of the GPU cases on up to workers
// goroutines before the sweep times anything (variants.Warm), so that
// NVRTC works on every core instead of one case at a time. It reports
// progress on w about every two seconds and a last line with the counts.
// Cases it cannot plan are left for the sweep, which reports them.
func precompile(cases []Case, workers int, w io.Writer) error {
	var specs []variants.WarmSpec
	for _, c := range cases {
		if !c.GPU {
			continue
		}
		v, err := convolve.Lookup(c.Variant)
		if err != nil {
			continue
		}
		p, err := c.Problem()
		if err != nil {
			continue
		}
		specs = append(specs, variants.WarmSpec{Variant: v, Problem: p, Config: c.Config()})
	}
	if len(specs) == 0 {
		return nil
	}
	start, last := time.Now(), time.Now()
	stats, err := variants.Warm(specs, workers, func(done, total int) {
		if now := time.Now(); now.Sub(last) >= 2*time.Second {
			last = now
			fmt.Fprintf(w, "compiling kernels: %d/%d cases, %v elapsed\n", done, total, now.Sub(start).Round(time.Second))
		}
	})
	if err != nil {
		return fmt.Errorf("benchmarks: precompile: %w", err)
	}
	fmt.Fprintf(w, "compiling kernels: %d cases planned, %d refused (reported by their benchmark), %v on %d workers\n",
		stats.Planned, stats.Failed, time.Since(start).Round(time.Millisecond), workers)
	return nil
}
