package main

import (
	"bytes"
	"cmp"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/convbench/convbench/internal/childproc"
	"github.com/convbench/convbench/internal/testsum"
)

// runner runs the stages' commands from the repository root and keeps
// their logs under the output folder. Its methods may run at once.
type runner struct {
	root   string // the repository root: the stages run there or below
	bin    string // the prebuilt binaries (make gpu-bins)
	out    string // OUTDIR
	commit string // the binaries' commit (BIN/COMMIT), or "unknown"
	gpu    string // the first GPU's name and driver, "" without nvidia-smi
	stdout io.Writer
	getenv func(string) string
	env    []string // KEY=VALUE set for every command (CONVBENCH_CACHE_DIR)

	mu      sync.Mutex   // held while noting
	summary *os.File     // OUTDIR/summary.txt
	failed  atomic.Int64 // commands and checks that failed, over all stages
}

// setting returns the environment variable name, or def when it is
// unset or empty.
func (r *runner) setting(name, def string) string {
	if v := r.getenv(name); v != "" {
		return v
	}
	return def
}

// fields returns setting(name, def) split at spaces.
func (r *runner) fields(name, def string) []string {
	return strings.Fields(r.setting(name, def))
}

// optional returns FLAG+VALUE for each pair NAME, FLAG of pairs whose
// environment variable NAME is set.
func (r *runner) optional(pairs ...string) []string {
	var args []string
	for i := 0; i+1 < len(pairs); i += 2 {
		if v := r.getenv(pairs[i]); v != "" {
			args = append(args, pairs[i+1]+v)
		}
	}
	return args
}

// sweep returns the sweep command over the prebuilt benchmark binary,
// followed by args.
func (r *runner) sweep(args ...string) []string {
	return append([]string{r.binary("sweep"), "-bin", r.binary("benchmarks.test")}, args...)
}

// binary returns the path of a prebuilt binary.
func (r *runner) binary(name string) string { return filepath.Join(r.bin, name) }

// outPath returns the path of a file or folder under OUTDIR.
func (r *runner) outPath(name string) string { return filepath.Join(r.out, name) }

// header is the first line of every log and summary file the runner
// writes: the binaries' commit and the GPU.
func (r *runner) header() string { return fmt.Sprintf("# commit %s, gpu: %s", r.commit, r.gpu) }

// fail counts one failed command or check.
func (r *runner) fail() { r.failed.Add(1) }

// failures is how many commands and checks failed so far.
func (r *runner) failures() int { return int(r.failed.Load()) }

// note appends lines to OUTDIR/summary.txt and prints them.
func (r *runner) note(lines ...string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, l := range lines {
		fmt.Fprintln(r.stdout, l)
		fmt.Fprintln(r.summary, l)
	}
}

// refuse notes "NAME NOT OK: why", counts a failure and returns why.
func (r *runner) refuse(name, why string) string {
	r.note(name + " NOT OK: " + why)
	r.fail()
	return why
}

// writeFile writes lines to OUTDIR/name.
func (r *runner) writeFile(name string, lines []string) {
	text := strings.Join(lines, "\n") + "\n"
	if err := os.WriteFile(r.outPath(name), []byte(text), 0o644); err != nil {
		r.refuse(name, err.Error())
	}
}

// summarize writes OUTDIR/name, notes noted and counts a failure when
// failed.
func (r *runner) summarize(name string, written, noted []string, failed bool) {
	r.writeFile(name, written)
	r.note(noted...)
	if failed {
		r.fail()
	}
}

// A step is one command of a stage.
type step struct {
	name string   // the summary line's name, and the log's: OUTDIR/NAME.log
	dir  string   // where it runs, relative to the root ("" the root)
	args []string // the command; a name without a slash is looked up on PATH
	env  []string // KEY=VALUE set for it, in front of the environment
	log  string   // its log instead of OUTDIR/NAME.log
	// quiet leaves out the summary line and the failure count: the
	// stage reads the outcome and says what it means.
	quiet bool
	// mayFail keeps the command's exit status from failing the stage
	// (the faults sweep fails the broken kernels' cases by design).
	mayFail bool
}

