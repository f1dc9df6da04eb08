package main

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// settings are the environment variables the runner reads; a stand-in
// host clears them, so that the tests do not depend on the environment.
var settings = []string{"GPU_BIN", "CONVBENCH_CACHE_DIR", "TEST_TIMEOUT", "TEST_FLAGS", "TEST_RUN", "TEST_JOBS",
	"RELEASE_SEEDS", "RELEASE_TIME", "RELEASE_TEST_TIMEOUT", "RELEASE_PROPS_N", "RELEASE_PROPS_TIME", "RELEASE_PROPS_TIMEOUT", "RELEASE_PROPS_VARIANT",
	"RELEASE_COUNT", "RELEASE_NOISE", "RELEASE_MAX_TIME",
	"FAULTS_SIZES", "FAULTS_COUNT", "FAULTS_CASE_TIMEOUT", "FAULTS_PROVE_TIMEOUT",
	"PROPS_VARIANT", "PROPS_N", "PROPS_TIME", "PROPS_SEED",
	"SAN_VARIANT", "SAN_SLAB_VARIANT", "SAN_TOOLS", "SAN_GPUS", "SAN_SHARDS", "SAN_N", "SAN_TIMEOUT",
	"TUNE_VARIANTS", "TUNE_K", "TUNE_SIZES", "TUNE_TIME", "TUNE_BUDGET", "TUNE_CASE_TIMEOUT",
	"CROSS_TABLE", "CROSS_PATHS", "CROSS_PATHS_TIME", "COUNT", "NOISE", "MAX_TIME", "CPU_CAP", "SWEEP_ARGS",
	"SHARD_GPUS", "SHARDS", "SHARD_FIRST", "KERNEL_VARIANTS", "KERNEL_AXES",
	"NCU_BENCH", "NCU_SKIP", "NCU_COUNT", "NCU_KERNEL", "NCU_SECTIONS", "NCU_METRICS", "NCU_MAX_TIME", "NCU_ARGS",
	"CONVBENCH_COMPILE_LOG", "CONVBENCH_TUNING", "CONVBENCH_CROSSOVER", "CUDA_VISIBLE_DEVICES"}

// fakeNvidiaSMI stands in for nvidia-smi: -L lists $FAKE_GPUS GPUs
// (default 1), anything else prints the first one's name and driver.
const fakeNvidiaSMI = `#!/bin/sh
case "$1" in
-L) i=0; while [ $i -lt "${FAKE_GPUS:-1}" ]; do echo "GPU $i: Test GPU (UUID: GPU-$i)"; i=$((i+1)); done ;;
*) echo 'Test GPU, 1.0' ;;
esac
`

// A host is a stand-in GPU host: a repository root (module example.org/m),
// a folder of binaries (GPU_BIN), a folder of commands first on PATH
// (nvidia-smi among them) and the output folder.
type host struct {
	t                    *testing.T
	root, bin, path, out string
}

func newHost(t *testing.T) *host {
	t.Helper()
	dir := t.TempDir()
	h := &host{t: t, root: filepath.Join(dir, "root"), bin: filepath.Join(dir, "bin"), path: filepath.Join(dir, "path"), out: filepath.Join(dir, "out")}
	for _, d := range []string{h.root, h.bin, h.path} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	h.write(filepath.Join(h.root, "go.mod"), "module example.org/m\n")
	h.exe(h.path, "nvidia-smi", fakeNvidiaSMI)
	for _, s := range settings {
		t.Setenv(s, "")
	}
	t.Setenv("PATH", h.path+":/usr/bin:/bin")
	t.Setenv("GPU_BIN", h.bin)
	t.Setenv("CONVBENCH_CACHE_DIR", filepath.Join(dir, "cache"))
	return h
}

// write writes a file, making its folder.
func (h *host) write(path, text string) {
	h.t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		h.t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		h.t.Fatal(err)
	}
}

// exe writes an executable script dir/name.
func (h *host) exe(dir, name, text string) {
	h.t.Helper()
	h.write(filepath.Join(dir, name), text)
	if err := os.Chmod(filepath.Join(dir, name), 0o755); err != nil {
		h.t.Fatal(err)
	}
}

