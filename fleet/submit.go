package fleet

import (
	_ "embed"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"
)

// taskScript is the script every task runs.
//
//go:embed task.sh
var taskScript []byte

// Request is a job to submit.
type Request struct {
	Dir       string   // the job directory to make, on a file system the nodes share
	Bin       string   // the prebuilt binaries of make gpu-bins
	Mode      string   // ModeSweep or ModeTests
	SweepArgs []string // ModeSweep: the sweep command's flags
	Tree      string   // ModeTests: the repository tree, as the nodes reach it
	Targets   []Target
	GPU       bool     // every task needs a GPU: one that finds none fails
	Time      string   // sbatch --time of every task; "" the partition's default
	Sbatch    []string // more sbatch options for every task
	// Local runs the job's one task, on LocalTarget, on this host at
	// once through the same task script, without Slurm.
	Local bool
}

// binaries returns the files of the request's Bin the tasks need.
func (r *Request) binaries() ([]string, error) {
	var names []string
	switch r.Mode {
	case ModeSweep:
		names = []string{"sweep", "benchmarks.test"}
	case ModeTests:
		tests, err := filepath.Glob(filepath.Join(r.Bin, "*.test"))
		if err != nil {
			return nil, err
		}
		if len(tests) == 0 {
			return nil, fmt.Errorf("fleet: no test binaries (*.test) in %s: make gpu-bins builds them", r.Bin)
		}
		for _, t := range tests {
			names = append(names, filepath.Base(t))
		}
		names = append(names, "gpurun") // scripts/gpu-run.sh runs the tests with it
	default:
		return nil, fmt.Errorf("fleet: mode %q: want %s or %s", r.Mode, ModeSweep, ModeTests)
	}
	for _, n := range names {
		st, err := os.Stat(filepath.Join(r.Bin, n))
		if err != nil || st.Mode()&0o111 == 0 {
			return nil, fmt.Errorf("fleet: no executable %s in %s: make gpu-bins builds it", n, r.Bin)
		}
	}
	if _, err := os.Stat(filepath.Join(r.Bin, "COMMIT")); err == nil {
		names = append(names, "COMMIT")
	}
	return names, nil
}

// Submit makes the job directory r.Dir (which must not hold a job yet)
// with the binaries, the task script and the job's settings, and submits
// one Slurm array task a target. A task sbatch refuses is recorded with
// sbatch's error, the others are submitted all the same, and the error
// lists the refused ones.
func Submit(r Request) (*Job, error) {
	if len(r.Targets) == 0 {
		return nil, errors.New("fleet: no targets")
	}
	if r.Local {
		if len(r.Targets) != 1 || r.Targets[0] != LocalTarget {
			return nil, fmt.Errorf("fleet: a local job runs on this host alone, not on %d targets (%v)", len(r.Targets), r.Targets)
		}
		if r.Time != "" || len(r.Sbatch) > 0 {
			return nil, errors.New("fleet: a local job takes no sbatch options (-time, -sbatch)")
		}
	}
	if err := checkSweepArgs(r.SweepArgs); err != nil {
		return nil, err
	}
	if r.Mode == ModeTests {
		if _, err := os.Stat(filepath.Join(r.Tree, "scripts", "gpu-run.sh")); err != nil {
			return nil, fmt.Errorf("fleet: tree %s: no scripts/gpu-run.sh for the tests run", r.Tree)
		}
	}
	bins, err := r.binaries()
	if err != nil {
		return nil, err
	}
	dir, err := filepath.Abs(r.Dir)
	if err != nil {
		return nil, err
	}
	if _, err := os.Stat(filepath.Join(dir, manifestName)); err == nil {
		return nil, fmt.Errorf("fleet: %s already holds a fleet job", dir)
	}
	j := &Job{Dir: dir, Name: filepath.Base(dir), Mode: r.Mode, SweepArgs: r.SweepArgs, GPU: r.GPU,
		Tree: r.Tree, Time: r.Time, Sbatch: r.Sbatch, Local: r.Local, Created: time.Now().UTC()}
	for i, t := range r.Targets {
		j.Tasks = append(j.Tasks, &Task{Index: i, Target: t})
	}
	if err := j.setup(r.Bin, bins); err != nil {
		return nil, err
	}
	if err := j.save(); err != nil {
		return nil, err
	}
	return j, j.submit(j.Tasks)
}

// taskFlags are the sweep flags a task sets itself (-list runs nothing).
var taskFlags = []string{"bin", "data", "publish", "list"}

// checkSweepArgs refuses the sweep flags the task sets itself.
func checkSweepArgs(args []string) error {
	for _, a := range args {
		name, _, _ := strings.Cut(strings.TrimLeft(a, "-"), "=")
		if strings.HasPrefix(a, "-") && slices.Contains(taskFlags, name) {
			return fmt.Errorf("fleet: sweep flag %s: each task sets -bin and -data itself, and gather places the runs", a)
		}
	}
	return nil
}

