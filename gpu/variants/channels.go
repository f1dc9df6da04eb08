package variants

import (
	"fmt"
	"math"
	"strconv"
	"unsafe"

	"github.com/convbench/convbench/convolve"
	"github.com/convbench/convbench/cudabind"
)

// Report 003's channel strategies for 3-channel images (kernels in
// kernels/channels.cu). All four use the constant-memory direct kernel and
// differ in how launches and threads map onto channels:
//
//	gpu-ch-loop    per channel: upload, launch, download (the per-channel
//	               transfers are part of the timed work, as in the report)
//	gpu-ch-grid3d  one launch, blockIdx.z is the channel
//	gpu-ch-linear  one launch over a 1-D grid of the linearized planar image
//	gpu-ch-arrays  one launch, three input and three output arrays, each
//	               thread computing its pixel in all three channels
//
// Where a strategy reads planes and the input is interleaved, the planes
// are split on the device (ch_deinterleave) inside the timed work, which
// stands for the report's host-side linearization.

// channelsMaxFilterSide is the largest filter side of the channel
// strategies: a 127x127 filter (64516 bytes) is the largest square one
// that fits the 64 KB of constant memory; report 003 went up to 121.
const channelsMaxFilterSide = 127

// chStrategy selects the convolution kernel of channels.cu (its STRATEGY
// macro).
type chStrategy int

const (
	chLoop chStrategy = iota
	chGrid3D
	chLinear
	chArrays
)

// tunableTransposed is gpu-ch-grid3d's tunable: 1 maps the grid's x
// dimension to rows, as report 003's Algorithm 5 did (uncoalesced); 0, the
// default, maps it to columns.
const tunableTransposed = "transposed"

// channelCaps are the capabilities of the channel strategies. Like the
// direct kernels (directCaps), channels.cu's tap_sum multiplies every tap
// in IEEE arithmetic, so none declares FiniteInput.
func channelCaps(tunables ...string) convolve.Capabilities {
	return convolve.Capabilities{
		Ops:           []convolve.Operation{convolve.Filter2D},
		Types:         []convolve.ElemType{convolve.Float32, convolve.Uint8, convolve.Int16},
		Channels:      []int{3},
		Layouts:       []convolve.Layout{convolve.Interleaved, convolve.Planar},
		Borders:       []convolve.Border{convolve.Zero, convolve.Replicate, convolve.Reflect, convolve.Mirror, convolve.Wrap},
		MaxFilterSide: channelsMaxFilterSide,
		GPU:           true,
		Tunables:      tunables,
	}
}

func init() {
	convolve.Register(&loopVariant{desc: convolve.Description{Name: "gpu-ch-loop", Report: "003",
		Summary: "one upload, launch and download per channel, filter in constant memory (1channel)",
		Caps:    channelCaps()}})
	convolve.Register(chVariant("gpu-ch-grid3d", "one launch over a 3-D grid, blockIdx.z is the channel (3channel_grid)",
		chGrid3D, channelCaps(tunableTransposed)))
	convolve.Register(chVariant("gpu-ch-linear", "one launch over a 1-D grid of the linearized planar image (3channel)",
		chLinear, channelCaps()))
	convolve.Register(chVariant("gpu-ch-arrays", "one launch on three separate channel arrays, three channels per thread (3channel_3)",
		chArrays, channelCaps()))
}

// chVariant is the variant of report 003 that runs strategy s in one
// launch.
func chVariant(name, summary string, s chStrategy, caps convolve.Capabilities) *Variant {
	return &Variant{
		Desc:  convolve.Description{Name: name, Report: "003", Summary: summary, Caps: caps},
		Setup: func(b *Base) error { return setupChannels(b, s) },
		Check: func(b *Base) error { return checkChannels(b, s) },
	}
}

// checkChannels is the validity rule of strategy s beyond what Base
// checks, without a device: the transposed switch's value, and grids
// within CUDA's limits.
func checkChannels(b *Base, s chStrategy) error {
	in := b.Problem.Input
	transposed, err := tunable(b.Name, b.Config, tunableTransposed)
	if err != nil {
		return err
	}
	switch s {
	case chGrid3D:
		if gy := (in.Width + b.Block.Y - 1) / b.Block.Y; transposed && gy > maxGridYZ {
			return &convolve.CapabilityError{Variant: b.Name, What: "grid",
				Value: fmt.Sprintf("transposed: %d block rows for width %d (at most %d)", gy, in.Width, maxGridYZ)}
		}
	case chLinear:
		threads := int64(b.Block.X * b.Block.Y)
		if blocks := (3*int64(in.Width)*int64(in.Height) + threads - 1) / threads; blocks > math.MaxInt32 {
			return &convolve.CapabilityError{Variant: b.Name, What: "grid",
				Value: fmt.Sprintf("%d blocks of %d threads (at most %d)", blocks, threads, math.MaxInt32)}
		}
	}
	return nil
}

