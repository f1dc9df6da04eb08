package dl

import (
	"reflect"
	"testing"
)

func TestSearchList(t *testing.T) {
	nvrtc := []string{"libnvrtc.so", "libnvrtc.so.13", "libnvrtc.so.12", "libnvrtc.so.11.2", "libnvrtc.so.11"}
	cases := []struct {
		name   string
		search Search
		env    string
		want   []string
	}{
		{"driver", CUDA, "", []string{"libcuda.so.1"}},
		{"driver replaced", CUDA, "/tmp/libcuda-test.so", []string{"/tmp/libcuda-test.so"}},
		{"nvrtc", NVRTC, "", nvrtc},
		{"nvrtc first", NVRTC, "/opt/cuda/lib64/libnvrtc.so.13.0", append([]string{"/opt/cuda/lib64/libnvrtc.so.13.0"}, nvrtc...)},
		{"nvml", NVML, "", []string{"libnvidia-ml.so.1"}},
		{"nvml replaced", NVML, "/opt/nvidia/libnvidia-ml.so.1", []string{"/opt/nvidia/libnvidia-ml.so.1"}},
		{"cufft", CUFFT, "", []string{"libcufft.so.12", "libcufft.so.11", "libcufft.so.10", "libcufft.so"}},
		{"cufft replaced, trimmed", CUFFT, " /opt/x/libcufft.so.11 ", []string{"/opt/x/libcufft.so.11"}},
		{"cudnn", CUDNN, "", []string{"libcudnn.so.9", "libcudnn.so"}},
		{"cudnn first, trimmed", CUDNN, " /opt/cudnn/lib/libcudnn.so.9 ", []string{"/opt/cudnn/lib/libcudnn.so.9", "libcudnn.so.9", "libcudnn.so"}},
		{"nppif", NPPIF, "", []string{"libnppif.so.13", "libnppif.so.12", "libnppif.so.11", "libnppif.so"}},
		{"nppif replaced", NPPIF, "/opt/npp/libnppif.so", []string{"/opt/npp/libnppif.so"}},
		{"blank variable ignored", CUDA, "  ", []string{"libcuda.so.1"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Setenv(c.search.Env, c.env)
			if got := c.search.List(); !reflect.DeepEqual(got, c.want) {
				t.Errorf("%s=%q: List() = %q, want %q", c.search.Env, c.env, got, c.want)
			}
		})
	}
}

func TestSearchListCopies(t *testing.T) {
	t.Setenv(CUFFT.Env, "")
	got := CUFFT.List()
	got[0] = "changed"
	if CUFFT.Names[0] != "libcufft.so.12" {
		t.Errorf("changing List's result changed the built-in names: %q", CUFFT.Names)
	}
}
