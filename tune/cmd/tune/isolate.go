package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"time"

	"github.com/convbench/convbench/convolve"
	"github.com/convbench/convbench/cudabind"
	"github.com/convbench/convbench/internal/childproc"
	"github.com/convbench/convbench/tables/tuning"
)

// Isolation by process: a candidate that faults with a sticky CUDA error
// leaves the device unusable in its process, and one that never ends
// hangs it. So the command never opens the GPU itself: it runs each job
// in a child process of its own executable (child.go) and watches it. A
// child whose candidate reports a sticky error, that dies, or that goes
// -case-timeout without a sign of progress is killed with its process
// group; the candidate under way is recorded as crashed or hung, and the
// job starts again in a new child that resumes from the candidates
// already tried (tune.Options.Resume), so that no candidate runs twice.

// DefaultCaseTimeout is the default of -case-timeout, the longest a
// child may go without a sign of progress: the time limit of one
// candidate, of compiling one kernel ahead and of a child's start. The
// largest candidate (21x21 on the huge class) plans, verifies and times
// in a few seconds; 2 minutes leaves room for a slow cold compile.
const DefaultCaseTimeout = 2 * time.Minute

// fault is a candidate, or a job with no candidate under way, that
// ended its child process.
type fault struct {
	Kind    string // tuning.Crash or tuning.Hang
	Job     string // the variant and class: "gpu-regtile f32 k=21 large"
	Setting string // the candidate's setting; "" for the job itself
	Err     string // what happened
	Repro   string // the command that reproduces it alone
}

// String is how the command reports f.
func (f fault) String() string {
	where := f.Job
	if f.Setting != "" {
		where += ", setting " + f.Setting
	}
	return fmt.Sprintf("%s of %s: %s; reproduce alone: %s", f.Kind, where, f.Err, f.Repro)
}

// childRunner runs the command's jobs in child processes, each watched.
type childRunner struct {
	bin    string        // the executable run as a child: the command's own
	name   string        // how reproduce commands name the command
	common []string      // the flags every child gets (commonArgs)
	limit  time.Duration // -case-timeout
	stderr io.Writer     // takes the children's stderr and the notes on restarts
}

// commonArgs are the flags of o that every child and every reproduce
// command gets.
func commonArgs(o options) []string {
	args := []string{"-budget", strconv.Itoa(o.budget), "-verify", strconv.Itoa(o.verify),
		"-samples", strconv.Itoa(o.samples), "-seed", strconv.FormatUint(o.seed, 10)}
	if o.verbose {
		args = append(args, "-v")
	}
	return args
}

// jobArgs are the flags that select job j alone.
func jobArgs(j job) []string {
	return []string{"-variants", j.v.Describe().Name, "-types", j.class.Type.String(),
		"-k", strconv.Itoa(j.class.K), "-sizes", string(j.class.Size)}
}

// jobName names j in lines and faults: "gpu-regtile f32 k=21 large".
func jobName(j job) string { return j.v.Describe().Name + " " + j.class.String() }

// repro is the command that runs job j alone, or its candidate of
// setting st alone when st is not "" (-setting, without -budget): the
// flag pairs of r.common, without the -v that may follow them.
func (r *childRunner) repro(j job, st string) string {
	args := jobArgs(j)
	for i := 0; i+1 < len(r.common); i += 2 {
		if r.common[i] != "-budget" || st == "" {
			args = append(args, r.common[i:i+2]...)
		}
	}
	if st != "" {
		args = append(args, "-setting", st)
	}
	return r.name + " " + childproc.Quote(args)
}

// device runs a child that reports the GPU, its stderr discarded.
func (r *childRunner) device(j job) (deviceInfo, error) {
	quiet := *r
	quiet.stderr = io.Discard
	a := quiet.runChild(childDevice, j, nil)
	if a.device == nil {
		return deviceInfo{}, fmt.Errorf("the child process that opens it reported none (%s)", a.exit)
	}
	return *a.device, nil
}

// jobResult is what became of one job.
type jobResult struct {
	entry  *tuning.Entry // set when the search ended, even on its error
	err    error         // the search's error, or why no child finished it
	faults []fault       // the candidates (or the job) that ended a child
}

