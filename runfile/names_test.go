package runfile_test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/convbench/convbench/runfile"
)

func TestParse(t *testing.T) {
	// Names stored before the opts key existed end at mem; Parse fills in
	// what those runs used.
	cpuOld := "variant=cpu-fast/size=8x8/filter=sobel-x/k=3/block=none/border=zero/type=f32/ch=1/layout=interleaved/cache=hot/timing=cpu/mem=none"
	gpuOld := "variant=gpu-naive/size=8x8/filter=sobel-x/k=3/block=16x16/border=zero/type=f32/ch=1/layout=interleaved/cache=hot/timing=kernel/mem=none"
	tests := []struct {
		name    string
		wantErr bool
		opts    string
		tune    string
	}{
		{cpuOld + "/opts=none", false, "none", "none"},
		{"BenchmarkConv/" + cpuOld + "/opts=none-8", false, "none", "none"},
		{"Conv/" + gpuOld + "/opts=nofma", false, "nofma", "default"},
		{gpuOld + "/opts=fast-math-1", false, "fast-math", "default"},
		{gpuOld + "/opts=default/tune=shared=1", false, "default", "shared=1"},
		{cpuOld, false, "none", "none"},
		{"BenchmarkConv/" + cpuOld + "-8", false, "none", "none"},
		{gpuOld, false, "default", "default"},
		{gpuOld + "-4", false, "default", "default"},
		{"variant=cpu-fast/size=8x8", true, "", ""},
		{cpuOld + "/oops", true, "", ""},
		{strings.Replace(gpuOld, "/timing=kernel", "", 1), true, "", ""},
	}
	for _, tt := range tests {
		kv, err := runfile.Parse(tt.name)
		if (err != nil) != tt.wantErr {
			t.Errorf("Parse(%q) error %v, want error %v", tt.name, err, tt.wantErr)
			continue
		}
		if err != nil {
			continue
		}
		if kv["opts"] != tt.opts || kv["tune"] != tt.tune || kv["filter"] != "sobel-x" || kv["mem"] != "none" {
			t.Errorf("Parse(%q) = %v, want opts=%s tune=%s", tt.name, kv, tt.opts, tt.tune)
		}
		if len(kv) != len(runfile.Keys()) {
			t.Errorf("Parse(%q): %d keys, want %d", tt.name, len(kv), len(runfile.Keys()))
		}
	}
}

func TestKeysIsACopy(t *testing.T) {
	k := runfile.Keys()
	k[0] = "changed"
	if runfile.Keys()[0] != "variant" {
		t.Errorf("Keys() shares its slice with the package")
	}
}

func TestSlug(t *testing.T) {
	tests := []struct{ gpu, cpu, want string }{
		{"NVIDIA H100 80GB HBM3", "", "nvidia-h100-80gb-hbm3"},
		{"NVIDIA H200", "AMD EPYC", "nvidia-h200"},
		{"", "AMD EPYC 7B13 64-Core Processor", "cpu-amd-epyc-7b13-64-core-processor"},
		{"", "", "cpu"},
	}
	for _, tt := range tests {
		if got := runfile.Slug(tt.gpu, tt.cpu); got != tt.want {
			t.Errorf("Slug(%q, %q) = %q, want %q", tt.gpu, tt.cpu, got, tt.want)
		}
	}
}

func ExampleParse() {
	kv, err := runfile.Parse("BenchmarkConv/variant=cpu-fast/size=8x8/filter=box3/k=3/block=none/border=zero/type=f32/ch=1/layout=interleaved/cache=hot/timing=cpu/mem=none-4")
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(kv["variant"], kv["size"], kv["opts"], kv["tune"])
	// Output: cpu-fast 8x8 none none
}

func ExampleSlug() {
	fmt.Println(runfile.Slug("NVIDIA H100 80GB HBM3", ""))
	fmt.Println(runfile.Slug("", "AMD EPYC 7B13"))
	// Output:
	// nvidia-h100-80gb-hbm3
	// cpu-amd-epyc-7b13
}

// An unsupported line reads back as the case and the reason, the reason
// on one line; other lines are not unsupported lines.
func TestUnsupportedLine(t *testing.T) {
	name := "variant=gpu-stream16KiB-gpu-tiled/size=1024x1024/filter=gauss5/k=5/block=default/border=zero/type=f32/ch=1/layout=interleaved/cache=hot/timing=kernel/mem=none/opts=default"
	line := runfile.UnsupportedLine(name, "plan: convolve: gpu-stream16KiB-gpu-tiled does not support image rows:\n  over the cap of 16384")
	if !strings.HasPrefix(line, "# unsupported ") || strings.Contains(line, "\n") {
		t.Errorf("line %q: want one comment line", line)
	}
	n, reason, ok := runfile.ParseUnsupported(line)
	if !ok || n != name || reason != "plan: convolve: gpu-stream16KiB-gpu-tiled does not support image rows: over the cap of 16384" {
		t.Errorf("ParseUnsupported(%q) = %q, %q, %v", line, n, reason, ok)
	}
	for _, other := range []string{"# setting " + name + ": config: block=32x8", "# unsupported", "# unsupported : why", "BenchmarkConv/" + name + " 1 100 ns/op"} {
		if _, _, ok := runfile.ParseUnsupported(other); ok {
			t.Errorf("ParseUnsupported(%q) accepted it", other)
		}
	}
}

func TestParseNoiseTarget(t *testing.T) {
	for _, tt := range []struct {
		value  string
		target float64
		floor  time.Duration
		ok     bool
	}{
		{"median-ci95 <= 1% (of 50µs for medians below it), at least 10 samples, at most 2s per line unless under 6 samples, samples of at least 1ms", 1, 50 * time.Microsecond, true},
		{"median-ci95 <= 0.5%, at least 10 samples", 0.5, 0, true},
		{"median-ci95 <= 2.5% (of 1ms for medians below it)", 2.5, time.Millisecond, true},
		{"median-ci95 <= 0%", 0, 0, false},
		{"median-ci95 <= x%", 0, 0, false},
		{"median-ci95 <= 1% (of soon for medians below it)", 0, 0, false},
		{"at most 2s per line", 0, 0, false},
	} {
		target, floor, ok := runfile.ParseNoiseTarget(tt.value)
		if target != tt.target || floor != tt.floor || ok != tt.ok {
			t.Errorf("ParseNoiseTarget(%q) = %v, %v, %v; want %v, %v, %v", tt.value, target, floor, ok, tt.target, tt.floor, tt.ok)
		}
	}
}
