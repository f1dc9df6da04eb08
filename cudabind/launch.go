package cudabind

import (
	"encoding/binary"
	"fmt"
	"math"
	"runtime"
	"unsafe"

	"github.com/convbench/convbench/cudabind/driver"
)

// Dim3 is a grid or block shape. Zero Y or Z mean 1; X must be positive.
type Dim3 struct{ X, Y, Z uint32 }

// Count returns X*Y*Z after normalization.
func (d Dim3) Count() int64 {
	n, _ := d.norm("")
	return int64(n.X) * int64(n.Y) * int64(n.Z)
}

func (d Dim3) norm(what string) (Dim3, error) {
	if d.Y == 0 {
		d.Y = 1
	}
	if d.Z == 0 {
		d.Z = 1
	}
	if d.X == 0 {
		return d, fmt.Errorf("cudabind: %s dimensions %dx%dx%d: X must be positive", what, d.X, d.Y, d.Z)
	}
	return d, nil
}

// Args is a packed kernel argument list: each value stored at its natural
// alignment in one block, and the array of pointers to them that
// cuLaunchKernel takes. Packing once and launching many times keeps
// allocation out of timed loops.
type Args struct {
	block   []uint64 // backing store, 8-byte aligned
	offsets []int
	sizes   []int
}

// argBits returns the C size (and alignment) of a kernel argument and its
// bits, little-endian in the low size bytes. Go's int and uint are
// refused: their size is ambiguous next to the kernel's int (32-bit) and
// long (64-bit).
func argBits(i int, a any) (int, uint64, error) {
	switch v := a.(type) {
	case DevPtr:
		return 8, uint64(v), nil
	case TexObject:
		return 8, uint64(v), nil
	case int64:
		return 8, uint64(v), nil
	case uint64:
		return 8, v, nil
	case float64:
		return 8, math.Float64bits(v), nil
	case int32:
		return 4, uint64(uint32(v)), nil
	case uint32:
		return 4, uint64(v), nil
	case float32:
		return 4, uint64(math.Float32bits(v)), nil
	case int16:
		return 2, uint64(uint16(v)), nil
	case uint16:
		return 2, uint64(v), nil
	case int8:
		return 1, uint64(uint8(v)), nil
	case uint8:
		return 1, uint64(v), nil
	case int, uint:
		return 0, 0, fmt.Errorf("cudabind: kernel argument %d is a Go %T, whose size is ambiguous: convert it to int32 or int64", i, a)
	case nil:
		return 0, 0, fmt.Errorf("cudabind: kernel argument %d is nil", i)
	}
	return 0, 0, fmt.Errorf("cudabind: kernel argument %d has unsupported type %T (want DevPtr, TexObject, int8..int64, uint8..uint64, float32 or float64)", i, a)
}

// PackArgs packs kernel arguments by exact size: DevPtr, TexObject, int64,
// uint64 and float64 take 8 bytes; int32, uint32 and float32 take 4;
// int16/uint16 2; int8/uint8 1. Any other type, Go int included, is an
// error naming the argument's index.
func PackArgs(args ...any) (*Args, error) {
	p := &Args{offsets: make([]int, len(args)), sizes: make([]int, len(args))}
	off := 0
	for i, a := range args {
		size, _, err := argBits(i, a)
		if err != nil {
			return nil, err
		}
		off = (off + size - 1) / size * size
		p.offsets[i], p.sizes[i] = off, size
		off += size
	}
	p.block = make([]uint64, (off+7)/8+1)
	buf := unsafe.Slice((*byte)(unsafe.Pointer(&p.block[0])), len(p.block)*8)
	var le [8]byte
	for i, a := range args {
		_, b, _ := argBits(i, a)
		binary.LittleEndian.PutUint64(le[:], b)
		copy(buf[p.offsets[i]:p.offsets[i]+p.sizes[i]], le[:])
	}
	return p, nil
}

// Len returns the number of arguments.
func (p *Args) Len() int { return len(p.offsets) }

// Launch runs fn on grid x block with sharedBytes of dynamic shared memory
// on stream s. The arguments are packed by PackArgs and pinned for the
// call. Launches are asynchronous: errors in the kernel itself surface at
// the next synchronizing call.
func (x *Exec) Launch(fn *Function, grid, block Dim3, sharedBytes int, s Stream, args ...any) error {
	p, err := PackArgs(args...)
	if err != nil {
		return err
	}
	return x.LaunchArgs(fn, grid, block, sharedBytes, s, p)
}

// LaunchArgs is Launch with arguments packed beforehand.
func (x *Exec) LaunchArgs(fn *Function, grid, block Dim3, sharedBytes int, s Stream, p *Args) error {
	if err := x.ok("Launch"); err != nil {
		return err
	}
	if fn == nil || fn.h == 0 {
		return fmt.Errorf("cudabind: Launch of a nil function")
	}
	if p == nil {
		p = &Args{}
	}
	g, err := grid.norm("grid")
	if err != nil {
		return err
	}
	b, err := block.norm("block")
	if err != nil {
		return err
	}
	if sharedBytes < 0 || sharedBytes > math.MaxUint32 {
		return fmt.Errorf("cudabind: Launch of %s with %d bytes of dynamic shared memory", fn.name, sharedBytes)
	}
	if err := fn.checkArgs(x, p); err != nil {
		return err
	}
	var pinner runtime.Pinner
	defer pinner.Unpin()
	var params []unsafe.Pointer
	if len(p.offsets) > 0 {
		base := unsafe.Pointer(&p.block[0])
		pinner.Pin(base)
		params = make([]unsafe.Pointer, len(p.offsets))
		for i, off := range p.offsets {
			params[i] = unsafe.Add(base, off)
		}
		pinner.Pin(&params[0])
	}
	var pp *unsafe.Pointer
	if len(params) > 0 {
		pp = &params[0]
	}
	r := x.lib().LaunchKernel(fn.h, g.X, g.Y, g.Z, b.X, b.Y, b.Z, uint32(sharedBytes), driver.Stream(s), pp)
	runtime.KeepAlive(p)
	if r != driver.Success {
		return fmt.Errorf("%w (kernel %s, grid %dx%dx%d, block %dx%dx%d, %d shared bytes)",
			x.check("cuLaunchKernel", r), fn.name, g.X, g.Y, g.Z, b.X, b.Y, b.Z, sharedBytes)
	}
	return nil
}

