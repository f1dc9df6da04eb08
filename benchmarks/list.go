package benchmarks

import (
	"fmt"
	"io"
	"sort"
	"strconv"
	"strings"

	"github.com/convbench/convbench/convolve"
)

// WriteList writes what -list prints: every variant of vs with its
// declared capabilities, then every preset with the axes of its sweeps in
// the form of the axis flags.
func WriteList(w io.Writer, vs []convolve.Variant) error {
	ds := make([]convolve.Description, len(vs))
	for i, v := range vs {
		ds[i] = v.Describe()
	}
	sort.Slice(ds, func(i, j int) bool { return ds[i].Name < ds[j].Name })
	var b strings.Builder
	b.WriteString("variants:\n")
	for _, d := range ds {
		fmt.Fprintf(&b, "  %s: %s\n", d.Name, d.Summary)
		fmt.Fprintf(&b, "    %s\n", capsLine(d.Caps))
	}
	b.WriteString("presets:\n")
	for _, p := range Presets() {
		fmt.Fprintf(&b, "  %s: %s\n", p.Name, p.Summary)
		sweeps, parts := p.Sweeps()
		for i, a := range sweeps {
			fmt.Fprintf(&b, "    %s%s\n", a.FlagString(), p.sweeps[i].extras())
		}
		if len(parts) > 0 {
			fmt.Fprintf(&b, "    the cases of %s\n", strings.Join(parts, ", "))
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// capsLine describes capabilities on one line; an empty list is "any".
func capsLine(c convolve.Capabilities) string {
	dev := "cpu"
	if c.GPU {
		dev = "gpu"
	}
	maxSide := c.MaxFilterSide
	if maxSide == 0 {
		maxSide = convolve.MaxFilterSide
	}
	parts := []string{
		dev,
		"ops=" + join(c.Ops, convolve.Operation.String),
		"types=" + join(c.Types, convolve.ElemType.String),
		"channels=" + join(c.Channels, strconv.Itoa),
		"layouts=" + join(c.Layouts, convolve.Layout.String),
		"borders=" + join(c.Borders, convolve.Border.String),
		"max-filter-side=" + strconv.Itoa(maxSide),
		"finite-input=" + strconv.FormatBool(c.FiniteInput),
	}
	if c.SeparableOnly {
		parts = append(parts, "separable-only")
	}
	if c.ReferenceOrder {
		parts = append(parts, "reference-order")
	}
	if c.GPU {
		parts = append(parts, "blocks="+join(c.FixedBlocks, convolve.Block.String))
	}
	parts = append(parts, "tunables="+join(c.Tunables, func(s string) string { return s }))
	if len(c.Tunables) == 0 {
		parts[len(parts)-1] = "tunables=none"
	}
	if c.Space != nil {
		parts = append(parts, "tuning-space("+c.Space.String()+")")
	}
	return strings.Join(parts, " ")
}

func join[T any](vs []T, name func(T) string) string {
	if len(vs) == 0 {
		return "any"
	}
	s := make([]string, len(vs))
	for i, v := range vs {
		s[i] = name(v)
	}
	return strings.Join(s, ",")
}

// FlagString writes the axes as axis flags, for example
// "-variants cpu-naive,gpu-naive -sizes 256x256 -filters gauss3 ...";
// unset axes are left out.
func (a Axes) FlagString() string {
	var parts []string
	add := func(name, value string) {
		if value != "" {
			parts = append(parts, "-"+name+" "+value)
		}
	}
	add("variants", strings.Join(a.Variants, ","))
	add("sizes", joinSet(a.Sizes, func(s [2]int) string { return fmt.Sprintf("%dx%d", s[0], s[1]) }))
	add("filters", joinSet(a.Filters, FilterChoice.String))
	add("types", joinSet(a.Types, convolve.ElemType.String))
	add("channels", joinSet(a.Channels, strconv.Itoa))
	add("layouts", joinSet(a.Layouts, convolve.Layout.String))
	add("borders", joinSet(a.Borders, convolve.Border.String))
	add("modes", joinSet(a.Modes, convolve.Mode.String))
	add("blocks", joinSet(a.Blocks, func(b convolve.Block) string {
		if b == (convolve.Block{}) {
			return "default"
		}
		return b.String()
	}))
	add("timing", joinSet(a.Timings, TimingChoice.String))
	add("mem", joinSet(a.Mems, func(m Memory) string { return string(m) }))
	if a.MemCap > 0 {
		add("mem-cap", strconv.FormatInt(a.MemCap, 10))
	}
	if len(a.GPUs) > 0 && !(len(a.GPUs) == 1 && a.GPUs[0] == "") {
		add("gpus", "'"+strings.Join(a.GPUs, " ")+"'")
	}
	if a.Image != nil {
		add("image", a.Image.Name)
	}
	return strings.Join(parts, " ")
}

func joinSet[T any](vs []T, name func(T) string) string {
	if len(vs) == 0 {
		return ""
	}
	return join(vs, name)
}

// extras describes what a sweep sets besides its axes: the compile
// options and the tunables it sweeps.
func (s sweep) extras() string {
	var parts []string
	if len(s.opts) > 0 {
		parts = append(parts, "compile options "+join(s.opts, func(o Opts) string {
			if o == defaultOpts {
				return "default"
			}
			return string(o)
		}))
	}
	var vs []string
	for v := range s.tunes {
		vs = append(vs, v)
	}
	sort.Strings(vs)
	for _, v := range vs {
		parts = append(parts, v+" tunables "+join(s.tunes[v], func(t string) string {
			if t == "" {
				return "default"
			}
			return t
		}))
	}
	if len(parts) == 0 {
		return ""
	}
	return " (" + strings.Join(parts, "; ") + ")"
}
