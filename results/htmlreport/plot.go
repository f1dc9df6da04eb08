package htmlreport

import (
	"fmt"
	"image/color"
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/convbench/convbench/results"
)

// The chart's canvas and the margins around its data area, in SVG user
// units.
const (
	chartW, chartH                     = 660, 380
	marginL, marginR, marginT, marginB = 70, 16, 12, 56
)

// An axis maps values to positions along one side of the data area.
type axis struct {
	log      bool
	lo, hi   float64 // the range shown, in log10 where log
	from, to float64 // the positions of lo and hi
}

// pos is the position of value v.
func (a axis) pos(v float64) float64 {
	if a.log {
		v = math.Log10(v)
	}
	if a.hi == a.lo {
		return (a.from + a.to) / 2
	}
	return a.from + (v-a.lo)/(a.hi-a.lo)*(a.to-a.from)
}

// newAxis fits an axis to values, padded by a twentieth of their range
// on each side.
func newAxis(values []float64, log bool, from, to float64) axis {
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, v := range values {
		if log {
			v = math.Log10(v)
		}
		lo, hi = min(lo, v), max(hi, v)
	}
	if math.IsInf(lo, 0) {
		lo, hi = 0, 1
	}
	if !log && lo > 0 && lo < hi/3 {
		lo = 0 // a linear axis of positive values starts at zero where they spread
	}
	pad := (hi - lo) / 20
	if pad == 0 {
		pad = math.Max(math.Abs(hi)/10, 0.5)
		if log {
			pad = 0.25
		}
	}
	if !(lo == 0 && !log) {
		lo -= pad
	}
	hi += pad
	return axis{log: log, lo: lo, hi: hi, from: from, to: to}
}

// ticks returns the values of the axis's ticks: powers of ten (and 2
// and 5 times them where the range spans less than two decades) on a log
// axis, multiples of 1, 2 or 5 times a power of ten on a linear one.
func (a axis) ticks() []float64 {
	var out []float64
	if a.log {
		for k := math.Floor(a.lo); k <= math.Ceil(a.hi); k++ {
			for _, m := range []float64{1, 2, 5} {
				if m != 1 && a.hi-a.lo >= 2 {
					continue
				}
				v := m * math.Pow(10, k)
				if lv := math.Log10(v); lv >= a.lo && lv <= a.hi {
					out = append(out, v)
				}
			}
		}
		return out
	}
	raw := (a.hi - a.lo) / 8
	if raw <= 0 {
		return []float64{a.lo}
	}
	mag := math.Pow(10, math.Floor(math.Log10(raw)))
	step := mag * 10
	for _, m := range []float64{1, 2, 5} {
		if m*mag >= raw {
			step = m * mag
			break
		}
	}
	for v := math.Ceil(a.lo/step) * step; v <= a.hi+step/1e9; v += step {
		out = append(out, math.Round(v/step)*step)
	}
	return out
}

// number formats a tick's or a point's value with up to four
// significant digits, in powers of ten where it is very large or small.
func number(v float64) string {
	if v == 0 {
		return "0"
	}
	if a := math.Abs(v); a >= 1e6 || a < 1e-3 {
		s := strconv.FormatFloat(v, 'e', 3, 64)
		mant, exp, _ := strings.Cut(s, "e")
		mant = strings.TrimRight(strings.TrimRight(mant, "0"), ".")
		e, _ := strconv.Atoi(exp)
		return mant + "e" + strconv.Itoa(e)
	}
	s := strconv.FormatFloat(v, 'g', 4, 64)
	if strings.Contains(s, "e") {
		s = strconv.FormatFloat(v, 'f', -1, 64)
	}
	return s
}

// hexColour is c as #rrggbb.
func hexColour(c color.Color) string {
	r, g, b, _ := c.RGBA()
	return fmt.Sprintf("#%02x%02x%02x", r>>8, g>>8, b>>8)
}

// seriesHost returns the slug of the host a series' source is, or "".
func (p *page) seriesHost(source string) string {
	return p.hostWhere(func(h *results.Host) bool { return source == h.Title || strings.HasPrefix(source, h.Title+" ") })
}

