package variants

import (
	"fmt"
	"math"

	"github.com/convbench/convbench/convolve"
	"github.com/convbench/convbench/cudabind"
)

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

// completePlan is the plan setup makes of the new Base b; where setup
// fails, b is closed and the error returned.
func completePlan[P convolve.Plan](b *Base, setup func(b *Base) (P, error)) (convolve.Plan, error) {
	pl, err := setup(b)
	if err != nil {
		b.Close()
		return nil, err
	}
	return pl, nil
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
		if err := b.allocInOut(x); err != nil {
			return err
		}
		return b.newStreamEvents(x)
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

// named is err with the variant named in it (convolve.NameVariant).
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
