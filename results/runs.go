package results

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/convbench/convbench/convolve"
	"github.com/convbench/convbench/runfile"
)

// runSections are the RunSections of every run with cases, newest first.
func runSections(hosts []*Host, baseline string) []*Section {
	type hostRun struct {
		h *Host
		r *Run
	}
	var runs []hostRun
	for _, h := range hosts {
		for _, r := range h.Runs {
			if len(r.Samples) > 0 {
				runs = append(runs, hostRun{h, r})
			}
		}
	}
	slices.SortStableFunc(runs, func(a, b hostRun) int { return b.r.Modified.Compare(a.r.Modified) })
	var secs []*Section
	for _, hr := range runs {
		secs = append(secs, RunSection(hr.h, hr.r, baseline))
	}
	return secs
}

// RunSection is the section of run r of host h: its table and plot.
func RunSection(h *Host, r *Run, baseline string) *Section {
	s := &Section{ID: "run-" + h.Slug + "-" + r.Preset, Report: r.Preset, Title: fmt.Sprintf("Run `%s` on %s", r.Preset, h.Title)}
	if p := runPlot(h, r); p.HasData() {
		s.Plots = []*Plot{p}
	}
	s.Tables = []*Table{runTable(h, r, baseline)}
	return s
}

// Axes returns the name keys the run varies, and the others' values.
func (r *Run) Axes() (varying []string, constant map[string]string) {
	constant = map[string]string{}
	for _, k := range nameKeys {
		values := map[string]bool{}
		for _, s := range r.Samples {
			values[s.Keys[k]] = true
		}
		switch {
		case len(values) > 1:
			varying = append(varying, k)
		case len(r.Samples) > 0:
			constant[k] = r.Samples[0].Keys[k]
		}
	}
	return varying, constant
}

// runTable is a table of every case of run r.
func runTable(h *Host, r *Run, baseline string) *Table {
	varying, constant := r.Axes()
	axes := slices.DeleteFunc(slices.Clone(varying), func(k string) bool { return k == "variant" })
	axes = append(axes, "variant")
	if _, ok := constant["variant"]; ok && len(varying) > 0 {
		axes = axes[:len(axes)-1] // one variant: the caption names it
	}
	t := &Table{
		ID:     "run-" + h.Slug + "-" + r.Preset,
		Title:  fmt.Sprintf("Every case of `%s` — %s", r.Preset, h.Title),
		Header: append(slices.Clone(axes), "median (ms)", fmt.Sprintf("%.0f%% CI (ms)", 100*runfile.Confidence), "runs", "fastest – slowest (ms)", "spread", "run ±", "runs agree"),
		Keys:   len(axes),
	}
	t.Caption = runCaption(r, varying, constant)
	t.Legend = runLegend(r)
	bases := NewBaselines(r.Samples, baseline)
	if bases.Any() {
		t.Header = slices.Insert(t.Header, t.Keys+2, bases.Header())
		t.Legend = slices.Insert(t.Legend, 2, bases.Legend(bases.Header()))
	}
	samples := slices.Clone(r.Samples)
	slices.SortStableFunc(samples, func(a, b *Sample) int { return compareCases(a, b, axes) })
	for _, s := range samples {
		row := make([]string, 0, len(t.Header))
		for _, k := range axes {
			row = append(row, s.Keys[k])
		}
		row = append(row, runCells(s, r.spreadUnit())...)
		if bases.Any() {
			row = slices.Insert(row, t.Keys+2, bases.Cell(s))
		}
		t.Rows = append(t.Rows, row)
	}
	return t
}

// runCaption names the run's sweep, its axes and its constant keys.
func runCaption(r *Run, varying []string, constant map[string]string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "From `%s/%s.txt`", r.Host, r.Preset)
	if a := strings.TrimSpace(r.Config["sweep-axes"]); a != "" {
		fmt.Fprintf(&b, " (sweep `%s` with `%s`)", r.Config[runfile.KeySweep], a)
	} else if sw := r.Config[runfile.KeySweep]; sw != "" {
		fmt.Fprintf(&b, " (sweep `%s`)", sw)
	}
	if img := r.Config["image"]; img != "" {
		fmt.Fprintf(&b, ", on the pixels of `%s`", img)
	}
	if c := r.Commit(); c != "" {
		fmt.Fprintf(&b, ", at %s", c)
	}
	b.WriteString(".")
	if len(varying) > 0 {
		fmt.Fprintf(&b, " It varies %s.", strings.Join(varying, ", "))
	}
	var fixed []string
	for _, k := range nameKeys {
		if v, ok := constant[k]; ok && v != "none" && v != "default" {
			fixed = append(fixed, k+" "+v)
		}
	}
	if len(fixed) > 0 {
		fmt.Fprintf(&b, " Every case has %s (and its other keys none or default).", strings.Join(fixed, ", "))
	}
	return b.String()
}

