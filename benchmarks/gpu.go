package benchmarks

import (
	"fmt"
	"strings"
	"time"

	"github.com/convbench/convbench/convolve"
	"github.com/convbench/convbench/cudabind"
	"github.com/convbench/convbench/cudabind/devfacts"
	"github.com/convbench/convbench/gpu/auto"
	"github.com/convbench/convbench/runfile"
)

// autoPathsLine is the configuration line that names, for each registered
// auto variant, the paths it may run ("auto-paths: auto=gpu-regtile,...;
// auto-bf16=..."), so that a report reading the run alone can set each
// against the fastest of them; "auto-paths: none" when none is
// registered.
func autoPathsLine() string {
	var parts []string
	for _, v := range convolve.Variants() {
		if a, ok := v.(*auto.Variant); ok {
			parts = append(parts, a.Describe().Name+"="+strings.Join(a.PathNames(), ","))
		}
	}
	if len(parts) == 0 {
		return runfile.ConfigLine(runfile.KeyAutoPaths, "none")
	}
	return runfile.ConfigLine(runfile.KeyAutoPaths, strings.Join(parts, "; "))
}

// openHost looks for a usable CUDA device and describes it: name, compute
// capability, SMs, driver and NVRTC versions, theoretical and measured
// bandwidth, FP32 peak and the kernels' common compile options. Without a
// driver or device it returns a Host with no GPU and the reason. Its
// clock guard (maxRetakes retakes per line) reads the device through
// NVML; without NVML, or when NVML does not know the device or its
// maximum clock, the guard is off and says why. Its energy meter reads
// NVML's energy counter of the device (openEnergy), or is off and says
// why.
func openHost(maxRetakes int) Host {
	d, err := cudabind.Default()
	if err != nil {
		return Host{NoGPUReason: err.Error(), Guard: &ClockGuard{Off: "no GPU"}, Energy: &EnergyMeter{Off: "no GPU"}}
	}
	info := d.Info()
	bw, err := devfacts.CopyBandwidth(d)
	if err != nil {
		return Host{NoGPUReason: fmt.Sprintf("measuring the copy bandwidth of %s: %v", info.Name, err),
			Guard: &ClockGuard{Off: "no GPU"}, Energy: &EnergyMeter{Off: "no GPU"}}
	}
	opts := cudabind.CompileOptions{Arch: info.Arch(), FMAD: true}.Options()
	count := 0
	if infos, err := cudabind.Devices(); err == nil {
		count = len(infos)
	}
	h2d, d2h, err := devfacts.HostCopyBandwidth(d)
	if err != nil {
		h2d, d2h = 0, 0 // the lines and metrics that need them are left out
	}
	both, err := devfacts.HostCopyBidirectional(d)
	if err != nil {
		both = 0
	}
	return Host{
		GPU: &GPUInfo{
			Name:       info.Name,
			CC:         info.CC(),
			SMs:        info.SMs,
			Driver:     info.Driver(),
			NVRTC:      info.NVRTC(),
			PeakGBps:   info.PeakBandwidthGBps,
			CopyGBps:   bw,
			PeakGFLOPs: devfacts.PeakFP32GFLOPs(info),
			KernelOpts: strings.Join(opts, " "),
			Count:      count,
			H2DGBps:    h2d,
			D2HGBps:    d2h,
			BothGBps:   both,
		},
		Device: gpuDevice{d: d, l2: devfacts.NewL2Flusher(d)},
		Pinned: true,
		Guard:  openGuard(info.UUID, maxRetakes),
		Energy: openEnergy(info.UUID),
	}
}

// openEnergy opens the energy meter of the device with the given UUID:
// NVML's energy counter (Volta and later), its update period measured
// (energyMeterFor); off, with the reason, without NVML or the counter.
func openEnergy(uuid string) *EnergyMeter {
	n, err := cudabind.OpenNVML(uuid)
	if err != nil {
		return &EnergyMeter{Off: "NVML: " + err.Error()}
	}
	if _, err := n.EnergyMJ(); err != nil {
		return &EnergyMeter{Off: "NVML has no energy counter for this GPU (Volta or later, and a driver that exports it): " + err.Error()}
	}
	return energyMeterFor(n, "", time.Now, time.Sleep)
}

// openGuard opens the clock guard of the device with the given UUID.
func openGuard(uuid string, maxRetakes int) *ClockGuard {
	n, err := cudabind.OpenNVML(uuid)
	if err != nil {
		return &ClockGuard{Off: "NVML: " + err.Error()}
	}
	maxMHz, err := n.MaxSMClockMHz()
	if err != nil {
		return &ClockGuard{Off: "NVML has no maximum SM clock: " + err.Error()}
	}
	if maxMHz <= 0 {
		return &ClockGuard{Off: fmt.Sprintf("NVML reports a maximum SM clock of %d MHz", maxMHz)}
	}
	if _, err := n.SMClockMHz(); err != nil {
		return &ClockGuard{Off: "NVML cannot read the SM clock: " + err.Error()}
	}
	return &ClockGuard{Clocks: nvmlClocks{n}, MaxMHz: maxMHz, MaxRetakes: maxRetakes}
}

// nvmlClocks adapts a cudabind NVML device to Clocks.
type nvmlClocks struct{ d *cudabind.NVMLDevice }

func (c nvmlClocks) SMClockMHz() (int, error) { return c.d.SMClockMHz() }

// State reads the SM clock, and power, temperature and the other
// processes on the GPU where NVML reports them; what it cannot read is
// left out.
func (c nvmlClocks) State() (GPUState, error) {
	mhz, err := c.d.SMClockMHz()
	if err != nil {
		return GPUState{}, err
	}
	st := GPUState{SMClockMHz: mhz}
	if w, err := c.d.PowerW(); err == nil {
		st.PowerW, st.HasPower = w, true
	}
	if t, err := c.d.TemperatureC(); err == nil {
		st.TempC, st.HasTemp = t, true
	}
	if n, err := c.d.OtherProcesses(); err == nil {
		st.OtherProcesses, st.HasProcesses = n, true
	}
	return st, nil
}

// gpuDevice adapts a cudabind device to Device; its L2 flush buffer
// lives as long as the process.
type gpuDevice struct {
	d  *cudabind.Device
	l2 *devfacts.L2Flusher
}

func (g gpuDevice) FlushL2() error {
	return g.d.Do(func(x *cudabind.Exec) error { return g.l2.Flush(x) })
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