// setup writes the job directory's files and a directory a task.
func (j *Job) setup(bin string, bins []string) error {
	for _, d := range []string{"bin", filepath.Join("tree", "benchmarks")} {
		if err := os.MkdirAll(filepath.Join(j.Dir, d), 0o755); err != nil {
			return err
		}
	}
	for _, n := range bins {
		if err := copyFile(filepath.Join(bin, n), filepath.Join(j.Dir, "bin", n)); err != nil {
			return err
		}
	}
	gpu := "0"
	if j.GPU {
		gpu = "1"
	}
	files := []struct {
		name string
		data string
		mode os.FileMode
	}{
		{"task.sh", string(taskScript), 0o755},
		{"job", "mode=" + j.Mode + "\ngpu=" + gpu + "\ntree=" + j.Tree + "\n", 0o644},
		{"sweep.args", strings.Join(append(j.SweepArgs, ""), "\n"), 0o644},
		{filepath.Join("tree", "go.mod"), "// A fleet task's sweep takes this directory for its root.\nmodule fleettask\n", 0o644},
	}
	for _, f := range files {
		if err := os.WriteFile(filepath.Join(j.Dir, f.name), []byte(f.data), f.mode); err != nil {
			return err
		}
	}
	for _, t := range j.Tasks {
		if err := os.MkdirAll(TaskDir(j.Dir, t.Index), 0o755); err != nil {
			return err
		}
	}
	return nil
}

// localJobID is the job ID of an attempt run on this host by a local job.
const localJobID = "local"

// submit submits each task, recording every attempt in the manifest; a
// local job runs them on this host instead.
func (j *Job) submit(tasks []*Task) error {
	var refused []string
	for _, t := range tasks {
		a := &Attempt{Submitted: time.Now().UTC()}
		var err error
		if j.Local {
			// Saved first, so that a status meanwhile sees it running.
			a.JobID = localJobID
			t.Attempts = append(t.Attempts, a)
			if err := j.save(); err != nil {
				return err
			}
			if err = j.runLocal(t); err != nil {
				a.JobID = ""
			}
		} else {
			var out string
			if out, err = slurm("sbatch", j.sbatchArgs(t)...); err == nil {
				a.JobID, err = sbatchJobID(out)
			}
			t.Attempts = append(t.Attempts, a)
		}
		if err != nil {
			a.SubmitError = err.Error()
			refused = append(refused, fmt.Sprintf("task %d (%s): %v", t.Index, t.Target, err))
		}
		if err := j.save(); err != nil {
			return err
		}
	}
	if len(refused) == 0 {
		return nil
	}
	what := "sbatch refused %d of %d tasks (fleet rerun submits them again)"
	if j.Local {
		what = "%d of %d tasks could not start on this host (fleet rerun runs them again)"
	}
	return fmt.Errorf("fleet: "+what+":\n  %s", len(refused), len(tasks), strings.Join(refused, "\n  "))
}

// runLocal runs task t's script on this host as Slurm would, its output
// to the task's log, and waits for it; an error is a task that could not
// be started (its record says how a task that ran ended).
func (j *Job) runLocal(t *Task) error {
	log, err := os.Create(j.LogPath(t))
	if err != nil {
		return err
	}
	defer log.Close()
	cmd := exec.Command("bash", filepath.Join(j.Dir, "task.sh"), j.Dir)
	cmd.Dir = j.Dir
	cmd.Env = append(os.Environ(), "SLURM_ARRAY_TASK_ID="+strconv.Itoa(t.Index))
	cmd.Stdout, cmd.Stderr = log, log
	err = cmd.Run()
	var exit *exec.ExitError
	if errors.As(err, &exit) {
		return nil // the task ran and failed: its record says how
	}
	return err
}

// sbatchArgs is the sbatch command line of task t.
func (j *Job) sbatchArgs(t *Task) []string {
	args := []string{"--parsable", "--job-name=fleet-" + j.Name, "--array=" + strconv.Itoa(t.Index),
		"--output=" + j.LogPath(t), "--chdir=" + j.Dir}
	if j.Time != "" {
		args = append(args, "--time="+j.Time)
	}
	args = append(args, t.Target.sbatchArgs()...)
	args = append(args, j.Sbatch...)
	return append(args, filepath.Join(j.Dir, "task.sh"), j.Dir)
}

// archive moves the files of task t's current attempt into attempt-K/ of
// its directory, K the attempt's number.
func (j *Job) archive(t *Task) error {
	dir := TaskDir(j.Dir, t.Index)
	dst := filepath.Join(dir, "attempt-"+strconv.Itoa(len(t.Attempts)))
	for _, name := range []string{"log", "record", "data", "tests"} {
		src := filepath.Join(dir, name)
		if _, err := os.Lstat(src); errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err := os.MkdirAll(dst, 0o755); err != nil {
			return err
		}
		if err := os.Rename(src, filepath.Join(dst, name)); err != nil {
			return err
		}
	}
	return nil
}

// copyFile copies src to dst with src's permissions.
func copyFile(src, dst string) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	st, err := in.Stat()
	if err != nil {
		return err
	}
	out, err := os.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_EXCL, st.Mode().Perm())
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}
