// Command testsummary runs go test over packages and prints, besides the
// usual per-package lines, how many tests passed, failed and skipped, how
// many of the skips were for want of a GPU or of NVRTC, and whether the
// NVRTC kernel compile checks ran. It is what `make test` runs, so that a
// machine without a GPU says plainly which checks it could not make.
//
//	go run ./cmd/testsummary [go test flags] ./...
//
// Its exit status is go test's.
package main

import (
	"fmt"
	"io"
	"os"
	"os/exec"
)

func main() {
	args := append([]string{"test", "-json"}, os.Args[1:]...)
	cmd := exec.Command("go", args...)
	cmd.Stderr = os.Stderr
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		fmt.Fprintln(os.Stderr, "testsummary:", err)
		os.Exit(2)
	}
	if err := cmd.Start(); err != nil {
		fmt.Fprintln(os.Stderr, "testsummary:", err)
		os.Exit(2)
	}
	s := newSummary(os.Stdout)
	if err := s.read(stdout); err != nil {
		fmt.Fprintln(os.Stderr, "testsummary: reading go test -json:", err)
	}
	io.Copy(io.Discard, stdout)
	werr := cmd.Wait()
	s.print(os.Stdout)
	if werr != nil {
		if ee, ok := werr.(*exec.ExitError); ok {
			os.Exit(ee.ExitCode())
		}
		fmt.Fprintln(os.Stderr, "testsummary:", werr)
		os.Exit(2)
	}
}
