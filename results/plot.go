package results

import (
	"bytes"
	"fmt"
	"image/color"
	"io"
	"math"
	"slices"
	"strconv"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
	"gonum.org/v1/plot/vg/vgsvg"
)

// Series is one line of a plot; points it cannot draw are gaps.
type Series struct {
	Name     string    // the legend entry
	Variant  string    // picks the colour
	Source   string    // picks the marker and dash: a GPU or a report
	Y        []float64 // one per Plot.X
	Dashed   bool      // published figures of a report, beside ours
	Markers  bool      // the points alone, unjoined
	LineOnly bool      // the line without markers: a bound
	Labels   []string  // when not nil, a label beside each point
}

// hostSeries is host h's line of variant v.
func hostSeries(h *Host, v string, ys []float64) Series {
	return Series{Name: h.Title + " " + v, Variant: v, Source: h.Title, Y: ys}
}

// publishedSeries is the dashed line of a report's figures for gpu.
func publishedSeries(name, v, gpu string, ys []float64) Series {
	return Series{Name: name + " (report)", Variant: v, Source: gpu + " (report)", Y: ys, Dashed: true}
}

// Plot is a line plot of the reports' figures.
type Plot struct {
	ID     string
	Title  string
	XLabel string
	YLabel string
	// X are the positions' tick labels: evenly spaced categories with
	// XValue nil, else at XValue, the axis ticking itself where every X
	// is empty.
	X      []string
	XValue []float64
	LogX   bool
	LogY   bool
	Series []Series
}

// Plot geometry: the data area at least plotW by plotH, and the legend to its right.
const (
	plotW, plotH = 6 * vg.Inch, 4 * vg.Inch
	legendPad    = 10 * vg.Millimeter / 4
	fontSize     = 10
	// textSlack is room for a viewer that sets text in a wider font.
	textSlack = 1.2
)

// HasData reports whether any series has a plottable point.
func (p *Plot) HasData() bool {
	return len(p.Drawn()) > 0
}

// Drawn returns the series with at least one plottable point.
func (p *Plot) Drawn() []Series {
	var out []Series
	for _, s := range p.Series {
		for i, y := range s.Y {
			if p.ok(i, y) {
				out = append(out, s)
				break
			}
		}
	}
	return out
}

// Point returns the x position of point i of value y, and whether it can be drawn.
func (p *Plot) Point(i int, y float64) (x float64, ok bool) {
	if !p.ok(i, y) {
		return 0, false
	}
	return p.x(i), true
}

// ok reports whether point i of a series, of value y, can be drawn.
func (p *Plot) ok(i int, y float64) bool {
	if i >= len(p.X) || math.IsNaN(y) || math.IsInf(y, 0) || (p.LogY && y <= 0) {
		return false
	}
	x := p.x(i)
	return !math.IsNaN(x) && !math.IsInf(x, 0) && (!p.LogX || x > 0)
}

// x is the position of point i.
func (p *Plot) x(i int) float64 {
	if p.XValue == nil {
		return float64(i)
	}
	if i >= len(p.XValue) {
		return math.NaN()
	}
	return p.XValue[i]
}

// Style is how one series is drawn.
type Style struct {
	Colour color.Color
	Shape  draw.GlyphDrawer
	Dashes []vg.Length
}

// palette holds colours distinct on white; more variants get evenly spaced hues.
var palette = []color.RGBA{
	{0x1f, 0x77, 0xb4, 0xff}, {0xd6, 0x27, 0x28, 0xff}, {0x2c, 0xa0, 0x2c, 0xff}, {0x94, 0x67, 0xbd, 0xff},
	{0xff, 0x7f, 0x0e, 0xff}, {0x8c, 0x56, 0x4b, 0xff}, {0xe3, 0x77, 0xc2, 0xff}, {0x17, 0xbe, 0xcf, 0xff},
	{0x7f, 0x7f, 0x7f, 0xff}, {0xbc, 0xbd, 0x22, 0xff}, {0x00, 0x00, 0x80, 0xff}, {0x80, 0x00, 0x00, 0xff},
}

