package benchmarks

import (
	"fmt"
	"strings"

	"github.com/convbench/convbench/convolve"
	"github.com/convbench/convbench/cudabind"
	// The GPU variants register themselves with convolve.
	_ "github.com/convbench/convbench/cudabind/variants"
)

// OpenHost looks for a usable CUDA device and describes it: name, compute
// capability, SMs, driver and NVRTC versions, theoretical and measured
// bandwidth, FP32 peak and the kernels' common compile options. Without a
// driver or device it returns a Host with no GPU and the reason.
func OpenHost() Host {
	d, err := cudabind.Default()
	if err != nil {
		return Host{NoGPUReason: err.Error()}
	}
	info := d.Info()
	bw, err := d.CopyBandwidth()
	if err != nil {
		return Host{NoGPUReason: fmt.Sprintf("measuring the copy bandwidth of %s: %v", info.Name, err)}
	}
	opts := cudabind.CompileOptions{Arch: info.Arch(), FMAD: true}.Options()
	return Host{
		GPU: &GPUInfo{
			Name:       info.Name,
			CC:         info.CC(),
			SMs:        info.SMs,
			Driver:     info.Driver(),
			NVRTC:      info.NVRTC(),
			PeakGBps:   info.PeakBandwidthGBps,
			CopyGBps:   bw,
			PeakGFLOPs: d.PeakFP32GFLOPs(),
			KernelOpts: strings.Join(opts, " "),
		},
		Device: gpuDevice{d},
		Pinned: true,
	}
}

// gpuDevice adapts a cudabind device to Device.
type gpuDevice struct{ d *cudabind.Device }

func (g gpuDevice) FlushL2() error {
	return g.d.Do(func(x *cudabind.Exec) error { return g.d.FlushL2(x) })
}

// NewPinnedImage allocates page-locked host memory for an image of
// geometry g and wraps it without copying.
func (g gpuDevice) NewPinnedImage(geo convolve.Geometry) (*convolve.Image, func() error, error) {
	if err := geo.Validate(); err != nil {
		return nil, nil, err
	}
	var h *cudabind.HostBuffer
	err := g.d.Do(func(x *cudabind.Exec) error {
		var err error
		h, err = x.HostAlloc(int64(geo.Len()) * int64(geo.Type.Size()))
		return err
	})
	if err != nil {
		return nil, nil, err
	}
	free := func() error { return g.d.Do(func(x *cudabind.Exec) error { return x.FreeHost(h) }) }
	var im *convolve.Image
	switch geo.Type {
	case convolve.Float32:
		im, err = convolve.WrapFloat32(geo, cudabind.HostSlice[float32](h))
	case convolve.Uint8:
		im, err = convolve.WrapUint8(geo, cudabind.HostSlice[uint8](h))
	default:
		im, err = convolve.WrapInt16(geo, cudabind.HostSlice[int16](h))
	}
	if err != nil {
		return nil, nil, fmt.Errorf("benchmarks: pinned image %v: %v (free: %v)", geo, err, free())
	}
	return im, free, nil
}
