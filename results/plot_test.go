package results

import (
	"bytes"
	"encoding/xml"
	"flag"
	"fmt"
	"image/color"
	"image/png"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/recorder"
	"gonum.org/v1/plot/vg/vgimg"
)

var plotDir = flag.String("plotdir", "", "write every plot of the committed report and of the local fixture's report as PNG into this directory, to look at")

// Every plot of the committed data and of a user's run renders, as SVG
// and PNG, with one legend entry per drawn series, one colour per variant
// and one marker per source, and a canvas that holds its whole legend and
// every text.
func TestPlotsRender(t *testing.T) {
	if *plotDir != "" {
		if err := os.MkdirAll(*plotDir, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	r := committedReport(t)
	sections := append(slices.Clone(r.Sections), localReport(t).Runs...)
	n := 0
	for _, s := range sections {
		for _, p := range s.Plots {
			if !p.HasData() {
				continue
			}
			n++
			checkPlot(t, p)
			var b bytes.Buffer
			if err := p.WritePNG(&b, 96); err != nil {
				t.Fatalf("%s: %v", p.ID, err)
			}
			im, err := png.Decode(bytes.NewReader(b.Bytes()))
			if err != nil {
				t.Fatalf("%s: PNG: %v", p.ID, err)
			}
			if w := im.Bounds().Dx(); w < 6*96 {
				t.Errorf("%s: PNG %d pixels wide, want the plot's 576 and the legend's", p.ID, w)
			}
			if *plotDir != "" {
				if err := os.WriteFile(filepath.Join(*plotDir, p.ID+".png"), b.Bytes(), 0o644); err != nil {
					t.Fatal(err)
				}
			}
		}
	}
	if n < 9 {
		t.Errorf("%d plots with data, want the 9 or more the reports draw", n)
	}
}

func checkPlot(t *testing.T, p *Plot) {
	t.Helper()
	_, _, entries, err := p.build()
	if err != nil {
		t.Fatalf("%s: %v", p.ID, err)
	}
	drawn := p.Drawn()
	var b bytes.Buffer
	if err := p.WriteSVG(&b); err != nil {
		t.Fatalf("%s: %v", p.ID, err)
	}
	svg := b.String()
	if err := validXML(b.Bytes()); err != nil {
		t.Errorf("%s: invalid SVG: %v", p.ID, err)
	}
	for _, s := range drawn {
		if !strings.Contains(svg, ">"+escXML(s.Name)+"<") {
			t.Errorf("%s: series %q has no legend entry", p.ID, s.Name)
		}
	}
	if got := len(entries); got != len(drawn) {
		t.Errorf("%s: %d legend entries for %d series", p.ID, got, len(drawn))
	}
	checkTextFits(t, p)
	styles := p.Styles()
	byVariant := map[string]color.Color{}
	bySource := map[string]string{}
	for i, s := range drawn {
		c := styles[i].Colour
		if old, ok := byVariant[s.Variant]; ok && !sameColour(old, c) {
			t.Errorf("%s: variant %s drawn in two colours", p.ID, s.Variant)
		}
		byVariant[s.Variant] = c
		shape := strings.TrimPrefix(strings.TrimPrefix(fmt.Sprintf("%T", styles[i].Shape), "draw."), "*")
		if old, ok := bySource[s.Source]; ok && old != shape {
			t.Errorf("%s: source %s drawn with two markers", p.ID, s.Source)
		}
		bySource[s.Source] = shape
	}
	for v1, c1 := range byVariant {
		for v2, c2 := range byVariant {
			if v1 < v2 && sameColour(c1, c2) {
				t.Errorf("%s: variants %s and %s share a colour", p.ID, v1, v2)
			}
		}
	}
	seen := map[string]string{}
	for src, shape := range bySource {
		if other, ok := seen[shape]; ok {
			t.Errorf("%s: sources %s and %s share a marker", p.ID, src, other)
		}
		seen[shape] = src
	}
}

// checkTextFits draws p on a recording canvas and checks every text it
// sets against the canvas, by the plot library's metrics of the font it
// is set in: each must lie on the canvas whole with textSlack to spare
// (room for a viewer's wider fallback font), across it or, turned a
// quarter (the y axis label), up it. The title and every legend entry
// must be set whole.
func checkTextFits(t *testing.T, p *Plot) {
	t.Helper()
	var w, h vg.Length
	rec := &recorder.Canvas{}
	if _, err := p.render(func(cw, ch vg.Length) vg.Canvas { w, h = cw, ch; return rec }); err != nil {
		t.Fatalf("%s: %v", p.ID, err)
	}
	set := map[string]bool{}
	turned := []bool{false}
	for _, a := range rec.Actions {
		switch a := a.(type) {
		case *recorder.Push:
			turned = append(turned, turned[len(turned)-1])
		case *recorder.Pop:
			turned = turned[:len(turned)-1]
		case *recorder.Rotate:
			turned[len(turned)-1] = a.Angle != 0
		case *recorder.FillString:
			set[a.String] = true
			face := font.DefaultCache.Lookup(a.Font, a.Size)
			width := face.Width(a.String) * textSlack
			// Turned a quarter, a text runs up the canvas from its x.
			along, across, extent, depth := a.Point.X, a.Point.Y, w, h
			if turned[len(turned)-1] {
				extent, depth = h, w
				across = -across
			}
			if along < 0 || along+width > extent || across < 0 || across > depth {
				t.Errorf("%s: %q at (%.1f, %.1f), %.1f wide with slack, is cut by the %.1f x %.1f canvas", p.ID, a.String, a.Point.X, a.Point.Y, width, w, h)
			}
		}
	}
	if !set[p.Title] {
		t.Errorf("%s: title %q is not set whole", p.ID, p.Title)
	}
	for _, s := range p.Drawn() {
		if !set[s.Name] {
			t.Errorf("%s: legend entry %q is not set whole", p.ID, s.Name)
		}
	}
}

func sameColour(a, b color.Color) bool {
	r1, g1, b1, a1 := a.RGBA()
	r2, g2, b2, a2 := b.RGBA()
	return r1 == r2 && g1 == g2 && b1 == b2 && a1 == a2
}

func escXML(s string) string {
	var b strings.Builder
	xml.EscapeText(&b, []byte(s))
	return b.String()
}

// A plot of many series keeps every one in its legend, in a colour of its
// own per variant, and grows to hold the legend; a series with no point
// gets no entry.
func TestPlotManySeries(t *testing.T) {
	p := &Plot{ID: "many", Title: "many <series> & more", XLabel: "K", YLabel: "ms", X: []string{"3", "7", "31"}, XValue: []float64{3, 7, 31}, LogY: true}
	for gpu := range 2 {
		for v := range 20 {
			p.Series = append(p.Series, Series{Name: fmt.Sprintf("GPU %d variant-with-a-long-name-%02d", gpu, v), Variant: fmt.Sprintf("v%02d", v),
				Source: fmt.Sprintf("GPU %d", gpu), Y: []float64{1 + float64(v), nan(), 3 + float64(v)}})
		}
	}
	p.Series = append(p.Series, Series{Name: "not run", Variant: "v99", Source: "GPU 0", Y: []float64{nan(), 0, -1}})
	checkPlot(t, p)
	var b bytes.Buffer
	if err := p.WriteSVG(&b); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(b.String(), "not run") {
		t.Errorf("a series with no point is in the legend")
	}
	b.Reset()
	if err := p.WritePNG(&b, 96); err != nil {
		t.Fatal(err)
	}
	im, err := png.Decode(&b)
	if err != nil {
		t.Fatal(err)
	}
	if h := im.Bounds().Dy(); h <= 4*96 {
		t.Errorf("PNG %d pixels high: 40 legend entries need more than the plot's 384", h)
	}
	if len(p.Drawn()) != 40 || !p.HasData() {
		t.Errorf("%d series drawn, want 40", len(p.Drawn()))
	}
	if (&Plot{X: []string{"1"}}).HasData() {
		t.Errorf("HasData of a plot with no series = true")
	}
}

// Log axes are marked at 1, 2 and 5 times the powers of ten, in plain
// decimals.
func TestTicks125(t *testing.T) {
	tests := []struct {
		lo, hi float64
		want   string
	}{
		{0.004, 0.12, "0.005 0.01 0.02 0.05 0.1"},
		{3000, 31000, "5000 10000 20000"},
		{1.5, 230, "2 5 10 20 50 100 200"},
		{0.001, 1e5, "0.001 - - 0.01 - - 0.1 - - 1 - - 10 - - 100 - - 1000 - - 10000 - - 100000"},
	}
	for _, tt := range tests {
		var got []string
		for _, tk := range (ticks125{}).Ticks(tt.lo, tt.hi) {
			l := tk.Label
			if l == "" {
				l = "-"
			}
			got = append(got, l)
		}
		if g := strings.Join(got, " "); g != tt.want {
			t.Errorf("ticks over %g..%g = %s, want %s", tt.lo, tt.hi, g, tt.want)
		}
	}
}

// Points lie at their true x: positions given by XValue, not by index.
func TestPlotTrueX(t *testing.T) {
	p := &Plot{X: []string{"3", "31"}, XValue: []float64{3, 31}}
	if p.x(1) != 31 {
		t.Errorf("x(1) = %g, want 31", p.x(1))
	}
	if got := numbers([]string{"3", "75", "x"}); got[0] != 3 || got[1] != 75 || !isNaN(got[2]) {
		t.Errorf("numbers = %v", got)
	}
	if got := pixels([]string{"64x64", "1000x10"}); got[0] != 4096 || got[1] != 10000 {
		t.Errorf("pixels = %v", got)
	}
}

func isNaN(f float64) bool { return f != f }

// WritePNG renders the plot as a PNG image at dpi dots per inch.
func (p *Plot) WritePNG(w io.Writer, dpi int) error {
	c, err := p.render(func(w, h vg.Length) vg.Canvas {
		return vgimg.PngCanvas{Canvas: vgimg.NewWith(vgimg.UseWH(w, h), vgimg.UseDPI(dpi))}
	})
	if err != nil {
		return err
	}
	_, err = c.(vgimg.PngCanvas).WriteTo(w)
	return err
}
