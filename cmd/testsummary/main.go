// Command testsummary runs go test and summarises what ran and what was skipped.
//
//	go run ./cmd/testsummary [go test flags] ./...
//
// After go test's package lines it prints the tests passed, failed and
// skipped (and whether for want of a GPU or NVRTC), the slowest packages
// and tests, and the kernels NVRTC compiled, counted from
// $CONVBENCH_COMPILE_LOG: a file of the caller's, kept, or else a
// temporary one, removed afterwards. Its exit status is go test's.
package main

import (
	"crypto/sha256"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"

	"github.com/convbench/convbench/internal/testsum"
)

// envCompileLog is cudabind/nvrtc's EnvCompileLog.
const envCompileLog = "CONVBENCH_COMPILE_LOG"

func main() {
	log, err := openCompileLog(os.Getenv(envCompileLog))
	if err != nil {
		fmt.Fprintln(os.Stderr, "testsummary: compile log:", err)
		os.Exit(2)
	}
	code := run(os.Args[1:], log, os.Stdout)
	log.close()
	os.Exit(code)
}

// run runs go test -json with args, the test binaries logging their
// compiles to log, prints go test's package lines and the summary to
// stdout, and returns the exit status.
func run(args []string, log compileLog, stdout io.Writer) int {
	cmd := exec.Command("go", append([]string{"test", "-json"}, args...)...)
	cmd.Env = append(os.Environ(), envCompileLog+"="+log.path)
	cmd.Stderr = os.Stderr
	events, err := cmd.StdoutPipe()
	if err == nil {
		err = cmd.Start()
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "testsummary:", err)
		return 2
	}
	s := testsum.New(stdout)
	if err := s.ReadJSON(events); err != nil {
		fmt.Fprintln(os.Stderr, "testsummary: reading go test -json:", err)
	}
	io.Copy(io.Discard, events)
	werr := cmd.Wait()
	if err := log.readInto(s); err != nil {
		fmt.Fprintln(os.Stderr, "testsummary: reading the compile log:", err)
	}
	s.Print(stdout)
	if werr != nil {
		if ee, ok := werr.(*exec.ExitError); ok {
			return ee.ExitCode()
		}
		fmt.Fprintln(os.Stderr, "testsummary:", werr)
		return 2
	}
	return 0
}

// compileLog is the file the test binaries append their NVRTC compiles to,
// and the offset at which this run's lines start.
type compileLog struct {
	path      string // absolute: the test binaries run in their packages' directories
	start     int64
	temporary bool // testsummary's own, removed by close
}

// openCompileLog returns the compile log named by path, from its current
// end, or when path is empty testsummary's own, which close removes. Its
// own is named after the working directory, so that go test, which keys
// its cache on the environment the tests read, keeps caching.
func openCompileLog(path string) (compileLog, error) {
	own := path == ""
	if own {
		wd, err := os.Getwd()
		if err != nil {
			return compileLog{}, err
		}
		sum := sha256.Sum256([]byte(wd))
		path = filepath.Join(os.TempDir(), fmt.Sprintf("convbench-compiles-%x.log", sum[:8]))
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return compileLog{}, err
	}
	var start int64
	if fi, err := os.Stat(abs); err == nil {
		start = fi.Size()
	}
	if own {
		f, err := os.OpenFile(abs, os.O_WRONLY|os.O_CREATE, 0o644)
		if err != nil {
			return compileLog{}, err
		}
		f.Close()
	}
	return compileLog{path: abs, start: start, temporary: own}, nil
}

// readInto adds the compiles logged since the log was opened to s.
func (l compileLog) readInto(s *testsum.Summary) error {
	f, err := os.Open(l.path)
	if os.IsNotExist(err) {
		return nil
	}
	if err != nil {
		return err
	}
	defer f.Close()
	if _, err := f.Seek(l.start, io.SeekStart); err != nil {
		return err
	}
	return s.ReadCompiles(f)
}

// close removes the log when testsummary made it.
func (l compileLog) close() {
	if l.temporary {
		os.Remove(l.path)
	}
}
