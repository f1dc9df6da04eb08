// Package childproc runs the child processes that keep a fault from ending a run.
//
// A fault is a crash, a sticky CUDA error or a hang; the children are the
// sweep's test binary, the proofs of user kernels, the tuner's jobs and
// the conformance suite's reruns of one case. A [Child] starts its
// command, hands what the command writes to the caller line by line, and
// ends it at its time limit, or where the caller stops it: at a line that
// names a sticky error, after which the child's device is of no more use.
// [Quote] writes the command that reproduces a fault alone.
package childproc

import (
	"os/exec"
	"strings"
	"sync"
	"time"
)

// DefaultGrace is the Grace of a Child that sets none.
const DefaultGrace = 5 * time.Second

// A Child runs one command under watch. Set its fields, then call Run
// once; Arm and Stop may be called from its line handlers and from other
// goroutines while it runs.
type Child struct {
	// Limit, when positive, is how long the child may run from its start
	// before it is ended as hung (TimedOut); Arm sets another limit.
	Limit time.Duration
	// Quit, at the limit, sends the child QuitSignal first, so that it
	// says where it was (a Go program prints its goroutines' stacks), and
	// ends it Grace later if it still runs; without it the child is ended
	// at once.
	Quit bool
	// Grace is how long, once the child has exited or been sent
	// QuitSignal, Run waits for it and its output before it ends them;
	// 0 is DefaultGrace.
	Grace time.Duration
	// Group starts the child in a process group of its own and ends the
	// whole group, so that what the child started ends with it. A child
	// that is itself run under a group (the proofs in the sweep's
	// binary) leaves it unset, so that ending its parent's group ends it.
	Group bool
	// Stdout, when set, takes each line the child writes on its
	// standard output, its newline included (the last may lack one); the
	// slice is valid during the call only. Once the child is stopped, by
	// Stop or at its limit, it takes no more lines, except, at the limit
	// with Quit, the child's own report.
	Stdout func(line []byte)
	// Stderr, when set, takes the lines of the standard error as Stdout
	// does those of the output, also once the child is stopped. When it
	// is nil and the command has no Stderr of its own, the standard error
	// joins the output, in order, and Stdout takes both. Stdout and Stderr
	// are called one at a time.
	Stderr func(line []byte)

	mu       sync.Mutex
	cmd      *exec.Cmd
	gen      int // counts Arms, so that a replaced limit does not fire
	timer    *time.Timer
	stopped  bool // by Stop or at the limit
	timedOut bool
	done     bool // Run returned from Wait
	death    string
	last     string

	lineMu sync.Mutex // one handler call at a time
}

// Run starts cmd, a command not yet started, and waits for it and its
// output. The error is cmd.Wait's: that of a killed child when it was
// stopped.
func (c *Child) Run(cmd *exec.Cmd) error {
	var out, errs *lineWriter
	if c.Stdout != nil {
		out = &lineWriter{c: c, each: c.Stdout, drops: true}
		cmd.Stdout = out
	}
	switch {
	case c.Stderr != nil:
		errs = &lineWriter{c: c, each: c.Stderr, tells: true}
		cmd.Stderr = errs
	case cmd.Stderr == nil && out != nil:
		out.tells = true
		cmd.Stderr = out
	}
	if c.Group {
		setGroup(cmd)
	}
	if cmd.WaitDelay == 0 {
		cmd.WaitDelay = c.grace()
	}
	c.mu.Lock()
	c.cmd = cmd
	err := cmd.Start()
	if err == nil {
		c.arm(c.Limit)
	}
	c.mu.Unlock()
	if err == nil {
		err = cmd.Wait()
	}
	c.mu.Lock()
	c.done = true
	c.gen++
	if c.timer != nil {
		c.timer.Stop()
	}
	c.mu.Unlock()
	for _, w := range []*lineWriter{out, errs} {
		if w != nil {
			w.flush()
		}
	}
	return err
}

// Arm replaces the child's time limit with d from now (none when d is
// not positive): a child that shows progress has its limit restarted. It
// reports false, and does nothing, once the child is stopped or done.
func (c *Child) Arm(d time.Duration) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.stopped || c.done {
		return false
	}
	c.arm(d)
	return true
}

// Stop ends the child at once (its group, with Group): what it writes on
// its output after that is dropped. It does nothing once Run has
// returned.
func (c *Child) Stop() {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.stopped || c.done {
		return
	}
	c.stopped = true
	c.kill()
}

// TimedOut reports whether the child was ended at its time limit.
func (c *Child) TimedOut() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.timedOut
}

// Why says why the child died, from the lines of its standard error (with
// its output, where they join): the first line of the Go runtime's report
// of an abnormal end (IsDeath), else the last line that is not empty, cut
// to 300 bytes; "" when it wrote none.
func (c *Child) Why() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	s := c.death
	if s == "" {
		s = c.last
	}
	if len(s) > 300 {
		s = s[:300] + "..."
	}
	return s
}

func (c *Child) grace() time.Duration {
	if c.Grace > 0 {
		return c.Grace
	}
	return DefaultGrace
}

// arm sets the time limit; c.mu is held.
func (c *Child) arm(d time.Duration) {
	c.gen++
	if c.timer != nil {
		c.timer.Stop()
	}
	if d <= 0 {
		return
	}
	gen := c.gen
	c.timer = time.AfterFunc(d, func() {
		c.mu.Lock()
		defer c.mu.Unlock()
		if c.gen != gen || c.stopped || c.done {
			return
		}
		c.stopped, c.timedOut = true, true
		if !c.Quit {
			c.kill()
			return
		}
		c.cmd.Process.Signal(QuitSignal)
		c.timer = time.AfterFunc(c.grace(), func() {
			c.mu.Lock()
			defer c.mu.Unlock()
			if !c.done {
				c.kill()
			}
		})
	})
}

// kill kills the child, or its group; c.mu is held.
func (c *Child) kill() {
	switch {
	case c.cmd == nil || c.cmd.Process == nil:
	case c.Group:
		killGroup(c.cmd)
	default:
		c.cmd.Process.Kill()
	}
}

// dropping reports whether the child's output is no longer read: it was
// stopped, and not at its limit with Quit.
func (c *Child) dropping() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.stopped && !(c.timedOut && c.Quit)
}

// tell notes a line of the standard error for Why.
func (c *Child) tell(line []byte) {
	t := strings.TrimSpace(string(line))
	if t == "" {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.death == "" && IsDeath(t) {
		c.death = t
	}
	c.last = t
}

// Quote joins args into a command line for a POSIX shell, quoting the
// arguments that need it, so that a reproduce command can be pasted.
func Quote(args []string) string {
	q := make([]string, len(args))
	for i, a := range args {
		if a != "" && strings.Trim(a, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_=./,:+@%") == "" {
			q[i] = a
			continue
		}
		q[i] = "'" + strings.ReplaceAll(a, "'", `'\''`) + "'"
	}
	return strings.Join(q, " ")
}
