package variants

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"time"
	"unsafe"

	"github.com/convbench/convbench/convolve"
	"github.com/convbench/convbench/cudabind"
	"github.com/convbench/convbench/gpu/kernels"
	"github.com/convbench/convbench/tables/tuning"
)

// defaultBlock is the block shape of a plan whose Config leaves it zero and
// whose variant names none: report 000's 16x16.
var defaultBlock = convolve.Block{X: 16, Y: 16}

// Variant is a GPU variant built on Base: its description, its default
// block shape and the Setup that compiles its kernels and sets the plan's
// Enqueue. It implements convolve.Variant.
type Variant struct {
	Desc convolve.Description
	// Block is used when Config.Block is zero; the zero value means
	// defaultBlock.
	Block convolve.Block
	// Setup completes a plan whose buffers Base has allocated: compile,
	// upload the filter, allocate what else the variant needs (through
	// b.Alloc, so Close frees it) and set b.Enqueue. Declare writes it
	// from a Decl.
	Setup func(b *Base) error
	// Check, when set, is the part of Setup's refusals that needs no
	// device (grids past CUDA's limits, say), for a variant whose Setup is
	// written by hand: Supports runs it on a Base that holds the problem,
	// the settled configuration and the device's limits. Declared
	// variants check their declaration instead (Decl.Validate).
	Check func(b *Base) error

	decl *Decl // the declaration Setup comes from, if any
}

// Supports is the variant's validity rule (convolve.Supporter): whether a
// plan of p under cfg on a device with limits lim would be refused before
// any device work, without a device. It checks the capabilities, the
// image's grid, the block and tunables the plan would settle on (from the
// tuning table for lim's device, or the family's defaults) and the
// declaration's kernels against lim's shared and constant memory (or
// Check); Plan calls it first, with the device's own limits.
func (v *Variant) Supports(p convolve.Problem, cfg convolve.Config, lim convolve.DeviceLimits) error {
	_, err := v.supports(p, cfg, InfoOf(lim))
	return err
}

// supports is Supports on a device described by info; it returns the
// checked Base, with no device, for Plan to go on from.
func (v *Variant) supports(p convolve.Problem, cfg convolve.Config, info cudabind.DeviceInfo) (*Base, error) {
	b, err := newBase(v.Desc, v.Block, p, cfg)
	if err != nil {
		return nil, err
	}
	b.Info = info
	if sp := v.Desc.Caps.Space; sp != nil {
		set, err := tuning.Tables.Default()
		if err == nil {
			err = applyTuning(b, sp, set)
		}
		if err != nil {
			return nil, fmt.Errorf("variants: %s: %w", v.Desc.Name, err)
		}
	}
	switch {
	case v.decl != nil:
		c := *b
		c.setInStride(v.decl.InRowAlign)
		c.setOutStride(v.decl.OutRowAlign)
		if _, err := v.decl.resolve(&c); err != nil {
			return nil, named(v.Desc.Name, err)
		}
	case v.Check != nil:
		if err := v.Check(b); err != nil {
			return nil, named(v.Desc.Name, err)
		}
	}
	return b, nil
}

// DeviceLimits returns the limits of the device a plan under cfg runs on
// (convolve.Supporter), opening it; a *cudabind.UnavailableError where
// there is none.
func (v *Variant) DeviceLimits(cfg convolve.Config) (convolve.DeviceLimits, error) {
	d, err := configDevice(v.Desc.Name, cfg)
	if err != nil {
		return convolve.DeviceLimits{}, err
	}
	return Limits(d.Info()), nil
}

// Describe returns the variant's description.
func (v *Variant) Describe() convolve.Description { return v.Desc }

// Plan checks p and cfg against the capabilities, opens the default
// device (returning its *cudabind.UnavailableError when there is none),
// allocates the buffers, completes the block and tunables cfg leaves
// unset from the device's tuning table where the variant declares a
// tuning space (Capabilities.Space; see package tables/tuning), and runs
// Setup. The result is a
// convolve.DevicePlan.
func (v *Variant) Plan(p convolve.Problem, cfg convolve.Config) (convolve.Plan, error) {
	return v.plan(nil, p, cfg)
}

// PlanOn plans v on device d in place of the device cfg.Devices names
// (cfg.Devices is ignored): the way a multi-device plan puts one plan of
// a single-device variant on each of its devices, several Devices opened
// on one ordinal being logical devices of that GPU. v must be a *Variant
// (every declared variant and user kernel is); other variants are an
// error naming them. The result is the plan's *Base.
func PlanOn(v convolve.Variant, d *cudabind.Device, p convolve.Problem, cfg convolve.Config) (*Base, error) {
	vv, ok := v.(*Variant)
	if !ok {
		return nil, fmt.Errorf("variants: %s (%T) cannot be planned on a chosen device: it is not built on variants.Variant", v.Describe().Name, v)
	}
	if d == nil {
		return nil, fmt.Errorf("variants: %s: PlanOn a nil device", vv.Desc.Name)
	}
	cfg.Devices = nil
	pl, err := vv.plan(d, p, cfg)
	if err != nil {
		return nil, err
	}
	return pl.(*Base), nil
}

