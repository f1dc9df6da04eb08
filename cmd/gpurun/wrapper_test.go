package main

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestWrapper runs scripts/gpu-run.sh: it runs GPU_BIN's gpurun with its
// arguments and ends with its exit status; with no gpurun there and no go
// command it says so and exits 2.
func TestWrapper(t *testing.T) {
	if _, err := exec.LookPath("bash"); err != nil {
		t.Skip("no bash")
	}
	script, err := filepath.Abs(filepath.Join(repoRoot, "scripts", "gpu-run.sh"))
	if err != nil {
		t.Fatal(err)
	}
	run := func(bin, path string, args ...string) (string, int) {
		cmd := exec.Command("bash", append([]string{script}, args...)...)
		cmd.Env = append(os.Environ(), "GPU_BIN="+bin, "PATH="+path)
		out, err := cmd.CombinedOutput()
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			return string(out), ee.ExitCode()
		}
		if err != nil {
			t.Fatal(err)
		}
		return string(out), 0
	}
	bin := t.TempDir()
	if err := os.WriteFile(filepath.Join(bin, "gpurun"), []byte("#!/bin/sh\nfor a in \"$@\"; do echo \"arg[$a]\"; done\nexit 3\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	if out, code := run(bin, "/usr/bin:/bin", "/tmp/out", "release", "sweep:a b"); code != 3 || out != "arg[/tmp/out]\narg[release]\narg[sweep:a b]\n" {
		t.Errorf("with GPU_BIN/gpurun: exit status %d, output\n%s", code, out)
	}
	if _, err := os.Stat("/usr/bin/go"); err == nil {
		t.Skip("/usr/bin/go is on the script's PATH")
	}
	if out, code := run(t.TempDir(), "/usr/bin:/bin", "/tmp/out", "release"); code != 2 || !strings.Contains(out, "make gpu-bins builds it") {
		t.Errorf("without gpurun or go: exit status %d, output\n%s", code, out)
	}
}
