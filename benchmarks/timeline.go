package benchmarks

import (
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/convbench/convbench/convolve"
)

// timelineWriter is a plan that writes the timeline of one run: the
// gpu-slab variants' plans (package gpu/gpuslab), one "# timeline "
// line per phase of each chunk, which package results draws.
type timelineWriter interface {
	WriteTimeline(w io.Writer, label string, in, out *convolve.Image) error
}

// timelineCase picks the case whose one overlapped run the output shows
// as a timeline: among the cases of the gpu-slab variants
// timed end to end from pinned memory, the one on the most devices, then
// the largest image, then the largest filter, then the first. ok is false
// when there is none.
func timelineCase(cases []Case) (Case, bool) {
	var best Case
	found := false
	score := func(c Case) []int {
		devs, _ := parseDevices(c.GPUs)
		kw, kh := c.kernelSize()
		return []int{len(devs), c.Width * c.Height, kw * kh}
	}
	for _, c := range cases {
		if !c.GPU || c.Timing != totalTiming || c.Mem != pinned || !isSlabVariant(c.Variant) || strings.Contains(c.Tune, "streams=1") {
			continue
		}
		if !found || slices.Compare(score(c), score(best)) > 0 {
			best, found = c, true
		}
	}
	return best, found
}

// isSlabVariant reports whether name is of the gpu-slab family.
func isSlabVariant(name string) bool {
	return strings.HasPrefix(name, "gpu-slab") || strings.HasPrefix(name, "gpu-stream")
}

// writeTimeline plans c, runs it once from pinned memory as a warm-up and
// once with events around every chunk's upload, kernels and download,
// and writes the plan's timeline lines, labelled with the case's name.
func writeTimeline(w io.Writer, dev Device, c Case, seed uint64) error {
	p, err := c.Problem()
	if err != nil {
		return err
	}
	v, err := convolve.Lookup(c.Variant)
	if err != nil {
		return err
	}
	pl, err := convolve.PlanFor(v, p, c.Config())
	if err != nil {
		return err
	}
	defer pl.Close()
	tw, ok := pl.(timelineWriter)
	if !ok {
		return fmt.Errorf("benchmarks: %s keeps no timeline", c.Variant)
	}
	src, err := NewInput(p, seed)
	if err != nil {
		return err
	}
	in, freeIn, err := dev.NewPinnedImage(src.Geometry)
	if err != nil {
		return err
	}
	defer freeIn()
	if err := in.CopyFrom(src); err != nil {
		return err
	}
	out, freeOut, err := dev.NewPinnedImage(p.OutputGeometry())
	if err != nil {
		return err
	}
	defer freeOut()
	if err := pl.Run(in, out); err != nil {
		return err
	}
	return tw.WriteTimeline(w, c.Name(), in, out)
}
