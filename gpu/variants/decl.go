package variants

import (
	"fmt"
	"math"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/convbench/convbench/convolve"
	"github.com/convbench/convbench/cudabind"
	"github.com/convbench/convbench/gpu/kernels"
)

// Decl declares a variant built on one kernel family: the family's
// source, the macros it adds to Defines, the __constant__ arrays it
// fills, the scratch buffer it needs and the kernels a run launches, with
// their shared memory, grid and arguments. Declare turns it into a
// *Variant whose Setup is the one setup path every declared variant
// shares: check the declaration and the problem (Validate does the same
// without a device), allocate the scratch buffer, compile the family,
// look up the kernels (raising their shared memory limit where needed),
// upload the constants and the filter, and set Enqueue to the launches.
//
// The functions of a Decl receive the plan's Base before any device work:
// they may read its Problem, Config, Block, Filter and Info but must not
// use its device, except Prepare.
type Decl struct {
	Desc convolve.Description
	// Block is the default block shape (zero: defaultBlock).
	Block convolve.Block
	// Family is the kernel family in gpu/kernels ("shared" for
	// shared.cu).
	Family string
	// Source, when set, is the family's source instead of the embedded
	// one: a kernel written outside gpu/kernels. Family then only
	// names it in errors. Its headers may be kernels.Headers() (border.cuh,
	// tile.cuh, unroll.cuh); nil Headers means those.
	Source *cudabind.Source
	// Defines, when set, returns the macros the family needs beyond
	// Defines (RY, TEX_HW, ...). Each must be a name the family's source
	// or its headers read.
	Defines func(b *Base) (map[string]string, error)
	// Check, when set, refuses problems the capabilities cannot express
	// (a texture past the device's limits, a filter that is not rank one),
	// with a *convolve.CapabilityError.
	Check func(b *Base) error
	// Constants are the __constant__ arrays filled once at plan time.
	// Their floats together must fit the device's constant memory.
	Constants []Constant
	// Scratch, when set, is the number of float32 elements of a device
	// buffer the kernels share (argScratch), allocated once per plan. A
	// buffer of 2^31 elements or more compiles the family with INDEX64.
	Scratch func(b *Base) int64
	// Prepare, when set, runs after the scratch buffer is allocated and
	// before the family is compiled: it may use the device, set CopyIn,
	// release the input, and returns the values the prepared arguments
	// name (texture objects, for instance).
	Prepare func(b *Base) ([]any, error)
	// InRowAlign, when above 1, makes the device input's rows start on
	// multiples of this many elements (Base.PadInputRows), for kernels
	// whose vector loads need aligned rows at any image width.
	InRowAlign int
	// OutRowAlign, when above 1, makes the device output's rows start on
	// multiples of this many elements (Base.PadOutputRows; the family
	// reads the stride as OUT_S), for kernels that store aligned vectors
	// at any image width.
	OutRowAlign int
	// Kernels lists every kernel the variant may launch.
	Kernels []Kernel
	// Select, when set, names the kernels one run launches, in order
	// (from the configuration's tunables, say); when nil a run launches
	// every kernel of Kernels, in order.
	Select func(b *Base) ([]string, error)
}

// Constant is a __constant__ float array of the family and its values.
type Constant struct {
	Name   string
	Values func(b *Base) ([]float32, error)
}

// FilterWeights is the Constant.Values of the plan's filter, oriented for
// correlation (Base.Filter). An operation without a filter is an error.
func FilterWeights(b *Base) ([]float32, error) {
	if b.Filter == nil {
		return nil, fmt.Errorf("variants: %s: operation %v has no filter to upload", b.Name, b.Problem.Op)
	}
	return b.Filter.Weights, nil
}

// Kernel is one entry point of a family and how it is launched.
type Kernel struct {
	// Name is the entry point (an extern "C" __global__ function).
	Name string
	// Grid is the rule that sizes the grid from the image and block.
	Grid GridRule
	// Shared, when set, is the dynamic shared memory of a block in bytes,
	// from the block's tile (Tile.Bytes for tile.cuh's tile).
	Shared func(t Tile) int
	// Args are the kernel's arguments, in order.
	Args []Arg
}