// plan is Plan on device d, or on the device cfg names when d is nil.
func (v *Variant) plan(d *cudabind.Device, p convolve.Problem, cfg convolve.Config) (convolve.Plan, error) {
	if v.Setup == nil {
		return nil, fmt.Errorf("variants: %s has no Setup", v.Desc.Name)
	}
	// A problem or configuration invalid on any device is refused before
	// a device is opened.
	if _, err := newBase(v.Desc, v.Block, p, cfg); err != nil {
		return nil, err
	}
	if d == nil {
		var err error
		if d, err = configDevice(v.Desc.Name, cfg); err != nil {
			return nil, err
		}
	}
	// The validity rule first, on this device's limits: what it refuses is
	// refused before any device work, and the block and tunables it
	// settles on are the plan's.
	checked, err := v.supports(p, cfg, d.Info())
	if err != nil {
		return nil, err
	}
	b, err := newBaseOn(d, v.Desc, v.Block, p, checked.Config)
	if err != nil {
		return nil, err
	}
	b.Block = checked.Block
	b.setting, b.settingSource = checked.setting, checked.settingSource
	if err := v.Setup(b); err != nil {
		b.Close()
		return nil, err
	}
	if b.Enqueue == nil {
		b.Close()
		return nil, fmt.Errorf("variants: %s: Setup left Enqueue unset", v.Desc.Name)
	}
	return b, nil
}

// Base is the part every GPU plan shares: the checked problem and
// configuration, the device, the device copy of the input (host layout,
// row stride included) and the packed float32 (or, for RGB->YUV, uint8)
// output, the timing events and the list of what Close releases. A variant's
// Setup adds its kernels and sets Enqueue; Base then implements
// convolve.DevicePlan.
type Base struct {
	Name    string
	Problem convolve.Problem
	Config  convolve.Config
	Block   convolve.Block
	Dev     *cudabind.Device
	Info    cudabind.DeviceInfo
	// Filter is the problem's filter oriented for correlation
	// (Filter.Oriented(Problem.Mode)); nil for operations without one.
	Filter *convolve.Filter
	// In holds the input as the host lays it out: Problem.Input.Len()
	// elements. Out holds the output geometry, packed.
	In, Out           cudabind.DevPtr
	InBytes, OutBytes int64
	// Index64 is true when some buffer has 2^31 elements or more; the
	// kernels are then compiled with INDEX64 and take 64-bit strides.
	Index64 bool
	// Enqueue enqueues the device work of one run on stream s, without
	// synchronising. TimeKernel calls it n times between two events.
	Enqueue func(x *cudabind.Exec, s cudabind.Stream) error
	// CopyIn, when set, replaces the plain copy of the host input into In
	// (texture variants copy into pitched arrays instead). It runs on the
	// device goroutine and must finish before it returns.
	CopyIn func(x *cudabind.Exec, in *convolve.Image) error
	// FiniteInput is the variant's Capabilities.FiniteInput: Run and
	// Upload then refuse an input with a NaN or infinite element.
	FiniteInput bool
	// inStride is the device input's row stride in elements where
	// PadInputRows made it wider than the host's; 0 otherwise.
	inStride int
	// outStride is the device output's row stride in elements where
	// PadOutputRows made it wider than packed rows; 0 otherwise.
	outStride int

	stream      cudabind.Stream
	start, stop cudabind.Event
	// graphs[0] replays one run of Enqueue, graphs[1] GraphBatch runs;
	// TimeKernelGraph captures them on first use.
	graphs  [2]cudabind.Graph
	allocs  []cudabind.DevPtr
	closers []func(x *cudabind.Exec) error
	closed  bool
	// setting and settingSource are what applyTuning chose.
	setting       convolve.Setting
	settingSource string
}

// maxGridYZ is the largest gridDim.y and gridDim.z CUDA accepts.
const maxGridYZ = 65535

// NewBase checks p and cfg against desc.Caps (errors name the variant),
// opens the device cfg.Devices names (device 0 when it names none; more
// than one is a *convolve.CapabilityError) and allocates the input and
// output buffers and the timing events. block is the variant's default
// shape (zero: defaultBlock), used when cfg.Block is zero.
func NewBase(desc convolve.Description, block convolve.Block, p convolve.Problem, cfg convolve.Config) (*Base, error) {
	return newBaseOn(nil, desc, block, p, cfg)
}