// An outcome is what one step did.
type outcome struct {
	log              string
	rc               int // exit status; 127 when it could not start
	secs             int
	cpuSecs          int      // user and system CPU seconds of the command and the children it waited for
	pass, fail, skip int      // "--- PASS", "--- FAIL", "--- SKIP" lines, subtests included
	sanitizer        []string // compute-sanitizer's ERROR, LEAK and RACECHECK SUMMARY lines
}

// commandLine is the command a log's second line names, as a shell
// reads it back.
func commandLine(dir string, env, args []string) string {
	if dir == "" {
		dir = "."
	}
	return "(cd " + dir + " && " + childproc.Quote(append(slices.Clone(env), args...)) + ")"
}

// run runs a step with its output in its log, after two lines: the
// header and the command. Unless quiet, it notes its summary line (exit
// status, tests passed, failed and skipped, seconds, sanitizer
// summaries) and counts a failure when it did not exit 0.
func (r *runner) run(st step) outcome {
	o := outcome{log: cmp.Or(st.log, r.outPath(st.name+".log"))}
	f, err := os.Create(o.log)
	if err != nil {
		r.refuse(st.name, err.Error())
		return outcome{log: o.log, rc: 127}
	}
	fmt.Fprintf(f, "%s\n# command: %s\n", r.header(), commandLine(st.dir, st.env, st.args))
	t0 := time.Now()
	cmd := exec.Command(st.args[0], st.args[1:]...)
	cmd.Dir = filepath.Join(r.root, st.dir)
	cmd.Env = slices.Concat(os.Environ(), r.env, st.env)
	cmd.Stdout, cmd.Stderr = f, f
	err = cmd.Run()
	o.secs = int(time.Since(t0).Seconds())
	if ps := cmd.ProcessState; ps != nil {
		o.cpuSecs = int((ps.UserTime() + ps.SystemTime()).Seconds())
	}
	var ee *exec.ExitError
	switch {
	case errors.As(err, &ee):
		o.rc = ee.ExitCode()
		if ws, ok := ee.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			o.rc = 128 + int(ws.Signal()) // as a shell reports it
			fmt.Fprintln(f, "gpurun:", ee)
		}
	case err != nil:
		o.rc = 127
		fmt.Fprintln(f, "gpurun:", err)
	}
	f.Close()
	o.count()
	if !st.quiet {
		san := strings.Join(append(o.sanitizer, ""), " ") // each sanitizer summary followed by a space
		r.note(fmt.Sprintf("%-28s rc=%d passed=%d failed=%d skipped=%d %ds cpu=%ds %s", st.name, o.rc, o.pass, o.fail, o.skip, o.secs, o.cpuSecs, san))
		if o.rc != 0 && !st.mayFail {
			r.fail()
		}
	}
	return o
}

// sanitizerSummary matches compute-sanitizer's summaries: errors, bytes
// leaked, or racecheck's hazards.
var sanitizerSummary = regexp.MustCompile(`^========= (ERROR|LEAK|RACECHECK) SUMMARY`)

// count reads the log back: the test results (testsum) and the sanitizer
// summaries.
func (o *outcome) count() {
	b, err := os.ReadFile(o.log)
	if err != nil {
		return
	}
	s := testsum.New(io.Discard)
	s.ReadVerbose("", bytes.NewReader(b), 0, false)
	o.pass, o.fail, o.skip = s.Counts()
	for _, line := range strings.Split(string(b), "\n") {
		if sanitizerSummary.MatchString(line) {
			o.sanitizer = append(o.sanitizer, line)
		}
	}
}

// fails is the tests failed, or 1 where none did but the command did not
// exit 0 (as testsum counts a binary that failed outside any test).
func (o outcome) fails() int {
	if o.rc != 0 && o.fail == 0 {
		return 1
	}
	return o.fail
}

// output runs a command from dir and returns its standard output and
// standard error.
func output(dir string, args ...string) (stdout, stderr string, err error) {
	var o, e bytes.Buffer
	cmd := exec.Command(args[0], args[1:]...)
	cmd.Dir, cmd.Stdout, cmd.Stderr = dir, &o, &e
	err = cmd.Run()
	return o.String(), e.String(), err
}
