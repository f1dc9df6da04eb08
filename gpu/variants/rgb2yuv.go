package variants

import (
	"fmt"
	"time"
	"unsafe"

	"github.com/convbench/convbench/convolve"
	"github.com/convbench/convbench/cudabind"
)

// tunableOpt is gpu-rgb2yuv's tunable: 1 selects the optimised kernel (16
// pixels per thread, 128-bit loads and stores), 0 (the default) the naive
// one (one pixel per thread, byte accesses).
const tunableOpt = "opt"

// maxPipelineStreams bounds the streams of RunPipelined.
const maxPipelineStreams = 16

// yuvRun is the pixels per thread of yuv_opt (YUV_RUN in rgb2yuv.cu).
const yuvRun = 16

// PipelinedPlan is a plan that can also run as report 004's chunked
// transfer pipeline; gpu-rgb2yuv's plans implement it.
type PipelinedPlan interface {
	convolve.DevicePlan
	// RunPipelined converts in into out with the image split by rows into
	// one chunk per stream, each chunk's upload, kernel and download
	// queued on its own stream so that copies and kernels of different
	// chunks overlap. It returns the device time from before the first
	// upload to after the last download, measured with events. One stream
	// is the plain synchronous-order pipeline. With pinned the host side
	// of the copies is page-locked memory (the image is staged there
	// before timing starts and the result copied out after it ends);
	// otherwise the copies read and write the caller's pageable slices.
	RunPipelined(in, out *convolve.Image, streams int, pinned bool) (time.Duration, error)
}

func init() {
	convolve.Register(&yuvVariant{desc: convolve.Description{Name: "gpu-rgb2yuv", Report: "004",
		Summary: "BT.601 fixed-point RGB->YUV, interleaved in, planar out; opt=1: 16 px per thread, 128-bit accesses",
		Caps: convolve.Capabilities{
			Ops:      []convolve.Operation{convolve.RGBToYUV},
			Types:    []convolve.ElemType{convolve.Uint8},
			Channels: []int{3},
			Layouts:  []convolve.Layout{convolve.Interleaved},
			GPU:      true,
			Tunables: []string{tunableOpt},
		}}})
}

type yuvVariant struct{ desc convolve.Description }

// yuvBlock is gpu-rgb2yuv's default block shape.
var yuvBlock = convolve.Block{X: 32, Y: 8}

func (v *yuvVariant) Describe() convolve.Description { return v.desc }

func (v *yuvVariant) Plan(p convolve.Problem, cfg convolve.Config) (convolve.Plan, error) {
	b, err := NewBase(v.desc, yuvBlock, p, cfg)
	if err != nil {
		return nil, err
	}
	return completePlan(b, setupYUV)
}

// YUVPlan is gpu-rgb2yuv's plan. The device output holds the Y, U and V
// planes planeStride bytes apart: W*H for the naive kernel, W*H rounded up
// to 16 for the optimised one so that every plane starts 16-byte aligned.
type YUVPlan struct {
	*Base
	opt         bool
	fn          *cudabind.Function
	out         cudabind.DevPtr
	planeStride int64
	// flat: the input rows are packed (stride 3W), so the optimised
	// kernel sees the image, or a chunk of whole rows, as one long row.
	flat bool

	// Pipeline resources, created on first use and released by Close.
	streams         []cudabind.Stream
	start, stop     cudabind.Event
	hostIn, hostOut *cudabind.HostBuffer
}

var _ PipelinedPlan = (*YUVPlan)(nil)