// newBaseOn is NewBase on device d, or on the device cfg names when d is
// nil.
func newBaseOn(d *cudabind.Device, desc convolve.Description, block convolve.Block, p convolve.Problem, cfg convolve.Config) (*Base, error) {
	b, err := newBase(desc, block, p, cfg)
	if err != nil {
		return nil, err
	}
	if d == nil {
		if d, err = configDevice(desc.Name, cfg); err != nil {
			return nil, err
		}
	}
	b.Dev = d
	b.Info = d.Info()
	err = d.Do(func(x *cudabind.Exec) error {
		var err error
		if b.In, err = b.alloc(x, b.InBytes); err != nil {
			return fmt.Errorf("input buffer: %w", err)
		}
		if b.Out, err = b.alloc(x, b.OutBytes); err != nil {
			return fmt.Errorf("output buffer: %w", err)
		}
		if b.stream, err = x.NewStream(); err != nil {
			return err
		}
		b.closers = append(b.closers, func(x *cudabind.Exec) error { return x.DestroyStream(b.stream) })
		if b.start, err = x.NewEvent(); err != nil {
			return err
		}
		b.closers = append(b.closers, func(x *cudabind.Exec) error { return x.DestroyEvent(b.start) })
		if b.stop, err = x.NewEvent(); err != nil {
			return err
		}
		b.closers = append(b.closers, func(x *cudabind.Exec) error { return x.DestroyEvent(b.stop) })
		return nil
	})
	if err != nil {
		b.Close()
		return nil, fmt.Errorf("variants: %s: plan %v: %w", desc.Name, p, err)
	}
	return b, nil
}

// newBase is the part of NewBase that needs no device: the checks of p
// and cfg, the block shape, the private filter and the buffer sizes.
func newBase(desc convolve.Description, block convolve.Block, p convolve.Problem, cfg convolve.Config) (*Base, error) {
	if err := desc.Caps.Check(p); err != nil {
		return nil, named(desc.Name, err)
	}
	if err := desc.Caps.CheckConfig(cfg); err != nil {
		return nil, named(desc.Name, err)
	}
	if cfg.Block != (convolve.Block{}) {
		block = cfg.Block
	}
	if block == (convolve.Block{}) {
		block = defaultBlock
	}
	// A private copy of the filter: the weights are uploaded in Setup, and
	// later changes to the caller's filter must not reach the plan.
	p.Filter = p.Filter.Clone()
	b := &Base{Name: desc.Name, Problem: p, Config: cfg, Block: block, FiniteInput: desc.Caps.FiniteInput}
	if p.Op == convolve.Filter2D {
		b.Filter = p.Filter.Oriented(p.Mode)
	}
	in, out := p.Input, p.OutputGeometry()
	if in.Width >= 1<<30 || in.Height >= 1<<30 {
		return nil, &convolve.CapabilityError{Variant: desc.Name, What: "image size",
			Value: fmt.Sprintf("%dx%d (sides must be below 2^30)", in.Width, in.Height)}
	}
	if _, _, err := Grid(in.Width, in.Height, in.Channels, block); err != nil {
		return nil, named(desc.Name, err)
	}
	b.InBytes = int64(in.Len()) * int64(in.Type.Size())
	b.OutBytes = int64(out.Len()) * int64(out.Type.Size())
	b.Index64 = int64(in.Len()) > math.MaxInt32 || int64(out.Len()) > math.MaxInt32

	return b, nil
}

func named(variant string, err error) error { return convolve.NameVariant(variant, err) }

// configDevice opens the device cfg.Devices names for a single-device
// plan of variant: device 0 when it names none (cudabind.Default), the
// shared device of its one ordinal otherwise (cudabind.Shared). Naming
// more than one is a *convolve.CapabilityError.
func configDevice(variant string, cfg convolve.Config) (*cudabind.Device, error) {
	switch len(cfg.Devices) {
	case 0:
		return cudabind.Default()
	case 1:
		return cudabind.Shared(cfg.Devices[0])
	}
	return nil, &convolve.CapabilityError{Variant: variant, What: "devices",
		Value: convolve.FormatDevices(cfg.Devices) + " (a single-device variant runs on one; the gpu-slab variants run on several)"}
}

// Grid is the grid of bx x by blocks covering a w x h image with one
// block layer per channel (blockIdx.z is the channel). It fails when the
// grid exceeds CUDA's limits.
func Grid(w, h, channels int, b convolve.Block) (grid, block cudabind.Dim3, err error) {
	gx := (w + b.X - 1) / b.X
	gy := (h + b.Y - 1) / b.Y
	if gy > maxGridYZ || channels > maxGridYZ || gx > math.MaxInt32 {
		return grid, block, &convolve.CapabilityError{What: "grid",
			Value: fmt.Sprintf("%dx%dx%d blocks of %v for a %dx%d image (gridDim.y and .z at most %d)", gx, gy, channels, b, w, h, maxGridYZ)}
	}
	return cudabind.Dim3{X: uint32(gx), Y: uint32(gy), Z: uint32(channels)},
		cudabind.Dim3{X: uint32(b.X), Y: uint32(b.Y), Z: 1}, nil
}

// Grid is Grid for the plan's image and block.
func (b *Base) Grid() (grid, block cudabind.Dim3) {
	in := b.Problem.Input
	grid, block, _ = Grid(in.Width, in.Height, in.Channels, b.Block) // checked in NewBase
	return grid, block
}

// inType is the CUDA element type of an input element type.
func inType(t convolve.ElemType) string {
	switch t {
	case convolve.Uint8:
		return "unsigned char"
	case convolve.Int16:
		return "short"
	}
	return "float"
}

