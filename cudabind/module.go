package cudabind

import (
	"fmt"
	"sync"
	"unsafe"

	"github.com/convbench/convbench/cudabind/driver"
)

// CUfunction_attribute values (cuda.h).
const (
	funcAttrMaxThreadsPerBlock    = 0
	funcAttrSharedSizeBytes       = 1
	funcAttrConstSizeBytes        = 2
	funcAttrLocalSizeBytes        = 3
	funcAttrNumRegs               = 4
	funcAttrPTXVersion            = 5
	funcAttrBinaryVersion         = 6
	funcAttrMaxDynamicSharedBytes = 8
)

// Module is a loaded CUDA module (cuModuleLoadData).
type Module struct {
	d        *Device
	h        driver.Module
	compiled *Compiled

	mu     sync.Mutex
	funcs  map[string]*Function
	closed bool
}

// Function is a kernel of a module.
type Function struct {
	m    *Module
	h    driver.Function
	name string // the name looked up (mangled when it came from a name expression)
	// pmu guards the parameter facts below, learnt from the driver.
	pmu sync.Mutex
	// params are the first len(params) parameters as cuFuncGetParamInfo
	// reports them. With cuFuncGetParamCount they are all of them, read
	// when the function is looked up (complete); without it, the first n
	// are read at the first launch with n arguments, so the driver is
	// never asked past the last parameter.
	params   []ParamInfo
	complete bool
	// fewer is the kernel's parameter count where a launch found the
	// kernel to take fewer parameters than it was given, else -1.
	fewer int
	// noInfo is true when the driver cannot report parameters.
	noInfo bool
}

// Name returns the symbol the function was found by.
func (f *Function) Name() string { return f.name }

// Compiled returns the compilation the module was loaded from.
func (m *Module) Compiled() *Compiled { return m.compiled }

// Compile compiles src for this device (filling opts.Arch from the device
// when empty), through the compile caches, and loads the result on the
// executor.
func (d *Device) Compile(src Source, opts CompileOptions) (*Module, error) {
	if d == nil {
		return nil, fmt.Errorf("cudabind: Compile on a nil *Device")
	}
	if opts.Arch == "" {
		opts.Arch = d.info.Arch()
	}
	c, err := CompileOnly(src, opts)
	if err != nil {
		return nil, err
	}
	var m *Module
	err = d.Do(func(x *Exec) error {
		m, err = x.LoadModule(c)
		return err
	})
	return m, err
}

// LoadModule loads a compiled image into the context.
func (x *Exec) LoadModule(c *Compiled) (*Module, error) {
	if err := x.ok("LoadModule"); err != nil {
		return nil, err
	}
	if c == nil || len(c.Image) == 0 {
		return nil, fmt.Errorf("cudabind: LoadModule of an empty compilation")
	}
	img := c.Image
	if c.Kind == ImagePTX && img[len(img)-1] != 0 {
		img = append(append([]byte(nil), img...), 0)
	}
	h, r := x.lib().ModuleLoadData(unsafe.Pointer(&img[0]))
	if err := x.check("cuModuleLoadData", r); err != nil {
		return nil, fmt.Errorf("%w (loading %s for %s)", err, c.Name, c.Arch)
	}
	x.count(kindModule, 1)
	return &Module{d: x.d, h: h, compiled: c, funcs: map[string]*Function{}}, nil
}

