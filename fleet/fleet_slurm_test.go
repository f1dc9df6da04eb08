package fleet_test

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/convbench/convbench/fleet"
	"github.com/convbench/convbench/fleet/slurmtest"
)

// fakeBin makes a bin directory whose sweep runs script (benchmarks.test
// is never run by these tests).
func fakeBin(t *testing.T, script string) string {
	t.Helper()
	bin := t.TempDir()
	for name, body := range map[string]string{"sweep": script, "benchmarks.test": "exit 99"} {
		if err := os.WriteFile(filepath.Join(bin, name), []byte("#!/bin/sh\n"+body+"\n"), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	return bin
}

func targets(t *testing.T, ts fleet.Targets) []fleet.Target {
	t.Helper()
	list, err := ts.List()
	if err != nil {
		t.Fatal(err)
	}
	return list
}

// wait waits for the job's tasks to end and returns their statuses.
func wait(t *testing.T, j *fleet.Job) []fleet.TaskStatus {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	var progress bytes.Buffer
	statuses, err := j.Wait(ctx, 200*time.Millisecond, &progress)
	t.Logf("progress:\n%s", progress.String())
	if err != nil {
		t.Fatal(err)
	}
	return statuses
}

// TestFaults runs tasks that fail on a real Slurm cluster: each is
// reported failed with its node, exit code, reason and log.
func TestFaults(t *testing.T) {
	slurmtest.Start(t, "n1", "n2")
	tests := []struct {
		name     string
		req      fleet.Request
		node     string // "" when it never ran
		exit     string
		reason   string // in the failure line
		logTail  string // in the failure's log tail
		slurmEnd string // Slurm's state
	}{
		{
			name: "no GPU on a GPU partition",
			req: fleet.Request{Mode: fleet.ModeSweep, GPU: true, Bin: fakeBin(t, "echo should not run; exit 0"),
				Targets: targets(t, fleet.Targets{Partitions: []string{slurmtest.GPUPartition}, Gres: "none"})},
			node: "n2", exit: "3", reason: "no GPU on n2", logTail: "# fleet task 0: exit 3", slurmEnd: "FAILED",
		},
		{
			name: "sweep fails",
			req: fleet.Request{Mode: fleet.ModeSweep, Bin: fakeBin(t, "echo 'sweep: -sizes 0x0: bad size' >&2; exit 2"),
				Targets: targets(t, fleet.Targets{Nodes: []string{"n1"}, CPU: true})},
			node: "n1", exit: "2", reason: "the sweep wrote no run", logTail: "sweep: -sizes 0x0: bad size", slurmEnd: "FAILED",
		},
		{
			name: "bad partition",
			req: fleet.Request{Mode: fleet.ModeSweep, Bin: fakeBin(t, "exit 0"),
				Targets: targets(t, fleet.Targets{Partitions: []string{"nosuch"}, CPU: true})},
			reason: "invalid partition", slurmEnd: "NOT-SUBMITTED",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.req.Dir = filepath.Join(t.TempDir(), "job")
			j, err := fleet.Submit(tt.req)
			if j == nil {
				t.Fatalf("Submit: %v", err)
			}
			if (err != nil) != (tt.slurmEnd == "NOT-SUBMITTED") {
				t.Errorf("Submit error %v", err)
			}
			statuses := wait(t, j)
			s := statuses[0]
			if s.State != fleet.Failed || s.Slurm != tt.slurmEnd || s.Node != tt.node || s.Exit != tt.exit {
				t.Errorf("status %s, Slurm %s, node %q, exit %q; want failed, %s, %q, %q", s.State, s.Slurm, s.Node, s.Exit, tt.slurmEnd, tt.node, tt.exit)
			}
			var out bytes.Buffer
			if err := fleet.WriteFailures(&out, statuses, 5); err != nil {
				t.Fatal(err)
			}
			t.Logf("failures:\n%s", out.String())
			if !strings.Contains(out.String(), tt.reason) || !strings.Contains(out.String(), tt.logTail) {
				t.Errorf("failure report lacks %q or the log line %q", tt.reason, tt.logTail)
			}
		})
	}
}

// TestCancelled cancels a held task: it is failed, CANCELLED, and a
// rerun submits it alone.
func TestCancelled(t *testing.T) {
	slurmtest.Start(t, "n1", "n2")
	j, err := fleet.Submit(fleet.Request{Dir: filepath.Join(t.TempDir(), "job"), Mode: fleet.ModeSweep,
		Bin: fakeBin(t, `mkdir -p "$4/cpu-fake" && echo run >"$4/cpu-fake/run.txt"`), Sbatch: []string{"--hold"},
		Targets: targets(t, fleet.Targets{Nodes: []string{"n1", "n2"}, CPU: true})})
	if err != nil {
		t.Fatal(err)
	}
	statuses, err := j.Status()
	if err != nil {
		t.Fatal(err)
	}
	if n := fleet.Count(statuses); n[fleet.Pending] != 2 || statuses[0].Reason != "JobHeldUser" {
		t.Fatalf("held tasks: %v, first's reason %q; want 2 pending, JobHeldUser", n, statuses[0].Reason)
	}
	if out, err := exec.Command("scancel", statuses[1].SlurmID).CombinedOutput(); err != nil {
		t.Fatalf("scancel: %v: %s", err, out)
	}
	if out, err := exec.Command("scontrol", "release", statuses[0].SlurmID).CombinedOutput(); err != nil {
		t.Fatalf("scontrol release: %v: %s", err, out)
	}
	statuses = wait(t, j)
	if s := statuses[1]; s.State != fleet.Failed || s.Slurm != "CANCELLED" {
		t.Errorf("cancelled task: %s, Slurm %s; want failed, CANCELLED", s.State, s.Slurm)
	}
	if s := statuses[0]; s.State != fleet.Done {
		t.Errorf("released task: %s, want done", s.State)
	}
	j.Sbatch = nil // the rerun's submission without --hold
	rerun, err := j.Rerun()
	if err != nil {
		t.Fatal(err)
	}
	if len(rerun) != 1 || rerun[0].Index != 1 {
		t.Fatalf("rerun submitted %d tasks, want task 1 alone", len(rerun))
	}
	if n := fleet.Count(wait(t, j)); n[fleet.Done] != 2 {
		t.Errorf("after the rerun: %v, want 2 done", n)
	}
}
