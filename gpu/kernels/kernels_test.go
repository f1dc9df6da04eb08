package kernels

import (
	"fmt"
	"regexp"
	"strings"
	"testing"
)

func TestNamesAndSources(t *testing.T) {
	want := []string{"const", "naive", "padded", "separable", "shared", "shared_rows", "texture", "tiled"}
	got := Names()
	for _, w := range want {
		found := false
		for _, g := range got {
			found = found || g == w
		}
		if !found {
			t.Errorf("Names() = %v, missing %q", got, w)
		}
	}
	headers := Headers()
	include := regexp.MustCompile(`(?m)^#include "([^"]+)"`)
	for _, n := range got {
		for _, name := range []string{n, n + ".cu"} {
			src, err := Source(name)
			if err != nil {
				t.Fatalf("Source(%q): %v", name, err)
			}
			if !strings.Contains(src, "__global__") {
				t.Errorf("Source(%q) has no kernel", name)
			}
			for _, m := range include.FindAllStringSubmatch(src, -1) {
				if _, ok := headers[m[1]]; !ok {
					t.Errorf("%s includes %q, which Headers() lacks", name, m[1])
				}
			}
		}
	}
}

// TestHeadersIncludeHeaders checks that every header a header includes
// (tile.cuh includes border.cuh) is itself handed to NVRTC.
func TestHeadersIncludeHeaders(t *testing.T) {
	headers := Headers()
	include := regexp.MustCompile(`(?m)^#include "([^"]+)"`)
	for name, text := range headers {
		for _, m := range include.FindAllStringSubmatch(text, -1) {
			if _, ok := headers[m[1]]; !ok {
				t.Errorf("%s includes %q, which Headers() lacks", name, m[1])
			}
		}
	}
	for _, h := range []string{"border.cuh", "tile.cuh", "unroll.cuh"} {
		if _, ok := headers[h]; !ok {
			t.Errorf("Headers() lacks %s", h)
		}
	}
}

func TestSourceErrors(t *testing.T) {
	for _, name := range []string{"nosuch", "border.cuh", "../kernels/naive", ""} {
		if _, err := Source(name); err == nil {
			t.Errorf("Source(%q) = nil error, want one", name)
		}
	}
}

func TestHeadersHaveBorderIndex(t *testing.T) {
	h := Headers()
	b, ok := h["border.cuh"]
	if !ok {
		t.Fatalf("Headers() = %d entries, no border.cuh", len(h))
	}
	for _, s := range []string{"border_index", "in_offset", "out_offset", "read_px"} {
		if !strings.Contains(b, s) {
			t.Errorf("border.cuh lacks %s", s)
		}
	}
	h["border.cuh"] = "changed"
	if Headers()["border.cuh"] == "changed" {
		t.Error("Headers() returned a shared map")
	}
}

func ExampleSource() {
	src, err := Source("naive")
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(strings.Contains(src, "conv_naive"))
	// Output: true
}
