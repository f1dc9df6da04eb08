package main

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/convbench/convbench/fleet/slurmtest"
)

// buildSweep builds the sweep command and the benchmarks test binary into
// a temporary directory, as make gpu-bins builds them into .gpu/.
func buildSweep(t *testing.T) string {
	t.Helper()
	bin := t.TempDir()
	for _, args := range [][]string{
		{"build", "-o", filepath.Join(bin, "sweep"), "./benchmarks/cmd/sweep"},
		{"test", "-c", "-o", filepath.Join(bin, "benchmarks.test"), "./benchmarks"},
	} {
		cmd := exec.Command("go", args...)
		cmd.Dir = filepath.Join("..", "..", "..")
		cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("go %s: %v\n%s", strings.Join(args, " "), err, out)
		}
	}
	return bin
}

// runFleet runs the command with args and returns its output.
func runFleet(t *testing.T, args ...string) (string, error) {
	t.Helper()
	var out bytes.Buffer
	err := run(context.Background(), args[0], args[1:], &out)
	t.Logf("fleet %s:\n%s", strings.Join(args, " "), out.String())
	return out.String(), err
}

// TestSweepAcrossNodes runs a tiny CPU sweep on two nodes of a real
// Slurm cluster, one task made to fail: the failure is reported with its
// node, exit code and log, the other task's run is gathered, a rerun
// submits the failed task alone, and the second gather compares both
// hosts.
func TestSweepAcrossNodes(t *testing.T) {
	slurmtest.Start(t, "n1", "n2")
	bin := buildSweep(t)
	tmp := t.TempDir()
	job, data, rep := filepath.Join(tmp, "job"), filepath.Join(tmp, "data"), filepath.Join(tmp, "report")
	sweep := []string{"--", "-variants", "cpu-naive", "-sizes", "64x64", "-count", "2", "-max-time", "50ms"}

	t.Setenv("FLEET_FAIL_TASKS", "1")
	out, err := runFleet(t, append([]string{"submit", "-job", job, "-bin", bin, "-cpu", "-nodes", "n[1-2]", "-wait", "-interval", "200ms"}, sweep...)...)
	if !errors.Is(err, errFailed) {
		t.Fatalf("submit -wait with task 1 failing: error %v, want the failed-tasks status", err)
	}
	for _, want := range []string{
		"2 tasks: 0 pending, 0 running, 1 done, 1 failed",
		`task 1 \(node=n2\), Slurm \d+_1: FAILED on node n2, exit code 42: failed on purpose`,
		`(?m)^    # fleet task 1: exit 42`, // the tail of its log
	} {
		if !regexp.MustCompile(want).MatchString(out) {
			t.Errorf("submit -wait output lacks %q", want)
		}
	}
	t.Setenv("FLEET_FAIL_TASKS", "")

	out, err = runFleet(t, "gather", "-job", job, "-data", data, "-report", rep)
	if err != nil {
		t.Fatal(err)
	}
	if got := runs(t, data); len(got) != 1 || !strings.Contains(got[0], "-n1/custom-") {
		t.Errorf("after the first gather the data holds %q, want task 0's run only (a cpu-...-n1 slug)", got)
	}
	if !strings.Contains(out, "1 tasks not done were left out") {
		t.Errorf("first gather does not say that the failed task was left out")
	}

	out, err = runFleet(t, "rerun", "-job", job)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out, "task 1 (node=n2) submitted again") || strings.Contains(out, "task 0") {
		t.Errorf("rerun output %q: want task 1 submitted again, alone", out)
	}
	if out, err = runFleet(t, "status", "-job", job, "-wait", "-interval", "200ms"); err != nil {
		t.Fatalf("status after the rerun: %v", err)
	}
	if !strings.Contains(out, "2 tasks: 0 pending, 0 running, 2 done, 0 failed") {
		t.Errorf("status after the rerun does not count 2 done")
	}
	if _, err := os.Stat(filepath.Join(job, "tasks", "1", "attempt-1", "log")); err != nil {
		t.Errorf("the failed attempt's log was not kept: %v", err)
	}

	out, err = runFleet(t, "gather", "-job", job, "-data", data, "-report", rep)
	if err != nil {
		t.Fatal(err)
	}
	got := runs(t, data)
	if len(got) != 2 {
		t.Fatalf("after the second gather the data holds %q, want both tasks' runs", got)
	}
	row := regexp.MustCompile(`(?m)^\| variant=cpu-naive/size=64x64/filter=gauss5/\S* \| host \| \S+ ×\d\.\d\d \(2\) \| \S+ ×\d\.\d\d \(2\) \| cpu-\S+-n[12] \|$`)
	if !row.MatchString(out) {
		t.Errorf("report lacks the case on both hosts (want a line matching %s)", row)
	}
	report, err := os.ReadFile(filepath.Join(rep, "fleet-job.md"))
	if err != nil || !row.Match(report) {
		t.Errorf("report file: %v, or it lacks the comparison", err)
	}

	// A run already in the data directory with other contents is never
	// overwritten: the gather names both files.
	if err := os.WriteFile(got[0], []byte("another run\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err = runFleet(t, "gather", "-job", job, "-data", data, "-report", rep)
	if err == nil || !strings.Contains(err.Error(), got[0]) || !strings.Contains(err.Error(), filepath.Join(job, "tasks")) {
		t.Errorf("gather over a changed file: error %v, want a clash naming %s and the task's file", err, got[0])
	}
}

// runs lists the run files under a data directory.
func runs(t *testing.T, data string) []string {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(data, "*", "*.txt"))
	if err != nil {
		t.Fatal(err)
	}
	return files
}