// Defines returns the specialization macros border.cuh and the kernel
// families read for problem p run with block shape b: KW, KH, BX, BY,
// BORDER, IN_T, CHANNELS, PLANAR, and INDEX64 when index64 is set.
func Defines(p convolve.Problem, b convolve.Block, index64 bool) map[string]string {
	kw, kh := p.KernelSize()
	planar := "0"
	if p.Input.Layout == convolve.Planar {
		planar = "1"
	}
	d := map[string]string{
		"KW":       strconv.Itoa(kw),
		"KH":       strconv.Itoa(kh),
		"BX":       strconv.Itoa(b.X),
		"BY":       strconv.Itoa(b.Y),
		"BORDER":   strconv.Itoa(int(p.Border)),
		"IN_T":     inType(p.Input.Type),
		"CHANNELS": strconv.Itoa(p.Input.Channels),
		"PLANAR":   planar,
	}
	if index64 {
		d["INDEX64"] = ""
	}
	return d
}

// sourceOf returns the NVRTC source of a kernel family with its headers.
func sourceOf(family string) (cudabind.Source, error) {
	code, err := kernels.Source(family)
	if err != nil {
		return cudabind.Source{}, err
	}
	return cudabind.Source{Name: family + ".cu", Code: code, Headers: kernels.Headers()}, nil
}

// CompileOptions are the NVRTC options of a plan: Defines plus extra
// macros, --fmad=false under Config.NoFMA, --use_fast_math under
// Config.FastMath. Arch is left for the device to fill.
func CompileOptions(p convolve.Problem, cfg convolve.Config, b convolve.Block, index64 bool, extra map[string]string) cudabind.CompileOptions {
	defs := Defines(p, b, index64)
	for k, v := range extra {
		defs[k] = v
	}
	return cudabind.CompileOptions{Defines: defs, FMAD: !cfg.NoFMA, FastMath: cfg.FastMath}
}

// Compile compiles kernel family for the plan's specialization, with extra
// macros added to (or overriding) Defines.
func (b *Base) Compile(family string, extra map[string]string) (*cudabind.Module, error) {
	src, err := sourceOf(family)
	if err != nil {
		return nil, err
	}
	return b.CompileSource(src, extra)
}

// CompileSource is Compile for a source of any origin (a kernel written
// outside gpu/kernels, with kernels.Headers() as its headers).
func (b *Base) CompileSource(src cudabind.Source, extra map[string]string) (*cudabind.Module, error) {
	mod, err := b.Dev.Compile(src, CompileOptions(b.Problem, b.Config, b.Block, b.Index64, extra))
	if err != nil {
		return nil, fmt.Errorf("variants: %s: compile %s for %v: %w", b.Name, src.Name, b.Problem, err)
	}
	// The module is the plan's own: its __constant__ arrays hold this
	// plan's weights.
	b.OnClose(func(*cudabind.Exec) error { return mod.Close() })
	return mod, nil
}

// Function returns kernel name of mod, with its dynamic shared memory
// limit raised to sharedBytes when that exceeds the default 48 KB. A
// request past the device's opt-in limit is a *convolve.CapabilityError.
func (b *Base) Function(mod *cudabind.Module, name string, sharedBytes int) (*cudabind.Function, error) {
	if err := b.CheckShared(sharedBytes); err != nil {
		return nil, err
	}
	fn, err := mod.Function(name)
	if err != nil {
		return nil, fmt.Errorf("variants: %s: %w", b.Name, err)
	}
	if sharedBytes > b.Info.SharedPerBlock {
		if err := fn.SetMaxDynamicShared(sharedBytes); err != nil {
			return nil, fmt.Errorf("variants: %s: raise the shared memory limit of %s to %d bytes: %w", b.Name, name, sharedBytes, err)
		}
	}
	return fn, nil
}

// CheckShared reports a *convolve.CapabilityError when a block needs more
// dynamic shared memory than the device allows per block even after
// opting in. A device description with no shared-memory limit (the zero
// limits of a rule checked for any device) checks nothing.
func (b *Base) CheckShared(bytes int) error {
	limit := max(b.Info.SharedPerBlockOptin, b.Info.SharedPerBlock)
	if limit > 0 && bytes > limit {
		kw, kh := b.Problem.KernelSize()
		return &convolve.CapabilityError{Variant: b.Name, What: "filter size",
			Value: fmt.Sprintf("%dx%d with block %v: the tile needs %d bytes of shared memory, the device allows %d per block", kw, kh, b.Block, bytes, limit)}
	}
	return nil
}

// CheckConstant reports a *convolve.CapabilityError when floats weights
// do not fit in the device's constant memory.
func (b *Base) CheckConstant(floats int) error {
	limit := b.Info.ConstantBytes
	if limit <= 0 {
		limit = 64 << 10
	}
	if floats*4 > limit {
		kw, kh := b.Problem.KernelSize()
		return &convolve.CapabilityError{Variant: b.Name, What: "filter size",
			Value: fmt.Sprintf("%dx%d: %d bytes of weights exceed the %d bytes of constant memory", kw, kh, floats*4, limit)}
	}
	return nil
}

