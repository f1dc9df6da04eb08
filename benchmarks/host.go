package benchmarks

import (
	"fmt"
	"os"
	"strconv"

	"github.com/convbench/convbench/runfile"
	"github.com/convbench/convbench/tables/crossover"
	"github.com/convbench/convbench/tables/tuning"
)

// GPUInfo describes the device benchmarks run on, as configuration lines.
type GPUInfo struct {
	Name       string
	CC         string // compute capability, "9.0"
	SMs        int
	Driver     string // driver API version
	NVRTC      string // NVRTC version
	PeakGBps   float64
	CopyGBps   float64 // measured device-to-device copy, bytes read + written
	PeakGFLOPs float64 // FP32
	KernelOpts string  // NVRTC options every kernel is compiled with
	// Count is the number of CUDA devices present (the gpus=all of the
	// gpu-slab cases), 0 when not counted.
	Count int
	// H2DGBps and D2HGBps are the measured pinned host-to-device and
	// device-to-host copy bandwidths (devfacts.HostCopyBandwidth), 0 when
	// not measured.
	H2DGBps, D2HGBps float64
	// BothGBps is the measured bandwidth of pinned copies both ways at
	// once, bytes moved both ways per second
	// (devfacts.HostCopyBidirectional), 0 when not measured.
	BothGBps float64
}

// Host is what the benchmarks found on this machine.
type Host struct {
	GPU         *GPUInfo // nil without a usable GPU
	NoGPUReason string   // why GPU is nil
	Device      Device   // nil without a usable GPU
	Pinned      bool     // pinned host memory can be allocated
	// Guard watches the GPU's SM clock while GPU cases are sampled; it
	// is never nil from openHost, and off (with the reason) without a
	// GPU or NVML.
	Guard *ClockGuard
	// Energy reads the GPU's energy counter around the timed runs of GPU
	// cases; it is never nil from openHost, and off (with the reason)
	// without a GPU, NVML or the counter.
	Energy *EnergyMeter
	// CPU holds the CPU's measured ceilings, nil when not measured (a
	// sweep without CPU cases).
	CPU *CPUCeilings
}

// Peaks returns the limits the %peak metrics use: the GPU's (zero
// without a GPU) and the CPU's measured ceilings (zero when not measured).
func (h Host) Peaks() Peaks {
	var p Peaks
	if h.GPU != nil {
		p.CopyGBps, p.FP32GFLOPs = h.GPU.CopyGBps, h.GPU.PeakGFLOPs
		p.H2DGBps, p.D2HGBps, p.BothGBps = h.GPU.H2DGBps, h.GPU.D2HGBps, h.GPU.BothGBps
	}
	if h.CPU != nil {
		p.CPUCopyGBps, p.CPUFMAGFLOPs = h.CPU.CopyGBps, h.CPU.FMAGFLOPs
	}
	return p
}

