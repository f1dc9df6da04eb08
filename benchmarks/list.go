package benchmarks

import (
	"fmt"
	"io"
	"slices"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/convbench/convbench/convolve"
	"github.com/olekukonko/tablewriter"
	"github.com/olekukonko/tablewriter/tw"
)

// listWidth is the widest line WriteList writes, in columns.
const listWidth = 120

// WriteList writes what -list prints, every line within listWidth
// columns: a table per variant family (listFamilies) of its variants,
// what each does and its declared capabilities, the capabilities every
// variant of the family shares above the table; then every preset with
// the axes of its sweeps in the form of the axis flags.
func WriteList(w io.Writer, vs []convolve.Variant) error {
	ds := make([]convolve.Description, len(vs))
	for i, v := range vs {
		ds[i] = v.Describe()
	}
	sort.Slice(ds, func(i, j int) bool { return ds[i].Name < ds[j].Name })
	var b strings.Builder
	b.WriteString("variants, by family (-variants takes their names):\n")
	for _, f := range listFamilies {
		var members []convolve.Description
		for _, d := range ds {
			if familyOf(d) == f.title {
				members = append(members, d)
			}
		}
		if len(members) == 0 {
			continue
		}
		if err := writeFamily(&b, f.title, members); err != nil {
			return err
		}
	}
	b.WriteString("presets (-sweep takes their names):\n")
	for _, p := range presets {
		writeWrapped(&b, p.Name+": "+p.Summary, "  ", "    ")
		sweeps, parts := p.Sweeps()
		for i, a := range sweeps {
			writeWrapped(&b, a.FlagString()+p.sweeps[i].extras(), "    ", "      ")
		}
		if len(parts) > 0 {
			writeWrapped(&b, "the cases of "+strings.Join(parts, ", "), "    ", "      ")
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// listFamilies are the families -list groups the variants in, in order;
// a variant belongs to the first whose rule it meets.
var listFamilies = []struct {
	title string
	is    func(convolve.Description) bool
}{
	{"CPU", func(d convolve.Description) bool { return !d.Caps.GPU }},
	{"automatic path choice", func(d convolve.Description) bool { return strings.HasPrefix(d.Name, "auto") }},
	{"vendor libraries", func(d convolve.Description) bool {
		return strings.HasPrefix(d.Name, "cudnn") || strings.HasPrefix(d.Name, "npp")
	}},
	{"RGB channel strategies", func(d convolve.Description) bool { return strings.HasPrefix(d.Name, "gpu-ch-") }},
	{"tensor cores", func(d convolve.Description) bool { return strings.HasPrefix(d.Name, "gpu-tc-") }},
	{"row slabs over devices and streams", func(d convolve.Description) bool {
		return d.Caps.MultiDevice || strings.HasPrefix(d.Name, "gpu-slab") || strings.HasPrefix(d.Name, "gpu-stream")
	}},
	{"Sobel magnitude and RGB to YUV", func(d convolve.Description) bool { return !slices.Contains(d.Caps.Ops, convolve.Filter2D) }},
	{"GPU kernels", func(convolve.Description) bool { return true }},
}

// familyOf is the title of the family d belongs to.
func familyOf(d convolve.Description) string {
	for _, f := range listFamilies {
		if f.is(d) {
			return f.title
		}
	}
	return ""
}

// writeFamily writes the table of one family's variants: a title line,
// the capabilities they all declare, and a row a variant with what it
// does and the capabilities it declares beyond those.
func writeFamily(b *strings.Builder, title string, members []convolve.Description) error {
	parts := make([][]string, len(members))
	for i, d := range members {
		parts[i] = capsParts(d.Caps)
	}
	var common []string
	for _, p := range parts[0] {
		if !slices.ContainsFunc(parts, func(q []string) bool { return !slices.Contains(q, p) }) {
			common = append(common, p)
		}
	}
	b.WriteString("\n" + title + "\n")
	if len(members) > 1 && len(common) > 0 {
		writeWrapped(b, "every one: "+strings.Join(common, " "), "", "  ")
	}
	tab := tablewriter.NewTable(b, tablewriter.WithHeaderAutoFormat(tw.Off), tablewriter.WithMaxWidth(listWidth),
		tablewriter.WithRowAutoWrap(tw.WrapNormal), tablewriter.WithHeaderAutoWrap(tw.WrapNormal))
	tab.Header("variant", "what it does", "capabilities")
	for i, d := range members {
		own := parts[i]
		if len(members) > 1 {
			own = slices.DeleteFunc(slices.Clone(own), func(p string) bool { return slices.Contains(common, p) })
		}
		if err := tab.Append([]string{d.Name, d.Summary, strings.Join(own, " ")}); err != nil {
			return err
		}
	}
	return tab.Render()
}

// writeWrapped writes text wrapped at listWidth, its first line after
// first and the others after rest.
func writeWrapped(b *strings.Builder, text, first, rest string) {
	lines := wrapWords(text, listWidth-len(first), listWidth-len(rest))
	for i, l := range lines {
		if i == 0 {
			b.WriteString(first + l + "\n")
		} else {
			b.WriteString(rest + l + "\n")
		}
	}
}

// wrapWords breaks text at spaces into a first line of at most first
// columns (runes) and others of at most rest; a word wider than rest,
// such as a long comma list, breaks after its commas, and a part still
// wider has a line to itself.
func wrapWords(text string, first, rest int) []string {
	var lines []string
	line, width := "", first
	for _, word := range strings.Fields(text) {
		parts := []string{word}
		if utf8.RuneCountInString(word) > rest {
			parts = strings.SplitAfter(word, ",")
		}
		for i, part := range parts {
			sep := " "
			if i > 0 {
				sep = ""
			}
			switch {
			case line == "":
				line = part
			case utf8.RuneCountInString(line)+len(sep)+utf8.RuneCountInString(part) <= width:
				line += sep + part
			default:
				lines = append(lines, line)
				line, width = part, rest
			}
		}
	}
	if line != "" {
		lines = append(lines, line)
	}
	return lines
}

// capsParts describes capabilities as "key=value" parts; an empty list
// is "any".
func capsParts(c convolve.Capabilities) []string {
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
		// Spaces after the commas let a table's cell wrap the lists.
		parts = append(parts, "tuning-space("+strings.ReplaceAll(c.Space.String(), ",", ", ")+")")
	}
	return parts
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