// SetConstant uploads weights into the __constant__ array name of mod.
func (b *Base) SetConstant(mod *cudabind.Module, name string, weights []float32) error {
	if err := b.CheckConstant(len(weights)); err != nil {
		return err
	}
	if len(weights) == 0 {
		return fmt.Errorf("variants: %s: no weights for %s", b.Name, name)
	}
	return b.Dev.Do(func(x *cudabind.Exec) error {
		return mod.SetConstant(x, name, unsafe.Pointer(&weights[0]), int64(len(weights))*4)
	})
}

// UploadFloats allocates a device buffer (freed by Close) holding v.
func (b *Base) UploadFloats(v []float32) (cudabind.DevPtr, error) {
	var p cudabind.DevPtr
	if len(v) == 0 {
		return p, fmt.Errorf("variants: %s: upload of an empty array", b.Name)
	}
	err := b.Dev.Do(func(x *cudabind.Exec) error {
		var err error
		if p, err = b.alloc(x, int64(len(v))*4); err != nil {
			return err
		}
		return x.CopyHtoD(p, unsafe.Pointer(&v[0]), int64(len(v))*4)
	})
	return p, err
}

// Alloc allocates bytes of device memory that Close frees.
func (b *Base) Alloc(bytes int64) (cudabind.DevPtr, error) {
	var p cudabind.DevPtr
	err := b.Dev.Do(func(x *cudabind.Exec) error {
		var err error
		p, err = b.alloc(x, bytes)
		return err
	})
	return p, err
}

func (b *Base) alloc(x *cudabind.Exec, bytes int64) (cudabind.DevPtr, error) {
	if err := b.CheckDeviceMemory(x, "a device buffer", bytes); err != nil {
		return 0, err
	}
	p, err := x.Alloc(bytes)
	if err != nil {
		return p, fmt.Errorf("variants: %s: allocate %d bytes: %w", b.Name, bytes, err)
	}
	b.allocs = append(b.allocs, p)
	return p, nil
}

// deviceFree is the device memory the driver reports free. Tests of the
// refusals replace it to stand for a fuller device without filling it,
// which would starve the test processes beside them.
var deviceFree = func(x *cudabind.Exec) (int64, error) {
	free, _, err := x.MemInfo()
	return free, err
}

// CheckDeviceMemory returns a *convolve.MemoryError when bytes exceed the
// device memory the driver reports free (cuMemGetInfo); what says what
// the bytes are for. Plans call it before each allocation. Where the
// driver cannot report its free memory the allocation itself decides.
func (b *Base) CheckDeviceMemory(x *cudabind.Exec, what string, bytes int64) error {
	free, err := deviceFree(x)
	if err != nil {
		return nil
	}
	if bytes > free {
		kw, kh := b.Problem.KernelSize()
		return &convolve.MemoryError{Variant: b.Name, Memory: "device",
			What:   fmt.Sprintf("%s for %v with a %dx%d filter", what, b.Problem.Input, kw, kh),
			Needed: bytes, Available: free}
	}
	return nil
}

// ReleaseInput frees In, for variants whose CopyIn keeps the input in
// buffers of their own. In is zero afterwards.
func (b *Base) ReleaseInput() error {
	if b.In == 0 {
		return nil
	}
	return b.Dev.Do(func(x *cudabind.Exec) error {
		for i, p := range b.allocs {
			if p == b.In {
				if err := x.Free(p); err != nil {
					return err
				}
				b.allocs = append(b.allocs[:i], b.allocs[i+1:]...)
				b.In = 0
				return nil
			}
		}
		return fmt.Errorf("variants: %s: input buffer not found among the plan's allocations", b.Name)
	})
}

// OnClose registers f to run on the device goroutine at Close, before the
// buffers are freed (texture objects, for instance). Closers run in
// reverse order of registration.
func (b *Base) OnClose(f func(x *cudabind.Exec) error) { b.closers = append(b.closers, f) }

// InStride is the row stride, in elements, of the device input In: the
// host image's (Problem.Input.RowStride), or the wider one PadInputRows
// set.
func (b *Base) InStride() int {
	if b.inStride > 0 {
		return b.inStride
	}
	return b.Problem.Input.RowStride()
}

// paddedStride is the row stride of s elements rounded up to a multiple
// of align (s itself for align 1 or less).
func paddedStride(s, align int) int {
	if align <= 1 {
		return s
	}
	return (s + align - 1) / align * align
}

// inRows is the number of rows of the input's data: its height, times
// its channels for planar layout.
func inRows(g convolve.Geometry) int {
	if g.Layout == convolve.Planar {
		return g.Channels * g.Height
	}
	return g.Height
}

// setInStride sets the device input's row stride to the host's rounded up
// to a multiple of align elements, and the buffer size and Index64 with
// it, without touching the device.
func (b *Base) setInStride(align int) {
	in := b.Problem.Input
	ds := paddedStride(in.RowStride(), align)
	if ds == in.RowStride() {
		return
	}
	b.inStride = ds
	b.InBytes = int64(inRows(in)) * int64(ds) * int64(in.Type.Size())
	b.Index64 = b.Index64 || int64(inRows(in))*int64(ds) > math.MaxInt32
}