func setupYUV(b *Base) (*YUVPlan, error) {
	opt, err := tunable(b.Name, b.Config, tunableOpt)
	if err != nil {
		return nil, err
	}
	in := b.Problem.Input
	yp := &YUVPlan{Base: b, opt: opt, out: b.Out, planeStride: int64(in.Width) * int64(in.Height)}
	yp.flat = in.RowStride() == 3*in.Width
	if opt && yp.planeStride%yuvRun != 0 {
		yp.planeStride += yuvRun - yp.planeStride%yuvRun
		if yp.out, err = b.Alloc(3 * yp.planeStride); err != nil {
			return nil, err
		}
	}
	mod, err := b.Compile("rgb2yuv", nil)
	if err != nil {
		return nil, err
	}
	b.OnClose(func(*cudabind.Exec) error { return mod.Close() })
	name := "yuv_naive"
	if opt {
		name = "yuv_opt"
	}
	if yp.fn, err = b.Function(mod, name, 0); err != nil {
		return nil, err
	}
	if _, _, err := yp.launchShape(in.Height); err != nil {
		return nil, err
	}
	b.OnClose(yp.releasePipeline)
	b.Enqueue = func(x *cudabind.Exec, s cudabind.Stream) error {
		return yp.enqueueRows(x, s, 0, in.Height)
	}
	return yp, nil
}

// launchShape is the grid and block converting rows whole rows.
func (yp *YUVPlan) launchShape(rows int) (grid, block cudabind.Dim3, err error) {
	in := yp.Problem.Input
	blk := yp.Block
	if !yp.opt {
		gx := (in.Width + blk.X - 1) / blk.X
		gy := min((rows+blk.Y-1)/blk.Y, maxGridYZ) // the kernel loops over the rest
		return cudabind.Dim3{X: uint32(gx), Y: uint32(gy), Z: 1}, cudabind.Dim3{X: uint32(blk.X), Y: uint32(blk.Y), Z: 1}, nil
	}
	threads := int64(blk.X * blk.Y)
	rowLen, nrows := yp.rowShape(rows)
	runs := (rowLen + yuvRun - 1) / yuvRun
	gx := (runs + threads - 1) / threads
	if gx > int64(yp.Info.MaxGridDimX) && yp.Info.MaxGridDimX > 0 {
		return grid, block, &convolve.CapabilityError{Variant: yp.Name, What: "grid",
			Value: fmt.Sprintf("%d blocks of %d threads for rows of %d pixels", gx, threads, rowLen)}
	}
	gy := min(nrows, maxGridYZ)
	return cudabind.Dim3{X: uint32(gx), Y: uint32(max(gy, 1)), Z: 1}, cudabind.Dim3{X: uint32(threads), Y: 1, Z: 1}, nil
}

// rowShape is the row length and row count the optimised kernel sees for
// rows image rows: one long row when the input is packed.
func (yp *YUVPlan) rowShape(rows int) (rowLen int64, nrows int) {
	w := int64(yp.Problem.Input.Width)
	if yp.flat {
		return w * int64(rows), 1
	}
	return w, rows
}

// enqueueRows queues the conversion of rows [r0, r1) on stream s.
func (yp *YUVPlan) enqueueRows(x *cudabind.Exec, s cudabind.Stream, r0, r1 int) error {
	in := yp.Problem.Input
	grid, block, err := yp.launchShape(r1 - r0)
	if err != nil {
		return err
	}
	src := yp.In.Add(int64(r0) * int64(in.RowStride()))
	o := int64(r0) * int64(in.Width)
	py, pu, pv := yp.out.Add(o), yp.out.Add(yp.planeStride+o), yp.out.Add(2*yp.planeStride+o)
	stride := int64(in.RowStride())
	if yp.opt {
		rowLen, nrows := yp.rowShape(r1 - r0)
		return x.Launch(yp.fn, grid, block, 0, s, src, py, pu, pv, rowLen, int32(nrows), stride)
	}
	return x.Launch(yp.fn, grid, block, 0, s, src, py, pu, pv, int32(in.Width), int32(r1-r0), stride)
}

