package variants

import (
	"fmt"
	"math"
	"time"

	"github.com/convbench/convbench/convolve"
	"github.com/convbench/convbench/cudabind"
	"github.com/convbench/convbench/cudabind/npp"
)

// The npp variant is the vendor peer: NVIDIA NPP's
// nppiFilter_32f_C1R_Ctx, loaded at run time from libnppif. NPP's own
// border-aware filter supports only replicate, so the plan pads the input
// on the device first (padded.cu's pad_input, any of the five borders)
// and NPP filters the interior of the padded image, reading every halo
// pixel from the padding. NPP applies its coefficient array as a true
// convolution (reversed), so the plan hands it the oriented filter
// flipped; the anchor is the centre. The padding pass and the copy of the
// result's centre are part of npp's timed work; npp-interior (nppInterior)
// runs the same pipeline and times NPP's filter call alone.
func init() {
	convolve.Register(&Variant{
		Desc: convolve.Description{Name: "npp", Report: "",
			Summary: "NVIDIA NPP nppiFilter_32f_C1R_Ctx on a device-padded float image (vendor peer)",
			Caps:    nppCaps()},
		Setup: setupNPP,
		Check: checkNPP,
	})
	convolve.Register(nppInterior{convolve.Description{Name: "npp-interior",
		Summary: "NVIDIA NPP nppiFilter_32f_C1R_Ctx timed alone over the interior ROI of npp's padded image, padding and copy untimed (vendor peer)",
		Caps:    nppCaps()}})
}

// nppCaps are the capabilities of both NPP peers.
func nppCaps() convolve.Capabilities {
	return convolve.Capabilities{
		Ops:      []convolve.Operation{convolve.Filter2D},
		Types:    []convolve.ElemType{convolve.Float32},
		Channels: []int{1},
		Borders:  []convolve.Border{convolve.Zero, convolve.Replicate, convolve.Reflect, convolve.Mirror, convolve.Wrap},
		GPU:      true,
		// FiniteInput: nppiFilter_32f_C1R's code is not published,
		// so nothing says it multiplies every tap (zero weights
		// included) as IEEE arithmetic would; the vendor peer is
		// held to finite input, which it is refused otherwise.
		FiniteInput: true,
	}
}

func setupNPP(b *Base) error {
	st, err := nppStages(b)
	if err != nil {
		return err
	}
	b.Enqueue = func(x *cudabind.Exec, s cudabind.Stream) error {
		if err := st.pad(x, s); err != nil {
			return err
		}
		if err := st.filter(x, s); err != nil {
			return err
		}
		return st.copyOut(x, s)
	}
	return nil
}

// checkNPP is the validity rule of both NPP peers beyond what Base
// checks, without a device: the double-halo buffer's row step within
// NPP's 32-bit byte count, and its padding grid within CUDA's limits.
func checkNPP(b *Base) error {
	g := nppGeometryOf(b)
	if int64(g.bw)*4 > math.MaxInt32 {
		return &convolve.CapabilityError{Variant: b.Name, What: "image width",
			Value: fmt.Sprintf("%d with a %dx%d filter: NPP's row step is a 32-bit byte count", b.Problem.Input.Width, g.kw, g.kh)}
	}
	if _, _, err := Grid(g.bw, g.bh, 1, b.Block); err != nil {
		return named(b.Name, err)
	}
	return nil
}

// nppPipeline is the device work of an npp plan in its three stages, each
// enqueued on a stream: the padding pass, NPP's filter over its ROI, and
// the copy of the ROI's centre to the output.
type nppPipeline struct {
	pad, filter, copyOut func(x *cudabind.Exec, s cudabind.Stream) error
}

// nppGeometry is the shape of an npp plan's buffers. NPP is trusted only
// for output pixels whose whole window lies inside the ROI it is given:
// on an H200 with NPP 13, 3x3 filters treated the pixels beyond the ROI as
// copies of its edge instead of reading them
// (results/logs/nvidia-h200/2026-11-21-eb72296/test-variants.log,
// TestNPPAgreement). So the input is padded by a double halo,
// (W+2KW-2) x (H+2KH-2) with the border applied, NPP filters an ROI of
// (W+KW-1) x (H+KH-1) inside it whose windows never leave the buffer, and
// the W x H centre of that result, where every window lies inside the
// ROI, is copied to the output.
type nppGeometry struct {
	kw, kh int // the filter
	bw, bh int // the double-halo buffer
	rw, rh int // NPP's ROI
}