// configLines are the lines printed before the benchmarks: the
// configuration lines ("key: value"), which benchstat groups and compares
// by, and the measured lines (runfile.MeasuredLine: the values of
// runfile.MeasuredKeys, which differ from run to run and which benchstat
// must not split its tables on). Testing itself prints goos, goarch, pkg
// and cpu. With h.CPU they include the measured cpu-copy-gbps and
// cpu-scalar-gflops, the CPU's copy bandwidth and scalar multiply-add
// rate, and where it was measured cpu-fma-gflops, its vector FMA peak
// (CPUCeilings). With a GPU they include its peaks from its clocks and
// its measured copy bandwidth, gpu-count, the devices present, where
// counted, and the measured gpu-h2d-gbps and gpu-d2h-gbps, the pinned
// host-copy bandwidths each way; the last line, gpu-energy, says whether
// and when the result lines carry the energy one run drew
// (EnergyMeter.ConfigLine).
func configLines(h Host, sweep string, cpuThreads int, cpuCap int64) []string {
	lines := []string{
		runfile.ConfigLine(runfile.KeySweep, sweep),
		runfile.ConfigLine(runfile.KeyCPUThreads, strconv.Itoa(cpuThreads)),
	}
	if cpuCap > 0 {
		lines = append(lines, runfile.ConfigLine(runfile.KeyCPUCap, fmt.Sprintf("%d multiply-adds per CPU case", cpuCap)))
	} else {
		lines = append(lines, runfile.ConfigLine(runfile.KeyCPUCap, "none"))
	}
	if c := h.CPU; c != nil {
		lines = append(lines,
			runfile.MeasuredLine(runfile.KeyCPUCopyGBps, strconv.FormatFloat(c.CopyGBps, 'f', 1, 64)),
			runfile.MeasuredLine(runfile.KeyCPUScalar, strconv.FormatFloat(c.ScalarGFLOPs, 'f', 1, 64)),
		)
		if c.FMAGFLOPs > 0 {
			lines = append(lines, runfile.MeasuredLine(runfile.KeyCPUFMA, strconv.FormatFloat(c.FMAGFLOPs, 'f', 1, 64)))
		}
	}
	if h.GPU == nil {
		return append(lines, runfile.ConfigLine(runfile.KeyGPU, "none"))
	}
	g := h.GPU
	lines = append(lines,
		runfile.ConfigLine(runfile.KeyGPU, g.Name),
		runfile.ConfigLine(runfile.KeyGPUCC, g.CC),
		runfile.ConfigLine(runfile.KeyGPUSMs, strconv.Itoa(g.SMs)),
		runfile.ConfigLine(runfile.KeyDriver, g.Driver),
		runfile.ConfigLine(runfile.KeyNVRTC, g.NVRTC),
		runfile.MeasuredLine(runfile.KeyGPUPeakGBps, strconv.FormatFloat(g.PeakGBps, 'f', 1, 64)),
		runfile.MeasuredLine(runfile.KeyGPUCopyGBps, strconv.FormatFloat(g.CopyGBps, 'f', 1, 64)),
		runfile.MeasuredLine(runfile.KeyGPUPeakFLOPs, strconv.FormatFloat(g.PeakGFLOPs, 'f', 0, 64)),
		runfile.ConfigLine(runfile.KeyKernelOpts, g.KernelOpts),
		tuningLine(g.Name, os.Getenv(tuning.EnvVar), tuning.Tables.Default),
		crossoverLine(g.Name, os.Getenv(crossover.EnvVar), crossover.Tables.Default),
		autoPathsLine(),
	)
	if g.Count > 0 {
		lines = append(lines, runfile.ConfigLine(runfile.KeyGPUCount, strconv.Itoa(g.Count)))
	}
	if g.H2DGBps > 0 && g.D2HGBps > 0 {
		lines = append(lines,
			runfile.MeasuredLine(runfile.KeyGPUH2DGBps, strconv.FormatFloat(g.H2DGBps, 'f', 1, 64)),
			runfile.MeasuredLine(runfile.KeyGPUD2HGBps, strconv.FormatFloat(g.D2HGBps, 'f', 1, 64)))
	}
	if g.BothGBps > 0 {
		lines = append(lines, runfile.MeasuredLine(runfile.KeyGPUBidirGBps, strconv.FormatFloat(g.BothGBps, 'f', 1, 64)))
	}
	return append(lines, h.Energy.ConfigLine())
}

// crossoverLine is the configuration line that says where the run's auto
// cases take their paths from: gpu's crossover table from the set load
// returns (with env, the value of CONVBENCH_CROSSOVER), or auto's
// heuristic.
func crossoverLine(gpu, env string, load func() (*crossover.Set, error)) string {
	return tableLine(runfile.KeyCrossover, crossover.EnvVar, gpu, env, load,
		"auto's heuristic", " for auto's paths, its heuristic where it has no entry")
}

// tuningLine is the configuration line that says where the run's GPU
// plans take the tunables their case leaves unset: gpu's tuning table
// from the set load returns (with env, the value of CONVBENCH_TUNING), or
// the families' defaults.
func tuningLine(gpu, env string, load func() (*tuning.Set, error)) string {
	return tableLine(runfile.KeyTuning, tuning.EnvVar, gpu, env, load,
		"family defaults", " for unset tunables, family defaults where it has no entry")
}

// tableLine is the configuration line key that names the source of gpu's
// table in the set load returns, with env, the value of envVar, and then
// use; or, where env is "off", the set cannot be read or holds no table
// for gpu, why, and fallback, what the run takes in its place.
func tableLine[S interface{ Source(gpu string) string }](key, envVar, gpu, env string, load func() (S, error), fallback, use string) string {
	if env == "off" {
		return runfile.ConfigLine(key, "off ("+envVar+"=off): "+fallback)
	}
	set, err := load()
	if err != nil {
		return runfile.ConfigLine(key, "unreadable ("+err.Error()+"): "+fallback)
	}
	src := set.Source(gpu)
	if src == "" {
		return runfile.ConfigLine(key, "no table for "+gpu+": "+fallback)
	}
	if env != "" {
		src += " (" + envVar + "=" + env + ")"
	}
	return runfile.ConfigLine(key, src+use)
}