// ParamInfo is one kernel parameter as the driver lays it out in the
// parameter buffer.
type ParamInfo struct {
	Offset int // bytes from the start of the parameter buffer
	Size   int // bytes
}

// maxKernelParams bounds the parameter query: a kernel's parameters fit
// in 32 764 bytes, so no kernel has more than this many.
const maxKernelParams = 32764

// allParams asks a driver with cuFuncGetParamCount for every parameter
// of h: the count, then the offset and size of each, so no call fails.
// ok is false when the driver fails on either call.
func (x *Exec) allParams(h driver.Function) (params []ParamInfo, ok bool) {
	l := x.lib()
	n, r := l.FuncGetParamCount(h)
	if r != driver.Success || n > maxKernelParams {
		return nil, false
	}
	params = make([]ParamInfo, 0, n)
	for i := uint64(0); i < n; i++ {
		off, size, r := l.FuncGetParamInfo(h, i)
		if r != driver.Success {
			return nil, false
		}
		params = append(params, ParamInfo{Offset: int(off), Size: int(size)})
	}
	return params, true
}

// learnParams makes sure the first n parameters of f are known, asking
// the driver (cuFuncGetParamInfo, CUDA 12.4) for those not asked yet. A
// parameter index the driver refuses as past the last sets f.fewer.
func (x *Exec) learnParams(f *Function, n int) {
	for i := len(f.params); i < n && f.fewer < 0; i++ {
		off, size, r := x.lib().FuncGetParamInfo(f.h, uint64(i))
		switch r {
		case driver.Success:
			f.params = append(f.params, ParamInfo{Offset: int(off), Size: int(size)})
		case driver.ErrorInvalidValue:
			f.fewer = i
		default:
			f.noInfo = true
			return
		}
	}
}

// Params returns the kernel's parameters as the driver reports them, and
// false when the driver cannot report them all: drivers before CUDA 12.4
// lack cuFuncGetParamInfo, and without cuFuncGetParamCount the count is
// learnt only by asking past the last parameter, which Params does (an
// API error compute-sanitizer reports) but launches never do.
func (f *Function) Params() ([]ParamInfo, bool) {
	if f == nil {
		return nil, false
	}
	f.pmu.Lock()
	defer f.pmu.Unlock()
	if f.noInfo {
		return nil, false
	}
	if !f.complete {
		err := f.m.d.Do(func(x *Exec) error {
			for f.fewer < 0 && !f.noInfo && len(f.params) < maxKernelParams {
				x.learnParams(f, len(f.params)+1)
			}
			return nil
		})
		if err != nil || f.noInfo || f.fewer < 0 {
			return nil, false
		}
		f.complete = true
	}
	return append([]ParamInfo(nil), f.params...), true
}

// ArgumentError is a launch refused because its arguments do not match
// the kernel's parameters: their number, or the size of one of them.
type ArgumentError struct {
	Kernel string // the kernel's symbol
	// Index is the first argument whose size differs from its
	// parameter's, or -1 when the counts differ.
	Index int
	// Want and Got are the parameter's and the argument's sizes in bytes,
	// or, when Index is -1, the numbers of parameters and arguments.
	Want, Got int
}

func (e *ArgumentError) Error() string {
	if e.Index < 0 {
		return fmt.Sprintf("cudabind: launch of %s with %d arguments: the kernel takes %d parameters", e.Kernel, e.Got, e.Want)
	}
	return fmt.Sprintf("cudabind: launch of %s: argument %d is %d bytes, the kernel's parameter %d is %d bytes",
		e.Kernel, e.Index, e.Got, e.Index, e.Want)
}

// checkArgs compares packed arguments with the kernel's parameters where
// the driver reports them: all of them with cuFuncGetParamCount; without
// it, the first len(arguments), so that a launch with too many arguments
// or one of the wrong size is refused, while one with too few goes
// unnoticed (the driver would read the missing ones past the arguments).
func (f *Function) checkArgs(x *Exec, p *Args) error {
	f.pmu.Lock()
	defer f.pmu.Unlock()
	if f.noInfo {
		return nil
	}
	n := len(p.sizes)
	if !f.complete {
		x.learnParams(f, n)
		if f.noInfo {
			return nil
		}
		if f.fewer >= 0 && f.fewer < n {
			return &ArgumentError{Kernel: f.name, Index: -1, Want: f.fewer, Got: n}
		}
	} else if n != len(f.params) {
		return &ArgumentError{Kernel: f.name, Index: -1, Want: len(f.params), Got: n}
	}
	for i, q := range f.params[:n] {
		if p.sizes[i] != q.Size {
			return &ArgumentError{Kernel: f.name, Index: i, Want: q.Size, Got: p.sizes[i]}
		}
	}
	return nil
}