// GridRule sizes a kernel's grid. Every rule puts one channel in each
// layer of the grid (blockIdx.z) and covers the columns with blocks of
// Block.X threads.
type GridRule int

const (
	// PerPixel: one thread per output pixel, rows in blocks of Block.Y.
	PerPixel GridRule = iota + 1
	// PerRows: one thread per RY rows of a column (the family's RY
	// macro, which Defines must return), rows of threads in blocks of
	// Block.Y.
	PerRows
	// PerPaddedPixel: one thread per pixel of the image grown by the
	// filter's halo, (W+KW-1) x (H+KH-1).
	PerPaddedPixel
	// PerTile: one thread per RX x RY outputs, RX side by side in each of
	// RY rows (the family's RX and RY macros, which Defines must return).
	// Where Defines sets CH_IN_X=1, the channels fold into gridDim.x
	// (channel fastest, gridDim.z 1; border.cuh's tile_bx and tile_ch).
	PerTile
)

var gridRuleNames = map[GridRule]string{PerPixel: "PerPixel", PerRows: "PerRows", PerPaddedPixel: "PerPaddedPixel", PerTile: "PerTile"}

func (g GridRule) String() string {
	if s, ok := gridRuleNames[g]; ok {
		return s
	}
	return "GridRule(" + strconv.Itoa(int(g)) + ")"
}

// Arg is one kernel argument, filled in from the plan at setup.
type Arg int

const (
	ArgIn      Arg = iota + 1 // the device input (Base.In)
	ArgOut                    // the device output (Base.Out)
	ArgWidth                  // the image width, int32
	ArgHeight                 // the image height, int32
	ArgStride                 // the input row stride in elements, idx_t (Base.Stride)
	argFilter                 // the filter's weights in global memory, uploaded once
	argScratch                // the scratch buffer (Decl.Scratch)
	argPrepared
)

// prepared is the argument Prepare returned at index i.
func prepared(i int) Arg { return argPrepared + Arg(i) }

var argNames = []string{ArgIn: "ArgIn", ArgOut: "ArgOut", ArgWidth: "ArgWidth", ArgHeight: "ArgHeight",
	ArgStride: "ArgStride", argFilter: "ArgFilter", argScratch: "ArgScratch"}

func (a Arg) String() string {
	if a >= argPrepared {
		return fmt.Sprintf("Prepared(%d)", int(a-argPrepared))
	}
	if a > 0 && int(a) < len(argNames) {
		return argNames[a]
	}
	return "Arg(" + strconv.Itoa(int(a)) + ")"
}

// Tile is the shape of a block's input tile, as tile.cuh defines it: a
// block of Block.X x Block.Y threads computing Block.X columns and
// Block.Y*RY rows needs Width() x Height() input pixels.
type Tile struct {
	Block      convolve.Block
	KW, KH, RY int
	// RX is the outputs each thread computes side by side: the family's
	// RX macro where Defines sets one, else 1. Width and Height ignore it
	// (tile.cuh's families compute one column per thread).
	RX int
	// Defines are the family's compile-time defines (Decl.Defines with
	// the problem's), for a Shared rule that depends on another of them.
	Defines map[string]string
}

// Width is TILE_W, Block.X + KW - 1.
func (t Tile) Width() int { return t.Block.X + t.KW - 1 }

// Height is TILE_H, Block.Y*RY + KH - 1.
func (t Tile) Height() int { return t.Block.Y*t.RY + t.KH - 1 }

// Bytes is the shared memory of the whole tile as float32.
func (t Tile) Bytes() int { return t.Width() * t.Height() * 4 }

// RowPassBytes is the shared memory of a 1-D pass along rows: Block.Y
// rows of Width() floats.
func (t Tile) RowPassBytes() int { return t.Block.Y * t.Width() * 4 }

// ColPassBytes is the shared memory of a 1-D pass along columns: Height()
// rows of Block.X floats.
func (t Tile) ColPassBytes() int { return t.Height() * t.Block.X * 4 }