// packages makes the runner take the test binaries NAME.test for the
// packages that pkgs maps them to, by import path, as scripts carry no
// build information.
func (h *host) packages(pkgs map[string]string) {
	old := testPackageOf
	testPackageOf = func(binary string) (string, string, error) {
		imp, ok := pkgs[strings.TrimSuffix(filepath.Base(binary), ".test")]
		if !ok {
			h.t.Fatalf("no package for %s", binary)
		}
		return "example.org/m", imp, nil
	}
	h.t.Cleanup(func() { testPackageOf = old })
}

// run runs gpurun OUTDIR STAGE... from the root and returns its output and
// exit status.
func (h *host) run(stages ...string) (string, int) {
	h.t.Helper()
	h.t.Chdir(h.root)
	var out bytes.Buffer
	code := gpurun(append([]string{h.out}, stages...), os.Getenv, &out, &out)
	return out.String(), code
}

// read returns OUTDIR/name.
func (h *host) read(name string) string {
	h.t.Helper()
	b, err := os.ReadFile(filepath.Join(h.out, name))
	if err != nil {
		h.t.Fatal(err)
	}
	return string(b)
}

// args returns the arguments a stand-in printed as "arg[A]" lines, in
// order.
func args(log string) []string {
	var a []string
	for _, l := range strings.Split(log, "\n") {
		if v, ok := strings.CutPrefix(l, "arg["); ok {
			a = append(a, strings.TrimSuffix(v, "]"))
		}
	}
	return a
}

// printArgs is a stand-in command that prints its folder, the
// environment variables the stages set and its arguments, one a line,
// and exits $FAKE_RC.
const printArgs = `#!/bin/sh
echo "pwd[$(pwd)]"
echo "env[CONVBENCH_TUNING=$CONVBENCH_TUNING CONVBENCH_CROSSOVER=$CONVBENCH_CROSSOVER]"
for a in "$@"; do echo "arg[$a]"; done
exit ${FAKE_RC:-0}
`

// secsRE matches the seconds of summary lines, which vary.
var secsRE = regexp.MustCompile(`\b(secs|wall-s|cpu-s)=[0-9]+\b| [0-9]+s |\bcpu=[0-9]+s\b`)

// zeroSecs sets every count of seconds in text to 0.
func zeroSecs(text string) string {
	return secsRE.ReplaceAllStringFunc(text, func(m string) string {
		if strings.HasPrefix(m, " ") {
			return " 0s "
		}
		if strings.HasPrefix(m, "cpu=") {
			return "cpu=0s"
		}
		k, _, _ := strings.Cut(m, "=")
		return k + "=0"
	})
}

// TestCommandLine: a stage that does not exist, or lacks its part after
// the colon, is refused before anything runs, as is a run outside the
// repository root; -h prints the stages.
func TestCommandLine(t *testing.T) {
	h := newHost(t)
	for _, tt := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"-h"}, 0, "usage: gpurun OUTDIR STAGE..."},
		{[]string{h.out}, 2, "usage: gpurun OUTDIR STAGE..."},
		{[]string{h.out, "tests", "bogus"}, 2, `unknown stage "bogus"`},
		{[]string{h.out, "bench:"}, 2, `stage "bench:" needs its part after the colon`},
		{[]string{h.out, "tests:x"}, 2, `stage "tests:x" takes nothing after a colon`},
	} {
		t.Chdir(h.root)
		var out bytes.Buffer
		if code := gpurun(tt.args, os.Getenv, &out, &out); code != tt.code || !strings.Contains(out.String(), tt.want) {
			t.Errorf("gpurun %q: exit status %d, output\n%s\nwant %d and %q", tt.args, code, out.String(), tt.code, tt.want)
		}
	}
	if _, err := os.Stat(h.out); !os.IsNotExist(err) {
		t.Errorf("a refused command line made OUTDIR (%v)", err)
	}
	t.Chdir(h.bin)
	var out bytes.Buffer
	if code := gpurun([]string{h.out, "tests"}, os.Getenv, &out, &out); code != 2 || !strings.Contains(out.String(), "run gpurun from the repository root") {
		t.Errorf("gpurun outside the root: exit status %d, output\n%s", code, out.String())
	}
}