// Function looks up a kernel by name: an extern "C" name, a mangled name,
// or one of the source's NameExpressions.
func (m *Module) Function(name string) (*Function, error) {
	if m == nil {
		return nil, fmt.Errorf("cudabind: Function(%q) on a nil *Module", name)
	}
	if name == "" {
		return nil, fmt.Errorf("cudabind: Function with an empty name")
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.closed {
		return nil, fmt.Errorf("cudabind: Function(%q) on a closed module", name)
	}
	if f := m.funcs[name]; f != nil {
		return f, nil
	}
	sym := name
	if m.compiled != nil {
		if low, ok := m.compiled.Lowered[name]; ok {
			sym = low
		}
	}
	f := &Function{m: m, name: sym, fewer: -1}
	err := m.d.Do(func(x *Exec) error {
		h, r := x.lib().ModuleGetFunction(m.h, sym)
		if err := x.check("cuModuleGetFunction", r); err != nil {
			return err
		}
		f.h = h
		f.noInfo = !x.lib().Has(driver.ParamInfo)
		if !f.noInfo && x.lib().Has(driver.ParamCount) {
			f.params, f.complete = x.allParams(h)
			f.noInfo = !f.complete
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("%w (kernel %q)", err, name)
	}
	m.funcs[name] = f
	return f, nil
}

// Global returns the device address and size of a __device__ or
// __constant__ symbol.
func (m *Module) Global(x *Exec, name string) (DevPtr, int64, error) {
	if err := x.ok("Module.Global"); err != nil {
		return 0, 0, err
	}
	if m == nil || m.h == 0 {
		return 0, 0, fmt.Errorf("cudabind: Global(%q) on a nil or closed module", name)
	}
	if name == "" {
		return 0, 0, fmt.Errorf("cudabind: Global with an empty name")
	}
	p, size, r := x.lib().ModuleGetGlobal(m.h, name)
	if err := x.check("cuModuleGetGlobal", r); err != nil {
		return 0, 0, fmt.Errorf("%w (symbol %q)", err, name)
	}
	return DevPtr(p), int64(size), nil
}

// SetConstant copies bytes from data into the module's symbol name (a
// __constant__ or __device__ variable). It fails when the symbol is
// smaller than bytes.
func (m *Module) SetConstant(x *Exec, name string, data unsafe.Pointer, bytes int64) error {
	if data == nil {
		return fmt.Errorf("cudabind: SetConstant(%q) with nil data", name)
	}
	if err := checkBytes("SetConstant", bytes); err != nil {
		return err
	}
	p, size, err := m.Global(x, name)
	if err != nil {
		return err
	}
	if bytes > size {
		return fmt.Errorf("cudabind: SetConstant(%q): %d bytes do not fit the %d-byte symbol", name, bytes, size)
	}
	return x.CopyHtoD(p, data, bytes)
}

// Close unloads the module; its functions become invalid.
func (m *Module) Close() error {
	if m == nil {
		return nil
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.closed {
		return nil
	}
	err := m.d.Do(func(x *Exec) error {
		if err := x.check("cuModuleUnload", x.lib().ModuleUnload(m.h)); err != nil {
			return err
		}
		x.count(kindModule, -1)
		return nil
	})
	if err == nil {
		m.closed = true
		m.h = 0
		m.funcs = nil
	}
	return err
}

// FuncAttributes are a kernel's compiled resource use.
type FuncAttributes struct {
	Registers          int // per thread
	StaticSharedBytes  int
	ConstBytes         int
	LocalBytes         int // per thread (spills and local arrays)
	MaxThreadsPerBlock int // the most threads a launch may use
	MaxDynamicShared   int // current dynamic shared memory limit
	PTXVersion         int // e.g. 90
	BinaryVersion      int // e.g. 90
}

// Attributes queries the kernel's attributes.
func (f *Function) Attributes() (FuncAttributes, error) {
	var a FuncAttributes
	if f == nil || f.m == nil {
		return a, fmt.Errorf("cudabind: Attributes of a nil *Function")
	}
	err := f.m.d.Do(func(x *Exec) error {
		for _, q := range []struct {
			attr int
			dst  *int
		}{
			{funcAttrNumRegs, &a.Registers},
			{funcAttrSharedSizeBytes, &a.StaticSharedBytes},
			{funcAttrConstSizeBytes, &a.ConstBytes},
			{funcAttrLocalSizeBytes, &a.LocalBytes},
			{funcAttrMaxThreadsPerBlock, &a.MaxThreadsPerBlock},
			{funcAttrMaxDynamicSharedBytes, &a.MaxDynamicShared},
			{funcAttrPTXVersion, &a.PTXVersion},
			{funcAttrBinaryVersion, &a.BinaryVersion},
		} {
			v, r := x.lib().FuncGetAttribute(driver.FuncAttribute(q.attr), f.h)
			if err := x.check("cuFuncGetAttribute", r); err != nil {
				return fmt.Errorf("%w (attribute %d of %s)", err, q.attr, f.name)
			}
			*q.dst = int(v)
		}
		return nil
	})
	return a, err
}

// SetMaxDynamicShared raises (or lowers) the dynamic shared memory a launch
// of f may request, up to DeviceInfo.SharedPerBlockOptin minus the static
// shared memory.
func (f *Function) SetMaxDynamicShared(bytes int) error {
	if f == nil || f.m == nil {
		return fmt.Errorf("cudabind: SetMaxDynamicShared on a nil *Function")
	}
	if bytes < 0 {
		return fmt.Errorf("cudabind: SetMaxDynamicShared(%d): negative size", bytes)
	}
	if max := f.m.d.info.SharedPerBlockOptin; max > 0 && bytes > max {
		return fmt.Errorf("cudabind: SetMaxDynamicShared(%d) exceeds the device's opt-in maximum of %d bytes", bytes, max)
	}
	return f.m.d.Do(func(x *Exec) error {
		return x.check("cuFuncSetAttribute", x.lib().FuncSetAttribute(f.h, funcAttrMaxDynamicSharedBytes, int32(bytes)))
	})
}
