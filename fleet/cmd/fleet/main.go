// Command fleet runs sweeps and GPU test runs across many GPU hosts through Slurm.
//
// It submits one array task a target and gathers their runs into one data
// directory with a cross-GPU comparison (package fleet). Run it from the
// repository root, after make gpu-bins, on a host that submits to the
// cluster; the job directory must be on a file system the nodes share.
// Its commands are submit, status, gather and rerun (fleet -h), as in
//
//	fleet submit -partitions h100,l40s -gpu-types a100 -partition mixed -wait -- -sweep default -count 6
//	fleet gather
//
// A target asks for one GPU (-gres, default gpu:1) and a task that finds
// none fails; -cpu runs without GPUs. status exits 1 when a task failed,
// and rerun submits only the failed tasks. Gather never overwrites a file.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"time"

	"github.com/convbench/convbench/fleet"
)

// JobsDir is where submit makes job directories by default, and where the
// other commands take the latest job from.
const JobsDir = "results/local/fleet"

const usage = `usage:
  fleet submit [flags] [-- sweep flags]   a sweep (or preset) on every target
  fleet submit -tests [flags]             the GPU test run on every target
  fleet status [-job DIR] [-wait]         the tasks, pending, running, done and failed
  fleet gather [-job DIR] [-data DIR]     merge the done tasks' runs and write the report
  fleet rerun [-job DIR]                  submit the failed tasks again
run fleet COMMAND -h for a command's flags`

// errFailed is the error of a status that found failed tasks.
var errFailed = errors.New("")

func main() {
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, usage)
		os.Exit(2)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	err := run(ctx, os.Args[1], os.Args[2:], os.Stdout)
	switch {
	case errors.Is(err, errFailed):
		os.Exit(1)
	case errors.Is(err, flag.ErrHelp):
		os.Exit(2)
	case err != nil:
		fmt.Fprintln(os.Stderr, "fleet:", strings.TrimPrefix(err.Error(), "fleet: "))
		os.Exit(1)
	}
}

// run runs the command name with its arguments.
func run(ctx context.Context, name string, args []string, w io.Writer) error {
	switch name {
	case "submit":
		return submit(ctx, args, w)
	case "status":
		return status(ctx, args, w)
	case "gather":
		return gather(args, w)
	case "rerun":
		return rerun(args, w)
	case "-h", "-help", "--help", "help":
		_, err := fmt.Fprintln(w, usage)
		return err
	}
	return fmt.Errorf("unknown command %q\n%s", name, usage)
}

func submit(ctx context.Context, args []string, w io.Writer) error {
	fs := flag.NewFlagSet("fleet submit", flag.ContinueOnError)
	job := fs.String("job", "", "job directory to make, on a file system the nodes share (default "+JobsDir+"/<UTC time>)")
	bin := fs.String("bin", ".gpu", "the prebuilt binaries (make gpu-bins)")
	tests := fs.Bool("tests", false, "run the GPU test run (scripts/gpu-run.sh OUTDIR tests) instead of a sweep")
	tree := fs.String("tree", ".", "the repository tree the tests run in, as the nodes reach it (-tests)")
	cpu := fs.Bool("cpu", false, "run without GPUs: ask for none and check for none; runs go under host slugs")
	partitions := fs.String("partitions", "", "partitions, comma-separated: one task each")
	nodes := fs.String("nodes", "", "nodes, comma-separated, ranges such as gpu[01-04] expanded: one task each")
	gpuTypes := fs.String("gpu-types", "", "GPU types, comma-separated: one task each, asking --gres=gpu:TYPE:1")
	partition := fs.String("partition", "", "the partition of the -nodes and -gpu-types tasks (default the cluster's)")
	gres := fs.String("gres", "", "the GRES of a GPU run's -partitions and -nodes tasks (default "+fleet.DefaultGres+"; none: ask for none, still check for a GPU)")
	limit := fs.String("time", "", "time limit of each task (sbatch --time), such as 2:00:00")
	sbatch := fs.String("sbatch", "", "more sbatch options for every task, separated by spaces")
	local := fs.Bool("local", false, "run one task on this host now, through the same task script, without Slurm (no target flags)")
	wait := fs.Bool("wait", false, "then wait for the tasks, as status -wait does")
	interval := fs.Duration("interval", 10*time.Second, "with -wait, how often to ask Slurm")
	if err := fs.Parse(args); err != nil {
		return err
	}
	var targets []fleet.Target
	if *local {
		for _, f := range []struct{ name, value string }{{"partitions", *partitions}, {"nodes", *nodes},
			{"gpu-types", *gpuTypes}, {"partition", *partition}, {"gres", *gres}, {"time", *limit}, {"sbatch", *sbatch}} {
			if f.value != "" {
				return fmt.Errorf("-local runs on this host without Slurm: -%s %q has no meaning there", f.name, f.value)
			}
		}
		targets = []fleet.Target{fleet.LocalTarget}
	} else {
		nodeList, err := fleet.ExpandNodes(fleet.SplitList(*nodes))
		if err != nil {
			return err
		}
		targets, err = fleet.Targets{Partitions: fleet.SplitList(*partitions), Nodes: nodeList,
			GPUTypes: fleet.SplitList(*gpuTypes), Partition: *partition, Gres: *gres, CPU: *cpu}.List()
		if err != nil {
			return err
		}
	}
	r := fleet.Request{Dir: *job, Bin: *bin, Mode: fleet.ModeSweep, SweepArgs: fs.Args(), Targets: targets,
		GPU: !*cpu, Time: *limit, Sbatch: strings.Fields(*sbatch), Local: *local}
	if *tests {
		if fs.NArg() > 0 {
			return fmt.Errorf("-tests takes no sweep flags, got %q", fs.Args())
		}
		var err error
		if r.Tree, err = filepath.Abs(*tree); err != nil {
			return err
		}
		r.Mode = fleet.ModeTests
	}
	if r.Dir == "" {
		r.Dir = filepath.Join(JobsDir, time.Now().UTC().Format("20060102-150405"))
	}
	j, err := fleet.Submit(r)
	if j != nil {
		fmt.Fprintf(w, "fleet: job %s: %d tasks\n", j.Dir, len(j.Tasks))
		for _, t := range j.Tasks {
			if a := t.Last(); a != nil && a.JobID != "" && !j.Local {
				fmt.Fprintf(w, "  task %d (%s): Slurm %s\n", t.Index, t.Target, a.SlurmID(t.Index))
			}
		}
	}
	// A local task has run: say how it ended, as status does.
	if j != nil && (j.Local || *wait && err == nil) {
		if rerr := report(ctx, j, *wait && !j.Local, *interval, 20, w); err == nil {
			err = rerr
		}
	}
	return err
}

