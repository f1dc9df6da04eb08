package convolve

import "fmt"

// Operation is what a problem computes.
type Operation int

const (
	// Filter2D applies the filter to each channel; the output is the
	// input's shape in Float32 with packed rows.
	Filter2D Operation = iota
	// SobelMagnitude computes, per channel, sqrt(gx^2 + gy^2) of the
	// correlations with SobelX and SobelY; output as for Filter2D.
	SobelMagnitude
	// RGBToYUV converts a 3-channel u8 image to packed planar u8 Y, U, V
	// (RGBToYUVPixel).
	RGBToYUV
)

// Operations lists every operation.
var Operations = []Operation{Filter2D, SobelMagnitude, RGBToYUV}

func (o Operation) String() string {
	return enumString("Operation", o, "filter2d", "sobel-mag", "rgb2yuv")
}

// Valid reports whether o is a defined operation.
func (o Operation) Valid() bool { return o >= Filter2D && o <= RGBToYUV }

// Problem describes one computation independently of the data.
type Problem struct {
	Op     Operation
	Input  Geometry
	Filter *Filter // Filter2D only
	Border Border
	Mode   Mode
}

// Validate checks the problem, its input and output geometry included,
// and names the first bad value.
func (p Problem) Validate() error {
	if !p.Op.Valid() {
		return fmt.Errorf("convolve: operation %d: unknown", int(p.Op))
	}
	if err := p.Input.Validate(); err != nil {
		return err
	}
	if err := p.OutputGeometry().Validate(); err != nil {
		return wrapf(err, "%v of a %v image: output", p.Op, p.Input)
	}
	if !p.Border.Valid() {
		return fmt.Errorf("convolve: border %d: unknown", int(p.Border))
	}
	if !p.Mode.Valid() {
		return fmt.Errorf("convolve: mode %d: unknown", int(p.Mode))
	}
	switch p.Op {
	case Filter2D:
		if p.Filter == nil {
			return fmt.Errorf("convolve: operation %v needs a filter", p.Op)
		}
		if err := p.Filter.Validate(); err != nil {
			return err
		}
	case RGBToYUV:
		if p.Input.Channels != 3 || p.Input.Type != Uint8 {
			return fmt.Errorf("convolve: operation %v needs 3-channel u8 input, got %d-channel %v", p.Op, p.Input.Channels, p.Input.Type)
		}
	}
	return nil
}

// KernelSize returns KW, KH of the filter the operation applies.
func (p Problem) KernelSize() (kw, kh int) {
	switch p.Op {
	case Filter2D:
		if p.Filter != nil {
			return p.Filter.Width, p.Filter.Height
		}
	case SobelMagnitude:
		return 3, 3
	}
	return 1, 1
}

// K is the larger side of the problem's filter (KernelSize), by which
// tuning and crossover tables match it.
func (p Problem) K() int {
	kw, kh := p.KernelSize()
	return max(kw, kh)
}

// FilterKind is the kind of a Filter2D problem's filter, DenseFilter for
// the other operations.
func (p Problem) FilterKind() FilterKind {
	if p.Op == Filter2D && p.Filter != nil {
		return p.Filter.Kind()
	}
	return DenseFilter
}

// OutputGeometry is the geometry of the output image the plan writes.
func (p Problem) OutputGeometry() Geometry {
	g := p.Input.Packed()
	g.Type = Float32
	if p.Op == RGBToYUV {
		g.Type, g.Layout = Uint8, Planar
	}
	return g
}

// NewOutput allocates an output image for the problem.
func (p Problem) NewOutput() (*Image, error) {
	return NewImage(p.OutputGeometry())
}

// CheckIO verifies that in and out fit the problem.
func (p Problem) CheckIO(in, out *Image) error {
	if err := in.Check(); err != nil {
		return wrapf(err, "input")
	}
	if err := out.Check(); err != nil {
		return wrapf(err, "output")
	}
	if in.Geometry.Packed() != p.Input.Packed() || in.RowStride() != p.Input.RowStride() {
		return fmt.Errorf("convolve: input %v does not match the problem's %v", in.Geometry, p.Input)
	}
	want := p.OutputGeometry()
	if out.Width != want.Width || out.Height != want.Height || out.Channels != want.Channels ||
		out.Type != want.Type || out.Layout != want.Layout {
		return fmt.Errorf("convolve: output %v does not match the problem's %v", out.Geometry, want)
	}
	return nil
}

// CheckRun is what a plan's Run checks first: CheckIO, CheckNoOverlap
// and, where finite is set, CheckFiniteImage. Each error names the
// variant.
func (p Problem) CheckRun(variant string, in, out *Image, finite bool) error {
	if err := p.CheckIO(in, out); err != nil {
		return fmt.Errorf("%s: %w", variant, err)
	}
	if err := CheckNoOverlap(in, out); err != nil {
		return fmt.Errorf("%s: %w", variant, err)
	}
	if finite {
		if err := CheckFiniteImage(in); err != nil {
			return NameVariant(variant, err)
		}
	}
	return nil
}

func (p Problem) String() string {
	s := fmt.Sprintf("%v %dx%d c=%d %v %v border=%v", p.Op, p.Input.Width, p.Input.Height, p.Input.Channels, p.Input.Type, p.Input.Layout, p.Border)
	if p.Op == Filter2D && p.Filter != nil {
		s += fmt.Sprintf(" filter=%v %v", p.Filter, p.Mode)
	}
	return s
}
