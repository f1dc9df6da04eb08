package fleet

import (
	"bufio"
	"cmp"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"text/tabwriter"
	"time"
)

// State is where a task stands.
type State string

// The states of a task.
const (
	Pending State = "pending" // submitted, not started
	Running State = "running"
	Done    State = "done"   // ended with exit code 0
	Failed  State = "failed" // ended otherwise, was cancelled, or was never submitted
)

// states are the states in the order the counts show them.
var states = []State{Pending, Running, Done, Failed}

// TaskStatus is what Slurm and the task's record say of a task's current
// attempt.
type TaskStatus struct {
	Task    *Task
	SlurmID string // JOBID_INDEX, "" when never submitted
	Slurm   string // the scheduler's state (COMPLETED, CANCELLED, ...), NOT-SUBMITTED or UNKNOWN
	State   State
	Node    string
	Exit    string // the exit code, "signal N", or "" unknown
	Reason  string // why it is pending or why it failed
	Slug    string // the GPU's slug, or the host's for a run without GPUs
	Log     string
}

// classify maps a Slurm job state to a task state.
func classify(slurmState string) State {
	switch slurmState {
	case "PENDING", "CONFIGURING", "REQUEUED", "REQUEUE_HOLD", "REQUEUE_FED", "RESV_DEL_HOLD":
		return Pending
	case "RUNNING", "COMPLETING", "SUSPENDED", "STAGE_OUT", "SIGNALING", "RESIZING", "STOPPED":
		return Running
	case "COMPLETED":
		return Done
	}
	return Failed
}

// record is what task.sh writes when the task ends.
type record struct {
	Node, Exit, Slug, Reason string
}

// readRecord reads the record of the task in dir; ok is false when the
// task has written none.
func readRecord(dir string) (rec record, ok bool) {
	lines, err := readLines(filepath.Join(dir, "record"))
	fields := map[string]*string{"node": &rec.Node, "exit": &rec.Exit, "slug": &rec.Slug, "reason": &rec.Reason}
	for _, l := range lines {
		key, value, _ := strings.Cut(l, "=")
		if p, ok := fields[key]; ok {
			*p = value
		}
	}
	return rec, err == nil
}

// readLines returns the lines of the file at path, without their ends.
func readLines(path string) ([]string, error) {
	b, err := os.ReadFile(path)
	if err != nil || len(b) == 0 {
		return nil, err
	}
	lines := strings.Split(strings.TrimSuffix(string(b), "\n"), "\n")
	for i, l := range lines {
		lines[i] = strings.TrimSuffix(l, "\r")
	}
	return lines, nil
}

// Status returns the status of every task's current attempt, from squeue,
// sacct (where accounting is kept), and the record each task writes as it
// ends, which outlives both.
func (j *Job) Status() ([]TaskStatus, error) {
	var ids []string
	for _, t := range j.Tasks {
		if a := t.Last(); a != nil && a.JobID != "" {
			ids = append(ids, a.JobID)
		}
	}
	queue, acct := map[string]slurmTask{}, map[string]slurmTask{}
	if len(ids) > 0 && !j.Local {
		var err error
		if queue, err = queryQueue(ids); err != nil {
			return nil, fmt.Errorf("fleet: %w", err)
		}
		acct = queryAccounting(ids)
	}
	statuses := make([]TaskStatus, len(j.Tasks))
	for i, t := range j.Tasks {
		statuses[i] = j.taskStatus(t, queue, acct)
	}
	return statuses, nil
}

// taskStatus is the status of task t from the scheduler's views and its
// record.
func (j *Job) taskStatus(t *Task, queue, acct map[string]slurmTask) TaskStatus {
	s := TaskStatus{Task: t, Log: j.LogPath(t)}
	a := t.Last()
	if a == nil || a.JobID == "" {
		s.Slurm, s.State = "NOT-SUBMITTED", Failed
		if a != nil {
			s.Reason = a.SubmitError
		}
		return s
	}
	s.SlurmID = a.SlurmID(t.Index)
	st, known := lookup(queue, a.JobID, t.Index)
	if !known {
		st, known = lookup(acct, a.JobID, t.Index)
	}
	if !known && !j.Local {
		st, known = queryJob(s.SlurmID)
	}
	if known {
		s.Slurm, s.State, s.Node, s.Exit, s.Reason = st.State, classify(st.State), st.Node, st.Exit, st.Reason
	}
	rec, ended := readRecord(TaskDir(j.Dir, t.Index))
	switch {
	case ended:
		s.Node, s.Exit, s.Slug = rec.Node, rec.Exit, rec.Slug
		if rec.Reason != "" {
			s.Reason = rec.Reason
		}
		// Until Slurm says the task ended (COMPLETING) it is running.
		if !known || s.State == Done {
			s.State = Done
			if rec.Exit != "0" {
				s.State = Failed
			}
		}
		if !known {
			s.Slurm = "ENDED"
		}
	case !known && j.Local:
		s.Slurm, s.State = "LOCAL", Failed
		s.Reason = "the task wrote no record on this host: it is still running, or was killed"
	case !known:
		s.Slurm, s.State = "UNKNOWN", Failed
		s.Reason = "Slurm no longer knows " + s.SlurmID + " and the task wrote no record"
	case s.State == Failed && s.Exit == "":
		if full, ok := queryJob(s.SlurmID); ok {
			s.Exit = full.Exit
		}
	}
	if s.State == Failed && s.Reason == "" {
		s.Reason = "Slurm state " + s.Slurm
	}
	return s
}

