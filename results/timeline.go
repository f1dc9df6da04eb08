package results

import (
	"cmp"
	"fmt"
	"image/color"
	"io"
	"slices"

	"github.com/convbench/convbench/runfile"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgsvg"
)

// Timeline is a plot of one overlapped run: a lane per stream of each
// logical device, a bar per phase of each chunk, coloured by phase.
type Timeline struct {
	ID    string
	Title string
	Spans []runfile.Span
}

// HasData reports whether there is a span to draw.
func (t *Timeline) HasData() bool { return t != nil && len(t.Spans) > 0 }

// phaseColours are the colours of the phases: uploads, kernels, downloads.
var phaseColours = map[string]color.Color{
	"h2d":    color.RGBA{R: 0x1f, G: 0x77, B: 0xb4, A: 0xff},
	"kernel": color.RGBA{R: 0xd6, G: 0x27, B: 0x28, A: 0xff},
	"d2h":    color.RGBA{R: 0x2c, G: 0xa0, B: 0x2c, A: 0xff},
}

// lanes returns the lane names, top to bottom, and each span's lane.
func (t *Timeline) lanes() ([]string, []int) {
	type key struct{ dev, gpu, stream int }
	var keys []key
	for _, s := range t.Spans {
		keys = appendNew(keys, key{s.Dev, s.GPU, s.Stream})
	}
	slices.SortFunc(keys, func(a, b key) int { return cmp.Or(a.dev-b.dev, a.stream-b.stream) })
	names := mapCells(keys, func(k key) string { return fmt.Sprintf("dev %d (gpu %d) stream %d", k.dev, k.gpu, k.stream) })
	idx := make([]int, len(t.Spans))
	for i, s := range t.Spans {
		idx[i] = slices.Index(keys, key{s.Dev, s.GPU, s.Stream})
	}
	return names, idx
}

// WriteSVG draws the timeline: time across, a lane per stream down.
func (t *Timeline) WriteSVG(w io.Writer) error {
	p := plot.New()
	p.Title.Text = t.Title
	p.X.Label.Text = "time from the device's first event (ms)"
	names, idx := t.lanes()
	n := len(names)
	var ticks []plot.Tick
	for i, name := range names {
		ticks = append(ticks, plot.Tick{Value: float64(n - 1 - i), Label: name})
	}
	p.Y.Tick.Marker = plot.ConstantTicks(ticks)
	p.Y.Min, p.Y.Max = -0.75, float64(n)-0.25
	height := vg.Length(max(2, n)) * 0.35 * vg.Inch
	for i, s := range t.Spans {
		y := float64(n - 1 - idx[i])
		l, err := plotter.NewLine(plotter.XYs{{X: s.StartUS / 1e3, Y: y}, {X: s.EndUS / 1e3, Y: y}})
		if err != nil {
			return err
		}
		l.Width = height / vg.Length(max(2, n)) * 0.6
		l.Color = phaseColours[s.Phase]
		l.LineStyle.Dashes = nil
		p.Add(l)
	}
	for _, ph := range []string{"h2d", "kernel", "d2h"} {
		l, err := plotter.NewLine(plotter.XYs{})
		if err != nil {
			return err
		}
		l.Color, l.Width = phaseColours[ph], vg.Points(6)
		p.Legend.Add(ph, l)
	}
	p.Legend.Top = true
	c := vgsvg.New(8*vg.Inch, height+1.5*vg.Inch)
	p.Draw(draw.New(c))
	_, err := c.WriteTo(w)
	return err
}