// copyOutPlanes queues the download of rows [r0, r1) of each plane into
// dst, a packed planar W x H x 3 byte image, on stream s (synchronous
// copies when async is false).
func (yp *YUVPlan) copyOutPlanes(x *cudabind.Exec, dst unsafe.Pointer, r0, r1 int, s cudabind.Stream, async bool) error {
	in := yp.Problem.Input
	plane := int64(in.Width) * int64(in.Height)
	o := int64(r0) * int64(in.Width)
	n := int64(r1-r0) * int64(in.Width)
	if !async && yp.planeStride == plane && r0 == 0 && r1 == in.Height {
		return x.CopyDtoH(dst, yp.out, 3*plane)
	}
	for c := int64(0); c < 3; c++ {
		d := unsafe.Add(dst, c*plane+o)
		src := yp.out.Add(c*yp.planeStride + o)
		var err error
		if async {
			err = x.CopyDtoHAsync(d, src, n, s)
		} else {
			err = x.CopyDtoH(d, src, n)
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// Download copies the planes of the last run into out.
func (yp *YUVPlan) Download(out *convolve.Image) error {
	if err := yp.usable(); err != nil {
		return err
	}
	if err := yp.checkOutput(out); err != nil {
		return err
	}
	return yp.Dev.Do(func(x *cudabind.Exec) error { return yp.download(x, out) })
}

func (yp *YUVPlan) download(x *cudabind.Exec, out *convolve.Image) error {
	if out.RowStride() == out.Width {
		return yp.copyOutPlanes(x, HostData(out), 0, out.Height, 0, false)
	}
	tmp, err := convolve.NewImage(yp.Problem.OutputGeometry())
	if err != nil {
		return err
	}
	if err := yp.copyOutPlanes(x, HostData(tmp), 0, out.Height, 0, false); err != nil {
		return err
	}
	return out.CopyFrom(tmp)
}

// Run uploads in, converts it and downloads out, in one device task.
func (yp *YUVPlan) Run(in, out *convolve.Image) error {
	if err := yp.CheckRun(in, out); err != nil {
		return err
	}
	err := yp.Dev.Do(func(x *cudabind.Exec) error {
		if err := x.CopyHtoD(yp.In, HostData(in), yp.InBytes); err != nil {
			return err
		}
		if err := yp.Enqueue(x, yp.stream); err != nil {
			return err
		}
		if err := x.StreamSync(yp.stream); err != nil {
			return err
		}
		return yp.download(x, out)
	})
	if err != nil {
		return fmt.Errorf("variants: %s: %w", yp.Name, err)
	}
	return nil
}

// chunkRows splits h rows into at most n chunks of whole rows. Chunk
// boundaries fall on rows r with r*w a multiple of 16 where that leaves
// every chunk non-empty, so that the optimised kernel's 128-bit accesses
// stay aligned in every chunk; the result lists the n'+1 boundaries.
func chunkRows(h, w, n int) []int {
	q := 1
	for q*w%yuvRun != 0 {
		q++
	}
	if h/q < n {
		q = 1
	}
	n = min(n, h)
	bounds := []int{0}
	for k := 1; k < n; k++ {
		r := k * h / n / q * q
		if r > bounds[len(bounds)-1] && r < h {
			bounds = append(bounds, r)
		}
	}
	return append(bounds, h)
}

// RunPipelined implements PipelinedPlan.
func (yp *YUVPlan) RunPipelined(in, out *convolve.Image, streams int, pinned bool) (time.Duration, error) {
	if err := yp.usable(); err != nil {
		return 0, err
	}
	if streams < 1 || streams > maxPipelineStreams {
		return 0, fmt.Errorf("variants: %s: RunPipelined with %d streams: want 1 to %d", yp.Name, streams, maxPipelineStreams)
	}
	if err := yp.CheckRun(in, out); err != nil {
		return 0, err
	}
	g := yp.Problem.Input
	outBytes := 3 * int64(g.Width) * int64(g.Height)
	dst := out
	if out.RowStride() != out.Width {
		var err error
		if dst, err = convolve.NewImage(yp.Problem.OutputGeometry()); err != nil {
			return 0, err
		}
	}
	bounds := chunkRows(g.Height, g.Width, streams)
	var elapsed time.Duration
	err := yp.Dev.Do(func(x *cudabind.Exec) error {
		if err := yp.preparePipeline(x, streams, pinned, outBytes); err != nil {
			return err
		}
		hin, hout := HostData(in), HostData(dst)
		if pinned {
			copy(yp.hostIn.Bytes(), unsafe.Slice((*byte)(hin), yp.InBytes))
			hin, hout = yp.hostIn.Ptr(), yp.hostOut.Ptr()
		}
		// Events on the legacy default stream: the plan's streams are
		// blocking streams, so start precedes all their work and stop
		// follows it.
		if err := x.Record(yp.start, 0); err != nil {
			return err
		}
		stride := int64(g.RowStride())
		for k := 0; k+1 < len(bounds); k++ {
			r0, r1 := bounds[k], bounds[k+1]
			s := yp.streams[k%streams]
			off := int64(r0) * stride
			n := int64(r1-r0-1)*stride + 3*int64(g.Width)
			if err := x.CopyHtoDAsync(yp.In.Add(off), unsafe.Add(hin, off), n, s); err != nil {
				return err
			}
			if err := yp.enqueueRows(x, s, r0, r1); err != nil {
				return err
			}
			if err := yp.copyOutPlanes(x, hout, r0, r1, s, true); err != nil {
				return err
			}
		}
		if err := x.Record(yp.stop, 0); err != nil {
			return err
		}
		if err := x.EventSync(yp.stop); err != nil {
			return err
		}
		if err := x.Sync(); err != nil {
			return err
		}
		var err error
		if elapsed, err = x.Elapsed(yp.start, yp.stop); err != nil {
			return err
		}
		if pinned {
			copy(unsafe.Slice((*byte)(HostData(dst)), outBytes), yp.hostOut.Bytes()[:outBytes])
		}
		return nil
	})
	if err != nil {
		return 0, fmt.Errorf("variants: %s: pipelined run: %w", yp.Name, err)
	}
	if dst != out {
		if err := out.CopyFrom(dst); err != nil {
			return 0, fmt.Errorf("variants: %s: %w", yp.Name, err)
		}
	}
	return elapsed, nil
}

// preparePipeline creates the streams, events and pinned buffers a
// pipelined run needs and keeps them for later runs.
func (yp *YUVPlan) preparePipeline(x *cudabind.Exec, streams int, pinned bool, outBytes int64) error {
	for len(yp.streams) < streams {
		s, err := x.NewStream()
		if err != nil {
			return err
		}
		yp.streams = append(yp.streams, s)
	}
	var err error
	if yp.start == 0 {
		if yp.start, err = x.NewEvent(); err != nil {
			return err
		}
	}
	if yp.stop == 0 {
		if yp.stop, err = x.NewEvent(); err != nil {
			return err
		}
	}
	if pinned && yp.hostIn == nil {
		if err := convolve.CheckHostMemory("pinned pipeline buffers", yp.InBytes+outBytes); err != nil {
			return named(yp.Name, err)
		}
		if yp.hostIn, err = x.HostAlloc(yp.InBytes); err != nil {
			return fmt.Errorf("pinned input: %w", err)
		}
	}
	if pinned && yp.hostOut == nil {
		if yp.hostOut, err = x.HostAlloc(outBytes); err != nil {
			return fmt.Errorf("pinned output: %w", err)
		}
	}
	return nil
}

// releasePipeline frees what preparePipeline created.
func (yp *YUVPlan) releasePipeline(x *cudabind.Exec) error {
	var first error
	keep := func(err error) {
		if err != nil && first == nil {
			first = err
		}
	}
	for _, s := range yp.streams {
		keep(x.DestroyStream(s))
	}
	yp.streams = nil
	if yp.start != 0 {
		keep(x.DestroyEvent(yp.start))
		yp.start = 0
	}
	if yp.stop != 0 {
		keep(x.DestroyEvent(yp.stop))
		yp.stop = 0
	}
	if yp.hostIn != nil {
		keep(x.FreeHost(yp.hostIn))
		yp.hostIn = nil
	}
	if yp.hostOut != nil {
		keep(x.FreeHost(yp.hostOut))
		yp.hostOut = nil
	}
	return first
}
