package cudnn

import (
	"errors"
	"fmt"
	"math"
	"unsafe"

	"github.com/convbench/convbench/cudabind/dl"
)

// Conv2D is one 2-D convolution as the descriptors give it to cuDNN:
// Batch planes of Width x Height float32 values, one channel each (NCHW
// with N = Batch, C = 1), filtered by one KW x KH filter with zero
// padding of KW/2 columns and KH/2 rows on each side, stride and dilation
// 1, so that output (x, y) is the sum over the filter of w(i, j) *
// in(x+i-KW/2, y+j-KH/2) (Correlate) or of the filter rotated by 180
// degrees (!Correlate: cuDNN's CUDNN_CONVOLUTION). The output is packed:
// Batch planes of Width x Height.
type Conv2D struct {
	Batch, Width, Height int
	// RowStride and PlaneStride are the input's distances, in elements,
	// between rows and between planes; 0 means packed (Width, and
	// Height*RowStride).
	RowStride, PlaneStride int
	KW, KH                 int
	Correlate              bool
	// Math is the math type the convolution descriptor allows.
	Math MathType
}

// maxElements bounds every tensor: cuDNN's 4-d descriptors take int
// sizes and strides, and its kernels index with them.
const maxElements = math.MaxInt32

// Strides returns the input's row and plane strides with 0 resolved.
func (c Conv2D) Strides() (row, plane int) {
	row, plane = c.RowStride, c.PlaneStride
	if row == 0 {
		row = c.Width
	}
	if plane == 0 {
		plane = c.Height * row
	}
	return row, plane
}

// Pad returns the zero padding on each side: KW/2 columns and KH/2 rows.
func (c Conv2D) Pad() (w, h int) { return c.KW / 2, c.KH / 2 }

// InputElements is the number of elements the input buffer spans.
func (c Conv2D) InputElements() int64 {
	row, plane := c.Strides()
	return int64(c.Batch-1)*int64(plane) + int64(c.Height-1)*int64(row) + int64(c.Width)
}

// Validate checks c without a library and names the first bad value.
func (c Conv2D) Validate() error {
	switch {
	case c.Batch < 1 || c.Width < 1 || c.Height < 1:
		return fmt.Errorf("cudnn: %d planes of %dx%d: every size must be positive", c.Batch, c.Width, c.Height)
	case c.KW < 1 || c.KH < 1 || c.KW%2 == 0 || c.KH%2 == 0:
		return fmt.Errorf("cudnn: filter %dx%d: sides must be odd and positive for the output to be W x H anchored at the centre", c.KW, c.KH)
	case c.Math < DefaultMath || c.Math > FMAMath:
		return fmt.Errorf("cudnn: math type %d: not a cudnnMathType_t", int32(c.Math))
	}
	row, plane := c.Strides()
	if row < c.Width {
		return fmt.Errorf("cudnn: row stride %d below the width %d", row, c.Width)
	}
	if int64(plane) < int64(c.Height)*int64(row) {
		return fmt.Errorf("cudnn: plane stride %d below the %d rows of %d elements", plane, c.Height, row)
	}
	out := int64(c.Batch) * int64(c.Width) * int64(c.Height)
	if in := c.InputElements(); in > maxElements || out > maxElements || int64(plane) > maxElements {
		return fmt.Errorf("cudnn: %d planes of %dx%d (input spans %d elements, output %d): cuDNN's tensors hold at most %d", c.Batch, c.Width, c.Height, in, out, int64(maxElements))
	}
	return nil
}

func (c Conv2D) String() string {
	row, plane := c.Strides()
	mode := "convolve"
	if c.Correlate {
		mode = "correlate"
	}
	return fmt.Sprintf("%d planes of %dx%d (row stride %d, plane stride %d), %dx%d filter, %s, %v", c.Batch, c.Width, c.Height, row, plane, c.KW, c.KH, mode, c.Math)
}

// Convolution holds the descriptors of one Conv2D.
type Convolution struct {
	Conv2D
	lib           *Library
	x, y, w, conv uintptr
	alpha, beta   *float32
	destroyed     bool
}

