package variants

import (
	"fmt"
	"math"

	"github.com/convbench/convbench/convolve"
	"github.com/convbench/convbench/cudabind"
)

// The npp variant is the vendor peer: NVIDIA NPP's
// nppiFilter_32f_C1R_Ctx, loaded at run time from libnppif. NPP's own
// border-aware filter supports only replicate, so the plan pads the input
// on the device first (padded.cu's pad_input, any of the five borders)
// and NPP filters the interior of the padded image, reading every halo
// pixel from the padding. NPP applies its coefficient array as a true
// convolution (reversed), so the plan hands it the oriented filter
// flipped; the anchor is the centre. The padding pass and the copy of the
// result's centre are part of the timed work.
func init() {
	convolve.Register(&Variant{
		Desc: convolve.Description{Name: "npp", Report: "",
			Summary: "NVIDIA NPP nppiFilter_32f_C1R_Ctx on a device-padded float image (vendor peer)",
			Caps: convolve.Capabilities{
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
			}},
		Setup: setupNPP,
	})
}

// NPPLibrary returns the name of the libnppif that loaded, or the
// *cudabind.UnavailableError saying why none did.
func NPPLibrary() (string, error) {
	l, err := loadNPP()
	if err != nil {
		return "", err
	}
	return l.name, nil
}

func setupNPP(b *Base) error {
	lib, err := loadNPP()
	if err != nil {
		return fmt.Errorf("variants: %s: %w", b.Name, err)
	}
	in := b.Problem.Input
	kw, kh := b.Filter.Width, b.Filter.Height
	// NPP is trusted only for output pixels whose whole window lies inside
	// the ROI it is given: on an H200 with NPP 13, 3x3 filters treated the
	// pixels beyond the ROI as copies of its edge instead of reading them
	// (results/logs/nvidia-h200/2026-11-21-eb72296/test-variants.log, TestNPPAgreement). So the input is
	// padded by a double halo, (W+2KW-2) x (H+2KH-2) with the border
	// applied, NPP filters an ROI of (W+KW-1) x (H+KH-1) inside it whose
	// windows never leave the buffer, and the W x H centre of that result,
	// where every window lies inside the ROI, is copied to the output.
	bw, bh := in.Width+2*kw-2, in.Height+2*kh-2 // double-halo buffer
	rw, rh := in.Width+kw-1, in.Height+kh-1     // NPP's ROI
	if int64(bw)*4 > math.MaxInt32 {
		return &convolve.CapabilityError{Variant: b.Name, What: "image width",
			Value: fmt.Sprintf("%d with a %dx%d filter: NPP's row step is a 32-bit byte count", in.Width, kw, kh)}
	}
	padGrid, block, err := Grid(bw, bh, 1, b.Block)
	if err != nil {
		return named(b.Name, err)
	}
	if int64(bw)*int64(bh) > math.MaxInt32 {
		b.Index64 = true
	}
	pad, err := b.Alloc(int64(bw) * int64(bh) * 4)
	if err != nil {
		return fmt.Errorf("padded input: %w", err)
	}
	roiOut, err := b.Alloc(int64(rw) * int64(rh) * 4)
	if err != nil {
		return fmt.Errorf("NPP output: %w", err)
	}
	// The pad kernel compiled with a (2KW-1) x (2KH-1) footprint writes the
	// double halo.
	mod, err := b.Compile("padded", map[string]string{"KW": fmt.Sprint(2*kw - 1), "KH": fmt.Sprint(2*kh - 1)})
	if err != nil {
		return err
	}
	padFn, err := b.Function(mod, "pad_input", 0)
	if err != nil {
		return err
	}
	// NPP convolves: coefficient (i, j) of its array weighs the pixel at
	// (x + ax - i, y + ay - j). Correlating with w is convolving with w
	// rotated by 180 degrees.
	kernel, err := b.UploadFloats(b.Filter.Flipped().Weights)
	if err != nil {
		return err
	}
	w, h := b.Dims()
	stride := b.Stride()
	// ROI pixel (u, v) is centred on buffer pixel (u+KW/2, v+KH/2); image
	// pixel (x, y) is ROI pixel (x+KW/2, y+KH/2).
	src := pad.Add((int64(kh/2)*int64(bw) + int64(kw/2)) * 4)
	centre := roiOut.Add((int64(kh/2)*int64(rw) + int64(kw/2)) * 4)
	info := b.Info
	ctx := nppStreamContext{
		NCudaDeviceID:                      int32(info.Ordinal),
		NMultiProcessorCount:               int32(info.SMs),
		NMaxThreadsPerMultiProcessor:       int32(info.MaxThreadsPerSM),
		NMaxThreadsPerBlock:                int32(info.MaxThreadsPerBlock),
		NSharedMemPerBlock:                 uint64(info.SharedPerBlock),
		NCudaDevAttrComputeCapabilityMajor: int32(info.Major),
		NCudaDevAttrComputeCapabilityMinor: int32(info.Minor),
		NStreamFlags:                       0, // NewStream's flags; 0 is also the default stream's
	}
	b.Enqueue = func(x *cudabind.Exec, s cudabind.Stream) error {
		if err := x.Launch(padFn, padGrid, block, 0, s, b.In, pad, w, h, stride); err != nil {
			return err
		}
		c := ctx
		c.HStream = uintptr(s)
		st := lib.filter32f(uintptr(src), int32(bw*4), uintptr(roiOut), int32(rw*4),
			nppSize{int32(rw), int32(rh)}, uintptr(kernel), nppSize{int32(kw), int32(kh)}, nppSize{int32(kw / 2), int32(kh / 2)}, &c)
		if st < 0 {
			return fmt.Errorf("%s nppiFilter_32f_C1R_Ctx on %dx%d with a %dx%d filter: %s", lib.name, rw, rh, kw, kh, nppStatusName(st))
		}
		return x.CopyDtoD2DAsync(b.Out, int64(w)*4, centre, int64(rw)*4, int64(w)*4, int64(h), s)
	}
	return nil
}
