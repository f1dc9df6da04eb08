// Package childproc runs the child processes that keep a fault from ending a run.
//
// A fault is a crash, a sticky CUDA error or a hang. A [Child] starts its
// command, hands its output to the caller line by line, and ends it at
// its time limit or where the caller stops it. [Quote] writes the command
// that reproduces a fault alone.
package childproc

import (
	"cmp"
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
	// says where it was, and ends it Grace later if it still runs.
	Quit bool
	// Grace is how long, once the child has exited or been sent
	// QuitSignal, Run waits for it and its output; 0 is DefaultGrace.
	Grace time.Duration
	// Group starts the child in a process group of its own and ends the
	// whole group, so that what the child started ends with it.
	Group bool
	// Stdout, when set, takes each line of the standard output, its
	// newline included (the last may lack one), valid during the call
	// only. Once the child is stopped it takes no more lines, except, at
	// the limit with Quit, the child's own report.
	Stdout func(line []byte)
	// Stderr, when set, takes the lines of the standard error, also once
	// the child is stopped. When it is nil and the command has no Stderr
	// of its own, the standard error joins the output. Stdout and Stderr
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

// Run starts cmd and waits for it and its output. The error is
// cmd.Wait's.
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
	c.arm(0)
	c.mu.Unlock()
	for _, w := range []*lineWriter{out, errs} {
		if w != nil {
			w.flush()
		}
	}
	return err
}

// Arm replaces the child's time limit with d from now (none when d is
// not positive). It reports false, and does nothing, once the child is
// stopped or done.
func (c *Child) Arm(d time.Duration) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.stopped || c.done {
		return false
	}
	c.arm(d)
	return true
}

// Stop ends the child at once; what it writes on its output after that
// is dropped. It does nothing once Run has returned.
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

// Why says why the child died, from the lines of its standard error: the
// first line of the Go runtime's report of an abnormal end (IsDeath),
// else the last line that is not empty, cut to 300 bytes.
func (c *Child) Why() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	s := cmp.Or(c.death, c.last)
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

// dropping reports whether the child's output is no longer read.
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
// arguments that need it.
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
