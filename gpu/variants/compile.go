package variants

import (
	"fmt"
	"strconv"
	"unsafe"

	"github.com/convbench/convbench/convolve"
	"github.com/convbench/convbench/cudabind"
	"github.com/convbench/convbench/gpu/kernels"
)

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
