package runfile

import (
	"strings"
	"testing"

	"golang.org/x/perf/benchfmt"
)

// The setting and no-GPU lines read back as written, and other lines are
// neither.
func TestLinesRoundTrip(t *testing.T) {
	line := SettingLine("Conv/variant=gpu-tiled", "config: block=16x16, family default")
	if line != "# setting Conv/variant=gpu-tiled: config: block=16x16, family default" {
		t.Errorf("SettingLine = %q", line)
	}
	if name, note, ok, err := ParseSetting(line); !ok || err != nil || name != "Conv/variant=gpu-tiled" || note != "config: block=16x16, family default" {
		t.Errorf("ParseSetting(%q) = %q, %q, %v, %v", line, name, note, ok, err)
	}
	if _, _, ok, err := ParseSetting("# setting nothing"); ok || err == nil {
		t.Errorf("a setting line without a note: %v, %v", ok, err)
	}
	if _, _, ok, err := ParseSetting("# no GPU: x"); ok || err != nil {
		t.Errorf("another line: %v, %v", ok, err)
	}
	ng := NoGPULine("cuInit: CUDA_ERROR_NO_DEVICE")
	if ng != "# no GPU: cuInit: CUDA_ERROR_NO_DEVICE; CPU variants only" {
		t.Errorf("NoGPULine = %q", ng)
	}
	if r, ok := ParseNoGPU(ng); !ok || r != "cuInit: CUDA_ERROR_NO_DEVICE" {
		t.Errorf("ParseNoGPU(%q) = %q, %v", ng, r, ok)
	}
	if _, ok := ParseNoGPU(line); ok {
		t.Errorf("ParseNoGPU(%q) read a setting line", line)
	}
	if got := ConfigLine(KeyGPUCopyGBps, "3912.5"); got != "gpu-copy-gbps: 3912.5" {
		t.Errorf("ConfigLine = %q", got)
	}
}

// A measured line reads back as its key and value, benchfmt does not
// take it for configuration, and HostLine writes each key of
// MeasuredKeys as one and any other key as a configuration line.
func TestMeasuredLine(t *testing.T) {
	line := MeasuredLine(KeyGPUCopyGBps, "3912.5")
	if line != "# measured gpu-copy-gbps: 3912.5" {
		t.Errorf("MeasuredLine = %q", line)
	}
	if k, v, ok := ParseMeasured(line); !ok || k != KeyGPUCopyGBps || v != "3912.5" {
		t.Errorf("ParseMeasured(%q) = %q, %q, %v", line, k, v, ok)
	}
	for _, other := range []string{"gpu-copy-gbps: 3912.5", "# measured", "# measured : 1", "# measured gpu copy: 1", "# setting x: y"} {
		if k, v, ok := ParseMeasured(other); ok {
			t.Errorf("ParseMeasured(%q) = %q, %q, true", other, k, v)
		}
	}
	for _, k := range MeasuredKeys() {
		if got := HostLine(k, "1"); got != MeasuredLine(k, "1") {
			t.Errorf("HostLine(%q) = %q, want a measured line", k, got)
		}
	}
	for _, k := range []string{KeyGPU, KeySweep, KeyGPUEnergy, KeyClockGuard} {
		if IsMeasured(k) {
			t.Errorf("IsMeasured(%q)", k)
		}
		if got := HostLine(k, "x"); got != ConfigLine(k, "x") {
			t.Errorf("HostLine(%q) = %q, want a configuration line", k, got)
		}
	}
	r := benchfmt.NewReader(strings.NewReader(line+"\n"+ConfigLine(KeyGPU, "X")+"\nBenchmarkConv/variant=a 1 1 ns/op\n"), "run")
	for r.Scan() {
		if res, ok := r.Result().(*benchfmt.Result); ok {
			if v := res.GetConfig(KeyGPUCopyGBps); v != "" {
				t.Errorf("benchfmt reads the measured line as configuration %s: %s", KeyGPUCopyGBps, v)
			}
			if v := res.GetConfig(KeyGPU); v != "X" {
				t.Errorf("benchfmt reads %s: %q, want X", KeyGPU, v)
			}
		}
	}
}