// PadInputRows gives the device input rows that start on multiples of
// align elements, for kernels that read it in aligned vectors whatever
// the image's width (4099 columns, say): where the host stride is not
// such a multiple, In is replaced by a buffer of the wider stride, which
// Upload and Run fill with a two-dimensional copy, and InStride and
// Stride return the wider stride. It must run before the kernels'
// arguments are taken (Decl.InRowAlign runs it first in Setup).
func (b *Base) PadInputRows(align int) error {
	if b.CopyIn != nil {
		return fmt.Errorf("variants: %s: PadInputRows after CopyIn was set", b.Name)
	}
	b.setInStride(align)
	if b.inStride == 0 {
		return nil
	}
	if err := b.ReleaseInput(); err != nil {
		return err
	}
	in := b.Problem.Input
	es := int64(in.Type.Size())
	err := b.Dev.Do(func(x *cudabind.Exec) error {
		var err error
		b.In, err = b.alloc(x, b.InBytes)
		return err
	})
	if err != nil {
		return fmt.Errorf("input buffer: %w", err)
	}
	b.CopyIn = func(x *cudabind.Exec, im *convolve.Image) error {
		return x.CopyHtoD2D(b.In, int64(b.inStride)*es, HostData(im), int64(im.RowStride())*es,
			int64(im.RowElems())*es, int64(inRows(im.Geometry)))
	}
	return nil
}

// OutStride is the row stride, in elements, of the device output Out:
// packed rows (OutputGeometry's), or the wider one PadOutputRows set.
func (b *Base) OutStride() int {
	if b.outStride > 0 {
		return b.outStride
	}
	return b.Problem.OutputGeometry().RowStride()
}

// OutGeometry is the geometry of the device output Out: the problem's
// output geometry with the row stride OutStride.
func (b *Base) OutGeometry() convolve.Geometry {
	g := b.Problem.OutputGeometry()
	if b.outStride > 0 {
		g.Stride = b.outStride
	}
	return g
}

// setOutStride sets the device output's row stride to the packed one
// rounded up to a multiple of align elements, and the buffer size and
// Index64 with it, without touching the device.
func (b *Base) setOutStride(align int) {
	g := b.Problem.OutputGeometry()
	ds := paddedStride(g.RowStride(), align)
	if ds == g.RowStride() {
		return
	}
	b.outStride = ds
	n := int64(inRows(g)) * int64(ds)
	b.OutBytes = n * int64(g.Type.Size())
	b.Index64 = b.Index64 || n > math.MaxInt32
}

// PadOutputRows gives the device output rows that start on multiples of
// align elements, for kernels that store aligned vectors whatever the
// image's width: where packed rows are not such a multiple, Out is
// replaced by a buffer of the wider stride, which Download and Run read
// with a two-dimensional copy, and OutStride returns the wider stride
// (the family reads it as the macro OUT_S, border.cuh's out_offset). It
// must run before the kernels' arguments are taken (Decl.OutRowAlign
// runs it in Setup).
func (b *Base) PadOutputRows(align int) error {
	b.setOutStride(align)
	if b.outStride == 0 {
		return nil
	}
	return b.Dev.Do(func(x *cudabind.Exec) error {
		for i, p := range b.allocs {
			if p == b.Out {
				if err := x.Free(p); err != nil {
					return err
				}
				b.allocs = append(b.allocs[:i], b.allocs[i+1:]...)
				break
			}
		}
		var err error
		if b.Out, err = b.alloc(x, b.OutBytes); err != nil {
			return fmt.Errorf("output buffer: %w", err)
		}
		return nil
	})
}

// Stride is the device input's row stride (InStride) as the kernels'
// idx_t argument: int32, or int64 under Index64.
func (b *Base) Stride() any {
	s := b.InStride()
	if b.Index64 {
		return int64(s)
	}
	return int32(s)
}

// Dims returns the image width and height as kernel arguments.
func (b *Base) Dims() (w, h int32) {
	return int32(b.Problem.Input.Width), int32(b.Problem.Input.Height)
}

func (b *Base) checkInput(in *convolve.Image) error {
	if err := in.Check(); err != nil {
		return fmt.Errorf("variants: %s: input: %w", b.Name, err)
	}
	if in.Geometry.Packed() != b.Problem.Input.Packed() || in.RowStride() != b.Problem.Input.RowStride() {
		return fmt.Errorf("variants: %s: input %v does not match the planned %v", b.Name, in.Geometry, b.Problem.Input)
	}
	if b.FiniteInput {
		if err := convolve.CheckFiniteImage(in); err != nil {
			return named(b.Name, err)
		}
	}
	return nil
}

