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

// Isolation by process. A candidate that faults with a sticky CUDA error
// (an illegal address, a trap) leaves the device unusable in its
// process: every later candidate and class would fail with the same
// error. One that never ends hangs its process for good (a data-centre
// GPU has no display watchdog). So the command never opens the GPU
// itself: it runs each job (variant and class) in a child process of its
// own executable (child.go) and watches it. A child whose candidate
// reports a sticky CUDA error, that dies while trying a candidate, or
// that goes -case-timeout without a sign of progress is killed (its
// whole process group); the candidate under way is recorded as crashed
// or hung, with what happened and the command that tries it alone, and
// the job starts again in a new child that takes the candidates already
// tried as they were (tune.Options.Resume), so that no candidate runs
// twice and the search goes on without the faulting one. A child that
// ends without finishing its search with no candidate under way fails
// its job alone, unless it had tried a candidate since it started, when
// the job gets one more child. The other jobs run in children of their
// own whatever became of one.

// DefaultCaseTimeout is the default of -case-timeout, the longest a
// child may go without a sign of progress: the time limit of one
// candidate (its plans, its verification on -verify problems and its
// timing: a warm-up run and -samples samples), of compiling one kernel
// ahead of a batch, and of a child's start. The largest candidate, a
// dense 21x21 filter on the huge class's 8192x8192 image, plans in under
// a second from the compile cache (a few seconds cold), makes and
// uploads its input in about a second, and runs its 1+7 timed batches
// of at least 1 ms each in well under a second even at 100 ms a run;
// verification on three images of at most 320x220 takes a fraction of a
// second. 2 minutes leaves room for a slow cold compile and many more
// samples; a search with far more samples sets a longer -case-timeout.
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

// String is how the command reports f: what, where, why, and the
// command that reproduces it.
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

// commonArgs are the flags of o that every child, and every reproduce
// command, gets: those that set how a candidate is verified and timed
// and how many are tried.
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
// setting st alone when st is not "" (-setting): without -budget, which
// one candidate does not need, and -v.
func (r *childRunner) repro(j job, st string) string {
	args := jobArgs(j)
	for i := 0; i < len(r.common); i++ {
		switch r.common[i] {
		case "-v":
		case "-budget":
			if st == "" {
				args = append(args, r.common[i:i+2]...)
			}
			i++
		default:
			args = append(args, r.common[i])
		}
	}
	if st != "" {
		args = append(args, "-setting", st)
	}
	return r.name + " " + childproc.Quote(args)
}

// device runs a child that reports the GPU, its stderr kept for the
// error.
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
	// entry is the search's entry: set when the search ended, even on
	// its error (with the candidates tried).
	entry *tuning.Entry
	// err is the search's error, or why no child finished it.
	err error
	// faults are the candidates (or the job) that ended a child.
	faults []fault
}

// tune tunes job j in children: the search's time budget is budget (0:
// none) over all its children, its seeds seeds. A candidate that ends a
// child is recorded as faulted and the job goes on in a new child
// without it.
func (r *childRunner) tune(j job, budget time.Duration, seeds []convolve.Setting) jobResult {
	var res jobResult
	in := childInput{}
	for _, st := range seeds {
		in.Seeds = append(in.Seeds, tuning.CandidateOf(st))
	}
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
		if len(a.tried) == 0 {
			// No candidate under way, none tried: a new child would do
			// the same.
			res.faults = append(res.faults, f)
			res.err = fmt.Errorf("%s: %s", f.Kind, f.Err)
			return res
		}
		fmt.Fprintf(r.stderr, "tune: %s: %s, no candidate under way, after %d tried; going on in a new process\n", f.Job, f.Err, len(a.tried))
	}
}

// attempt is one run of a child.
type attempt struct {
	device *deviceInfo
	tried  []tuning.Candidate // the candidates it tried, in order, but one that crashed it
	trying *tuning.Candidate  // the candidate under way when it ended
	end    *childEnd          // the search's end, when it came
	fault  fault              // what ended it, when end did not come: Kind, Err
	exit   string             // how it exited
}

// runChild runs a child in mode for job j with input on its stdin, and
// watches it: its stderr, and the lines of its stdout that are no event,
// go to r.stderr.
func (r *childRunner) runChild(mode string, j job, input []byte) attempt {
	cmd := exec.Command(r.bin, append(jobArgs(j), r.common...)...)
	cmd.Env = append(os.Environ(), childEnvVar+"="+mode)
	cmd.Stdin = bytes.NewReader(input)
	w := &childWatch{stderr: r.stderr, phase: "starting"}
	c := &childproc.Child{Limit: r.limit, Group: true, Stdout: w.line, Stderr: func(l []byte) { r.stderr.Write(l) }}
	w.progress = func() { c.Arm(r.limit) }
	w.stop = c.Stop
	err := c.Run(cmd)
	a := attempt{device: w.device, tried: w.tried, trying: w.trying, end: w.end, fault: w.fault, exit: "exit status 0"}
	if err != nil {
		a.exit = err.Error()
	}
	if why := c.Why(); why != "" {
		a.exit += ": " + why
	}
	switch {
	case a.end != nil:
		a.fault = fault{}
	case a.fault.Kind != "": // a sticky error
	case c.TimedOut() && a.trying != nil:
		a.fault = fault{Kind: tuning.Hang, Err: fmt.Sprintf("still running after %v (-case-timeout): killed its process", r.limit)}
	case c.TimedOut():
		a.fault = fault{Kind: tuning.Hang, Err: fmt.Sprintf("the child process went %v (-case-timeout) without a sign of progress, no candidate under way (%s): killed it", r.limit, w.phase)}
	case a.trying != nil:
		a.fault = fault{Kind: tuning.Crash, Err: "its process died (" + a.exit + ")"}
	default:
		a.fault = fault{Kind: tuning.Crash, Err: "the child process ended before its search did (" + a.exit + ")"}
	}
	return a
}

// childWatch takes a child's stdout: it reads the events, each a sign of
// progress, forwards any other line to stderr, and stops the child at a
// candidate's sticky CUDA error.
type childWatch struct {
	stderr   io.Writer
	progress func() // restarts the child's time limit
	stop     func() // ends the child

	phase  string // what the child was doing at its last event
	device *deviceInfo
	trying *tuning.Candidate
	tried  []tuning.Candidate
	end    *childEnd
	fault  fault // a sticky error's crash
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
			// The device is unusable in the child: the candidates
			// after this one would fail with the same error.
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
// ./tune/cmd/tune" for a binary go run built, else as it was started.
func commandName() string {
	exe := os.Args[0]
	if strings.Contains(exe, string(os.PathSeparator)+"go-build") {
		return "go run ./tune/cmd/tune"
	}
	return exe
}