// nppGeometryOf is the geometry of b's buffers.
func nppGeometryOf(b *Base) nppGeometry {
	in := b.Problem.Input
	kw, kh := b.Filter.Width, b.Filter.Height
	return nppGeometry{kw: kw, kh: kh,
		bw: in.Width + 2*kw - 2, bh: in.Height + 2*kh - 2,
		rw: in.Width + kw - 1, rh: in.Height + kh - 1}
}

// nppStages allocates the padded input and NPP's output, compiles the
// padding kernel, uploads the flipped filter and returns the stages.
func nppStages(b *Base) (*nppPipeline, error) {
	lib, err := npp.Load()
	if err != nil {
		return nil, fmt.Errorf("variants: %s: %w", b.Name, err)
	}
	g := nppGeometryOf(b)
	if err := checkNPP(b); err != nil {
		return nil, err
	}
	padGrid, block, err := Grid(g.bw, g.bh, 1, b.Block)
	if err != nil {
		return nil, named(b.Name, err)
	}
	if int64(g.bw)*int64(g.bh) > math.MaxInt32 {
		b.Index64 = true
	}
	pad, err := b.Alloc(int64(g.bw) * int64(g.bh) * 4)
	if err != nil {
		return nil, fmt.Errorf("padded input: %w", err)
	}
	roiOut, err := b.Alloc(int64(g.rw) * int64(g.rh) * 4)
	if err != nil {
		return nil, fmt.Errorf("NPP output: %w", err)
	}
	padFn, err := nppPadKernel(b, g)
	if err != nil {
		return nil, err
	}
	// NPP convolves: coefficient (i, j) of its array weighs the pixel at
	// (x + ax - i, y + ay - j). Correlating with w is convolving with w
	// rotated by 180 degrees.
	kernel, err := b.UploadFloats(b.Filter.Flipped().Weights)
	if err != nil {
		return nil, err
	}
	w, h := b.Dims()
	stride := b.Stride()
	// ROI pixel (u, v) is centred on buffer pixel (u+KW/2, v+KH/2); image
	// pixel (x, y) is ROI pixel (x+KW/2, y+KH/2).
	centre := roiOut.Add((int64(g.kh/2)*int64(g.rw) + int64(g.kw/2)) * 4)
	return &nppPipeline{
		pad: func(x *cudabind.Exec, s cudabind.Stream) error {
			return x.Launch(padFn, padGrid, block, 0, s, b.In, pad, w, h, stride)
		},
		filter: nppFilterStage(b, lib, g, pad, roiOut, kernel),
		copyOut: func(x *cudabind.Exec, s cudabind.Stream) error {
			return x.CopyDtoD2DAsync(b.Out, int64(w)*4, centre, int64(g.rw)*4, int64(w)*4, int64(h), s)
		},
	}, nil
}

// nppPadKernel compiles the pad kernel with a (2KW-1) x (2KH-1) footprint,
// which writes the double halo, and returns its function.
func nppPadKernel(b *Base, g nppGeometry) (*cudabind.Function, error) {
	mod, err := b.Compile("padded", map[string]string{"KW": fmt.Sprint(2*g.kw - 1), "KH": fmt.Sprint(2*g.kh - 1)})
	if err != nil {
		return nil, err
	}
	return b.Function(mod, "pad_input", 0)
}

// nppFilterStage is the stage that runs NPP's filter, with the device
// kernel's weights, over the ROI of the padded buffer pad into roiOut, on
// the stream it is given.
func nppFilterStage(b *Base, lib *npp.Lib, g nppGeometry, pad, roiOut, kernel cudabind.DevPtr) func(x *cudabind.Exec, s cudabind.Stream) error {
	src := pad.Add((int64(g.kh/2)*int64(g.bw) + int64(g.kw/2)) * 4)
	info := b.Info
	ctx := npp.StreamContext{
		NCudaDeviceID:                      int32(info.Ordinal),
		NMultiProcessorCount:               int32(info.SMs),
		NMaxThreadsPerMultiProcessor:       int32(info.MaxThreadsPerSM),
		NMaxThreadsPerBlock:                int32(info.MaxThreadsPerBlock),
		NSharedMemPerBlock:                 uint64(info.SharedPerBlock),
		NCudaDevAttrComputeCapabilityMajor: int32(info.Major),
		NCudaDevAttrComputeCapabilityMinor: int32(info.Minor),
		NStreamFlags:                       0, // NewStream's flags; 0 is also the default stream's
	}
	kw, kh, rw, rh := g.kw, g.kh, g.rw, g.rh
	return func(x *cudabind.Exec, s cudabind.Stream) error {
		c := ctx
		c.HStream = uintptr(s)
		st := lib.Filter32f(uintptr(src), int32(g.bw*4), uintptr(roiOut), int32(rw*4),
			npp.Size{A: int32(rw), B: int32(rh)}, uintptr(kernel), npp.Size{A: int32(kw), B: int32(kh)}, npp.Size{A: int32(kw / 2), B: int32(kh / 2)}, &c)
		if st < 0 {
			return fmt.Errorf("%s nppiFilter_32f_C1R_Ctx on %dx%d with a %dx%d filter: %s", lib.Name(), rw, rh, kw, kh, st)
		}
		return nil
	}
}