// DeclError is a declaration that cannot work as written: a kernel family,
// entry point, constant, define, grid rule or argument that does not
// exist, arguments that do not match the entry point's parameters in
// number or kind (pointer, int, idx_t), or a value out of its range. Variant names the declaration; What
// says which part is wrong, Value the value.
type DeclError struct {
	Variant string
	What    string
	Value   string
	Reason  string
}

func (e *DeclError) Error() string {
	return fmt.Sprintf("variants: %s: %s %q: %s", e.Variant, e.What, e.Value, e.Reason)
}

// Declare returns the variant d declares. Register it with
// convolve.Register.
func Declare(d Decl) *Variant {
	v := &Variant{Desc: d.Desc, Block: d.Block, decl: &d}
	v.Setup = d.setup
	return v
}

// Validate checks the declaration for problem p and configuration cfg on
// a device described by info, without using a device, as the declared
// variant's Supports does: the problem against the capabilities and Check,
// the block and tunables settled from the tuning table or defaults, the family, its entry points (and their
// parameters against the arguments), constants and defines against its
// source, the grid rules, and the constant and shared memory against
// info's limits. It returns the error Plan would return on such a device
// before any device work: a *DeclError for a bad declaration, a
// *convolve.CapabilityError for a problem the variant refuses. Prepare is
// not run.
func (d *Decl) Validate(p convolve.Problem, cfg convolve.Config, info cudabind.DeviceInfo) error {
	v := &Variant{Desc: d.Desc, Block: d.Block, decl: d}
	_, err := v.supports(p, cfg, info)
	return err
}

// resolved is a declaration resolved for one plan.
type resolved struct {
	defines   map[string]string
	constants []constantValues
	scratch   int64
	kernels   []launch
}

type constantValues struct {
	name   string
	values []float32
}

// launch is one kernel launch of a run.
type launch struct {
	name        string
	grid, block cudabind.Dim3
	shared      int
	args        []Arg
	fn          *cudabind.Function
	values      []any
}

// sourceName names the declaration's source in errors.
func (d *Decl) sourceName() string {
	if d.Source != nil && d.Source.Name != "" {
		return d.Source.Name
	}
	return d.Family + ".cu"
}

func (d *Decl) declErr(what, value, reason string) error {
	return &DeclError{Variant: d.Desc.Name, What: what, Value: value, Reason: reason}
}

// resolve checks the declaration against the plan's problem and device
// limits and works out everything setup needs, without device work.
func (d *Decl) resolve(b *Base) (*resolved, error) {
	src, err := d.scan()
	if err != nil {
		return nil, d.declErr("kernel family", d.Family, err.Error())
	}
	if err := d.checkKernels(src); err != nil {
		return nil, err
	}
	for _, c := range d.Constants {
		if !src.constants[c.Name] {
			return nil, d.declErr("constant", c.Name, fmt.Sprintf("%s declares no __constant__ array of that name (has %s)", d.sourceName(), keys(src.constants)))
		}
		if c.Values == nil {
			return nil, d.declErr("constant", c.Name, "no Values")
		}
	}
	if d.Check != nil {
		if err := d.Check(b); err != nil {
			return nil, err
		}
	}
	r := &resolved{defines: map[string]string{}}
	if d.Defines != nil {
		defs, err := d.Defines(b)
		if err != nil {
			return nil, err
		}
		for k, v := range defs {
			if !src.idents[k] {
				return nil, d.declErr("define", k, fmt.Sprintf("%s and its headers never read it", d.sourceName()))
			}
			r.defines[k] = v
		}
	}
	if b.outStride > 0 {
		if !src.idents["OUT_S"] {
			return nil, d.declErr("OutRowAlign", strconv.Itoa(d.OutRowAlign), fmt.Sprintf("%s and its headers never read OUT_S", d.sourceName()))
		}
		r.defines["OUT_S"] = strconv.Itoa(b.outStride)
	}
	kw, kh := b.Problem.KernelSize()
	tile := Tile{Block: b.Block, KW: kw, KH: kh, RY: 1, RX: 1, Defines: r.defines}
	for _, m := range []struct {
		name string
		dst  *int
	}{{"RY", &tile.RY}, {"RX", &tile.RX}} {
		name, dst := m.name, m.dst
		if s, ok := r.defines[name]; ok {
			n, err := strconv.Atoi(s)
			if err != nil || n < 1 {
				return nil, d.declErr("define", name+"="+s, "want a positive integer")
			}
			*dst = n
		}
	}

	if err := d.constantValues(b, r); err != nil {
		return nil, err
	}

	if d.Scratch != nil {
		r.scratch = d.Scratch(b)
		if r.scratch <= 0 {
			return nil, d.declErr("scratch buffer", strconv.FormatInt(r.scratch, 10), "want a positive number of floats")
		}
		if r.scratch > math.MaxInt32 {
			b.Index64 = true
		}
	}

	if err := d.launches(b, tile, r); err != nil {
		return nil, err
	}
	return r, nil
}

