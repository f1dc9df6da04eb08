package runfile

import (
	"fmt"
	"strings"
)

// Keys of the configuration lines ("key: value") a run opens with, that
// the benchmarks write and the report reads. benchstat groups and
// compares by them.
const (
	KeySweep        = "sweep"             // the preset the run swept
	KeyCPUThreads   = "cpu-threads"       // threads a CPU variant may use
	KeyCPUCap       = "cpu-cap"           // the cap on a CPU case's multiply-adds
	KeyCPUCopyGBps  = "cpu-copy-gbps"     // the CPU's measured copy bandwidth
	KeyCPUScalar    = "cpu-scalar-gflops" // the CPU's measured scalar multiply-add rate
	KeyCPUFMA       = "cpu-fma-gflops"    // the CPU's measured vector FMA peak
	KeyGPU          = "gpu"               // the GPU's name, or "none"
	KeyGPUCC        = "gpu-cc"            // its compute capability
	KeyGPUSMs       = "gpu-sms"           // its multiprocessors
	KeyDriver       = "driver"            // the CUDA driver's version
	KeyNVRTC        = "nvrtc"             // NVRTC's version
	KeyGPUPeakGBps  = "gpu-peak-gbps"     // the GPU's DRAM bandwidth from its clocks
	KeyGPUCopyGBps  = "gpu-copy-gbps"     // its measured device copy bandwidth
	KeyGPUPeakFLOPs = "gpu-peak-gflops"   // its FP32 peak from its clocks
	KeyKernelOpts   = "kernel-opts"       // the NVRTC options of the kernels
	KeyGPUCount     = "gpu-count"         // the devices present
	KeyGPUH2DGBps   = "gpu-h2d-gbps"      // measured pinned host-to-device bandwidth
	KeyGPUD2HGBps   = "gpu-d2h-gbps"      // measured pinned device-to-host bandwidth
	KeyGPUBidirGBps = "gpu-bidir-gbps"    // measured bandwidth of both ways at once
)

// ConfigLine is the configuration line "key: value".
func ConfigLine(key, value string) string { return key + ": " + value }

// SettingPrefix begins the line that records how a case's plan was set
// up (SettingLine).
const SettingPrefix = "# setting "

// SettingLine is the comment line "# setting <case>: <note>" that
// records the block and tunables a case's plan ran with and where they
// came from.
func SettingLine(name, note string) string { return SettingPrefix + name + ": " + note }

// ParseSetting reads a line SettingLine wrote: the case's name and the
// note. ok is false for any other line; a setting line without the
// separator is an error.
func ParseSetting(line string) (name, note string, ok bool, err error) {
	rest, found := strings.CutPrefix(line, SettingPrefix)
	if !found {
		return "", "", false, nil
	}
	name, note, found = strings.Cut(rest, ": ")
	if !found {
		return "", "", false, fmt.Errorf("setting line %q: want the case, \": \" and the note", line)
	}
	return name, note, true, nil
}

// noGPUPrefix and noGPUSuffix enclose the reason of a run without a GPU
// (NoGPULine).
const (
	noGPUPrefix = "# no GPU: "
	noGPUSuffix = "; CPU variants only"
)

// NoGPULine is the comment line a run on a host without a usable GPU
// writes: "# no GPU: <reason>; CPU variants only".
func NoGPULine(reason string) string { return noGPUPrefix + reason + noGPUSuffix }

// ParseNoGPU reads a line NoGPULine wrote: the reason. ok is false for
// any other line.
func ParseNoGPU(line string) (reason string, ok bool) {
	r, ok := strings.CutPrefix(line, noGPUPrefix)
	if !ok {
		return "", false
	}
	return strings.TrimSuffix(r, noGPUSuffix), true
}