// Count returns how many tasks are in each state.
func Count(statuses []TaskStatus) map[State]int {
	n := map[State]int{}
	for _, s := range statuses {
		n[s.State]++
	}
	return n
}

// CountLine is the one-line count of the tasks by state.
func CountLine(statuses []TaskStatus) string {
	n := Count(statuses)
	parts := make([]string, len(states))
	for i, st := range states {
		parts[i] = fmt.Sprintf("%d %s", n[st], st)
	}
	return fmt.Sprintf("%d tasks: %s", len(statuses), strings.Join(parts, ", "))
}

// WriteTable writes one line a task: its number, target, Slurm task,
// state, node, exit code and slug.
func WriteTable(w io.Writer, statuses []TaskStatus) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "task\ttarget\tslurm\tstate\tslurm-state\tnode\texit\tslug")
	for _, s := range statuses {
		fmt.Fprintf(tw, "%d\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n", s.Task.Index, s.Task.Target,
			cmp.Or(s.SlurmID, "-"), s.State, s.Slurm,
			cmp.Or(s.Node, "-"), cmp.Or(s.Exit, "-"), cmp.Or(s.Slug, "-"))
	}
	return tw.Flush()
}

// WriteFailures writes each failed task with its node, exit code, reason
// and the last lines of its log (at most tail).
func WriteFailures(w io.Writer, statuses []TaskStatus, tail int) error {
	bw := bufio.NewWriter(w)
	for _, s := range statuses {
		if s.State != Failed {
			continue
		}
		fmt.Fprintln(bw, failure(s))
		if s.SlurmID == "" {
			continue
		}
		lines, err := lastLines(s.Log, tail)
		if err != nil {
			fmt.Fprintf(bw, "  log %s: none (%v)\n", s.Log, err)
			continue
		}
		fmt.Fprintf(bw, "  log %s, last %d lines:\n", s.Log, len(lines))
		for _, l := range lines {
			fmt.Fprintln(bw, "    "+l)
		}
	}
	return bw.Flush()
}

// failure is the line that reports a failed task.
func failure(s TaskStatus) string {
	if s.SlurmID == "" {
		return fmt.Sprintf("task %d (%s): not submitted: %s", s.Task.Index, s.Task.Target, s.Reason)
	}
	return fmt.Sprintf("task %d (%s), Slurm %s: %s on node %s, exit code %s: %s",
		s.Task.Index, s.Task.Target, s.SlurmID, s.Slurm, cmp.Or(s.Node, "-"), cmp.Or(s.Exit, "-"), s.Reason)
}

// lastLines returns the last n lines of the file at path.
func lastLines(path string, n int) ([]string, error) {
	lines, err := readLines(path)
	return lines[max(len(lines)-n, 0):], err
}

// Wait polls the job's status every interval until no task is pending or
// running, writing to progress a line whenever a task's progressLine
// changes, and returns the final statuses.
func (j *Job) Wait(ctx context.Context, interval time.Duration, progress io.Writer) ([]TaskStatus, error) {
	seen := map[int]string{}
	start := time.Now()
	for {
		statuses, err := j.Status()
		if err != nil {
			return nil, err
		}
		changed := false
		for _, s := range statuses {
			line := progressLine(s)
			if line != seen[s.Task.Index] {
				seen[s.Task.Index] = line
				changed = true
				fmt.Fprintf(progress, "%s task %d (%s): %s\n", elapsed(start), s.Task.Index, s.Task.Target, line)
			}
		}
		if changed {
			fmt.Fprintf(progress, "%s %s\n", elapsed(start), CountLine(statuses))
		}
		if n := Count(statuses); n[Pending]+n[Running] == 0 {
			return statuses, nil
		}
		select {
		case <-ctx.Done():
			return statuses, ctx.Err()
		case <-time.After(interval):
		}
	}
}

// progressLine says where a task stands, with the last line of a running
// task's log.
func progressLine(s TaskStatus) string {
	switch s.State {
	case Pending:
		return fmt.Sprintf("pending (%s)", cmp.Or(s.Reason, "-"))
	case Running:
		line := "running on " + cmp.Or(s.Node, "-")
		if last, err := lastLines(s.Log, 1); err == nil && len(last) == 1 {
			line += ": " + last[0]
		}
		return line
	case Done:
		return "done on " + s.Node + ", " + cmp.Or(s.Slug, "-")
	}
	return fmt.Sprintf("FAILED (%s on node %s, exit code %s: %s)", s.Slurm, cmp.Or(s.Node, "-"), cmp.Or(s.Exit, "-"), s.Reason)
}

func elapsed(start time.Time) string {
	return fmt.Sprintf("[%4.0fs]", time.Since(start).Seconds())
}