// constantValues adds the values of d's __constant__ arrays on b's
// problem to r, checked against the device's constant memory.
func (d *Decl) constantValues(b *Base, r *resolved) error {
	floats := 0
	for _, c := range d.Constants {
		v, err := c.Values(b)
		if err != nil {
			return err
		}
		if len(v) == 0 {
			return d.declErr("constant", c.Name, "no values")
		}
		floats += len(v)
		r.constants = append(r.constants, constantValues{name: c.Name, values: v})
	}
	if floats > 0 {
		if err := b.CheckConstant(floats); err != nil {
			return err
		}
	}
	return nil
}

// launches adds to r the launch of each kernel d selects for b (its
// grid, block and shared memory, checked against the device's), for the
// tile's block, filter and defines.
func (d *Decl) launches(b *Base, tile Tile, r *resolved) error {
	names, err := d.selected(b)
	if err != nil {
		return err
	}
	for _, name := range names {
		i := slices.IndexFunc(d.Kernels, func(k Kernel) bool { return k.Name == name })
		if i < 0 {
			return d.declErr("selected kernel", name, "not among the declared Kernels")
		}
		k := d.Kernels[i]
		l := launch{name: k.Name, args: k.Args}
		if l.grid, l.block, err = d.grid(b, k.Grid, tile, r.defines); err != nil {
			return err
		}
		if k.Shared != nil {
			l.shared = k.Shared(tile)
			if err := b.CheckShared(l.shared); err != nil {
				return err
			}
		}
		r.kernels = append(r.kernels, l)
	}
	return nil
}

// checkKernels checks what of the kernels the source decides: entry
// points, grid rules and arguments.
func (d *Decl) checkKernels(src *familyInfo) error {
	if len(d.Kernels) == 0 {
		return d.declErr("kernels", "", "the declaration lists none")
	}
	for _, k := range d.Kernels {
		params, ok := src.entries[k.Name]
		if !ok {
			return d.declErr("entry point", k.Name, fmt.Sprintf("%s has no extern \"C\" __global__ function of that name (has %s)", d.sourceName(), keys(src.entries)))
		}
		if _, ok := gridRuleNames[k.Grid]; !ok {
			return d.declErr("grid rule", k.Grid.String(), fmt.Sprintf("kernel %s: want PerPixel, PerRows, PerPaddedPixel or PerTile", k.Name))
		}
		if (k.Grid == PerRows || k.Grid == PerTile) && !src.idents["RY"] {
			return d.declErr("grid rule", k.Grid.String(), fmt.Sprintf("kernel %s: %s does not read RY", k.Name, d.sourceName()))
		}
		if k.Grid == PerTile && !src.idents["RX"] {
			return d.declErr("grid rule", k.Grid.String(), fmt.Sprintf("kernel %s: %s does not read RX", k.Name, d.sourceName()))
		}
		for _, a := range k.Args {
			switch {
			case a < ArgIn:
				return d.declErr("argument", a.String(), "kernel "+k.Name+": no such argument")
			case a == argScratch && d.Scratch == nil:
				return d.declErr("argument", a.String(), "kernel "+k.Name+": the declaration has no Scratch")
			case a >= argPrepared && d.Prepare == nil:
				return d.declErr("argument", a.String(), "kernel "+k.Name+": the declaration has no Prepare")
			}
		}
		if len(k.Args) != len(params) {
			return d.declErr("arguments", fmt.Sprint(k.Args), fmt.Sprintf("kernel %s takes %d parameters, the declaration gives %d", k.Name, len(params), len(k.Args)))
		}
		for i, a := range k.Args {
			if want := a.kind(); want != paramOther && params[i] != paramOther && want != params[i] {
				return d.declErr("argument", a.String(), fmt.Sprintf("kernel %s: parameter %d is of kind %v, %v fills one of kind %v", k.Name, i+1, params[i], a, want))
			}
		}
	}
	return nil
}