// colour is the i-th colour of n variants.
func colour(i, n int) color.Color {
	if n <= len(palette) {
		return palette[i]
	}
	// Evenly spaced hues at a saturation and value readable on white.
	h := float64(i) / float64(n) * 6
	f := h - math.Floor(h)
	v, lo := 0.8, 0.8*0.25
	q, t := v-(v-lo)*f, lo+(v-lo)*f
	rgb := [6][3]float64{{v, t, lo}, {q, v, lo}, {lo, v, t}, {lo, q, v}, {t, lo, v}, {v, lo, q}}[int(h)%6]
	return color.RGBA{uint8(255 * rgb[0]), uint8(255 * rgb[1]), uint8(255 * rgb[2]), 0xff}
}

// Styles returns the style of every drawn series: a colour per Variant,
// a marker and dash per Source (dashed for a Dashed series).
func (p *Plot) Styles() []Style {
	series := p.Drawn()
	var variants, sources []string
	for _, s := range series {
		variants = appendNew(variants, s.Variant)
		sources = appendNew(sources, s.Source)
	}
	out := make([]Style, len(series))
	for i, s := range series {
		si := slices.Index(sources, s.Source)
		dash := plotutil.Dashes(si)
		if s.Dashed && len(dash) == 0 {
			dash = plotutil.Dashes(1)
		}
		out[i] = Style{Colour: colour(slices.Index(variants, s.Variant), len(variants)), Shape: plotutil.Shape(si), Dashes: dash}
	}
	return out
}

// sans is the typeface of every text of a plot.
var sans = font.Font{Typeface: "Liberation", Variant: "Sans"}

// build makes the gonum plot and its legend, and the legend's entries.
func (p *Plot) build() (*plot.Plot, *plot.Legend, []string, error) {
	g := plot.New()
	g.Title.Text = p.Title
	g.Title.TextStyle.Font = font.From(sans, fontSize+2)
	g.Title.Padding = vg.Points(6)
	g.X.Label.Text, g.Y.Label.Text = p.XLabel, p.YLabel
	for _, a := range []*plot.Axis{&g.X, &g.Y} {
		a.Label.TextStyle.Font = font.From(sans, fontSize)
		a.Tick.Label.Font = font.From(sans, fontSize-1)
	}
	legend := plot.NewLegend()
	legend.TextStyle.Font = font.From(sans, fontSize)
	legend.Top, legend.Left = true, true
	legend.Padding = 2
	legend.ThumbnailWidth = vg.Points(28)

	grid := plotter.NewGrid()
	grid.Vertical.Color, grid.Horizontal.Color = color.Gray{Y: 0xdd}, color.Gray{Y: 0xdd}
	g.Add(grid)

	var xs, ys []float64
	var entries []string
	styles := p.Styles()
	for si, s := range p.Drawn() {
		st := styles[si]
		line := draw.LineStyle{Color: st.Colour, Width: vg.Points(1.5), Dashes: st.Dashes}
		glyph := draw.GlyphStyle{Color: st.Colour, Radius: vg.Points(3), Shape: st.Shape}
		var pts, seg plotter.XYs
		var labels []string
		flush := func() {
			if len(seg) > 1 && !s.Markers {
				l, err := plotter.NewLine(seg)
				if err == nil {
					l.LineStyle = line
					g.Add(l)
				}
			}
			seg = nil
		}
		for i, y := range s.Y {
			if !p.ok(i, y) {
				flush()
				continue
			}
			pt := plotter.XY{X: p.x(i), Y: y}
			seg = append(seg, pt)
			pts = append(pts, pt)
			xs, ys = append(xs, pt.X), append(ys, y)
			labels = append(labels, "")
			if i < len(s.Labels) {
				labels[len(labels)-1] = s.Labels[i]
			}
		}
		flush()
		if !s.LineOnly {
			sc, err := plotter.NewScatter(pts)
			if err != nil {
				return nil, nil, nil, fmt.Errorf("results: plot %s, series %s: %w", p.ID, s.Name, err)
			}
			sc.GlyphStyle = glyph
			g.Add(sc)
		}
		if s.Labels != nil {
			lb, err := plotter.NewLabels(plotter.XYLabels{XYs: pts, Labels: labels})
			if err != nil {
				return nil, nil, nil, fmt.Errorf("results: plot %s, labels of %s: %w", p.ID, s.Name, err)
			}
			for i := range lb.TextStyle {
				lb.TextStyle[i].Font = font.From(sans, fontSize-2)
			}
			lb.Offset = vg.Point{X: vg.Points(4), Y: vg.Points(-10)}
			g.Add(lb)
		}
		entries = append(entries, s.Name)
		switch {
		case s.Markers:
			legend.Add(s.Name, glyphThumb{glyph})
		case s.LineOnly:
			legend.Add(s.Name, lineThumb{line})
		default:
			legend.Add(s.Name, lineThumb{line}, glyphThumb{glyph})
		}
	}
	p.axes(g, xs, ys)
	return g, &legend, entries, nil
}

