package results

import (
	"fmt"
	"html"
	"io"
	"math"
	"slices"
	"strings"
)

// Series is one line of a plot. Points with a non-positive Y on a log
// axis, or NaN, are gaps.
type Series struct {
	Name   string
	Y      []float64 // one per Plot.X
	Dashed bool      // published figures of a report, beside ours
	// Markers draws the points alone, unjoined: measurements at positions
	// that another series (a roof) needs more of.
	Markers bool
}

// Plot is a line plot over categorical or numeric X positions: the
// reports' figures of time or speedup against image size, filter size or
// block shape.
type Plot struct {
	ID     string
	Title  string
	XLabel string
	YLabel string
	X      []string  // tick labels, one per position
	XValue []float64 // numeric positions; nil spaces the labels evenly
	LogX   bool
	LogY   bool
	Series []Series
}

const (
	plotW, plotH           = 720, 420
	marginL, marginR       = 70, 210
	marginT, marginB       = 40, 60
	innerW, innerH         = plotW - marginL - marginR, plotH - marginT - marginB
	legendRow              = 16
	defaultColours         = "#1f77b4 #d62728 #2ca02c #9467bd #ff7f0e #8c564b #e377c2 #17becf #7f7f7f #bcbd22"
	maxLegendEntriesOnPlot = (plotH - marginT) / legendRow
)

// HasData reports whether any series has a plottable point.
func (p *Plot) HasData() bool {
	return len(p.drawn()) > 0
}

// drawn returns the series with at least one plottable point: a series
// with none (a variant a host did not run) gets no colour or legend entry.
func (p *Plot) drawn() []Series {
	var out []Series
	for _, s := range p.Series {
		if slices.ContainsFunc(s.Y, p.ok) {
			out = append(out, s)
		}
	}
	return out
}

func (p *Plot) ok(y float64) bool {
	return !math.IsNaN(y) && !math.IsInf(y, 0) && (!p.LogY || y > 0)
}