// selected returns the names of the kernels a run launches.
func (d *Decl) selected(b *Base) ([]string, error) {
	if d.Select == nil {
		var names []string
		for _, k := range d.Kernels {
			names = append(names, k.Name)
		}
		return names, nil
	}
	names, err := d.Select(b)
	if err != nil {
		return nil, err
	}
	if len(names) == 0 {
		return nil, d.declErr("selected kernels", "", "Select picked none")
	}
	return names, nil
}

// grid applies rule to the plan's image.
func (d *Decl) grid(b *Base, rule GridRule, t Tile, defines map[string]string) (grid, block cudabind.Dim3, err error) {
	in := b.Problem.Input
	w, h := in.Width, in.Height
	switch rule {
	case PerPixel:
	case PerRows:
		if _, ok := defines["RY"]; !ok {
			return grid, block, d.declErr("grid rule", rule.String(), "Defines sets no RY")
		}
		h = (h + t.RY - 1) / t.RY
	case PerPaddedPixel:
		w, h = w+t.KW-1, h+t.KH-1
	case PerTile:
		for _, name := range []string{"RX", "RY"} {
			if _, ok := defines[name]; !ok {
				return grid, block, d.declErr("grid rule", rule.String(), "Defines sets no "+name)
			}
		}
		w, h = (w+t.RX-1)/t.RX, (h+t.RY-1)/t.RY
	default:
		return grid, block, d.declErr("grid rule", rule.String(), "want PerPixel, PerRows, PerPaddedPixel or PerTile")
	}
	grid, block, err = Grid(w, h, in.Channels, b.Block)
	if err != nil {
		return grid, block, named(b.Name, err)
	}
	if rule == PerTile && defines["CH_IN_X"] == "1" {
		if int64(grid.X)*int64(grid.Z) > math.MaxInt32 {
			return grid, block, &convolve.CapabilityError{Variant: b.Name, What: "grid",
				Value: fmt.Sprintf("%d tile columns of %d channels in gridDim.x (at most %d)", grid.X, grid.Z, math.MaxInt32)}
		}
		grid.X, grid.Z = grid.X*grid.Z, 1
	}
	return grid, block, nil
}

// setup is the Setup of every declared variant: it pads the device rows
// the declaration asks for, resolves it for the plan, allocates the
// scratch buffer, runs Prepare, compiles the source, uploads the
// constants, binds each kernel's arguments and sets Enqueue to launch the
// kernels in order.
func (d *Decl) setup(b *Base) error {
	if err := b.PadInputRows(d.InRowAlign); err != nil {
		return err
	}
	if err := b.PadOutputRows(d.OutRowAlign); err != nil {
		return err
	}
	r, err := d.resolve(b)
	if err != nil {
		return err
	}
	args := &argValues{d: d, b: b}
	if r.scratch > 0 {
		if args.scratch, err = b.Alloc(r.scratch * 4); err != nil {
			return fmt.Errorf("scratch buffer: %w", err)
		}
	}
	if d.Prepare != nil {
		if args.prepared, err = d.Prepare(b); err != nil {
			return err
		}
	}
	mod, err := d.compile(b, r)
	if err != nil {
		return err
	}
	for i := range r.kernels {
		if err := args.bind(mod, &r.kernels[i]); err != nil {
			return err
		}
	}
	b.Enqueue = func(x *cudabind.Exec, s cudabind.Stream) error {
		for _, l := range r.kernels {
			if err := x.Launch(l.fn, l.grid, l.block, l.shared, s, l.values...); err != nil {
				return err
			}
		}
		return nil
	}
	return nil
}