// tunable returns cfg.Tunables[name], which must be 0 or 1 (absent: 0).
func tunable(variant string, cfg convolve.Config, name string) (bool, error) {
	v, ok := cfg.Tunables[name]
	if !ok || v == 0 {
		return false, nil
	}
	if v != 1 {
		return false, fmt.Errorf("variants: %s: tunable %s=%d: want 0 or 1", variant, name, v)
	}
	return true, nil
}

// chDefines are the macros channels.cu needs beyond Defines for strategy
// s: STRATEGY, PLANAR=1 and OUT_PLANAR for the plane readers, TRANSPOSED.
func chDefines(p convolve.Problem, s chStrategy, transposed bool) map[string]string {
	d := map[string]string{"STRATEGY": strconv.Itoa(int(s))}
	if s == chLinear || s == chArrays {
		d["PLANAR"] = "1"
		if p.Input.Layout == convolve.Planar {
			d["OUT_PLANAR"] = "1"
		} else {
			d["OUT_PLANAR"] = "0"
		}
	}
	if transposed {
		d["TRANSPOSED"] = "1"
	}
	return d
}

// idxArg is v as the kernels' idx_t: int32, or int64 under Index64.
func idxArg(b *Base, v int) any {
	if b.Index64 {
		return int64(v)
	}
	return int32(v)
}

// compileChannels compiles channels.cu for strategy s, uploads the filter
// into its constant memory and arranges for the module to be unloaded at
// Close.
func compileChannels(b *Base, s chStrategy, transposed bool) (*cudabind.Module, error) {
	if err := b.CheckConstant(b.Filter.Taps()); err != nil {
		return nil, err
	}
	mod, err := b.Compile("channels", chDefines(b.Problem, s, transposed))
	if err != nil {
		return nil, err
	}
	b.OnClose(func(*cudabind.Exec) error { return mod.Close() })
	if err := b.SetConstant(mod, "c_filter", b.Filter.Weights); err != nil {
		return nil, err
	}
	return mod, nil
}

// planes returns three device planes of elemSize-byte elements, each
// w*h elements, carved from one new allocation that Close frees.
func planes(b *Base, w, h, elemSize int) ([3]cudabind.DevPtr, error) {
	var ps [3]cudabind.DevPtr
	plane := int64(w) * int64(h) * int64(elemSize)
	base, err := b.Alloc(3 * plane)
	if err != nil {
		return ps, err
	}
	for c := range ps {
		ps[c] = base.Add(int64(c) * plane)
	}
	return ps, nil
}

func setupChannels(b *Base, s chStrategy) error {
	if err := checkChannels(b, s); err != nil {
		return err
	}
	in := b.Problem.Input
	transposed, err := tunable(b.Name, b.Config, tunableTransposed)
	if err != nil {
		return err
	}
	mod, err := compileChannels(b, s, transposed)
	if err != nil {
		return err
	}
	w, h := b.Dims()
	grid, block := b.Grid()

	split, inPlanes, stride, err := channelInputs(b, s, mod, grid, block, w, h)
	if err != nil {
		return err
	}

	switch s {
	case chGrid3D:
		fn, err := b.Function(mod, "ch_conv_grid3d", 0)
		if err != nil {
			return err
		}
		if transposed {
			// The grid's x covers rows and its y columns.
			gy := (in.Width + b.Block.Y - 1) / b.Block.Y // within maxGridYZ (checkChannels)
			grid = cudabind.Dim3{X: uint32((in.Height + b.Block.X - 1) / b.Block.X), Y: uint32(gy), Z: 3}
		}
		b.Enqueue = func(x *cudabind.Exec, st cudabind.Stream) error {
			return x.Launch(fn, grid, block, 0, st, b.In, b.Out, w, h, stride)
		}
	case chLinear:
		fn, err := b.Function(mod, "ch_conv_linear", 0)
		if err != nil {
			return err
		}
		threads := b.Block.X * b.Block.Y
		total := 3 * int64(in.Width) * int64(in.Height)
		blocks := (total + int64(threads) - 1) / int64(threads) // within 2^31-1 (checkChannels)
		lgrid := cudabind.Dim3{X: uint32(blocks), Y: 1, Z: 1}
		lblock := cudabind.Dim3{X: uint32(threads), Y: 1, Z: 1}
		b.Enqueue = func(x *cudabind.Exec, st cudabind.Stream) error {
			if split != nil {
				if err := split(x, st); err != nil {
					return err
				}
			}
			return x.Launch(fn, lgrid, lblock, 0, st, inPlanes[0], b.Out, w, h, stride)
		}
	case chArrays:
		return setupArrays(b, mod, grid, block, w, h, stride, split, inPlanes)
	default:
		return fmt.Errorf("variants: %s: strategy %d has no setup here", b.Name, s)
	}
	return nil
}