// plot writes a plot as a figure: an inline SVG chart of its series,
// each point carrying its value for the pointer to show, and a legend of
// buttons that hide and show each series. Where svg is true the figure
// links the plot's SVG file, which the Markdown report writes.
func (p *page) plot(b *strings.Builder, pl *results.Plot, svg bool) {
	series := pl.Drawn()
	styles := pl.Styles()
	ax, ay, category := plotAxes(pl, series)
	hosts := map[string]bool{}
	var sources []string
	for _, s := range series {
		hosts[p.seriesHost(s.Source)] = true
		if !slices.Contains(sources, s.Source) {
			sources = append(sources, s.Source)
		}
	}
	host := p.hostOf(pl.ID)
	if host == "" && len(hosts) == 1 {
		host = slices.Collect(maps.Keys(hosts))[0]
	}
	fmt.Fprintf(b, "<figure class=\"plot\" id=\"%s\"%s>\n<figcaption>%s</figcaption>\n<div class=\"pbody\">\n", p.id("p-"+pl.ID), attr("data-host", host), inline(pl.Title))
	fmt.Fprintf(b, "<svg class=\"chart\" viewBox=\"0 0 %d %d\" role=\"img\" aria-label=\"%s\" data-xlabel=\"%s\" data-ylabel=\"%s\">\n",
		chartW, chartH, esc(pl.Title), esc(pl.XLabel), esc(pl.YLabel))
	b.WriteString("<g class=\"grid\">")
	for _, v := range ay.ticks() {
		y := ay.pos(v)
		fmt.Fprintf(b, "<line x1=\"%d\" x2=\"%d\" y1=\"%s\" y2=\"%s\"/>", marginL, chartW-marginR, f1(y), f1(y))
	}
	shown, rotate := xTicks(pl, ax, category)
	for _, t := range shown {
		fmt.Fprintf(b, "<line x1=\"%s\" x2=\"%s\" y1=\"%d\" y2=\"%d\"/>", f1(t.x), f1(t.x), marginT, chartH-marginB)
	}
	writeAxes(b, pl, ay, shown, rotate)
	var legend strings.Builder
	for si, s := range series {
		st, hollow := styles[si], slices.Index(sources, s.Source)%2 == 1
		p.writeSeries(b, pl, si, s, st, ax, ay, hollow)
		class := ""
		if len(st.Dashes) > 0 {
			class = " dash"
		}
		if hollow {
			class += " ho"
		}
		fmt.Fprintf(&legend, "<li><button type=\"button\" data-s=\"%d\" aria-pressed=\"true\"><i class=\"sw%s\" style=\"color:%s\"></i>%s</button></li>\n",
			si, class, hexColour(st.Colour), esc(s.Name))
	}
	b.WriteString("</svg>\n<ul class=\"plegend\">\n" + legend.String() + "</ul>\n</div>\n")
	if svg {
		fmt.Fprintf(b, "<p class=\"plinks\"><a href=\"plots/%s.svg\">The plot as an SVG file</a></p>\n", esc(pl.ID))
	}
	b.WriteString("</figure>\n")
}

// plotAxes are the x and y axes of plot pl over the points of series:
// an axis of categories (category) where pl has no x values.
func plotAxes(pl *results.Plot, series []results.Series) (ax, ay axis, category bool) {
	var xs, ys []float64
	for _, s := range series {
		for i, y := range s.Y {
			if x, ok := pl.Point(i, y); ok {
				xs, ys = append(xs, x), append(ys, y)
			}
		}
	}
	category = pl.XValue == nil
	if category {
		ax = axis{lo: -0.5, hi: float64(len(pl.X)) - 0.5, from: marginL, to: chartW - marginR}
	} else {
		ax = newAxis(xs, pl.LogX, marginL, chartW-marginR)
	}
	ay = newAxis(ys, pl.LogY, chartH-marginB, marginT)
	return ax, ay, category
}

// xtick is a labelled position on a plot's x axis.
type xtick struct {
	x     float64
	label string
}

// xTicks are the x axis's ticks shown, those of labels that would
// overlap keeping the first of them, and whether the labels are rotated
// (more than ten ticks).
func xTicks(pl *results.Plot, ax axis, category bool) (shown []xtick, rotate bool) {
	var xt []xtick
	switch {
	case category:
		for i, l := range pl.X {
			xt = append(xt, xtick{ax.pos(float64(i)), l})
		}
	case slices.ContainsFunc(pl.X, func(l string) bool { return l != "" }):
		for i, l := range pl.X {
			if l != "" && i < len(pl.XValue) {
				if x, ok := pl.Point(i, 1); ok {
					xt = append(xt, xtick{ax.pos(x), l})
				}
			}
		}
	default:
		for _, v := range ax.ticks() {
			xt = append(xt, xtick{ax.pos(v), number(v)})
		}
	}
	rotate = len(xt) > 10
	last := math.Inf(-1)
	for _, t := range xt {
		w := 6.5 * float64(len(t.label))
		if rotate {
			w = 14
		}
		if t.x-last < w {
			continue
		}
		shown = append(shown, t)
		last = t.x
	}
	return shown, rotate
}

