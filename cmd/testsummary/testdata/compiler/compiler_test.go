// Package compiler stands in for a package whose tests compile a kernel:
// its test appends a line to $CONVBENCH_COMPILE_LOG as cudabind/nvrtc
// does. TestRunCountsTheChildsCompiles runs it through testsummary.
package compiler

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestCompiles(t *testing.T) {
	path := os.Getenv("CONVBENCH_COMPILE_LOG")
	if !filepath.IsAbs(path) {
		t.Fatalf("CONVBENCH_COMPILE_LOG = %q, want an absolute path", path)
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	program := strings.TrimSuffix(filepath.Base(os.Args[0]), ".test")
	fmt.Fprintf(f, "nvrtc-compile 0.500 k.cu ok %s\n", program)
}
