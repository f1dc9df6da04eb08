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
// flipped; the anchor is the centre. The padding pass is part of the
// timed work, as for gpu-naive-padded.
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
	pw, ph := in.Width+kw-1, in.Height+kh-1
	if int64(pw)*4 > math.MaxInt32 || int64(in.Width)*4 > math.MaxInt32 {
		return &convolve.CapabilityError{Variant: b.Name, What: "image width",
			Value: fmt.Sprintf("%d with a %dx%d filter: NPP's row step is a 32-bit byte count", in.Width, kw, kh)}
	}
	padGrid, block, err := Grid(pw, ph, 1, b.Block)
	if err != nil {
		return named(b.Name, err)
	}
	if int64(pw)*int64(ph) > math.MaxInt32 {
		b.Index64 = true
	}
	pad, err := b.Alloc(int64(pw) * int64(ph) * 4)
	if err != nil {
		return fmt.Errorf("padded input: %w", err)
	}
	mod, err := b.Compile("padded", nil)
	if err != nil {
		return err
	}
	b.OnClose(func(*cudabind.Exec) error { return mod.Close() })
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
	// The ROI starts at the image's first pixel inside the padding.
	src := pad.Add((int64(kh/2)*int64(pw) + int64(kw/2)) * 4)
	info := b.Info
	ctx := nppStreamContext{
		nCudaDeviceID:                      int32(info.Ordinal),
		nMultiProcessorCount:               int32(info.SMs),
		nMaxThreadsPerMultiProcessor:       int32(info.MaxThreadsPerSM),
		nMaxThreadsPerBlock:                int32(info.MaxThreadsPerBlock),
		nSharedMemPerBlock:                 uint64(info.SharedPerBlock),
		nCudaDevAttrComputeCapabilityMajor: int32(info.Major),
		nCudaDevAttrComputeCapabilityMinor: int32(info.Minor),
		nStreamFlags:                       0, // NewStream's flags; 0 is also the default stream's
	}
	b.Enqueue = func(x *cudabind.Exec, s cudabind.Stream) error {
		if err := x.Launch(padFn, padGrid, block, 0, s, b.In, pad, w, h, stride); err != nil {
			return err
		}
		c := ctx
		c.hStream = uintptr(s)
		st := lib.filter32f(uintptr(src), int32(pw*4), uintptr(b.Out), w*4,
			nppSize{w, h}, uintptr(kernel), nppSize{int32(kw), int32(kh)}, nppSize{int32(kw / 2), int32(kh / 2)}, &c)
		if st < 0 {
			return fmt.Errorf("%s nppiFilter_32f_C1R_Ctx on %dx%d with a %dx%d filter: %s", lib.name, w, h, kw, kh, nppStatusName(st))
		}
		return nil
	}
	return nil
}