// axes sets the range, scale and ticks of both axes over the points.
func (p *Plot) axes(g *plot.Plot, xs, ys []float64) {
	if len(ys) == 0 {
		return
	}
	ylo, yhi := slices.Min(ys), slices.Max(ys)
	if p.LogY {
		g.Y.Scale = plot.LogScale{}
		g.Y.Min, g.Y.Max = ylo/1.25, yhi*1.25
		g.Y.Tick.Marker = ticks125{}
	} else {
		pad := (yhi - ylo) * 0.05
		if pad == 0 {
			pad = math.Max(math.Abs(yhi)*0.1, 1)
		}
		g.Y.Min, g.Y.Max = math.Min(0, ylo-pad), yhi+pad
		if ylo >= 0 {
			g.Y.Min = 0
		}
		g.Y.Tick.Marker = linearTicks{}
	}
	xlo, xhi := slices.Min(xs), slices.Max(xs)
	if p.XValue == nil {
		xlo, xhi = 0, float64(len(p.X)-1)
	}
	switch {
	case p.LogX:
		g.X.Scale = plot.LogScale{}
		g.X.Min, g.X.Max = xlo/1.15, xhi*1.15
	default:
		pad := (xhi - xlo) * 0.04
		if pad == 0 {
			pad = 0.5
		}
		g.X.Min, g.X.Max = xlo-pad, xhi+pad
	}
	var labelled plot.ConstantTicks
	for i, l := range p.X {
		if l != "" && !math.IsNaN(p.x(i)) {
			labelled = append(labelled, plot.Tick{Value: p.x(i), Label: l})
		}
	}
	thinLabels(labelled, g.X)
	switch {
	case len(labelled) > 0:
		g.X.Tick.Marker = labelled
	case p.LogX:
		g.X.Tick.Marker = ticks125{}
	default:
		g.X.Tick.Marker = linearTicks{}
	}
}

// thinLabels blanks the labels of ticks that would overlap on axis a.
func thinLabels(ticks []plot.Tick, a plot.Axis) {
	const (
		axisWidth = float64(plotW) * 0.85 // the data area, about
		charWidth = 0.6 * (fontSize - 1)  // an average glyph of the tick font
		gap       = 6.0
	)
	last := -1
	for i, t := range ticks {
		if last >= 0 {
			need := (float64(len(ticks[last].Label)+len(t.Label))*charWidth/2 + gap) / axisWidth
			if a.Norm(t.Value)-a.Norm(ticks[last].Value) < need {
				ticks[i].Label = ""
				continue
			}
		}
		last = i
	}
}

// lineThumb and glyphThumb draw a series' line and marker in its legend entry.
type lineThumb struct{ draw.LineStyle }

func (t lineThumb) Thumbnail(c *draw.Canvas) {
	y := c.Center().Y
	c.StrokeLine2(t.LineStyle, c.Min.X, y, c.Max.X, y)
}

type glyphThumb struct{ draw.GlyphStyle }

func (t glyphThumb) Thumbnail(c *draw.Canvas) { c.DrawGlyph(t.GlyphStyle, c.Center()) }