// CheckRun is what every Run of a GPU plan checks before it copies
// anything: the plan is open, in and out fit the plan, in is finite where
// the variant needs it (FiniteInput), and out's data does not overlap in's
// (convolve.CheckNoOverlap: the host side of the copies may run in chunks
// that interleave reads of in with writes of out).
func (b *Base) CheckRun(in, out *convolve.Image) error {
	if err := b.usable(); err != nil {
		return err
	}
	return b.Problem.CheckRun(b.Name, in, out, b.FiniteInput)
}

func (b *Base) checkOutput(out *convolve.Image) error {
	if err := out.Check(); err != nil {
		return fmt.Errorf("variants: %s: output: %w", b.Name, err)
	}
	want := b.Problem.OutputGeometry()
	if out.Width != want.Width || out.Height != want.Height || out.Channels != want.Channels ||
		out.Type != want.Type || out.Layout != want.Layout {
		return fmt.Errorf("variants: %s: output %v does not match the planned %v", b.Name, out.Geometry, want)
	}
	return nil
}

// HostData is the address of an image's first element, for copies
// between the image and device memory.
func HostData(im *convolve.Image) unsafe.Pointer {
	switch im.Type {
	case convolve.Uint8:
		return unsafe.Pointer(unsafe.SliceData(im.U8))
	case convolve.Int16:
		return unsafe.Pointer(unsafe.SliceData(im.I16))
	}
	return unsafe.Pointer(unsafe.SliceData(im.F32))
}

func (b *Base) copyIn(x *cudabind.Exec, in *convolve.Image) error {
	if b.CopyIn != nil {
		return b.CopyIn(x, in)
	}
	return x.CopyHtoD(b.In, HostData(in), b.InBytes)
}

// copyOut copies the device output into out: with one two-dimensional
// copy where the device rows are padded (PadOutputRows), else the packed
// rows whole, through a packed scratch image when out has padded rows.
func (b *Base) copyOut(x *cudabind.Exec, out *convolve.Image) error {
	want := b.Problem.OutputGeometry()
	if b.outStride > 0 {
		es := int64(want.Type.Size())
		return x.CopyDtoH2D(HostData(out), int64(out.RowStride())*es, b.Out, int64(b.outStride)*es,
			int64(want.RowElems())*es, int64(inRows(want)))
	}
	if out.RowStride() == want.RowStride() {
		return x.CopyDtoH(HostData(out), b.Out, b.OutBytes)
	}
	tmp, err := convolve.NewImage(want)
	if err != nil {
		return err
	}
	if err := x.CopyDtoH(HostData(tmp), b.Out, b.OutBytes); err != nil {
		return err
	}
	for c := 0; c < want.Channels; c++ {
		for y := 0; y < want.Height; y++ {
			for xx := 0; xx < want.Width; xx++ {
				out.Set(xx, y, c, tmp.At(xx, y, c))
			}
		}
	}
	return nil
}

func (b *Base) usable() error {
	if b.closed {
		return fmt.Errorf("variants: %s: %w", b.Name, convolve.ErrClosed)
	}
	return nil
}

// Upload copies in to the device.
func (b *Base) Upload(in *convolve.Image) error {
	if err := b.usable(); err != nil {
		return err
	}
	if err := b.checkInput(in); err != nil {
		return err
	}
	return b.Dev.Do(func(x *cudabind.Exec) error { return b.copyIn(x, in) })
}

// Download copies the device output into out.
func (b *Base) Download(out *convolve.Image) error {
	if err := b.usable(); err != nil {
		return err
	}
	if err := b.checkOutput(out); err != nil {
		return err
	}
	return b.Dev.Do(func(x *cudabind.Exec) error { return b.copyOut(x, out) })
}

// TimeKernel enqueues the device work n times between two events and
// returns the elapsed device time, all in one device task.
func (b *Base) TimeKernel(n int) (time.Duration, error) {
	if err := b.usable(); err != nil {
		return 0, err
	}
	if n < 1 {
		return 0, fmt.Errorf("variants: %s: TimeKernel(%d): need at least one run", b.Name, n)
	}
	var d time.Duration
	err := b.Dev.Do(func(x *cudabind.Exec) error {
		var err error
		d, err = b.timeEvents(x, func() error {
			for i := 0; i < n; i++ {
				if err := b.Enqueue(x, b.stream); err != nil {
					return err
				}
			}
			return nil
		})
		return err
	})
	if err != nil {
		return 0, fmt.Errorf("variants: %s: %w", b.Name, err)
	}
	return d, nil
}

// timeEvents records the start event on the plan's stream, lets enqueue
// put the timed work there, records the stop event, waits for it and
// returns the device time between the two.
func (b *Base) timeEvents(x *cudabind.Exec, enqueue func() error) (time.Duration, error) {
	if err := x.Record(b.start, b.stream); err != nil {
		return 0, err
	}
	if err := enqueue(); err != nil {
		return 0, err
	}
	if err := x.Record(b.stop, b.stream); err != nil {
		return 0, err
	}
	if err := x.EventSync(b.stop); err != nil {
		return 0, err
	}
	return x.Elapsed(b.start, b.stop)
}