// parseJob defines -job on fs, parses args, and loads the job -job names,
// or the latest under JobsDir.
func parseJob(fs *flag.FlagSet, args []string) (*fleet.Job, error) {
	dir := fs.String("job", "", "job directory (default the latest under "+JobsDir+")")
	if err := fs.Parse(args); err != nil {
		return nil, err
	}
	if *dir == "" {
		var err error
		if *dir, err = fleet.Latest(JobsDir); err != nil {
			return nil, err
		}
	}
	return fleet.Load(*dir)
}

func status(ctx context.Context, args []string, w io.Writer) error {
	fs := flag.NewFlagSet("fleet status", flag.ContinueOnError)
	wait := fs.Bool("wait", false, "wait until no task is pending or running, writing progress as tasks change")
	interval := fs.Duration("interval", 10*time.Second, "with -wait, how often to ask Slurm")
	tail := fs.Int("tail", 20, "lines of a failed task's log to show")
	j, err := parseJob(fs, args)
	if err != nil {
		return err
	}
	return report(ctx, j, *wait, *interval, *tail, w)
}

// report writes the job's tasks, after waiting for them with wait, and
// the failed ones with their logs' last tail lines; errFailed when a task
// failed.
func report(ctx context.Context, j *fleet.Job, wait bool, interval time.Duration, tail int, w io.Writer) error {
	var statuses []fleet.TaskStatus
	var err error
	if wait {
		statuses, err = j.Wait(ctx, interval, w)
	} else {
		statuses, err = j.Status()
	}
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "fleet: job %s: %s\n", j.Dir, fleet.CountLine(statuses))
	if err := fleet.WriteTable(w, statuses); err != nil {
		return err
	}
	if fleet.Count(statuses)[fleet.Failed] == 0 {
		return nil
	}
	if err := fleet.WriteFailures(w, statuses, tail); err != nil {
		return err
	}
	fmt.Fprintln(w, "fleet rerun submits the failed tasks again")
	return errFailed
}

func gather(args []string, w io.Writer) error {
	fs := flag.NewFlagSet("fleet gather", flag.ContinueOnError)
	data := fs.String("data", "results/local/data", "where the sweep runs go, under their slugs")
	logs := fs.String("logs", "results/local/logs", "where the tests runs' logs go, under SLUG/JOB/")
	reportDir := fs.String("report", "results/local/report", "where the report fleet-JOB.md goes")
	j, err := parseJob(fs, args)
	if err != nil {
		return err
	}
	g, err := j.Gather(*data, *logs)
	if err != nil {
		return err
	}
	path, err := j.SaveReport(*reportDir, g)
	if err != nil {
		return err
	}
	if err := j.WriteReport(w, g); err != nil {
		return err
	}
	fmt.Fprintf(w, "\nfleet: %d files gathered, report %s\n", len(g.Files), path)
	if len(g.Left) > 0 {
		fmt.Fprintf(w, "fleet: %d tasks not done were left out (fleet status shows them; fleet rerun submits the failed ones)\n", len(g.Left))
	}
	return nil
}

func rerun(args []string, w io.Writer) error {
	j, err := parseJob(flag.NewFlagSet("fleet rerun", flag.ContinueOnError), args)
	if err != nil {
		return err
	}
	tasks, err := j.Rerun()
	if len(tasks) == 0 && err == nil {
		fmt.Fprintln(w, "fleet: no failed tasks to submit again")
		return nil
	}
	for _, t := range tasks {
		if a := t.Last(); a != nil && a.JobID != "" {
			fmt.Fprintf(w, "fleet: task %d (%s) submitted again: Slurm %s\n", t.Index, t.Target, a.SlurmID(t.Index))
		}
	}
	return err
}
