package userkernel

import (
	"bufio"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/convbench/convbench/convolve"
)

// Marker is the comment line that opens a description header in a .cu
// file; the "// key: value" lines right below it, up to the first line
// that is not a // comment or is an empty one, are the description.
const Marker = "// convbench:kernel"

// SidecarExt is the extension of a sidecar description: my.cu is
// described by my.kernel beside it when the file has no header.
const SidecarExt = ".kernel"

// Geometry is the launch rule of a kernel: every thread writes an RX x RY
// patch of output pixels of one channel. The grid is
// (ceil(W/(BX*RX)), ceil(H/(BY*RY)), CHANNELS) blocks of (BX, BY, 1)
// threads; blockIdx.z is the channel.
type Geometry struct {
	RX, RY int
}

func (g Geometry) String() string {
	if g == (Geometry{1, 1}) {
		return "pixel"
	}
	return fmt.Sprintf("pixel %dx%d", g.RX, g.RY)
}

// Shared is the dynamic shared memory a kernel is launched with.
type Shared int

const (
	// NoShared launches with no dynamic shared memory (static __shared__
	// arrays sized by the defines are the kernel's own business).
	NoShared Shared = iota
	// TileShared launches with (BX*RX + KW - 1) * (BY*RY + KH - 1) floats
	// of dynamic shared memory: one block's output tile and its halo.
	TileShared
)

func (s Shared) String() string {
	if s == TileShared {
		return "tile"
	}
	return "none"
}

// Spec is a kernel's description: what the header or the sidecar file
// says, with the defaults of the fields left out.
type Spec struct {
	// Name is the variant's name; "user-<file stem>" by default.
	Name string
	// Summary is one line on the kernel; "user kernel <file>" by default.
	Summary string
	// Entry is the extern "C" __global__ function to launch.
	Entry string
	// Geometry is the launch rule; one thread per pixel by default.
	Geometry Geometry
	// Shared is the dynamic shared memory of a launch; none by default.
	Shared Shared
	// Constant, when set, names a __constant__ float array of KW*KH
	// elements that receives the weights besides the filter argument.
	Constant string
	// Types, Borders, Channels and Layouts are what the kernel supports;
	// each defaults to every value there is.
	Types    []convolve.ElemType
	Borders  []convolve.Border
	Channels []int
	Layouts  []convolve.Layout
	// Block is the block shape used when a plan names none (16x16 by
	// default); Blocks, when set, are the only shapes accepted.
	Block  convolve.Block
	Blocks []convolve.Block
	// MaxFilter is the largest filter side accepted;
	// convolve.MaxFilterSide by default.
	MaxFilter int
	// ReferenceOrder declares that every output is summed in cpu-naive's
	// order (order: reference), so that --fmad=false output must equal
	// cpu-naive's bit for bit.
	ReferenceOrder bool
	// FiniteInput declares that the kernel needs finite filters and
	// pixels (finite-input: true); such input is then refused.
	FiniteInput bool
}

// Capabilities are the capabilities the description declares, as
// convolve and the property suite read them.
func (s Spec) Capabilities() convolve.Capabilities {
	return convolve.Capabilities{
		Ops:            []convolve.Operation{convolve.Filter2D},
		Types:          slices.Clone(s.Types),
		Channels:       slices.Clone(s.Channels),
		Layouts:        slices.Clone(s.Layouts),
		Borders:        slices.Clone(s.Borders),
		MaxFilterSide:  s.MaxFilter,
		GPU:            true,
		FixedBlocks:    slices.Clone(s.Blocks),
		ReferenceOrder: s.ReferenceOrder,
		FiniteInput:    s.FiniteInput,
	}
}

// SpecError is a description that cannot be used: which file and line,
// which field, the value given, what is wrong and the valid values.
type SpecError struct {
	File  string // the file holding the description: the .cu file or its sidecar
	Line  int    // 1-based; 0 when the error is about the file as a whole
	Field string // the field, or "" when the error is not about one
	Value string // the value given
	Msg   string // what is wrong
	Valid string // the valid values, or ""
}

func (e *SpecError) Error() string {
	var b strings.Builder
	b.WriteString(e.File)
	if e.Line > 0 {
		fmt.Fprintf(&b, ":%d", e.Line)
	}
	b.WriteString(": ")
	if e.Field != "" {
		b.WriteString(e.Field + ": ")
	}
	if e.Value != "" {
		fmt.Fprintf(&b, "%q: ", e.Value)
	}
	b.WriteString(e.Msg)
	if e.Valid != "" {
		b.WriteString(" (valid: " + e.Valid + ")")
	}
	return b.String()
}