// nppInterior is the npp-interior peer: NPP's filter call timed alone,
// as a user of NPP who pads the image once would time it. Its plan is
// npp's pipeline (pad the input with a double halo through the border,
// nppiFilter_32f_C1R_Ctx over the (W+KW-1) x (H+KH-1) interior ROI of the
// padded buffer, copy the W x H centre to the output), and Run and
// Download give that pipeline's whole, bordered result, so the property
// suite proves it like npp. TimeKernel and TimeKernelGraph time only the
// filter call: the padding pass of the uploaded input is enqueued before
// the start event and the copy of the centre after the stop event, so
// that after them Download holds the output of the timed calls. Its times
// therefore leave out the padding pass and the copy that npp's include;
// the ROI is the one npp filters, (KW-1) columns and (KH-1) rows larger
// than the image, which the NPP behaviour described at nppGeometry needs.
// A cold-cache timing flushes L2 before TimeKernel, so the padding pass
// that follows the flush may leave part of the padded image in L2 for the
// timed filter call.
type nppInterior struct{ desc convolve.Description }

func (v nppInterior) Describe() convolve.Description { return v.desc }

// Plan checks p and cfg, opens the device and sets up npp's pipeline, its
// filter call as the timed work.
func (v nppInterior) Plan(p convolve.Problem, cfg convolve.Config) (convolve.Plan, error) {
	b, err := NewBase(v.desc, convolve.Block{}, p, cfg)
	if err != nil {
		return nil, err
	}
	return completePlan(b, func(b *Base) (*nppInteriorPlan, error) {
		st, err := nppStages(b)
		if err != nil {
			return nil, err
		}
		b.Enqueue = st.filter
		return &nppInteriorPlan{Base: b, st: st}, nil
	})
}

// nppInteriorPlan is npp's pipeline with the filter call as Base's timed
// work.
type nppInteriorPlan struct {
	*Base
	st *nppPipeline
}

// Run pads in, filters and copies the centre out, like npp.
func (p *nppInteriorPlan) Run(in, out *convolve.Image) error {
	return p.runTask(in, out, func(x *cudabind.Exec) error {
		if err := p.copyIn(x, in); err != nil {
			return err
		}
		for _, stage := range []func(*cudabind.Exec, cudabind.Stream) error{p.st.pad, p.st.filter, p.st.copyOut} {
			if err := stage(x, p.stream); err != nil {
				return err
			}
		}
		if err := x.Sync(); err != nil {
			return err
		}
		return p.copyOut(x, out)
	})
}

// TimeKernel times n filter calls on the padded upload, with the padding
// pass before and the copy of the centre after the timed region.
func (p *nppInteriorPlan) TimeKernel(n int) (time.Duration, error) {
	return p.around(func() (time.Duration, error) { return p.Base.TimeKernel(n) })
}

// TimeKernelGraph is TimeKernel with the filter calls replayed from CUDA
// graphs (Base.TimeKernelGraph).
func (p *nppInteriorPlan) TimeKernelGraph(n int) (time.Duration, error) {
	return p.around(func() (time.Duration, error) { return p.Base.TimeKernelGraph(n) })
}

// around enqueues the padding pass on the plan's stream, runs timed
// (which records its start event after it) and then enqueues the copy of
// the centre and waits for it.
func (p *nppInteriorPlan) around(timed func() (time.Duration, error)) (time.Duration, error) {
	if err := p.usable(); err != nil {
		return 0, err
	}
	if err := p.Dev.Do(func(x *cudabind.Exec) error { return p.st.pad(x, p.stream) }); err != nil {
		return 0, fmt.Errorf("variants: %s: padding pass: %w", p.Name, err)
	}
	d, err := timed()
	if err != nil {
		return 0, err
	}
	err = p.Dev.Do(func(x *cudabind.Exec) error {
		if err := p.st.copyOut(x, p.stream); err != nil {
			return err
		}
		return x.StreamSync(p.stream)
	})
	if err != nil {
		return 0, fmt.Errorf("variants: %s: copy of the result: %w", p.Name, err)
	}
	return d, nil
}

var _ convolve.DevicePlan = (*nppInteriorPlan)(nil)
