package childproc

import (
	"os/exec"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
)

func TestQuote(t *testing.T) {
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"sweep", "-k", "3,5"}, "sweep -k 3,5"},
		{[]string{"tune", "-setting", "block=32x8 rx=2"}, "tune -setting 'block=32x8 rx=2'"},
		{[]string{"a'b", ""}, `'a'\''b' ''`},
		{[]string{"-run", "^TestX$/^y$"}, `-run '^TestX$/^y$'`},
	} {
		if got := Quote(tt.args); got != tt.want {
			t.Errorf("Quote(%q) = %s, want %s", tt.args, got, tt.want)
		}
	}
	// What the shell reads back is the arguments.
	if _, err := exec.LookPath("sh"); err != nil {
		t.Skip("no sh")
	}
	args := []string{"printf", "%s|", "a b", "c'd", "$HOME", ""}
	out, err := exec.Command("sh", "-c", Quote(args)).Output()
	if err != nil || string(out) != "a b|c'd|$HOME||" {
		t.Errorf("sh -c %s printed %q, %v", Quote(args), out, err)
	}
}

// needSh skips where the tests' children, sh scripts, cannot run.
func needSh(t *testing.T) {
	t.Helper()
	if runtime.GOOS == "windows" {
		t.Skip("no sh scripts")
	}
	if _, err := exec.LookPath("sh"); err != nil {
		t.Skip("no sh")
	}
}

// record is a line handler that keeps the lines it takes.
type record struct {
	mu    sync.Mutex
	lines []string
}

func (r *record) take(line []byte) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.lines = append(r.lines, string(line))
}

func (r *record) got() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.lines)
}

// TestChild runs sh scripts under a Child: the lines each stream takes,
// whether the child was ended at its limit, and what Why says.
func TestChild(t *testing.T) {
	needSh(t)
	for _, tt := range []struct {
		name   string
		script string
		limit  time.Duration
		quit   bool
		group  bool
		split  bool // a Stderr handler of its own
		stop   string
		arm    time.Duration // each line restarts the limit so
		out    []string
		errs   []string
		hung   bool
		why    string
	}{
		{name: "lines", script: "echo a; printf 'b\\nc'", out: []string{"a\n", "b\n", "c"}, why: "c"},
		{name: "joined", script: "echo a; echo b >&2; sleep 0.1; echo c", out: []string{"a\n", "b\n", "c\n"}, why: "c"},
		{name: "split", script: "echo a; echo 'panic: x' >&2; echo later >&2; exit 2", split: true,
			out: []string{"a\n"}, errs: []string{"panic: x\n", "later\n"}, why: "panic: x"},
		{name: "limit", script: "echo a; sleep 30; echo b", limit: 300 * time.Millisecond, group: true,
			out: []string{"a\n"}, hung: true, why: "a"},
		{name: "armed by progress", script: "for i in 1 2 3 4 5; do echo $i; sleep 0.2; done", limit: 600 * time.Millisecond,
			arm: 600 * time.Millisecond, out: []string{"1\n", "2\n", "3\n", "4\n", "5\n"}, why: "5"},
		{name: "disarmed", script: "echo go; sleep 0.8; echo done", limit: 300 * time.Millisecond,
			arm: -1, out: []string{"go\n", "done\n"}, why: "done"},
		{name: "stop", script: "echo a; echo err >&2; echo sticky; sleep 30; echo b", group: true, split: true, stop: "sticky\n",
			out: []string{"a\n", "sticky\n"}, errs: []string{"err\n"}, why: "err"},
		{name: "quit", script: "trap 'echo report; kill $!; exit 3' QUIT; echo a; sleep 30 & wait", limit: 300 * time.Millisecond, quit: true,
			out: []string{"a\n", "report\n"}, hung: true, why: "report"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var out, errs record
			c := &Child{Limit: tt.limit, Quit: tt.quit, Group: tt.group}
			c.Stdout = func(line []byte) {
				out.take(line)
				switch {
				case tt.stop != "" && string(line) == tt.stop:
					c.Stop()
				case tt.arm > 0:
					c.Arm(tt.arm)
				case tt.arm < 0:
					c.Arm(0)
				}
			}
			if tt.split {
				c.Stderr = errs.take
			}
			start := time.Now()
			err := c.Run(exec.Command("sh", "-c", tt.script))
			if d := time.Since(start); d > 10*time.Second {
				t.Errorf("took %v", d)
			}
			if !slices.Equal(out.got(), tt.out) || !slices.Equal(errs.got(), tt.errs) {
				t.Errorf("output %q, errors %q; want %q, %q", out.got(), errs.got(), tt.out, tt.errs)
			}
			if c.TimedOut() != tt.hung || c.Why() != tt.why {
				t.Errorf("TimedOut %v, Why %q (exit %v); want %v, %q", c.TimedOut(), c.Why(), err, tt.hung, tt.why)
			}
			if (err != nil) != (tt.hung || tt.stop != "" || tt.name == "split") {
				t.Errorf("exit %v", err)
			}
		})
	}
}

// TestChildGroup: ending a child with Group ends what it started too, so
// that a hung kernel's process cannot outlive the run.
func TestChildGroup(t *testing.T) {
	needSh(t)
	var grandchild string
	c := &Child{Limit: 300 * time.Millisecond, Group: true, Stdout: func(line []byte) { grandchild = strings.TrimSpace(string(line)) }}
	c.Run(exec.Command("sh", "-c", "sleep 60 & echo $!; wait"))
	if !c.TimedOut() || grandchild == "" {
		t.Fatalf("TimedOut %v, grandchild %q", c.TimedOut(), grandchild)
	}
	deadline := time.Now().Add(5 * time.Second)
	for time.Now().Before(deadline) {
		if exec.Command("kill", "-0", grandchild).Run() != nil {
			return // gone
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Errorf("grandchild %s outlived its group", grandchild)
}

// Stop and Arm after Run do nothing.
func TestChildAfterRun(t *testing.T) {
	needSh(t)
	c := &Child{}
	if err := c.Run(exec.Command("sh", "-c", "exit 0")); err != nil {
		t.Fatal(err)
	}
	c.Stop()
	if c.Arm(time.Millisecond) || c.TimedOut() {
		t.Errorf("Arm after Run = true or TimedOut")
	}
}
