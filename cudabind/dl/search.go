package dl

import (
	"os"
	"strings"
)

// Search is where a binding looks for its shared library: the library
// named by the environment variable Env (a path or a soname) and the
// built-in Names, newest first.
type Search struct {
	Env   string
	Names []string
	// EnvFirst tries Env's library before Names; otherwise it is tried
	// instead of them.
	EnvFirst bool
}

// The libraries the module binds and where each is looked for.
var (
	CUDA  = Search{Env: "CONVBENCH_LIBCUDA", Names: []string{"libcuda.so.1"}}
	NVRTC = Search{Env: "CONVBENCH_NVRTC", EnvFirst: true,
		Names: []string{"libnvrtc.so", "libnvrtc.so.13", "libnvrtc.so.12", "libnvrtc.so.11.2", "libnvrtc.so.11"}}
	NVML = Search{Env: "CONVBENCH_LIBNVML", Names: []string{"libnvidia-ml.so.1"}}
	// CUFFT's cuFFT 12 comes with CUDA 13, 11 with CUDA 12, 10 with CUDA 11.
	CUFFT = Search{Env: "CONVBENCH_LIBCUFFT", Names: []string{"libcufft.so.12", "libcufft.so.11", "libcufft.so.10", "libcufft.so"}}
	CUDNN = Search{Env: "CONVBENCH_CUDNN", EnvFirst: true, Names: []string{"libcudnn.so.9", "libcudnn.so"}}
	NPPIF = Search{Env: "CONVBENCH_LIBNPPIF", Names: []string{"libnppif.so.13", "libnppif.so.12", "libnppif.so.11", "libnppif.so"}}
)

// List returns the names to try, in order: the value of Env when it is
// set and not blank, trimmed, then (when EnvFirst, or when Env is unset)
// a copy of Names.
func (s Search) List() []string {
	var names []string
	if p := strings.TrimSpace(os.Getenv(s.Env)); p != "" {
		if !s.EnvFirst {
			return []string{p}
		}
		names = append(names, p)
	}
	return append(names, s.Names...)
}
