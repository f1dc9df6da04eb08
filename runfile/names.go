package runfile

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"time"
)

// keys is the order of the keys in every case name. The filter key
// carries a library filter's canonical name (convolve.FilterSpec), an
// operation's name or a weights file's, and k the filter's size: K, or
// KWxKH where its sides differ. New keys go at the end, so that names
// stored before them keep their prefix; opts, tune and gpus may be
// absent (Implied).
var keys = []string{"variant", "size", "filter", "k", "block", "border", "type", "ch", "layout", "cache", "timing", "mem", "opts", "tune", "gpus"}

// Keys returns the keys every case name carries, in order.
func Keys() []string { return append([]string(nil), keys...) }

// CPUTiming is the value of the timing key of a case that times a CPU
// variant with the host clock.
const CPUTiming = "cpu"

// Parse parses a case name (with or without a leading "BenchmarkConv/" or
// "Conv/" and a trailing "-N" GOMAXPROCS suffix) into its key=value
// pairs, supplying opts, tune and gpus where absent (Implied). A name
// that lacks any other key of Keys, or has a part that is not key=value,
// is an error.
func Parse(name string) (map[string]string, error) {
	_, name, _ = splitName(name)
	kv := map[string]string{}
	for _, part := range strings.Split(name, "/") {
		k, v, ok := strings.Cut(part, "=")
		if !ok || k == "" {
			return nil, fmt.Errorf("runfile: name part %q of %q is not key=value", part, name)
		}
		kv[k] = v
	}
	for _, k := range []string{"opts", "tune", "gpus"} {
		if _, ok := kv[k]; !ok {
			kv[k] = Implied(kv["timing"])
		}
	}
	for _, k := range keys {
		if _, ok := kv[k]; !ok {
			return nil, fmt.Errorf("runfile: name %q lacks key %q", name, k)
		}
	}
	return kv, nil
}

// splitName splits a case name into its leading "BenchmarkConv/" or
// "Conv/", if any, its key=value parts and its "-N" GOMAXPROCS suffix, if
// any.
func splitName(name string) (prefix, parts, suffix string) {
	for _, p := range []string{"BenchmarkConv/", "Conv/"} {
		if strings.HasPrefix(name, p) {
			prefix = p
			break
		}
	}
	parts = name[len(prefix):]
	if i := strings.LastIndexByte(parts, '-'); i > strings.LastIndexByte(parts, '=') {
		if _, err := strconv.Atoi(parts[i+1:]); err == nil {
			parts, suffix = parts[:i], parts[i:]
		}
	}
	return prefix, parts, suffix
}

// TimeUnits are the units of the time an operation a result line may
// carry, in the order they are read as the case's time: the GPU kernel's
// (CUDA events), the GPU's with its host copies (pipelines), else the
// host's wall time.
var TimeUnits = []string{"gpu-ns/op", "total-ns/op", "ns/op"}

// UnitOtherProcesses is the unit of the most processes other than the
// benchmark's that held a compute context on the GPU at the start or the
// end of a result line's samples (NVML); a line carries it only where
// there were any.
const UnitOtherProcesses = "gpu-other-procs"

// Implied is the value of the opts, tune or gpus key of a case name that
// lacks it, given the name's timing: "none" for a CPU case (CPUTiming),
// "default" otherwise.
func Implied(timing string) string {
	if timing == CPUTiming {
		return "none"
	}
	return "default"
}

// Slug is a short directory name for the results of a host: the GPU name
// in lower case with runs of other characters turned into '-'
// ("NVIDIA H100 80GB HBM3" -> "nvidia-h100-80gb-hbm3"), or, with no GPU
// name, "cpu-" and the slug of cpuName.
func Slug(gpuName, cpuName string) string {
	s := gpuName
	if s == "" {
		s = "cpu " + cpuName
	}
	return strings.Trim(nonSlug.ReplaceAllString(strings.ToLower(s), "-"), "-")
}

// nonSlug matches the runs of characters that a slug turns into '-'.
var nonSlug = regexp.MustCompile(`[^a-z0-9]+`)

const unsupportedPrefix = "# unsupported "

// UnsupportedLine is the comment line that records a case its variant
// refused as unsupported at plan time: "# unsupported <case>: <reason>",
// the case's name without "BenchmarkConv/" and the reason on one line.
func UnsupportedLine(name, reason string) string {
	return unsupportedPrefix + name + ": " + strings.Join(strings.Fields(reason), " ")
}

// ParseUnsupported reads a line UnsupportedLine wrote: the case's name
// and the reason. ok is false for any other line.
func ParseUnsupported(line string) (name, reason string, ok bool) {
	return cutLine(line, unsupportedPrefix)
}

// noisePrefix begins the value of a run's "noise" configuration line.
const noisePrefix = "median-ci95 <= "

// ParseNoiseTarget reads the value of a run's "noise" configuration line,
// "median-ci95 <= 1% (of 50µs for medians below it), ...": the largest
// spread of a line's median, in percent, and the median below which that
// target is an absolute width (0 where it names none). ok is false for a
// value that does not state a target.
func ParseNoiseTarget(value string) (target float64, floor time.Duration, ok bool) {
	rest, found := strings.CutPrefix(strings.TrimSpace(value), noisePrefix)
	if !found {
		return 0, 0, false
	}
	num, rest, found := strings.Cut(rest, "%")
	if !found {
		return 0, 0, false
	}
	target, err := strconv.ParseFloat(num, 64)
	if err != nil || !(target > 0) {
		return 0, 0, false
	}
	if d, found := strings.CutPrefix(rest, " (of "); found {
		d, _, found = strings.Cut(d, " for medians below it)")
		if !found {
			return 0, 0, false
		}
		if floor, err = time.ParseDuration(d); err != nil || floor < 0 {
			return 0, 0, false
		}
	}
	return target, floor, true
}
