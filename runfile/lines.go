package runfile

import (
	"fmt"
	"slices"
	"strings"
)

// Keys of the lines "key: value" a run opens with: measured lines
// (MeasuredKeys) and configuration lines, which benchstat groups by.
const (
	KeySweep        = "sweep"             // the preset the run swept
	KeySweepAxes    = "sweep-axes"        // the axis flags that replaced the preset's axes
	KeyImage        = "image"             // the image every case ran on, where one was given
	KeyNoise        = "noise"             // the sampling rule of the result lines (ParseNoiseTarget)
	KeyCPU          = "cpu"               // the CPU's name, as the testing package writes it
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
	KeyGPUMaxSMMHz  = "gpu-max-sm-mhz"    // its maximum SM clock, as the driver reports it
	KeyKernelOpts   = "kernel-opts"       // the NVRTC options of the kernels
	KeyTuning       = "tuning"            // the tuning table the GPU plans take unset tunables from
	KeyCrossover    = "crossover"         // the crossover table auto's cases take their paths from
	KeyAutoPaths    = "auto-paths"        // the paths each auto variant may take
	KeyGPUCount     = "gpu-count"         // the devices present
	KeyGPUH2DGBps   = "gpu-h2d-gbps"      // measured pinned host-to-device bandwidth
	KeyGPUD2HGBps   = "gpu-d2h-gbps"      // measured pinned device-to-host bandwidth
	KeyGPUBidirGBps = "gpu-bidir-gbps"    // measured bandwidth of both ways at once
	KeyClockGuard   = "clock-guard"       // the rule that discards samples of a throttled GPU
	KeyGPUEnergy    = "gpu-energy"        // how the lines' energy is measured, or why it is not
)

// measuredKeys are the keys of values measured on the host or read from
// the GPU's clocks, which differ from run to run and board to board.
var measuredKeys = []string{
	KeyCPUCopyGBps, KeyCPUScalar, KeyCPUFMA,
	KeyGPUPeakGBps, KeyGPUCopyGBps, KeyGPUPeakFLOPs, KeyGPUMaxSMMHz,
	KeyGPUH2DGBps, KeyGPUD2HGBps, KeyGPUBidirGBps,
}

// MeasuredKeys returns the keys a run records in measured lines
// (MeasuredLine) rather than configuration lines.
func MeasuredKeys() []string { return append([]string(nil), measuredKeys...) }

// IsMeasured reports whether key is one of MeasuredKeys.
func IsMeasured(key string) bool { return slices.Contains(measuredKeys, key) }

const measuredPrefix = "# measured "

// MeasuredLine is the comment line "# measured key: value" that records
// a value the run measured on its host. benchstat ignores it, so that
// runs on two hosts pair case by case under its default grouping.
func MeasuredLine(key, value string) string { return measuredPrefix + key + ": " + value }

// ParseMeasured reads a line MeasuredLine wrote: the key and the value.
// ok is false for any other line.
func ParseMeasured(line string) (key, value string, ok bool) {
	key, value, ok = cutLine(line, measuredPrefix)
	if !ok || strings.ContainsAny(key, " \t") {
		return "", "", false
	}
	return key, strings.TrimSpace(value), true
}

// cutLine reads a comment line "<prefix><name>: <rest>": the name and the
// rest. ok is false for any other line, and for an empty name.
func cutLine(line, prefix string) (name, rest string, ok bool) {
	r, found := strings.CutPrefix(line, prefix)
	if name, rest, ok = strings.Cut(r, ": "); !found || !ok || name == "" {
		return "", "", false
	}
	return name, rest, true
}

// ConfigLine is the configuration line "key: value".
func ConfigLine(key, value string) string { return key + ": " + value }

// SettingPrefix begins the comment line "# setting <case>: <note>" that
// records the block and tunables a case's plan ran with and where they
// came from.
const SettingPrefix = "# setting "

// ParseSetting reads a setting line: the case's name and the note. ok is
// false for any other line; a setting line without the separator is an
// error.
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
