package convolve

import "fmt"

// Operation is what a problem computes.
type Operation int

const (
	// Filter2D applies the filter to each channel independently. The output
	// has the input's width, height, channels and layout, element type
	// Float32, and packed rows.
	Filter2D Operation = iota
	// SobelMagnitude computes, per channel, sqrt(gx^2 + gy^2) with gx and
	// gy the correlations with SobelX and SobelY under the problem's border.
	// The filter field is ignored. Output as for Filter2D.
	SobelMagnitude
	// RGBToYUV converts a 3-channel uint8 image to planar uint8 Y, U, V with
	// BT.601 fixed-point arithmetic (see RGBToYUVPixel). Output is a
	// 3-channel Uint8 Planar image with packed rows.
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

// Validate checks the problem and names the first bad value. The input
// and the output geometry must both be valid, so each is within
// MaxImageBytes.
func (p Problem) Validate() error {
	if !p.Op.Valid() {
		return fmt.Errorf("convolve: operation %d: unknown", int(p.Op))
	}
	if err := p.Input.Validate(); err != nil {
		return err
	}
	// The output may be larger than the input (f32 from u8 or i16).
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

// KernelSize returns KW, KH of the filter the operation applies (3x3 for
// Sobel, 1x1 for RGB->YUV).
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

// K is the filter size by which the tuning and crossover tables match the
// problem: the larger side of its filter (KernelSize).
func (p Problem) K() int {
	kw, kh := p.KernelSize()
	return max(kw, kh)
}

// FilterKind is the kind of the problem's filter: that of the filter of a
// Filter2D problem (Filter.Kind), DenseFilter for the other operations.
func (p Problem) FilterKind() FilterKind {
	if p.Op == Filter2D && p.Filter != nil {
		return p.Filter.Kind()
	}
	return DenseFilter
}

// OutputGeometry is the geometry of the output image the plan writes.
func (p Problem) OutputGeometry() Geometry {
	g := p.Input
	g.Stride = 0
	switch p.Op {
	case RGBToYUV:
		g.Type = Uint8
		g.Layout = Planar
	default:
		g.Type = Float32
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

// CheckRun is what a plan's Run checks before it touches anything: in and
// out fit the problem (CheckIO), out's data does not overlap in's
// (CheckNoOverlap), and, where finite is set, in holds no NaN or
// infinity (CheckFiniteImage). Each error names the variant.
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
