package runfile

import "testing"

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