// compile compiles the declaration's source (Source, or the kernel family)
// with the resolved macros and uploads the resolved constants into it.
func (d *Decl) compile(b *Base, r *resolved) (*cudabind.Module, error) {
	var mod *cudabind.Module
	var err error
	if d.Source != nil {
		mod, err = b.CompileSource(d.source(), r.defines)
	} else {
		mod, err = b.Compile(d.Family, r.defines)
	}
	if err != nil {
		return nil, err
	}
	for _, c := range r.constants {
		if err := b.SetConstant(mod, c.name, c.values); err != nil {
			return nil, err
		}
	}
	return mod, nil
}

// argValues are the values a declared plan's kernel arguments take: the
// plan's buffers and dimensions, the scratch buffer, Prepare's values and
// the filter in global memory, uploaded at the first kernel that takes
// it.
type argValues struct {
	d        *Decl
	b        *Base
	scratch  cudabind.DevPtr
	prepared []any
	filter   cudabind.DevPtr
}

// bind looks up l's function in mod, with its shared memory, and sets its
// argument values.
func (v *argValues) bind(mod *cudabind.Module, l *launch) error {
	var err error
	if l.fn, err = v.b.Function(mod, l.name, l.shared); err != nil {
		return err
	}
	for _, a := range l.args {
		val, err := v.value(a, l.name)
		if err != nil {
			return err
		}
		l.values = append(l.values, val)
	}
	return nil
}

// value is the value of argument a of kernel; an argPrepared past
// Prepare's values is a *DeclError.
func (v *argValues) value(a Arg, kernel string) (any, error) {
	b := v.b
	switch {
	case a == ArgIn:
		return b.In, nil
	case a == ArgOut:
		return b.Out, nil
	case a == ArgWidth:
		w, _ := b.Dims()
		return w, nil
	case a == ArgHeight:
		_, h := b.Dims()
		return h, nil
	case a == ArgStride:
		return b.Stride(), nil
	case a == argScratch:
		return v.scratch, nil
	case a == argFilter:
		return v.filterBuffer()
	case a >= argPrepared && int(a-argPrepared) < len(v.prepared):
		return v.prepared[a-argPrepared], nil
	}
	return nil, v.d.declErr("argument", a.String(), fmt.Sprintf("kernel %s: Prepare returned %d values", kernel, len(v.prepared)))
}

// filterBuffer is the device copy of the filter's weights (FilterWeights),
// uploaded on first use.
func (v *argValues) filterBuffer() (cudabind.DevPtr, error) {
	if v.filter != 0 {
		return v.filter, nil
	}
	weights, err := FilterWeights(v.b)
	if err != nil {
		return 0, err
	}
	if v.filter, err = v.b.UploadFloats(weights); err != nil {
		return 0, err
	}
	return v.filter, nil
}

// familyInfo is what a kernel family's source declares.
type familyInfo struct {
	entries   map[string][]paramKind // extern "C" __global__ functions and their parameters
	constants map[string]bool        // __constant__ arrays
	idents    map[string]bool        // every identifier of the source and its headers, comments left out
}

var (
	familyCache   sync.Map // family name -> *familyInfo
	reEntry       = regexp.MustCompile(`extern\s+"C"\s+__global__\s+void\s+(?:__launch_bounds__\s*\([^)]*\)\s*)?(\w+)\s*\(`)
	reConstant    = regexp.MustCompile(`__constant__\s+[\w\s]*?(\w+)\s*\[`)
	reInclude     = regexp.MustCompile(`(?m)^\s*#\s*include\s+"([^"]+)"`)
	reIdent       = regexp.MustCompile(`[A-Za-z_]\w*`)
	reLineComment = regexp.MustCompile(`//[^\n]*`)
	reComment     = regexp.MustCompile(`(?s)/\*.*?\*/`)
)