// render draws the plot and its legend on a canvas from newCanvas sized to hold both.
func (p *Plot) render(newCanvas func(w, h vg.Length) vg.Canvas) (vg.Canvas, error) {
	g, legend, _, err := p.build()
	if err != nil {
		return nil, err
	}
	lr := legend.Rectangle(draw.New(vgimg.New(1, 1)))
	lw, lh := lr.Size().X*textSlack+2*legendPad, lr.Size().Y+2*legendPad
	pw, ph := p.area(g)
	w, h := pw+lw, max(ph, lh+2*legendPad)
	c := newCanvas(w, h)
	dc := draw.NewCanvas(c, w, h)
	dc.SetColor(color.White)
	dc.Fill(dc.Rectangle.Path())
	g.Draw(draw.Crop(dc, 0, -lw, h-ph, 0))
	legend.Draw(draw.Crop(dc, pw+legendPad, -legendPad, legendPad, -legendPad*2))
	return c, nil
}

// area is the plot's size without legend: plotW by plotH, or what text needs.
func (p *Plot) area(g *plot.Plot) (w, h vg.Length) {
	const margin = 2 * legendPad
	w = max(plotW, g.Title.TextStyle.Width(g.Title.Text)*textSlack+margin,
		g.X.Label.TextStyle.Width(g.X.Label.Text)*textSlack+margin+vg.Inch)
	h = max(plotH, g.Y.Label.TextStyle.Width(g.Y.Label.Text)*textSlack+margin+vg.Inch/2)
	return w, h
}

// WriteSVG renders the plot as a standalone SVG document.
func (p *Plot) WriteSVG(w io.Writer) error {
	c, err := p.render(func(w, h vg.Length) vg.Canvas { return vgsvg.New(w, h) })
	if err != nil {
		return err
	}
	var b bytes.Buffer
	if _, err := c.(*vgsvg.Canvas).WriteTo(&b); err != nil {
		return err
	}
	svg := bytes.ReplaceAll(b.Bytes(), []byte("font-family:Liberation Sans;"), []byte("font-family:'Liberation Sans',Arial,Helvetica,sans-serif;"))
	_, err = w.Write(svg)
	return err
}

// ticks125 marks a log axis at 1, 2 and 5 times each power of ten; over
// more than four decades only the powers of ten are labelled.
type ticks125 struct{}

func (ticks125) Ticks(lo, hi float64) []plot.Tick {
	if lo <= 0 || hi <= lo {
		return nil
	}
	sparse := math.Log10(hi/lo) > 4
	var ts []plot.Tick
	for e := math.Floor(math.Log10(lo)); e <= math.Ceil(math.Log10(hi)); e++ {
		for _, m := range []float64{1, 2, 5} {
			v := m * math.Pow(10, e)
			if v < lo || v > hi {
				continue
			}
			t := plot.Tick{Value: v}
			if !sparse || m == 1 {
				t.Label = tickLabel(v)
			}
			ts = append(ts, t)
		}
	}
	return ts
}

// linearTicks marks a linear axis at about five steps of 1, 2 or 5 times a power of ten.
type linearTicks struct{}

func (linearTicks) Ticks(lo, hi float64) []plot.Tick {
	if !(hi > lo) {
		return nil
	}
	step := niceStep((hi - lo) / 5)
	var ts []plot.Tick
	for v := math.Ceil(lo/step) * step; v <= hi+step*1e-9; v += step {
		if math.Abs(v) < step*1e-9 {
			v = 0
		}
		ts = append(ts, plot.Tick{Value: v, Label: tickLabel(v)})
	}
	return ts
}

func niceStep(raw float64) float64 {
	if raw <= 0 || math.IsNaN(raw) {
		return 1
	}
	mag := math.Pow(10, math.Floor(math.Log10(raw)))
	for _, m := range []float64{1, 2, 5, 10} {
		if raw <= m*mag {
			return m * mag
		}
	}
	return 10 * mag
}

// tickLabel prints a tick value with at most three significant digits.
func tickLabel(v float64) string {
	a := math.Abs(v)
	if a == 0 {
		return "0"
	}
	if a < 1e-6 || a >= 1e9 {
		return strconv.FormatFloat(v, 'g', 3, 64)
	}
	r, _ := strconv.ParseFloat(strconv.FormatFloat(v, 'g', 3, 64), 64)
	return strconv.FormatFloat(r, 'f', -1, 64)
}