// WriteSVG renders the plot as a standalone SVG document.
func (p *Plot) WriteSVG(w io.Writer) error {
	var sb strings.Builder
	fmt.Fprintf(&sb, `<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" viewBox="0 0 %d %d" font-family="sans-serif" font-size="12">`+"\n", plotW, plotH, plotW, plotH)
	fmt.Fprintf(&sb, `<rect width="%d" height="%d" fill="white"/>`+"\n", plotW, plotH)
	fmt.Fprintf(&sb, `<text x="%d" y="22" font-size="15" text-anchor="middle">%s</text>`+"\n", marginL+innerW/2, esc(p.Title))
	// X positions.
	xs := make([]float64, len(p.X))
	for i := range p.X {
		switch {
		case p.XValue != nil && p.LogX:
			xs[i] = math.Log10(p.XValue[i])
		case p.XValue != nil:
			xs[i] = p.XValue[i]
		default:
			xs[i] = float64(i)
		}
	}
	x0, x1 := span(xs)
	if x0 == x1 {
		x0, x1 = x0-1, x1+1
	}
	px := func(x float64) float64 { return marginL + (x-x0)/(x1-x0)*innerW }
	series := p.drawn()
	// Y range over the plottable points.
	var ys []float64
	for _, s := range series {
		for _, y := range s.Y {
			if p.ok(y) {
				ys = append(ys, p.ty(y))
			}
		}
	}
	y0, y1 := span(ys)
	if len(ys) == 0 {
		y0, y1 = 0, 1
	}
	if !p.LogY {
		y0 = math.Min(0, y0)
	}
	if y0 == y1 {
		y0, y1 = y0-1, y1+1
	}
	pad := (y1 - y0) * 0.05
	y0, y1 = y0-pad, y1+pad
	if !p.LogY && y0 < 0 && math.Min(0, minOf(ys)) >= 0 {
		y0 = 0
	}
	py := func(y float64) float64 { return marginT + innerH - (y-y0)/(y1-y0)*innerH }
	// Axes, grid and ticks.
	fmt.Fprintf(&sb, `<rect x="%d" y="%d" width="%d" height="%d" fill="none" stroke="#333"/>`+"\n", marginL, marginT, innerW, innerH)
	for i, lbl := range p.X {
		x := px(xs[i])
		fmt.Fprintf(&sb, `<line x1="%.1f" y1="%d" x2="%.1f" y2="%d" stroke="#ddd"/>`+"\n", x, marginT, x, marginT+innerH)
		fmt.Fprintf(&sb, `<text x="%.1f" y="%d" text-anchor="middle">%s</text>`+"\n", x, marginT+innerH+16, esc(lbl))
	}
	for _, t := range yTicks(y0, y1, p.LogY) {
		y := py(t)
		fmt.Fprintf(&sb, `<line x1="%d" y1="%.1f" x2="%d" y2="%.1f" stroke="#ddd"/>`+"\n", marginL, y, marginL+innerW, y)
		v := t
		if p.LogY {
			v = math.Pow(10, t)
		}
		fmt.Fprintf(&sb, `<text x="%d" y="%.1f" text-anchor="end">%s</text>`+"\n", marginL-6, y+4, esc(tickLabel(v)))
	}
	fmt.Fprintf(&sb, `<text x="%d" y="%d" text-anchor="middle">%s</text>`+"\n", marginL+innerW/2, plotH-18, esc(p.XLabel))
	fmt.Fprintf(&sb, `<text x="18" y="%d" text-anchor="middle" transform="rotate(-90 18 %d)">%s</text>`+"\n", marginT+innerH/2, marginT+innerH/2, esc(p.YLabel))
	// Series.
	colours := strings.Fields(defaultColours)
	for si, s := range series {
		c := colours[si%len(colours)]
		dash := ""
		if s.Dashed {
			dash = ` stroke-dasharray="6 4"`
		}
		var seg []string
		flush := func() {
			if len(seg) > 1 && !s.Markers {
				fmt.Fprintf(&sb, `<polyline fill="none" stroke="%s" stroke-width="2"%s points="%s"/>`+"\n", c, dash, strings.Join(seg, " "))
			}
			seg = seg[:0]
		}
		for i, y := range s.Y {
			if i >= len(xs) || !p.ok(y) {
				flush()
				continue
			}
			X, Y := px(xs[i]), py(p.ty(y))
			seg = append(seg, fmt.Sprintf("%.1f,%.1f", X, Y))
			fmt.Fprintf(&sb, `<circle cx="%.1f" cy="%.1f" r="3" fill="%s"/>`+"\n", X, Y, c)
		}
		flush()
		if si < maxLegendEntriesOnPlot {
			ly := marginT + 8 + si*legendRow
			lx := marginL + innerW + 14
			if s.Markers {
				fmt.Fprintf(&sb, `<circle cx="%d" cy="%d" r="4" fill="%s"/>`+"\n", lx+11, ly, c)
			} else {
				fmt.Fprintf(&sb, `<line x1="%d" y1="%d" x2="%d" y2="%d" stroke="%s" stroke-width="2"%s/>`+"\n", lx, ly, lx+22, ly, c, dash)
			}
			fmt.Fprintf(&sb, `<text x="%d" y="%d">%s</text>`+"\n", lx+28, ly+4, esc(s.Name))
		}
	}
	sb.WriteString("</svg>\n")
	_, err := io.WriteString(w, sb.String())
	return err
}

func (p *Plot) ty(y float64) float64 {
	if p.LogY {
		return math.Log10(y)
	}
	return y
}

func span(v []float64) (lo, hi float64) {
	if len(v) == 0 {
		return 0, 0
	}
	lo, hi = v[0], v[0]
	for _, x := range v {
		lo, hi = math.Min(lo, x), math.Max(hi, x)
	}
	return lo, hi
}

func minOf(v []float64) float64 {
	lo, _ := span(v)
	return lo
}

// yTicks returns tick positions (in axis units: log10 for log axes).
func yTicks(lo, hi float64, log bool) []float64 {
	if log {
		var t []float64
		for e := math.Ceil(lo); e <= hi; e++ {
			t = append(t, e)
		}
		if len(t) >= 2 {
			return t
		}
		// Less than a decade: fall through to linear steps in log space.
	}
	step := niceStep((hi - lo) / 5)
	var t []float64
	for v := math.Ceil(lo/step) * step; v <= hi+step*1e-9; v += step {
		t = append(t, v)
	}
	return t
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

func tickLabel(v float64) string {
	a := math.Abs(v)
	switch {
	case a == 0:
		return "0"
	case a >= 1e4 || a < 1e-3:
		return fmt.Sprintf("%.0e", v)
	case a >= 10:
		return fmt.Sprintf("%.0f", v)
	case a >= 1:
		return strings.TrimSuffix(strings.TrimRight(fmt.Sprintf("%.2f", v), "0"), ".")
	}
	return strings.TrimSuffix(strings.TrimRight(fmt.Sprintf("%.4f", v), "0"), ".")
}

func esc(s string) string { return html.EscapeString(s) }
