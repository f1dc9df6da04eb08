// Package fleet runs convbench across many GPU hosts through Slurm.
//
// A job runs a sweep or the GPU test run as one Slurm array task a target
// (a partition, a node or a GPU type), each task running the prebuilt
// binaries of make gpu-bins from a job directory the nodes share. fleet
// follows the tasks, submits the failed ones again, and gathers the runs
// of those that succeeded into one data directory, by GPU slug, with a
// comparison across GPUs. A local job (Request.Local) runs its one task on
// the submitting host through the same script, without Slurm.
//
// A job directory holds:
//
//	fleet.json       the job: its mode, arguments and tasks with their
//	                 targets and submissions
//	job, sweep.args  the settings task.sh reads
//	task.sh          the task script
//	bin/             copies of the binaries the tasks run
//	tree/            where a sweep task runs (go.mod and benchmarks/)
//	tasks/N/         task N: log, record (written on exit: node, exit
//	                 code, slug, reason), data/SLUG/ or tests/; an earlier
//	                 failed attempt's files under attempt-K/
package fleet

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"time"
)

// Modes of a job.
const (
	ModeSweep = "sweep" // the sweep command with the job's arguments
	ModeTests = "tests" // scripts/gpu-run.sh OUTDIR tests
)

// manifestName is the job directory's description of the job.
const manifestName = "fleet.json"

// Job is one fleet run: the same work on every target, one task each.
type Job struct {
	Dir       string    `json:"-"` // the job directory
	Name      string    `json:"name"`
	Mode      string    `json:"mode"`
	SweepArgs []string  `json:"sweep_args,omitempty"`
	GPU       bool      `json:"gpu"`            // every task needs a GPU
	Tree      string    `json:"tree,omitempty"` // tests: the tree they run in
	Time      string    `json:"time,omitempty"` // sbatch --time
	Sbatch    []string  `json:"sbatch,omitempty"`
	Local     bool      `json:"local,omitempty"` // run on this host, not through Slurm
	Created   time.Time `json:"created"`
	Tasks     []*Task   `json:"tasks"`
}

// Task is one target's share of a job.
type Task struct {
	Index    int        `json:"index"`
	Target   Target     `json:"target"`
	Attempts []*Attempt `json:"attempts"`
}

// Attempt is one submission of a task.
type Attempt struct {
	JobID       string    `json:"job_id,omitempty"` // what sbatch printed
	SubmitError string    `json:"submit_error,omitempty"`
	Submitted   time.Time `json:"submitted"`
}

// SlurmID is the attempt's array task, JOBID_INDEX, or "" when it was
// never submitted.
func (a *Attempt) SlurmID(index int) string {
	if a.JobID == "" {
		return ""
	}
	return a.JobID + "_" + strconv.Itoa(index)
}

// Last is the task's latest attempt, or nil.
func (t *Task) Last() *Attempt {
	if len(t.Attempts) == 0 {
		return nil
	}
	return t.Attempts[len(t.Attempts)-1]
}

// TaskDir is the directory of task i in the job directory dir.
func TaskDir(dir string, i int) string {
	return filepath.Join(dir, "tasks", strconv.Itoa(i))
}

// LogPath is the log of the task's current attempt.
func (j *Job) LogPath(t *Task) string { return filepath.Join(TaskDir(j.Dir, t.Index), "log") }

// Load reads the job in directory dir.
func Load(dir string) (*Job, error) {
	b, err := os.ReadFile(filepath.Join(dir, manifestName))
	if err != nil {
		return nil, fmt.Errorf("fleet: %s is not a fleet job directory: %w", dir, err)
	}
	j := new(Job)
	if err := json.Unmarshal(b, j); err != nil {
		return nil, fmt.Errorf("fleet: reading %s: %w", filepath.Join(dir, manifestName), err)
	}
	j.Dir = dir
	return j, nil
}

// save writes the job's manifest, replacing the file in one rename.
func (j *Job) save() error {
	b, err := json.MarshalIndent(j, "", "  ")
	if err != nil {
		return err
	}
	path := filepath.Join(j.Dir, manifestName)
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, append(b, '\n'), 0o644); err != nil {
		return err
	}
	return os.Rename(tmp, path)
}

// Latest returns the job directory under root that sorts last by name,
// as Submit names them by time.
func Latest(root string) (string, error) {
	entries, err := os.ReadDir(root) // sorted by name
	if err != nil {
		return "", fmt.Errorf("fleet: no fleet jobs under %s: %w", root, err)
	}
	latest := ""
	for _, e := range entries {
		if _, err := os.Stat(filepath.Join(root, e.Name(), manifestName)); err == nil {
			latest = e.Name()
		} else if !errors.Is(err, fs.ErrNotExist) {
			return "", err
		}
	}
	if latest == "" {
		return "", fmt.Errorf("fleet: no fleet jobs under %s (fleet submit makes one)", root)
	}
	return filepath.Join(root, latest), nil
}
