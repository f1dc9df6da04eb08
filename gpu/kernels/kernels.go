// Package kernels holds the CUDA C++ sources of the convolution kernels,
// embedded so that NVRTC specializes them at run time. Each .cu file is one
// kernel family, with a header comment on its memory strategy and the
// report it reproduces; the .cuh headers they include (border modes and
// addressing, the tile and its halo, vector fills, the unrolling policy,
// the tensor-core instructions) are handed to NVRTC by name. The sources
// take their specialization as -D macros; border.cuh lists them.
package kernels

import (
	"embed"
	"fmt"
	"io/fs"
	"path"
	"sort"
	"strings"
)

//go:embed *.cu *.cuh
var files embed.FS

// Source returns the text of the kernel family name, with or without the
// ".cu" suffix ("shared" or "shared.cu").
func Source(name string) (string, error) {
	file := name
	if !strings.HasSuffix(file, ".cu") {
		file += ".cu"
	}
	if path.Base(file) != file {
		return "", fmt.Errorf("kernels: family %q: not a plain file name", name)
	}
	b, err := files.ReadFile(file)
	if err != nil {
		return "", fmt.Errorf("kernels: no kernel family %q (have %s)", name, strings.Join(Names(), ", "))
	}
	return string(b), nil
}

// Headers returns every header a family may include, by include name
// ("border.cuh") to text. The map is fresh on each call.
func Headers() map[string]string {
	h := map[string]string{}
	for _, n := range list(".cuh") {
		b, err := files.ReadFile(n)
		if err == nil {
			h[n] = string(b)
		}
	}
	return h
}

// Names lists the kernel families ("const", "naive", ...), sorted.
func Names() []string {
	var names []string
	for _, n := range list(".cu") {
		names = append(names, strings.TrimSuffix(n, ".cu"))
	}
	return names
}

func list(suffix string) []string {
	ents, err := fs.ReadDir(files, ".")
	if err != nil {
		return nil
	}
	var names []string
	for _, e := range ents {
		if strings.HasSuffix(e.Name(), suffix) {
			names = append(names, e.Name())
		}
	}
	sort.Strings(names)
	return names
}
