package fleet_test

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/convbench/convbench/fleet"
)

// writesRun is a stand-in sweep that writes one result file under its
// -data directory, as the sweep does, then exits with the given code.
const writesRun = `while [ $# -gt 0 ]; do case $1 in -data) d=$2; shift ;; esac; shift; done
mkdir -p "$d/cpu-stand-in" && echo 'BenchmarkConv/variant=cpu-naive-1 1 100 ns/op' >"$d/cpu-stand-in/run.txt"`

// TestLocal runs jobs on this host without Slurm: a task that succeeds is
// done and gathered, one that fails is reported with its exit code and
// reason and runs again alone on rerun.
func TestLocal(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "job")
	j, err := fleet.Submit(fleet.Request{Dir: dir, Mode: fleet.ModeSweep, Bin: fakeBin(t, "echo 'sweep: no case ran' >&2; exit 1"),
		Targets: []fleet.Target{fleet.LocalTarget}, Local: true})
	if err != nil {
		t.Fatalf("Submit: %v", err)
	}
	statuses, err := j.Status()
	if err != nil {
		t.Fatal(err)
	}
	s := statuses[0]
	if s.State != fleet.Failed || s.Exit != "1" || !strings.Contains(s.Reason, "the sweep wrote no run") {
		t.Fatalf("failed task: state %s, exit %q, reason %q", s.State, s.Exit, s.Reason)
	}
	var out bytes.Buffer
	if err := fleet.WriteFailures(&out, statuses, 5); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), "sweep: no case ran") || !strings.Contains(out.String(), "this host") {
		t.Errorf("failure report lacks the log's last line or the target:\n%s", out.String())
	}

	// Fix the binary the job holds and run the failed task again.
	if err := os.WriteFile(filepath.Join(dir, "bin", "sweep"), []byte("#!/bin/sh\n"+writesRun+"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	again, err := j.Rerun()
	if err != nil || len(again) != 1 {
		t.Fatalf("Rerun = %d tasks, %v", len(again), err)
	}
	if _, err := os.Stat(filepath.Join(fleet.TaskDir(dir, 0), "attempt-1", "log")); err != nil {
		t.Errorf("the failed attempt's log was not kept: %v", err)
	}
	if statuses, err = j.Status(); err != nil {
		t.Fatal(err)
	}
	if s := statuses[0]; s.State != fleet.Done || s.Exit != "0" || !strings.HasPrefix(s.Slug, "cpu-") {
		t.Fatalf("rerun task: state %s, exit %q, slug %q, reason %q", s.State, s.Exit, s.Slug, s.Reason)
	}
	data, logs := t.TempDir(), t.TempDir()
	g, err := j.Gather(data, logs)
	if err != nil {
		t.Fatalf("Gather: %v", err)
	}
	if len(g.Files) != 1 || len(g.Left) != 0 {
		t.Fatalf("gathered %v, left %d tasks", g.Files, len(g.Left))
	}
	if b, err := os.ReadFile(g.Files[0]); err != nil || !strings.Contains(string(b), "BenchmarkConv") {
		t.Errorf("gathered file %s: %q, %v", g.Files[0], b, err)
	}
}

// TestLocalNeedsAGPU: a GPU job on a host without one fails; it never
// becomes a CPU run.
func TestLocalNeedsAGPU(t *testing.T) {
	if _, err := exec.LookPath("nvidia-smi"); err == nil {
		t.Skip("this host has nvidia-smi: the no-GPU path cannot be shown here")
	}
	j, err := fleet.Submit(fleet.Request{Dir: filepath.Join(t.TempDir(), "job"), Mode: fleet.ModeSweep, GPU: true,
		Bin: fakeBin(t, writesRun), Targets: []fleet.Target{fleet.LocalTarget}, Local: true})
	if err != nil {
		t.Fatalf("Submit: %v", err)
	}
	statuses, err := j.Status()
	if err != nil {
		t.Fatal(err)
	}
	if s := statuses[0]; s.State != fleet.Failed || s.Exit != "3" || !strings.Contains(s.Reason, "no GPU") {
		t.Errorf("state %s, exit %q, reason %q; want failed, 3, no GPU", s.State, s.Exit, s.Reason)
	}
}

func TestLocalRefusals(t *testing.T) {
	bin := fakeBin(t, writesRun)
	for _, tt := range []struct {
		name string
		req  fleet.Request
		want string
	}{
		{"two targets", fleet.Request{Targets: []fleet.Target{fleet.LocalTarget, fleet.LocalTarget}}, "2 targets"},
		{"a partition", fleet.Request{Targets: []fleet.Target{{Partition: "gpu"}}}, "this host alone"},
		{"a time limit", fleet.Request{Targets: []fleet.Target{fleet.LocalTarget}, Time: "1:00:00"}, "sbatch options"},
	} {
		tt.req.Dir, tt.req.Bin, tt.req.Mode, tt.req.Local = filepath.Join(t.TempDir(), "job"), bin, fleet.ModeSweep, true
		if _, err := fleet.Submit(tt.req); err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: Submit = %v, want an error with %q", tt.name, err, tt.want)
		}
	}
}