// GraphBatch is how many runs of the device work one CUDA graph of
// TimeKernelGraph holds. At 64 runs even a 2 µs kernel keeps the GPU busy
// for over 100 µs per graph launch, against the 4-6 µs the host took per
// kernel launch on the H100 and H200 (preset launch-overhead).
const GraphBatch = 64

// TimeKernelGraph is TimeKernel with the n runs replayed from CUDA graphs
// (n/GraphBatch launches of a graph of GraphBatch runs, then one launch of
// a one-run graph per remaining run), so that the time is the device's
// alone even where one host launch takes longer than the kernel. The
// graphs are captured from Enqueue on first use, outside the timed
// region; work that cannot be captured (a synchronous call in Enqueue) is
// an error.
func (b *Base) TimeKernelGraph(n int) (time.Duration, error) {
	if err := b.usable(); err != nil {
		return 0, err
	}
	if n < 1 {
		return 0, fmt.Errorf("variants: %s: TimeKernelGraph(%d): need at least one run", b.Name, n)
	}
	var d time.Duration
	err := b.Dev.Do(func(x *cudabind.Exec) error {
		big, rest := n/GraphBatch, n%GraphBatch
		if big > 0 {
			if err := b.captureGraph(x, 1, GraphBatch); err != nil {
				return err
			}
		}
		if rest > 0 {
			if err := b.captureGraph(x, 0, 1); err != nil {
				return err
			}
		}
		var err error
		d, err = b.timeEvents(x, func() error {
			for i := 0; i < big; i++ {
				if err := x.LaunchGraph(b.graphs[1], b.stream); err != nil {
					return err
				}
			}
			for i := 0; i < rest; i++ {
				if err := x.LaunchGraph(b.graphs[0], b.stream); err != nil {
					return err
				}
			}
			return nil
		})
		return err
	})
	if err != nil {
		return 0, fmt.Errorf("variants: %s: %w", b.Name, err)
	}
	return d, nil
}

// captureGraph fills b.graphs[i], if empty, with runs runs of Enqueue.
func (b *Base) captureGraph(x *cudabind.Exec, i, runs int) error {
	if b.graphs[i] != 0 {
		return nil
	}
	g, err := x.Capture(b.stream, func() error {
		for r := 0; r < runs; r++ {
			if err := b.Enqueue(x, b.stream); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("capturing %d runs of the device work into a CUDA graph: %w", runs, err)
	}
	b.graphs[i] = g
	b.closers = append(b.closers, func(x *cudabind.Exec) error { return x.DestroyGraph(g) })
	return nil
}

// PoisonOutput fills the device output Out with v in the output's element
// type (float32, or uint8 for RGB->YUV), so that an element the next Run
// does not write comes back as v instead of whatever the buffer held
// (convtest.OutputPoisoner).
func (b *Base) PoisonOutput(v float64) error {
	if err := b.usable(); err != nil {
		return err
	}
	t := b.Problem.OutputGeometry().Type
	// The memset is ordered on the legacy stream, which the plan's
	// stream (cudabind.Exec.NewStream) waits for: Run's work follows it.
	err := b.Dev.Do(func(x *cudabind.Exec) error {
		switch t {
		case convolve.Float32:
			return x.MemsetD32(b.Out, math.Float32bits(float32(v)), b.OutBytes/4)
		case convolve.Uint8:
			return x.MemsetD8(b.Out, uint8(v), b.OutBytes)
		}
		return fmt.Errorf("output type %v: %w", t, errors.ErrUnsupported)
	})
	if err != nil {
		return fmt.Errorf("variants: %s: PoisonOutput: %w", b.Name, err)
	}
	return nil
}

// Run uploads in, runs the device work once and downloads out, in one
// device task.
func (b *Base) Run(in, out *convolve.Image) error {
	if err := b.CheckRun(in, out); err != nil {
		return err
	}
	err := b.Dev.Do(func(x *cudabind.Exec) error {
		if err := b.copyIn(x, in); err != nil {
			return err
		}
		if err := b.Enqueue(x, b.stream); err != nil {
			return err
		}
		if err := x.Sync(); err != nil {
			return err
		}
		return b.copyOut(x, out)
	})
	if err != nil {
		return fmt.Errorf("variants: %s: %w", b.Name, err)
	}
	return nil
}

// Close releases everything the plan holds and returns the first error
// of the release. A second Close releases nothing and returns an error
// wrapping convolve.ErrClosed.
func (b *Base) Close() error {
	if b.closed {
		return fmt.Errorf("variants: %s: Close: %w", b.Name, convolve.ErrClosed)
	}
	b.closed = true
	if b.Dev == nil {
		return nil
	}
	return b.Dev.Do(func(x *cudabind.Exec) error {
		var first error
		for i := len(b.closers) - 1; i >= 0; i-- {
			if err := b.closers[i](x); err != nil && first == nil {
				first = err
			}
		}
		for _, p := range b.allocs {
			if err := x.Free(p); err != nil && first == nil {
				first = err
			}
		}
		b.closers, b.allocs = nil, nil
		return first
	})
}

var _ convolve.DevicePlan = (*Base)(nil)