// NewConvolution creates and sets the input, output, filter and
// convolution descriptors of c, and checks that cuDNN computes an output
// of the input's size. On failure it destroys what it created.
func (l *Library) NewConvolution(c Conv2D) (*Convolution, error) {
	if err := c.Validate(); err != nil {
		return nil, err
	}
	cv := &Convolution{Conv2D: c, lib: l, alpha: new(float32), beta: new(float32)}
	*cv.alpha = 1
	fail := func(err error) (*Convolution, error) {
		return nil, errors.Join(err, cv.Destroy())
	}
	if err := l.check("cudnnCreateTensorDescriptor", l.createTensor(&cv.x)); err != nil {
		return fail(err)
	}
	if err := l.check("cudnnCreateTensorDescriptor", l.createTensor(&cv.y)); err != nil {
		return fail(err)
	}
	if err := l.check("cudnnCreateFilterDescriptor", l.createFilter(&cv.w)); err != nil {
		return fail(err)
	}
	if err := l.check("cudnnCreateConvolutionDescriptor", l.createConv(&cv.conv)); err != nil {
		return fail(err)
	}
	n, w, h := int32(c.Batch), int32(c.Width), int32(c.Height)
	row, plane := c.Strides()
	if err := l.check("cudnnSetTensor4dDescriptorEx", l.setTensor4dEx(cv.x, dataFloat, n, 1, h, w, int32(plane), int32(plane), int32(row), 1)); err != nil {
		return fail(fmt.Errorf("input of %v: %w", c, err))
	}
	if err := l.check("cudnnSetTensor4dDescriptorEx", l.setTensor4dEx(cv.y, dataFloat, n, 1, h, w, w*h, w*h, w, 1)); err != nil {
		return fail(fmt.Errorf("output of %v: %w", c, err))
	}
	if err := l.check("cudnnSetFilter4dDescriptor", l.setFilter4d(cv.w, dataFloat, tensorNCHW, 1, 1, int32(c.KH), int32(c.KW))); err != nil {
		return fail(fmt.Errorf("filter of %v: %w", c, err))
	}
	mode := int32(modeConvolution)
	if c.Correlate {
		mode = modeCorrelation
	}
	pw, ph := c.Pad()
	if err := l.check("cudnnSetConvolution2dDescriptor", l.setConv2d(cv.conv, int32(ph), int32(pw), 1, 1, 1, 1, mode, dataFloat)); err != nil {
		return fail(fmt.Errorf("%v: %w", c, err))
	}
	if err := cv.SetMath(c.Math); err != nil {
		return fail(err)
	}
	var on, oc, oh, ow int32
	if err := l.check("cudnnGetConvolution2dForwardOutputDim", l.outputDim(cv.conv, cv.x, cv.w, &on, &oc, &oh, &ow)); err != nil {
		return fail(fmt.Errorf("%v: %w", c, err))
	}
	if on != n || oc != 1 || oh != h || ow != w {
		return fail(fmt.Errorf("cudnn: %v: cuDNN computes an output of %dx%dx%dx%d, want %dx1x%dx%d", c, on, oc, oh, ow, n, h, w))
	}
	return cv, nil
}

// SetMath sets the math type of the convolution descriptor; the forward
// convolution must run with the math type its algorithm was found with.
func (cv *Convolution) SetMath(m MathType) error {
	return cv.lib.check("cudnnSetConvolutionMathType", cv.lib.setMathType(cv.conv, int32(m)))
}

// Find runs cuDNN's forward algorithm search on the handle's stream
// (cudnnFindConvolutionForwardAlgorithmEx) over the caller's device
// buffers: x the input, w the filter, y the output (overwritten), with
// the workspace ws of wsBytes bytes. An algorithm that needs more
// workspace than wsBytes is not run, so the workspace bounds what the
// search tries as well as what it allocates. It returns the results,
// fastest first; results whose Status is not success are kept: the
// caller filters.
func (cv *Convolution) Find(h Handle, x, w, y, ws uintptr, wsBytes int64) ([]AlgoPerf, error) {
	if cv.destroyed {
		return nil, fmt.Errorf("cudnn: Find on destroyed descriptors of %v", cv.Conv2D)
	}
	if wsBytes < 0 || (wsBytes > 0 && ws == 0) {
		return nil, fmt.Errorf("cudnn: Find with a workspace of %d bytes at %#x", wsBytes, ws)
	}
	perf := make([]AlgoPerf, 2*AlgoCount)
	var n int32
	if err := cv.lib.check("cudnnFindConvolutionForwardAlgorithmEx",
		cv.lib.findForwardEx(uintptr(h), cv.x, x, cv.w, w, cv.conv, cv.y, y, int32(len(perf)), &n, &perf[0], ws, uintptr(wsBytes))); err != nil {
		return nil, fmt.Errorf("%v: %w", cv.Conv2D, err)
	}
	if n < 0 || int(n) > len(perf) {
		return nil, fmt.Errorf("cudnn: cudnnFindConvolutionForwardAlgorithmEx returned %d results for %d places", n, len(perf))
	}
	return perf[:n], nil
}

