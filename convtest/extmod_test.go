package convtest

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestExternalModule builds testdata/extmod, a module of its own that
// imports this one through a replace directive and registers a CPU
// variant, and runs its tests with the go command: convtest.TestVariant
// must pass its correct variant and fail the same variant with an
// off-by-one border bug, for the bug's reason;
// benchmarks.BenchmarkVariant must time the correct one. The module is
// copied to a temporary directory, its replace pointed at this module's
// root, so the run leaves testdata as it is. Its dependencies come from
// the module cache (GOFLAGS=-mod=mod, the committed go.sum), so it needs
// no network. It skips only when the go command is missing.
func TestExternalModule(t *testing.T) {
	gocmd, err := exec.LookPath("go")
	if err != nil {
		t.Skipf("no go command: %v", err)
	}
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if err := os.CopyFS(dir, os.DirFS(filepath.Join("testdata", "extmod"))); err != nil {
		t.Fatal(err)
	}
	env := append(os.Environ(), "GOFLAGS=-mod=mod", "GOWORK=off", "CGO_ENABLED=0")
	run := func(args ...string) (string, error) {
		cmd := exec.Command(gocmd, args...)
		cmd.Dir, cmd.Env = dir, env
		var out bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &out
		err := cmd.Run()
		return out.String(), err
	}
	if out, err := run("mod", "edit", "-replace=github.com/convbench/convbench="+root); err != nil {
		t.Fatalf("go mod edit: %v\n%s", err, out)
	}
	if out, err := run("vet", "."); err != nil {
		t.Fatalf("the external module does not build: %v\n%s", err, out)
	}

	out, err := run("test", "-count=1", "-run", "^TestDirect$", "-v", "-convtest.n=40", "-convtest.time=0", ".")
	if err != nil {
		t.Fatalf("correct variant: go test failed: %v\n%s", err, out)
	}
	summary := regexp.MustCompile(`variant=extmod-direct cases=\d+( \(\d+ properties stopped at the \S+ bound\))? pass.*`).FindString(out)
	if summary == "" {
		t.Errorf("correct variant: no summary line saying it passed:\n%s", out)
	}
	t.Logf("correct variant: %s", summary)

	out, err = run("test", "-count=1", "-run", "^TestDirectOffByOne$", "-convtest.n=40", "-convtest.time=0", ".")
	var exit *exec.ExitError
	if !errors.As(err, &exit) {
		t.Fatalf("variant with the border bug: go test returned %v, want a failing exit status\n%s", err, out)
	}
	for _, want := range []string{
		"--- FAIL: TestDirectOffByOne/agreement",
		"variant=extmod-direct-off-by-one property=agreement FAILED",
		"border=zero",
		"shrunk case",
		"reproduce: go test -run '^TestDirectOffByOne$/^agreement$' -convtest.seed=",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("variant with the border bug: output lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "--- FAIL: TestDirectOffByOne/agreement") {
		t.Logf("variant with the border bug failed, as it must:\n%s", firstLines(out, 6))
	}

	out, err = run("test", "-count=1", "-run", "^$", "-bench", "^BenchmarkDirect$/^variant=extmod-direct$/^size=512x512$/^filter=gauss3$/", "-benchtime=1x", ".")
	if err != nil {
		t.Fatalf("benchmark: go test failed: %v\n%s", err, out)
	}
	line := regexp.MustCompile(`(?m)^BenchmarkDirect/variant=extmod-direct/size=512x512/filter=gauss3/k=3/block=none/border=zero/type=f32/ch=1/layout=interleaved/cache=hot/timing=cpu/mem=none-\d+\s+1\s+\d+ ns/op.* MPix/s`)
	if !line.MatchString(out) {
		t.Errorf("benchmark: no result line in standard format:\n%s", out)
	}
}