// writeAxes closes the grid's group and writes the plot's frame, the
// axes' tick labels (the x axis's rotated with rotate) and their labels.
func writeAxes(b *strings.Builder, pl *results.Plot, ay axis, shown []xtick, rotate bool) {
	b.WriteString("</g>\n<g class=\"axes\">")
	fmt.Fprintf(b, "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\"/>", marginL, marginT, chartW-marginL-marginR, chartH-marginT-marginB)
	for _, v := range ay.ticks() {
		fmt.Fprintf(b, "<text class=\"yt\" x=\"%d\" y=\"%s\">%s</text>", marginL-5, f1(ay.pos(v)+4), esc(number(v)))
	}
	for _, t := range shown {
		if rotate {
			fmt.Fprintf(b, "<text class=\"xt r\" transform=\"translate(%s %d) rotate(-35)\">%s</text>", f1(t.x+3), chartH-marginB+12, esc(t.label))
		} else {
			fmt.Fprintf(b, "<text class=\"xt\" x=\"%s\" y=\"%d\">%s</text>", f1(t.x), chartH-marginB+15, esc(t.label))
		}
	}
	fmt.Fprintf(b, "<text class=\"xl\" x=\"%d\" y=\"%d\">%s</text>", (marginL+chartW-marginR)/2, chartH-6, esc(pl.XLabel))
	fmt.Fprintf(b, "<text class=\"yl\" transform=\"translate(14 %d) rotate(-90)\">%s</text>", (marginT+chartH-marginB)/2, esc(pl.YLabel))
	b.WriteString("</g>\n")
}

// writeSeries writes series s, the si'th of plot pl, in style st: a path
// through each run of plottable points, and a circle at each point
// carrying its value, hollow where hollow.
func (p *page) writeSeries(b *strings.Builder, pl *results.Plot, si int, s results.Series, st results.Style, ax, ay axis, hollow bool) {
	col := hexColour(st.Colour)
	var ds []string
	for _, d := range st.Dashes {
		ds = append(ds, f1(float64(d)))
	}
	dash := attr("stroke-dasharray", strings.Join(ds, " "))
	variant := ""
	if p.variants[s.Variant] {
		variant = s.Variant
	}
	fmt.Fprintf(b, "<g class=\"s\" data-s=\"%d\"%s%s stroke=\"%s\" fill=\"%s\">", si, attr("data-variant", variant), attr("data-host", p.seriesHost(s.Source)), col, col)
	var path strings.Builder
	var pts []string
	pen := false
	for i, y := range s.Y {
		x, ok := pl.Point(i, y)
		if !ok {
			pen = false
			continue
		}
		px, py := ax.pos(x), ay.pos(y)
		if pen {
			fmt.Fprintf(&path, "L%s %s", f1(px), f1(py))
		} else {
			fmt.Fprintf(&path, "M%s %s", f1(px), f1(py))
		}
		pen = true
		xl := number(x) // the point's x as the axis labels it
		if i < len(pl.X) && pl.X[i] != "" {
			xl = pl.X[i]
		}
		class := ""
		switch {
		case s.LineOnly:
			class = " class=\"lo\""
		case hollow:
			class = " class=\"ho\""
		}
		label := ""
		if i < len(s.Labels) && s.Labels[i] != "" {
			label = fmt.Sprintf(" data-l=\"%s\"", esc(s.Labels[i]))
		}
		pts = append(pts, fmt.Sprintf("<circle cx=\"%s\" cy=\"%s\"%s data-x=\"%s\" data-y=\"%s\"%s/>", f1(px), f1(py), class, esc(xl), number(y), label))
	}
	if !s.Markers && strings.Contains(path.String(), "L") {
		fmt.Fprintf(b, "<path d=\"%s\" fill=\"none\"%s/>", path.String(), dash)
	}
	b.WriteString(strings.Join(pts, ""))
	b.WriteString("</g>\n")
}

// f1 formats a coordinate with one decimal.
func f1(v float64) string { return strconv.FormatFloat(v, 'f', 1, 64) }