// runLegend says what each measurement column of runTable holds.
func runLegend(r *Run) []string {
	unit := "ns/op on the CPU, gpu-ns/op for GPU kernels, total-ns/op for pipeline cases"
	if slices.ContainsFunc(r.Samples, func(s *Sample) bool { return s.Keys["timing"] == "plan" }) {
		unit += ", ns/op for plan cases (`timing=plan`: the time to make a plan, cold with the compile caches bypassed or warm)"
	}
	l := []string{
		"median (ms): the median over the case's runs (its result lines, `-count`) of its time per operation (" + unit + ").",
		fmt.Sprintf("%.0f%% CI (ms): that median's confidence interval over the runs, by benchmath's order statistics as benchstat computes it; a dash where the runs are too few for one (five or more give one: `-count 5`).", 100*runfile.Confidence),
		"runs: how many runs (result lines) the case has.",
		"fastest – slowest (ms): the fastest and the slowest run.",
		"spread: the slowest run minus the fastest, over the median.",
	}
	if u := r.spreadUnit(); u != "" {
		l = append(l,
			"run ±: the widest of the runs' own intervals: each run is a set of samples, and `"+u+"` is the half-width of the 95% confidence interval of its median, in percent of it.",
			agreementLegend("run ±"))
	} else {
		l = append(l, "run ±, runs agree: a dash, as the run's lines do not record their own intervals (`median-ci95-%`).")
	}
	return l
}

// runCells are a case's measurement cells of runTable.
func runCells(s *Sample, spreadUnit string) []string {
	unit := s.TimeUnit()
	m := timeOf(s)
	med, ci := missing, missing
	if m.OK() {
		sum := m.Summary()
		med = ms(sum.Center, true)
		if !math.IsInf(sum.Lo, 0) && !math.IsInf(sum.Hi, 0) && !math.IsNaN(sum.Lo) {
			ci = ms(sum.Lo, true) + " – " + ms(sum.Hi, true)
		}
	}
	v := s.Values[unit]
	rng := missing
	if len(v) > 0 {
		rng = ms(slices.Min(v), true) + " – " + ms(slices.Max(v), true)
	}
	own, agree := missing, missing
	if spreadUnit != "" {
		if w, ok := s.Max(spreadUnit); ok {
			own = "±" + percent(w/100, true)
		}
		agree = agreementCell(s, spreadUnit)
	}
	return []string{med, ci, strconv.Itoa(len(v)), rng, percent(s.Spread()), own, agree}
}

// agreementCell formats Agreement: yes, "UNSTABLE (<cause>)", or a dash.
func agreementCell(s *Sample, unit string) string {
	switch s.Agreement(unit) {
	case agree:
		return "yes"
	case disagree:
		c, _ := s.UnstableCause(unit)
		return "UNSTABLE (" + c.Short() + ")"
	}
	return missing
}

// Agreement is whether the runs of a case agree within their own intervals.
type Agreement int

const (
	unknown  Agreement = iota // fewer than two runs, or no intervals
	agree                     // one time lies in every run's interval
	disagree                  // two runs' intervals do not overlap
)

// Agreement tells whether the runs of s agree: each run's median m with
// the half-width c% of its interval (unit, or the noise target where
// wider) spans m·(1 ± c/100), and the runs agree when those overlap.
func (s *Sample) Agreement(unit string) Agreement {
	times, widths := s.Values[s.TimeUnit()], s.Values[unit]
	if len(times) < 2 || len(widths) != len(times) {
		return unknown
	}
	if s.overlap(times, widths) {
		return agree
	}
	return disagree
}

// overlap reports whether the runs' intervals share a point.
func (s *Sample) overlap(times, widths []float64) bool {
	lo, hi := math.Inf(-1), math.Inf(1)
	for i, m := range times {
		w := max(widths[i], s.targetWidth(m))
		lo = max(lo, m*(1-w/100))
		hi = min(hi, m*(1+w/100))
	}
	return lo <= hi
}