// TestTestsAcrossNodes runs the tests run (scripts/gpu-run.sh OUTDIR
// tests) of one small package on two nodes and gathers the packages'
// results side by side.
func TestTestsAcrossNodes(t *testing.T) {
	slurmtest.Start(t, "n1", "n2")
	bin := t.TempDir()
	root, err := filepath.Abs(filepath.Join("..", "..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{
		{"test", "-c", "-o", filepath.Join(bin, "devfacts.test"), "./cudabind/devfacts"},
		{"build", "-o", filepath.Join(bin, "gpurun"), "./cmd/gpurun"},
	} {
		build := exec.Command("go", args...)
		build.Dir = root
		build.Env = append(os.Environ(), "CGO_ENABLED=0")
		if out, err := build.CombinedOutput(); err != nil {
			t.Fatalf("%v: %s", err, out)
		}
	}
	tmp := t.TempDir()
	job, logs, rep := filepath.Join(tmp, "job"), filepath.Join(tmp, "logs"), filepath.Join(tmp, "report")
	if _, err := runFleet(t, "submit", "-job", job, "-bin", bin, "-tests", "-tree", root, "-cpu", "-nodes", "n1,n2", "-wait", "-interval", "200ms"); err != nil {
		t.Fatal(err)
	}
	out, err := runFleet(t, "gather", "-job", job, "-logs", logs, "-report", rep)
	if err != nil {
		t.Fatal(err)
	}
	row := regexp.MustCompile(`(?m)^\| github.com/convbench/convbench/cudabind/devfacts \| \d+/0/\d+ \d+s \| \d+/0/\d+ \d+s \|$`)
	if !row.MatchString(out) {
		t.Errorf("report lacks the package's tests on both hosts (want a line matching %s)", row)
	}
	summaries, err := filepath.Glob(filepath.Join(logs, "cpu-*-n[12]", "job", "tests-summary.txt"))
	if err != nil || len(summaries) != 2 {
		t.Errorf("gathered summaries %q, want one a host", summaries)
	}
}

// TestLocalRefusesTargets: -local runs on this host, so a target or an
// sbatch option beside it is an error naming the flag.
func TestLocalRefusesTargets(t *testing.T) {
	for _, args := range [][]string{{"-nodes", "n1"}, {"-partitions", "gpu"}, {"-time", "1:00:00"}, {"-gres", "gpu:2"}} {
		_, err := runFleet(t, append([]string{"submit", "-local", "-job", filepath.Join(t.TempDir(), "job")}, args...)...)
		if err == nil || !strings.Contains(err.Error(), args[0]+" ") {
			t.Errorf("submit -local %v: %v, want an error naming %s", args, err, args[0])
		}
	}
}

// Asked for help, fleet prints its commands and succeeds; an unknown
// command is an error that names it.
func TestHelp(t *testing.T) {
	for _, arg := range []string{"-h", "--help", "help"} {
		var out strings.Builder
		if err := run(context.Background(), arg, nil, &out); err != nil || !strings.Contains(out.String(), "fleet submit [flags]") {
			t.Errorf("fleet %s: %v, output %q", arg, err, out.String())
		}
	}
	if err := run(context.Background(), "sumbit", nil, io.Discard); err == nil || !strings.Contains(err.Error(), `unknown command "sumbit"`) {
		t.Errorf("fleet sumbit: %v", err)
	}
}

func TestParseJob(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "fleet.json"), []byte(`{"name": "nightly", "mode": "sweep", "tasks": []}`), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		args    []string
		name    string // the job loaded
		wantErr string
	}{
		{[]string{"-job", dir}, "nightly", ""},
		{[]string{"-job", filepath.Join(dir, "none")}, "", "is not a fleet job directory"},
		{[]string{"-job", dir, "-bogus"}, "", "flag provided but not defined: -bogus"},
	} {
		fs := flag.NewFlagSet("fleet test", flag.ContinueOnError)
		fs.SetOutput(io.Discard)
		j, err := parseJob(fs, tt.args)
		switch {
		case tt.wantErr != "":
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Errorf("parseJob(%q) error = %v, want %q", tt.args, err, tt.wantErr)
			}
		case err != nil:
			t.Errorf("parseJob(%q): %v", tt.args, err)
		case j.Name != tt.name || j.Dir != dir:
			t.Errorf("parseJob(%q) = job %q in %s, want %q in %s", tt.args, j.Name, j.Dir, tt.name, dir)
		}
	}
}