// Heuristics returns cuDNN's heuristic ranking of the forward algorithms
// for this convolution (cudnnGetConvolutionForwardAlgorithm_v7): each
// algorithm and math type cuDNN would consider, most promising first,
// with its status, workspace and determinism. Nothing runs on the GPU and
// no result carries a time (Time is negative). Results whose Status is
// not success are kept: the caller filters.
func (cv *Convolution) Heuristics(h Handle) ([]AlgoPerf, error) {
	if cv.destroyed {
		return nil, fmt.Errorf("cudnn: Heuristics on destroyed descriptors of %v", cv.Conv2D)
	}
	perf := make([]AlgoPerf, 2*AlgoCount)
	var n int32
	if err := cv.lib.check("cudnnGetConvolutionForwardAlgorithm_v7",
		cv.lib.getForwardV7(uintptr(h), cv.x, cv.w, cv.conv, cv.y, int32(len(perf)), &n, &perf[0])); err != nil {
		return nil, fmt.Errorf("%v: %w", cv.Conv2D, err)
	}
	if n < 0 || int(n) > len(perf) {
		return nil, fmt.Errorf("cudnn: cudnnGetConvolutionForwardAlgorithm_v7 returned %d results for %d places", n, len(perf))
	}
	return perf[:n], nil
}

// WorkspaceSize is the workspace, in bytes, algo needs for this
// convolution under the descriptor's current math type.
func (cv *Convolution) WorkspaceSize(h Handle, algo Algo) (int64, error) {
	var n uint64
	if err := cv.lib.check("cudnnGetConvolutionForwardWorkspaceSize",
		cv.lib.workspaceSize(uintptr(h), cv.x, cv.w, cv.conv, cv.y, int32(algo), &n)); err != nil {
		return 0, fmt.Errorf("%v, %v: %w", cv.Conv2D, algo, err)
	}
	if n > math.MaxInt64 {
		return 0, fmt.Errorf("cudnn: %v needs a workspace of %d bytes", algo, n)
	}
	return int64(n), nil
}

// Forward enqueues y = conv(x, w) on the handle's stream with algo and
// the workspace ws of wsBytes bytes (0 and 0 when it needs none): x, w
// and y are device pointers to the input, the KW x KH filter (row-major,
// as the mode reads it) and the packed output.
func (cv *Convolution) Forward(h Handle, algo Algo, x, w, ws uintptr, wsBytes int64, y uintptr) error {
	if cv.destroyed {
		return fmt.Errorf("cudnn: Forward on destroyed descriptors of %v", cv.Conv2D)
	}
	s := dl.Call(cv.lib.forward, uintptr(h), uintptr(unsafe.Pointer(cv.alpha)), cv.x, x, cv.w, w, cv.conv,
		uintptr(algo), ws, uintptr(wsBytes), uintptr(unsafe.Pointer(cv.beta)), cv.y, y)
	return cv.lib.check("cudnnConvolutionForward", s)
}

// Destroy destroys the descriptors and returns the first failure; a
// second call does nothing.
func (cv *Convolution) Destroy() error {
	if cv == nil || cv.destroyed {
		return nil
	}
	cv.destroyed = true
	l := cv.lib
	var errs []error
	if cv.conv != 0 {
		errs = append(errs, l.check("cudnnDestroyConvolutionDescriptor", l.destroyConv(cv.conv)))
	}
	if cv.w != 0 {
		errs = append(errs, l.check("cudnnDestroyFilterDescriptor", l.destroyFilter(cv.w)))
	}
	for _, d := range []uintptr{cv.y, cv.x} {
		if d != 0 {
			errs = append(errs, l.check("cudnnDestroyTensorDescriptor", l.destroyTensor(d)))
		}
	}
	return errors.Join(errs...)
}
