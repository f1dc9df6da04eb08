package benchmarks

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/convbench/convbench/convolve"
	"github.com/convbench/convbench/runfile"
	"golang.org/x/perf/benchfmt"
	"golang.org/x/perf/benchproc"
)

// Every case name written today is its own pairing name.
func TestPairingNameOfPresetCases(t *testing.T) {
	for _, p := range presets {
		for _, gpu := range []bool{false, true} {
			ex := p.Expand(Env{GPU: gpu, Pinned: true, Variants: convolve.Variants()})
			for _, c := range ex.Cases {
				if got, err := runfile.PairingName(c.Name()); err != nil || got != c.Name() {
					t.Fatalf("%s: PairingName(%s) = %s, %v", p.Name, c.Name(), got, err)
				}
			}
		}
	}
}

// projectRows groups the Conv results of the named benchmark outputs by
// the row projection make compare gives benchstat (.fullname, in one
// table; its columns are the files) and returns, per row, the names of
// the outputs that have results in it.
func projectRows(t *testing.T, files map[string][]byte) map[string]map[string]bool {
	t.Helper()
	var parser benchproc.ProjectionParser
	rowBy, err := parser.Parse(".fullname", nil)
	if err != nil {
		t.Fatal(err)
	}
	rows := map[string]map[string]bool{}
	for name, data := range files {
		r := benchfmt.NewReader(bytes.NewReader(data), name)
		for r.Scan() {
			res, ok := r.Result().(*benchfmt.Result)
			if !ok {
				continue
			}
			if base, _ := res.Name.Parts(); string(base) != "Conv" {
				continue
			}
			row := rowBy.Project(res).StringValues()
			if rows[row] == nil {
				rows[row] = map[string]bool{}
			}
			rows[row][name] = true
		}
		if err := r.Err(); err != nil {
			t.Fatal(err)
		}
	}
	return rows
}

// freshCPURun runs the benchmarks test binary in a child process on the
// default preset's cases that pattern selects, with the driver hidden so
// that only CPU variants run, and returns its standard output.
func freshCPURun(t *testing.T, pattern string, extra ...string) []byte {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Skip("cannot find the test binary: " + err.Error())
	}
	args := append([]string{"-test.run", "^$", "-test.bench", pattern, "-test.cpu", "1",
		"-test.count", "2", "-test.benchtime", "1x", "-sweep=default"}, extra...)
	cmd := exec.Command(exe, args...)
	cmd.Env = append(os.Environ(), "CONVBENCH_LIBCUDA=/nonexistent/libcuda.so.1")
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("fresh run %s: %v\nstdout:\n%s\nstderr:\n%s", strings.Join(args, " "), err, stdout.String(), stderr.String())
	}
	return stdout.Bytes()
}

// A fresh CPU run of cases of the default preset pairs, case by case,
// with the committed CPU run of that preset in benchstat's projection,
// without any rewriting; after rewriteForPairing it also pairs with the
// CPU cases of a GPU host's committed run, whose names carry opts=none.
func TestFreshRunPairsWithCommitted(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the benchmark binary (about a second)")
	}
	const pattern = "^BenchmarkConv$/^variant=cpu-fast$/^size=(512x512|1024x1024)$/^filter=gauss(3|5)$"
	fresh := freshCPURun(t, pattern)
	committed := filepath.Join("..", "results", "data", "cpu-amd-epyc", "default.txt")
	old, err := os.ReadFile(committed)
	if err != nil {
		t.Fatal(err)
	}
	freshRows := 0
	for row, cols := range projectRows(t, map[string][]byte{"old": old, "new": fresh}) {
		if !cols["new"] {
			continue
		}
		freshRows++
		if !cols["old"] {
			t.Errorf("fresh case %s has no partner in %s", row, committed)
		}
	}
	if freshRows < 3 {
		t.Fatalf("the fresh run has %d cases, want at least 3:\n%s", freshRows, fresh)
	}

	gpuHost := filepath.Join("..", "results", "data", "nvidia-h200", "default.txt")
	gpuOld, err := os.ReadFile(gpuHost)
	if err != nil {
		t.Fatal(err)
	}
	var oldRW, newRW bytes.Buffer
	if err := rewriteForPairing(&oldRW, bytes.NewReader(gpuOld), gpuHost); err != nil {
		t.Fatal(err)
	}
	if err := rewriteForPairing(&newRW, bytes.NewReader(fresh), "fresh"); err != nil {
		t.Fatal(err)
	}
	paired := 0
	for row, cols := range projectRows(t, map[string][]byte{"old": oldRW.Bytes(), "new": newRW.Bytes()}) {
		if cols["new"] && cols["old"] {
			paired++
		} else if cols["new"] && strings.Contains(row, "size=1024x1024/filter=gauss5/") {
			t.Errorf("fresh case %s has no partner in %s after rewriteForPairing", row, gpuHost)
		}
	}
	if paired == 0 {
		t.Errorf("no fresh case pairs with %s after rewriteForPairing", gpuHost)
	}
}

// rewriteForPairing copies the benchmark output in r to w, every
// BenchmarkConv result renamed by runfile.PairingName; configuration,
// unit lines and other benchmarks pass unchanged. name labels r in
// errors.
func rewriteForPairing(w io.Writer, r io.Reader, name string) error {
	rd := benchfmt.NewReader(r, name)
	wr := benchfmt.NewWriter(w)
	for rd.Scan() {
		rec := rd.Result()
		if res, ok := rec.(*benchfmt.Result); ok {
			if base, _ := res.Name.Parts(); string(base) == "Conv" {
				pn, err := runfile.PairingName(string(res.Name))
				if err != nil {
					file, line := res.Pos()
					return fmt.Errorf("%s:%d: %w", file, line, err)
				}
				res.Name = benchfmt.Name(pn)
			}
		}
		if err := wr.Write(rec); err != nil {
			return err
		}
	}
	return rd.Err()
}