// compareCases orders samples by the keys of axes in turn.
func compareCases(a, b *Sample, axes []string) int {
	for _, k := range axes {
		c := NaturalCompare
		if k == "size" {
			c = compareSizes
		}
		if c := c(a.Keys[k], b.Keys[k]); c != 0 {
			return c
		}
	}
	return 0
}

// distinctCases returns a sample per distinct value of keys, ordered.
func distinctCases(samples []*Sample, keys ...string) []*Sample {
	var out []*Sample
	for _, s := range samples {
		if !slices.ContainsFunc(out, func(o *Sample) bool { return compareCases(o, s, keys) == 0 }) {
			out = append(out, s)
		}
	}
	slices.SortStableFunc(out, func(a, b *Sample) int { return compareCases(a, b, keys) })
	return out
}

// keyValues returns the distinct values of key among samples, in order.
func keyValues(samples []*Sample, key string) []string {
	return mapCells(distinctCases(samples, key), func(s *Sample) string { return s.Keys[key] })
}

// plotAxes are the axes a run's plot can put across, by preference.
var plotAxes = []string{"size", "k", "filter", "type", "ch", "border", "layout", "block", "cache", "timing", "mem", "opts", "tune", "gpus"}

// axisLabels name the plot axes that need more than their key.
var axisLabels = map[string]string{
	"size": "image size (pixels, log)",
	"k":    "filter size K",
	"ch":   "channels",
}

// runPlot draws run r's median time against the first plotAxes axis it
// varies, a line per variant and value of its other axes.
func runPlot(h *Host, r *Run) *Plot {
	varying, _ := r.Axes()
	x := "variant"
	for _, k := range plotAxes {
		if slices.Contains(varying, k) {
			x = k
			break
		}
	}
	p := &Plot{ID: "run-" + h.Slug + "-" + r.Preset, Title: fmt.Sprintf("%s on %s: time vs %s", r.Preset, ShortHost(h.Title), x),
		XLabel: x, YLabel: "median time (ms)"}
	if l, ok := axisLabels[x]; ok {
		p.XLabel = l
	}
	samples := slices.Clone(r.Samples)
	slices.SortStableFunc(samples, func(a, b *Sample) int { return compareCases(a, b, []string{x}) })
	p.X = keyValues(samples, x)
	switch x {
	case "size":
		p.XValue, p.LogX = pixels(p.X), true
	case "k":
		p.XValue = numbers(p.X)
	}
	var lo, hi float64
	index := map[string]int{}
	for _, s := range samples {
		name := seriesName(s, varying, x)
		i, ok := index[name]
		if !ok {
			i = len(p.Series)
			index[name] = i
			p.Series = append(p.Series, Series{Name: name, Variant: name, Source: h.Title, Y: nans(len(p.X)), Markers: x == "variant"})
		}
		y := timeOf(s).Center() / 1e6
		p.Series[i].Y[slices.Index(p.X, s.Keys[x])] = y
		if y > 0 {
			lo, hi = minPositive(lo, y), max(hi, y)
		}
	}
	slices.SortStableFunc(p.Series, func(a, b Series) int { return NaturalCompare(a.Name, b.Name) })
	p.LogY = lo > 0 && hi/lo > 10
	return p
}

// seriesName names a case's line in a run's plot.
func seriesName(s *Sample, varying []string, x string) string {
	parts := []string{s.Keys["variant"]}
	for _, k := range varying {
		switch {
		case k == x || k == "variant" || (k == "k" && x == "filter"):
		case k == "filter" && x == "k":
			name := s.Keys[k]
			if fs, err := convolve.ParseFilterSpec(name); err == nil && fs.String() == name {
				name = fs.Family
			}
			parts = append(parts, name)
		default:
			parts = append(parts, s.Keys[k])
		}
	}
	return strings.Join(parts, " ")
}

// minPositive is the smaller of lo and v, where lo zero means none yet.
func minPositive(lo, v float64) float64 {
	if lo == 0 {
		return v
	}
	return min(lo, v)
}

// ShortHost is a host title without "NVIDIA " and " (no GPU)".
func ShortHost(title string) string {
	return strings.TrimPrefix(strings.TrimSuffix(title, " (no GPU)"), "NVIDIA ")
}