// field is one description field: its name, the valid values for error
// messages, and its parser.
type field struct {
	name  string
	valid string
	set   func(s *Spec, v string) (msg string)
}

var (
	identPattern = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)
	namePattern  = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._+-]*$`)
)

// maxPatch bounds RX and RY of the launch geometry.
const maxPatch = 64

func names[T any](vs []T, name func(T) string) string {
	s := make([]string, len(vs))
	for i, v := range vs {
		s[i] = name(v)
	}
	return strings.Join(s, ", ")
}

func channelNames() string {
	var s []string
	for c := 1; c <= convolve.MaxChannels; c++ {
		s = append(s, strconv.Itoa(c))
	}
	return strings.Join(s, ", ")
}

// fields lists every description field, in the order the documentation
// gives them.
var fields = []field{
	{"name", "letters, digits and . _ + -, starting with a letter or digit; not a registered variant's name", func(s *Spec, v string) string {
		if !namePattern.MatchString(v) || len(v) > 64 {
			return "not a variant name"
		}
		s.Name = v
		return ""
	}},
	{"summary", "one line of text", func(s *Spec, v string) string { s.Summary = v; return "" }},
	{"entry", "the C identifier of an extern \"C\" __global__ function", func(s *Spec, v string) string {
		if !identPattern.MatchString(v) {
			return "not a C identifier"
		}
		s.Entry = v
		return ""
	}},
	{"geometry", fmt.Sprintf("pixel, or pixel RXxRY with RX and RY from 1 to %d (each thread writes RX x RY pixels)", maxPatch), func(s *Spec, v string) string {
		f := strings.Fields(v)
		if len(f) == 0 || f[0] != "pixel" || len(f) > 2 {
			return "not a launch rule"
		}
		g := Geometry{1, 1}
		if len(f) == 2 {
			xs, ys, ok := strings.Cut(f[1], "x")
			rx, err1 := strconv.Atoi(xs)
			ry, err2 := strconv.Atoi(ys)
			if !ok || err1 != nil || err2 != nil || rx < 1 || ry < 1 || rx > maxPatch || ry > maxPatch {
				return "not a patch RXxRY"
			}
			g = Geometry{rx, ry}
		}
		s.Geometry = g
		return ""
	}},
	{"shared", "none, tile ((BX*RX+KW-1)*(BY*RY+KH-1) floats of dynamic shared memory)", func(s *Spec, v string) string {
		switch v {
		case "none":
			s.Shared = NoShared
		case "tile":
			s.Shared = TileShared
		default:
			return "not a shared-memory rule"
		}
		return ""
	}},
	{"filter", "global (the filter argument only), constant NAME (also copied into __constant__ float NAME[KW*KH])", func(s *Spec, v string) string {
		f := strings.Fields(v)
		switch {
		case len(f) == 1 && f[0] == "global":
			s.Constant = ""
		case len(f) == 2 && f[0] == "constant" && identPattern.MatchString(f[1]):
			s.Constant = f[1]
		default:
			return "not a filter placement"
		}
		return ""
	}},
	{"types", names(convolve.ElemTypes, convolve.ElemType.String), func(s *Spec, v string) (msg string) {
		s.Types, msg = parseList(v, convolve.ElemTypes, convolve.ElemType.String)
		return
	}},
	{"borders", names(convolve.Borders, convolve.Border.String), func(s *Spec, v string) (msg string) {
		s.Borders, msg = parseList(v, convolve.Borders, convolve.Border.String)
		return
	}},
	{"channels", channelNames(), func(s *Spec, v string) (msg string) {
		var all []int
		for c := 1; c <= convolve.MaxChannels; c++ {
			all = append(all, c)
		}
		s.Channels, msg = parseList(v, all, strconv.Itoa)
		return
	}},
	{"layouts", names(convolve.Layouts, convolve.Layout.String), func(s *Spec, v string) (msg string) {
		s.Layouts, msg = parseList(v, convolve.Layouts, convolve.Layout.String)
		return
	}},
	{"block", "WxH with at most 1024 threads, such as 32x8", func(s *Spec, v string) string {
		b, err := convolve.ParseBlock(v)
		if err != nil {
			return "not a block shape"
		}
		s.Block = b
		return ""
	}},
	{"blocks", "any, or a comma list of WxH shapes with at most 1024 threads", func(s *Spec, v string) string {
		if v == "any" {
			s.Blocks = nil
			return ""
		}
		s.Blocks = nil
		for _, item := range strings.Split(v, ",") {
			b, err := convolve.ParseBlock(strings.TrimSpace(item))
			if err != nil {
				return fmt.Sprintf("%q is not a block shape", strings.TrimSpace(item))
			}
			s.Blocks = append(s.Blocks, b)
		}
		return ""
	}},
	{"max-filter", fmt.Sprintf("an integer from 1 to %d", convolve.MaxFilterSide), func(s *Spec, v string) string {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 || n > convolve.MaxFilterSide {
			return "not a filter side"
		}
		s.MaxFilter = n
		return ""
	}},
	{"order", "reference (sums taps in cpu-naive's order: row j outer, column i inner), any", func(s *Spec, v string) string {
		switch v {
		case "reference":
			s.ReferenceOrder = true
		case "any":
			s.ReferenceOrder = false
		default:
			return "not a summation order"
		}
		return ""
	}},
	{"finite-input", "true, false", func(s *Spec, v string) string {
		switch v {
		case "true":
			s.FiniteInput = true
		case "false":
			s.FiniteInput = false
		default:
			return "not true or false"
		}
		return ""
	}},
}

// FieldNames lists the fields a description may set.
func FieldNames() []string {
	n := make([]string, len(fields))
	for i, f := range fields {
		n[i] = f.name
	}
	return n
}

// parseList parses a comma list of the names of values; an unknown or
// empty item, or one given twice, is an error message.
func parseList[T comparable](v string, values []T, name func(T) string) ([]T, string) {
	var out []T
	for _, item := range strings.Split(v, ",") {
		item = strings.TrimSpace(item)
		if item == "" {
			return nil, "empty item in the list"
		}
		i := slices.IndexFunc(values, func(x T) bool { return name(x) == item })
		if i < 0 && item == strings.TrimSpace(v) {
			return nil, "not a valid value"
		}
		if i < 0 {
			return nil, fmt.Sprintf("%q is not a valid value", item)
		}
		if slices.Contains(out, values[i]) {
			return nil, fmt.Sprintf("%q is given twice", item)
		}
		out = append(out, values[i])
	}
	return out, ""
}

// line is one "key: value" line of a description.
type line struct {
	n          int // 1-based line number in its file
	key, value string
}

// defaults returns the Spec of a description that sets nothing but the
// entry point, for the kernel file named stem (its base name without
// extension).
func defaults(stem string) Spec {
	return Spec{
		Name:      "user-" + stem,
		Summary:   "user kernel " + stem,
		Geometry:  Geometry{1, 1},
		Types:     slices.Clone(convolve.ElemTypes),
		Borders:   slices.Clone(convolve.Borders),
		Channels:  []int{1, 2, 3, 4},
		Layouts:   slices.Clone(convolve.Layouts),
		Block:     convolve.Block{X: 16, Y: 16},
		MaxFilter: convolve.MaxFilterSide,
	}
}

// build turns the lines of a description in file into a Spec for the
// kernel named stem.
func build(file, stem string, lines []line) (Spec, error) {
	s := defaults(stem)
	seen := map[string]int{}
	for _, l := range lines {
		i := slices.IndexFunc(fields, func(f field) bool { return f.name == l.key })
		if i < 0 {
			return Spec{}, &SpecError{File: file, Line: l.n, Field: l.key, Msg: "unknown field", Valid: strings.Join(FieldNames(), ", ")}
		}
		if first, dup := seen[l.key]; dup {
			return Spec{}, &SpecError{File: file, Line: l.n, Field: l.key, Msg: fmt.Sprintf("given twice (first on line %d)", first)}
		}
		seen[l.key] = l.n
		f := fields[i]
		if l.value == "" {
			return Spec{}, &SpecError{File: file, Line: l.n, Field: l.key, Msg: "empty value", Valid: f.valid}
		}
		if msg := f.set(&s, l.value); msg != "" {
			return Spec{}, &SpecError{File: file, Line: l.n, Field: l.key, Value: l.value, Msg: msg, Valid: f.valid}
		}
	}
	if _, ok := seen["entry"]; !ok {
		return Spec{}, &SpecError{File: file, Field: "entry", Msg: "missing: the description must name the kernel to launch", Valid: fields[2].valid}
	}
	if _, ok := seen["name"]; !ok && !namePattern.MatchString(s.Name) {
		return Spec{}, &SpecError{File: file, Field: "name", Value: s.Name,
			Msg: "the default name made from the file name is not a variant name: set name", Valid: fields[0].valid}
	}
	if len(s.Blocks) > 0 && !slices.Contains(s.Blocks, s.Block) {
		if _, set := seen["block"]; set {
			return Spec{}, &SpecError{File: file, Line: seen["block"], Field: "block", Value: s.Block.String(),
				Msg: "not among the shapes of blocks", Valid: names(s.Blocks, convolve.Block.String)}
		}
		s.Block = s.Blocks[0]
	}
	return s, nil
}

// parseLines reads "key: value" lines. prefix is stripped from each line
// first ("//" in a header); blank lines and, in a sidecar, lines starting
// with '#' are skipped. first is the file line number of text's first
// line.
func parseLines(file, text, prefix string, first int, comments bool) ([]line, error) {
	var out []line
	sc := bufio.NewScanner(strings.NewReader(text))
	sc.Buffer(nil, 1<<20)
	for n := first; sc.Scan(); n++ {
		t := strings.TrimSpace(sc.Text())
		if prefix != "" {
			t = strings.TrimSpace(strings.TrimPrefix(t, prefix))
		}
		if t == "" || comments && strings.HasPrefix(t, "#") {
			continue
		}
		key, value, ok := strings.Cut(t, ":")
		key = strings.TrimSpace(key)
		if !ok || key == "" || strings.ContainsAny(key, " \t") {
			return nil, &SpecError{File: file, Line: n, Value: t, Msg: "want a line key: value", Valid: "fields " + strings.Join(FieldNames(), ", ")}
		}
		out = append(out, line{n: n, key: key, value: strings.TrimSpace(value)})
	}
	if err := sc.Err(); err != nil {
		return nil, &SpecError{File: file, Msg: err.Error()}
	}
	return out, nil
}

// ParseHeader reads the description header of the CUDA source src (the
// contents of file): the line Marker and the "// key: value" comment
// lines right below it, up to the first line that is not a // comment
// or is an empty one ("//"), after which prose may follow.
// found is false, with no error, when src has no header.
func ParseHeader(file, src string) (s Spec, found bool, err error) {
	lines := strings.Split(src, "\n")
	start := -1
	for i, l := range lines {
		if isMarker(l) {
			if start >= 0 {
				return Spec{}, true, &SpecError{File: file, Line: i + 1, Msg: fmt.Sprintf("a second description header (the first is on line %d)", start+1)}
			}
			start = i
		}
	}
	if start < 0 {
		return Spec{}, false, nil
	}
	end := start + 1
	for end < len(lines) {
		t := strings.TrimSpace(lines[end])
		if !strings.HasPrefix(t, "//") || strings.TrimSpace(strings.TrimPrefix(t, "//")) == "" {
			break
		}
		end++
	}
	ls, err := parseLines(file, strings.Join(lines[start+1:end], "\n"), "//", start+2, false)
	if err != nil {
		return Spec{}, true, err
	}
	s, err = build(file, stemOf(file), ls)
	return s, true, err
}

func isMarker(l string) bool {
	t := strings.TrimSpace(l)
	return t == Marker || t == strings.Replace(Marker, "// ", "//", 1)
}

// ParseSidecar reads a sidecar description: "key: value" lines, with
// blank lines and lines starting with '#' skipped. kernelFile is the .cu
// file it describes, whose stem makes the default name.
func ParseSidecar(file, kernelFile, text string) (Spec, error) {
	ls, err := parseLines(file, text, "", 1, true)
	if err != nil {
		return Spec{}, err
	}
	return build(file, stemOf(kernelFile), ls)
}

// Format writes the description as a sidecar file would hold it, every
// field with its value.
func (s Spec) Format() string {
	var b strings.Builder
	w := func(k, v string) { fmt.Fprintf(&b, "%s: %s\n", k, v) }
	w("name", s.Name)
	w("summary", s.Summary)
	w("entry", s.Entry)
	w("geometry", s.Geometry.String())
	w("shared", s.Shared.String())
	if s.Constant != "" {
		w("filter", "constant "+s.Constant)
	} else {
		w("filter", "global")
	}
	w("types", names(s.Types, convolve.ElemType.String))
	w("borders", names(s.Borders, convolve.Border.String))
	w("channels", names(s.Channels, strconv.Itoa))
	w("layouts", names(s.Layouts, convolve.Layout.String))
	w("block", s.Block.String())
	if len(s.Blocks) == 0 {
		w("blocks", "any")
	} else {
		w("blocks", names(s.Blocks, convolve.Block.String))
	}
	w("max-filter", strconv.Itoa(s.MaxFilter))
	if s.ReferenceOrder {
		w("order", "reference")
	} else {
		w("order", "any")
	}
	w("finite-input", strconv.FormatBool(s.FiniteInput))
	return b.String()
}
