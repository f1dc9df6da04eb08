package benchmarks

import (
	"cmp"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/convbench/convbench/convolve"
	"github.com/convbench/convbench/cudabind/gpuslab"
)

// TimelinePrefix starts each line of the timeline a run writes: one per
// phase of one chunk of one overlapped run of a multi-device case, for
// the report to draw.
const TimelinePrefix = "# timeline "

// TimelineCase picks the case whose one overlapped run the output shows
// as a timeline: among the cases of plans that keep one (gpuslab.Timed)
// timed end to end from pinned memory, the one on the most devices, then
// the largest image, then the largest filter, then the first. ok is false
// when there is none.
func TimelineCase(cases []Case) (Case, bool) {
	var best Case
	found := false
	score := func(c Case) []int {
		devs, _ := ParseDevices(c.GPUs)
		kw, kh := c.kernelSize()
		return []int{len(devs), c.Width * c.Height, kw * kh}
	}
	for _, c := range cases {
		if !c.GPU || c.Timing != TotalTiming || c.Mem != Pinned || !isSlabVariant(c.Variant) || strings.Contains(c.Tune, "streams=1") {
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

// WriteTimeline plans c, runs it once from pinned memory as a warm-up and
// once with events around every chunk's upload, kernels and download,
// and writes one line per phase: TimelinePrefix, then the case's name and
// key=value fields (dev, the logical device; gpu, its ordinal; stream;
// chunk; phase h2d, kernel or d2h; start-us and end-us from the device's
// first event).
func WriteTimeline(w io.Writer, dev Device, c Case, seed uint64) error {
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
	tp, ok := pl.(gpuslab.Timed)
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
	spans, err := tp.Timeline(in, out)
	if err != nil {
		return err
	}
	slices.SortFunc(spans, func(a, b gpuslab.Span) int {
		return cmp.Or(cmp.Compare(a.Device, b.Device), cmp.Compare(a.Start, b.Start), cmp.Compare(a.Chunk, b.Chunk))
	})
	for _, s := range spans {
		_, err := fmt.Fprintf(w, "%s%s dev=%d gpu=%d stream=%d chunk=%d phase=%s start-us=%.1f end-us=%.1f\n",
			TimelinePrefix, c.Name(), s.Device, s.Ordinal, s.Stream, s.Chunk, s.Phase,
			float64(s.Start.Nanoseconds())/1e3, float64(s.End.Nanoseconds())/1e3)
		if err != nil {
			return err
		}
	}
	return nil
}