// channelInputs are the input planes the plane readers of strategy s
// (chLinear, chArrays) get: the device copy itself for a planar input,
// planes split on the device for an interleaved one, with split the
// launch that splits them (nil when none does), and the row stride the
// convolution kernels take.
func channelInputs(b *Base, s chStrategy, mod *cudabind.Module, grid, block cudabind.Dim3, w, h int32) (split func(x *cudabind.Exec, st cudabind.Stream) error, inPlanes [3]cudabind.DevPtr, stride any, err error) {
	in := b.Problem.Input
	stride = idxArg(b, in.RowStride())
	if s == chLinear || s == chArrays {
		if in.Layout == convolve.Interleaved {
			if inPlanes, err = planes(b, in.Width, in.Height, in.Type.Size()); err != nil {
				return nil, inPlanes, nil, err
			}
			fn, err := b.Function(mod, "ch_deinterleave", 0)
			if err != nil {
				return nil, inPlanes, nil, err
			}
			stride = idxArg(b, in.Width)
			hostStride := b.Stride()
			split = func(x *cudabind.Exec, st cudabind.Stream) error {
				g := grid
				g.Z = 1
				return x.Launch(fn, g, block, 0, st, b.In, inPlanes[0], inPlanes[1], inPlanes[2], w, h, hostStride)
			}
		} else {
			plane := int64(in.Height) * int64(in.RowStride()) * int64(in.Type.Size())
			for c := range inPlanes {
				inPlanes[c] = b.In.Add(int64(c) * plane)
			}
		}
	}
	return split, inPlanes, stride, nil
}

// setupArrays sets b's device work for strategy chArrays: three arrays in
// one launch, after split where it is set. Planar output: the three
// arrays are the planes of the output. Interleaved output: three float
// planes, merged at the end.
func setupArrays(b *Base, mod *cudabind.Module, grid, block cudabind.Dim3, w, h int32, stride any, split func(x *cudabind.Exec, st cudabind.Stream) error, inPlanes [3]cudabind.DevPtr) error {
	in := b.Problem.Input
	fn, err := b.Function(mod, "ch_conv_arrays", 0)
	if err != nil {
		return err
	}
	grid.Z = 1
	var outPlanes [3]cudabind.DevPtr
	var merge func(x *cudabind.Exec, st cudabind.Stream) error
	if in.Layout == convolve.Interleaved {
		if outPlanes, err = planes(b, in.Width, in.Height, 4); err != nil {
			return err
		}
		mfn, err := b.Function(mod, "ch_interleave", 0)
		if err != nil {
			return err
		}
		merge = func(x *cudabind.Exec, st cudabind.Stream) error {
			return x.Launch(mfn, grid, block, 0, st, outPlanes[0], outPlanes[1], outPlanes[2], b.Out, w, h)
		}
	} else {
		plane := int64(in.Width) * int64(in.Height) * 4
		for c := range outPlanes {
			outPlanes[c] = b.Out.Add(int64(c) * plane)
		}
	}
	b.Enqueue = func(x *cudabind.Exec, st cudabind.Stream) error {
		if split != nil {
			if err := split(x, st); err != nil {
				return err
			}
		}
		if err := x.Launch(fn, grid, block, 0, st, inPlanes[0], inPlanes[1], inPlanes[2],
			outPlanes[0], outPlanes[1], outPlanes[2], w, h, stride); err != nil {
			return err
		}
		if merge != nil {
			return merge(x, st)
		}
		return nil
	}
	return nil
}

// loopVariant is gpu-ch-loop. Its plan keeps pinned host copies of the
// input and output, so that the per-channel uploads and downloads are
// asynchronous copies inside the timed work.
type loopVariant struct{ desc convolve.Description }

func (v *loopVariant) Describe() convolve.Description { return v.desc }

func (v *loopVariant) Plan(p convolve.Problem, cfg convolve.Config) (convolve.Plan, error) {
	b, err := NewBase(v.desc, convolve.Block{}, p, cfg)
	if err != nil {
		return nil, err
	}
	return completePlan(b, setupLoop)
}