// source is d.Source with kernels.Headers() for nil Headers.
func (d *Decl) source() cudabind.Source {
	src := *d.Source
	if src.Headers == nil {
		src.Headers = kernels.Headers()
	}
	return src
}

// scan reads what the declaration's source declares: Source, or the
// embedded family (cached by name).
func (d *Decl) scan() (*familyInfo, error) {
	if d.Source != nil {
		src := d.source()
		return scanSource(src.Code, src.Headers), nil
	}
	if fi, ok := familyCache.Load(d.Family); ok {
		return fi.(*familyInfo), nil
	}
	if d.Family == "" {
		return nil, fmt.Errorf("no family named")
	}
	code, err := kernels.Source(d.Family)
	if err != nil {
		return nil, err
	}
	fi := scanSource(code, kernels.Headers())
	familyCache.Store(d.Family, fi)
	return fi, nil
}

// scanSource reads what src and the headers it includes declare.
func scanSource(src string, headers map[string]string) *familyInfo {
	text := stripComments(src)
	seen := map[string]bool{}
	for queue := []string{text}; len(queue) > 0; queue = queue[1:] {
		for _, m := range reInclude.FindAllStringSubmatch(queue[0], -1) {
			if h, ok := headers[m[1]]; ok && !seen[m[1]] {
				seen[m[1]] = true
				h = stripComments(h)
				text += "\n" + h
				queue = append(queue, h)
			}
		}
	}
	fi := &familyInfo{entries: map[string][]paramKind{}, constants: map[string]bool{}, idents: map[string]bool{}}
	for _, m := range reEntry.FindAllStringSubmatchIndex(text, -1) {
		name := text[m[2]:m[3]]
		params := text[m[1]:]
		if end := strings.IndexByte(params, ')'); end >= 0 {
			params = params[:end]
		}
		fi.entries[name] = paramKinds(params)
	}
	for _, m := range reConstant.FindAllStringSubmatch(text, -1) {
		fi.constants[m[1]] = true
	}
	for _, id := range reIdent.FindAllString(text, -1) {
		fi.idents[id] = true
	}
	return fi
}

// paramKind is what a kernel parameter holds, as far as an Arg can say.
type paramKind int

const (
	paramOther   paramKind = iota // a texture object or any other type
	paramPointer                  // a device pointer
	paramInt                      // int: ArgWidth, ArgHeight
	paramIndex                    // idx_t: ArgStride
)

func (k paramKind) String() string {
	return [...]string{"other", "pointer", "int", "idx_t"}[k]
}

// paramKinds classifies the parameters of a parameter list.
func paramKinds(list string) []paramKind {
	if strings.TrimSpace(list) == "" {
		return nil
	}
	var kinds []paramKind
	for _, p := range strings.Split(list, ",") {
		words := reIdent.FindAllString(p, -1)
		switch {
		case strings.Contains(p, "*"):
			kinds = append(kinds, paramPointer)
		case slices.Contains(words, "idx_t"):
			kinds = append(kinds, paramIndex)
		case slices.Contains(words, "int") && len(words) == 2:
			kinds = append(kinds, paramInt)
		default:
			kinds = append(kinds, paramOther)
		}
	}
	return kinds
}

// kind is the parameter kind a argument fills; paramOther for the
// prepared values, which may be of any type.
func (a Arg) kind() paramKind {
	switch a {
	case ArgIn, ArgOut, argFilter, argScratch:
		return paramPointer
	case ArgWidth, ArgHeight:
		return paramInt
	case ArgStride:
		return paramIndex
	}
	return paramOther
}

func stripComments(s string) string {
	return reLineComment.ReplaceAllString(reComment.ReplaceAllString(s, " "), "")
}

func keys[V any](m map[string]V) string {
	var k []string
	for s := range m {
		k = append(k, s)
	}
	slices.Sort(k)
	if len(k) == 0 {
		return "none"
	}
	return strings.Join(k, ", ")
}