// tune tunes job j in children, within budget (0: none) over all of
// them, seeded with seeds. A candidate that ends a child is recorded as
// a fault and the job goes on in a new child without it.
func (r *childRunner) tune(j job, budget time.Duration, seeds []convolve.Setting) jobResult {
	var res jobResult
	in := childInput{Seeds: seeds}
	start := time.Now()
	for {
		if budget > 0 {
			in.Time = max(budget-time.Since(start), time.Millisecond)
		}
		input, err := json.Marshal(in)
		if err != nil {
			res.err = err
			return res
		}
		a := r.runChild(childJob, j, input)
		in.Resume = append(in.Resume, a.tried...)
		if a.end != nil {
			res.entry = a.end.Entry
			if a.end.Error != "" {
				res.err = errors.New(a.end.Error)
			}
			return res
		}
		f := a.fault
		f.Job = jobName(j)
		if a.trying != nil {
			c := *a.trying
			c.Status, c.Error = f.Kind, f.Err
			in.Resume = append(in.Resume, c)
			st, _ := c.Setting()
			f.Setting = st.String()
			f.Repro = r.repro(j, f.Setting)
			res.faults = append(res.faults, f)
			fmt.Fprintf(r.stderr, "tune: %s\ntune: %s: going on in a new process without it\n", f, f.Job)
			continue
		}
		f.Repro = r.repro(j, "")
		if len(a.tried) == 0 { // a new child would do the same
			res.faults = append(res.faults, f)
			res.err = fmt.Errorf("%s: %s", f.Kind, f.Err)
			return res
		}
		fmt.Fprintf(r.stderr, "tune: %s: %s, no candidate under way, after %d tried; going on in a new process\n", f.Job, f.Err, len(a.tried))
	}
}

// runChild runs a child in mode for job j with input on its stdin, and
// watches it: its stderr, and the lines of its stdout that are no event,
// go to r.stderr.
func (r *childRunner) runChild(mode string, j job, input []byte) *childWatch {
	cmd := exec.Command(r.bin, append(jobArgs(j), r.common...)...)
	cmd.Env = append(os.Environ(), childEnvVar+"="+mode)
	cmd.Stdin = bytes.NewReader(input)
	w := &childWatch{stderr: r.stderr, phase: "starting"}
	c := &childproc.Child{Limit: r.limit, Group: true, Stdout: w.line, Stderr: func(l []byte) { r.stderr.Write(l) }}
	w.progress = func() { c.Arm(r.limit) }
	w.stop = c.Stop
	w.exit = "exit status 0"
	if err := c.Run(cmd); err != nil {
		w.exit = err.Error()
	}
	if why := c.Why(); why != "" {
		w.exit += ": " + why
	}
	switch {
	case w.end != nil:
		w.fault = fault{}
	case w.fault.Kind != "": // a sticky error
	case c.TimedOut() && w.trying != nil:
		w.fault = fault{Kind: tuning.Hang, Err: fmt.Sprintf("still running after %v (-case-timeout): killed its process", r.limit)}
	case c.TimedOut():
		w.fault = fault{Kind: tuning.Hang, Err: fmt.Sprintf("the child process went %v (-case-timeout) without a sign of progress, no candidate under way (%s): killed it", r.limit, w.phase)}
	case w.trying != nil:
		w.fault = fault{Kind: tuning.Crash, Err: "its process died (" + w.exit + ")"}
	default:
		w.fault = fault{Kind: tuning.Crash, Err: "the child process ended before its search did (" + w.exit + ")"}
	}
	return w
}

// childWatch takes a child's stdout: it reads the events, each a sign of
// progress, forwards any other line to stderr, and stops the child at a
// candidate's sticky CUDA error. Once the child has ended it is what
// became of that run.
type childWatch struct {
	stderr   io.Writer
	progress func() // restarts the child's time limit
	stop     func() // ends the child

	phase  string // what the child was doing at its last event
	device *deviceInfo
	trying *tuning.Candidate  // the candidate under way
	tried  []tuning.Candidate // in order, but one that crashed the child
	end    *childEnd          // the search's end, when it came
	fault  fault              // what ended the child when end did not come
	exit   string             // how the child exited
}

// line takes one line of the child's stdout.
func (w *childWatch) line(line []byte) {
	line = bytes.TrimSuffix(line, []byte("\n"))
	var ev childEvent
	if len(line) == 0 || line[0] != '{' || json.Unmarshal(line, &ev) != nil {
		fmt.Fprintf(w.stderr, "%s\n", line)
		return
	}
	switch {
	case ev.Device != nil:
		w.device, w.phase = ev.Device, "after opening the GPU"
	case ev.Compiling > 0:
		w.phase = fmt.Sprintf("compiling the kernels of the next candidates, %d plans", ev.Compiling)
	case ev.Compiled > 0:
		w.phase = fmt.Sprintf("compiling the kernels of the next candidates, %d plans done", ev.Compiled)
	case ev.Trying != nil:
		w.trying = ev.Trying
	case ev.Tried != nil:
		w.trying, w.phase = nil, "after a candidate"
		if cudabind.MentionsSticky(ev.Tried.Error) {
			c := *ev.Tried
			w.trying = &c
			w.fault = fault{Kind: tuning.Crash, Err: "sticky CUDA error, the device cannot be used again in the process: " + ev.Tried.Error}
			w.stop()
			return
		}
		w.tried = append(w.tried, *ev.Tried)
	case ev.End != nil:
		w.end, w.phase = ev.End, "after its search ended"
	}
	w.progress()
}

// commandName is how reproduce commands name this command: "go run
// ./tune/cmd/tune" under go run, else os.Args[0].
func commandName() string {
	exe := os.Args[0]
	if strings.Contains(exe, string(os.PathSeparator)+"go-build") {
		return "go run ./tune/cmd/tune"
	}
	return exe
}