// loopPlan is gpu-ch-loop's plan: Upload copies the image into pinned
// host memory; the device work of one run (TimeKernel) is, per channel,
// the upload of that channel, its launch and the download of its output;
// Download copies the pinned output into the caller's image.
//
// A planar image uploads and downloads one plane per channel. The channels
// of an interleaved image share every row, so it is uploaded whole before
// the first launch and downloaded whole after the third: three launches,
// one transfer each way.
type loopPlan struct {
	*Base
	hostIn, hostOut *cudabind.HostBuffer
}

func setupLoop(b *Base) (*loopPlan, error) {
	mod, err := compileChannels(b, chLoop, false)
	if err != nil {
		return nil, err
	}
	fn, err := b.Function(mod, "ch_conv_loop", 0)
	if err != nil {
		return nil, err
	}
	lp := &loopPlan{Base: b}
	if err := convolve.CheckHostMemory("pinned input and output", b.InBytes+b.OutBytes); err != nil {
		return nil, named(b.Name, err)
	}
	err = b.Dev.Do(func(x *cudabind.Exec) error {
		var err error
		if lp.hostIn, err = x.HostAlloc(b.InBytes); err != nil {
			return fmt.Errorf("pinned input: %w", err)
		}
		b.OnClose(func(x *cudabind.Exec) error { return x.FreeHost(lp.hostIn) })
		if lp.hostOut, err = x.HostAlloc(b.OutBytes); err != nil {
			return fmt.Errorf("pinned output: %w", err)
		}
		b.OnClose(func(x *cudabind.Exec) error { return x.FreeHost(lp.hostOut) })
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("variants: %s: %w", b.Name, err)
	}
	in := b.Problem.Input
	grid, block := b.Grid()
	grid.Z = 1
	w, h := b.Dims()
	stride := b.Stride()
	es := int64(in.Type.Size())
	inPlane := int64(in.Height) * int64(in.RowStride()) * es
	outPlane := int64(in.Width) * int64(in.Height) * 4
	b.CopyIn = func(x *cudabind.Exec, im *convolve.Image) error {
		copy(lp.hostIn.Bytes(), unsafe.Slice((*byte)(HostData(im)), b.InBytes))
		return nil
	}
	b.Enqueue = func(x *cudabind.Exec, s cudabind.Stream) error {
		if in.Layout == convolve.Interleaved {
			if err := x.CopyHtoDAsync(b.In, lp.hostIn.Ptr(), b.InBytes, s); err != nil {
				return err
			}
			for c := int32(0); c < 3; c++ {
				if err := x.Launch(fn, grid, block, 0, s, b.In, b.Out, w, h, stride, c); err != nil {
					return err
				}
			}
			return x.CopyDtoHAsync(lp.hostOut.Ptr(), b.Out, b.OutBytes, s)
		}
		for c := int64(0); c < 3; c++ {
			n := inPlane
			if c == 2 {
				n = b.InBytes - 2*inPlane // the last row of the last plane may be short
			}
			if err := x.CopyHtoDAsync(b.In.Add(c*inPlane), unsafe.Add(lp.hostIn.Ptr(), c*inPlane), n, s); err != nil {
				return err
			}
			if err := x.Launch(fn, grid, block, 0, s, b.In, b.Out, w, h, stride, int32(c)); err != nil {
				return err
			}
			if err := x.CopyDtoHAsync(unsafe.Add(lp.hostOut.Ptr(), c*outPlane), b.Out.Add(c*outPlane), outPlane, s); err != nil {
				return err
			}
		}
		return nil
	}
	return lp, nil
}

// Download copies the output of the last run from pinned memory into out.
func (lp *loopPlan) Download(out *convolve.Image) error {
	if err := lp.usable(); err != nil {
		return err
	}
	if err := lp.checkOutput(out); err != nil {
		return err
	}
	return lp.fromHost(out)
}

func (lp *loopPlan) fromHost(out *convolve.Image) error {
	src, err := convolve.WrapFloat32(lp.Problem.OutputGeometry(), cudabind.HostSlice[float32](lp.hostOut))
	if err != nil {
		return fmt.Errorf("variants: %s: %w", lp.Name, err)
	}
	return out.CopyFrom(src)
}

// Run uploads, runs and downloads once.
func (lp *loopPlan) Run(in, out *convolve.Image) error {
	err := lp.runTask(in, out, func(x *cudabind.Exec) error {
		if err := lp.CopyIn(x, in); err != nil {
			return err
		}
		if err := lp.Enqueue(x, lp.stream); err != nil {
			return err
		}
		return x.StreamSync(lp.stream)
	})
	if err != nil {
		return err
	}
	return lp.fromHost(out)
}
