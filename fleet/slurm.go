package fleet

import (
	"bytes"
	"fmt"
	"os/exec"
	"strconv"
	"strings"
)

// slurm runs one of Slurm's client commands and returns its standard
// output; a failure is an error with the command line and its standard
// error.
func slurm(name string, args ...string) (string, error) {
	var stdout, stderr bytes.Buffer
	cmd := exec.Command(name, args...)
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		msg := strings.TrimSpace(stderr.String())
		if msg == "" {
			msg = err.Error()
		}
		return stdout.String(), fmt.Errorf("%s %s: %s", name, strings.Join(args, " "), msg)
	}
	return stdout.String(), nil
}

// sbatchJobID reads the job ID from sbatch --parsable's output, "ID" or
// "ID;CLUSTER".
func sbatchJobID(out string) (string, error) {
	id, _, _ := strings.Cut(strings.TrimSpace(out), ";")
	if _, err := strconv.ParseUint(id, 10, 64); err != nil {
		return "", fmt.Errorf("sbatch printed %q, not a job ID", strings.TrimSpace(out))
	}
	return id, nil
}

// slurmTask is what Slurm says of one array task.
type slurmTask struct {
	State  string // the scheduler's state, as COMPLETED, CANCELLED
	Node   string
	Reason string // why it is pending, from squeue
	Exit   string // the exit code, "" unknown; "N" or "signal S"
}

// squeueFormat makes squeue print one array task a line: array job ID,
// index, state, node list and reason.
const squeueFormat = "%F|%K|%T|%N|%r"

// parseSqueue reads the output of squeue -h -r -o squeueFormat into
// tasks by JOBID_INDEX.
func parseSqueue(out string) (map[string]slurmTask, error) {
	return parseTasks("squeue", out, 5, func(f []string) (string, slurmTask) {
		reason := f[4]
		if reason == "None" {
			reason = ""
		}
		return taskKey(f[0], f[1]), slurmTask{State: f[2], Node: f[3], Reason: reason}
	})
}

// parseTasks reads the output of the Slurm command name, one task a line
// of n fields separated by |, into tasks by the key task gives each line.
func parseTasks(name, out string, n int, task func(fields []string) (string, slurmTask)) (map[string]slurmTask, error) {
	tasks := map[string]slurmTask{}
	for line := range strings.Lines(out) {
		if line = strings.TrimSpace(line); line == "" {
			continue
		}
		f := strings.Split(line, "|")
		if len(f) != n {
			return nil, fmt.Errorf("%s line %q: want %d fields separated by |", name, line, n)
		}
		key, t := task(f)
		tasks[key] = t
	}
	return tasks, nil
}

// taskKey is the key of an array task, JOBID_INDEX, or JOBID_* for
// Slurm's record of the pending tasks not yet split off (index N/A or a
// range such as [0-3]): it stands for each task not listed alone.
func taskKey(job, index string) string {
	if _, err := strconv.ParseUint(index, 10, 32); err != nil {
		index = "*"
	}
	return job + "_" + index
}

// lookup returns what tasks says of the array task index of job.
func lookup(tasks map[string]slurmTask, job string, index int) (slurmTask, bool) {
	if t, ok := tasks[job+"_"+strconv.Itoa(index)]; ok {
		return t, true
	}
	t, ok := tasks[job+"_*"]
	return t, ok
}

// sacctFields are the fields parseSacct reads, in order.
const sacctFields = "JobID,State,ExitCode,NodeList"

// parseSacct reads the output of sacct -n -P -X -o sacctFields into tasks
// by JOBID_INDEX. A state has its first word only ("CANCELLED by 0").
func parseSacct(out string) (map[string]slurmTask, error) {
	return parseTasks("sacct", out, 4, func(f []string) (string, slurmTask) {
		state, _, _ := strings.Cut(f[1], " ")
		job, index, _ := strings.Cut(f[0], "_")
		return taskKey(job, index), slurmTask{State: state, Exit: exitCode(f[2]), Node: f[3]}
	})
}

// parseScontrol reads scontrol -o show job's line of one job: its state,
// node and exit code.
func parseScontrol(out string) slurmTask {
	var t slurmTask
	for _, field := range strings.Fields(out) {
		key, value, _ := strings.Cut(field, "=")
		switch key {
		case "JobState":
			t.State = value
		case "NodeList":
			if value != "(null)" {
				t.Node = value
			}
		case "ExitCode":
			t.Exit = exitCode(value)
		case "Reason":
			if value != "None" {
				t.Reason = value
			}
		}
	}
	return t
}

// exitCode turns Slurm's "CODE:SIGNAL" into "CODE", or "signal SIGNAL"
// when a signal ended the task; "" when it reads neither.
func exitCode(s string) string {
	code, sig, ok := strings.Cut(s, ":")
	if !ok {
		return ""
	}
	if sig != "" && sig != "0" {
		return "signal " + sig
	}
	return code
}

// queryQueue asks squeue for the array tasks of the given job IDs, in any
// state the controller still holds. Jobs it has forgotten are no error.
func queryQueue(jobIDs []string) (map[string]slurmTask, error) {
	out, err := slurm("squeue", "-h", "-r", "--states=all", "-j", strings.Join(jobIDs, ","), "-o", squeueFormat)
	if err != nil {
		if strings.Contains(err.Error(), "Invalid job id") {
			return map[string]slurmTask{}, nil
		}
		return nil, err
	}
	return parseSqueue(out)
}

// queryAccounting asks sacct for the array tasks of the given job IDs;
// without accounting storage it returns none and no error.
func queryAccounting(jobIDs []string) map[string]slurmTask {
	out, err := slurm("sacct", "-n", "-P", "-X", "-j", strings.Join(jobIDs, ","), "-o", sacctFields)
	tasks, perr := parseSacct(out)
	if err != nil || perr != nil {
		return nil
	}
	return tasks
}

// queryJob asks scontrol for one array task, JOBID_INDEX; ok is false when
// the controller no longer holds it.
func queryJob(id string) (slurmTask, bool) {
	out, err := slurm("scontrol", "-o", "show", "job", id)
	if err != nil || strings.TrimSpace(out) == "" {
		return slurmTask{}, false
	}
	return parseScontrol(out), true
}
