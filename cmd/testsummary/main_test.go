package main

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/convbench/convbench/cudabind/nvrtc"
	"github.com/convbench/convbench/internal/testsum"
)

// TestRunCountsTheChildsCompiles runs go test through run over
// testdata/compiler, whose test logs one compile to the file it finds in
// $CONVBENCH_COMPILE_LOG, and checks that the summary counts it under the
// test binary's name and that the temporary log is gone afterwards.
func TestRunCountsTheChildsCompiles(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs a test binary")
	}
	t.Setenv(envCompileLog, "")
	log, err := openCompileLog(os.Getenv(envCompileLog))
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	code := run([]string{"-count=1", "./testdata/compiler"}, log, &out)
	log.close()
	if code != 0 {
		t.Fatalf("run: exit status %d\n%s", code, out.String())
	}
	for _, want := range []string{
		"ok  \tgithub.com/convbench/convbench/cmd/testsummary/testdata/compiler\t",
		"tests: 1 passed, 0 failed, 0 skipped\n",
		"slowest packages:\n",
		"  compiler  TestCompiles\n",
		"kernels compiled: 1 in 0.50s\n  compiler  1 in 0.50s\n",
	} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("output lacks %q:\n%s", want, out.String())
		}
	}
	if _, err := os.Stat(log.path); !os.IsNotExist(err) {
		t.Errorf("temporary compile log %s left behind (stat: %v)", log.path, err)
	}
}

// TestRunKeepsGoTestsCache runs testdata/envreader, whose test reads
// $CONVBENCH_COMPILE_LOG, through run twice: testsummary's own log has the
// same name each time, so the second result comes from go test's cache.
func TestRunKeepsGoTestsCache(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs a test binary")
	}
	t.Setenv(envCompileLog, "")
	var out bytes.Buffer
	for range 2 {
		out.Reset()
		log, err := openCompileLog("")
		if err != nil {
			t.Fatal(err)
		}
		code := run([]string{"./testdata/envreader"}, log, &out)
		log.close()
		if code != 0 {
			t.Fatalf("run: exit status %d\n%s", code, out.String())
		}
	}
	if want := "envreader\t(cached)\n"; !strings.Contains(out.String(), want) {
		t.Errorf("second run's output lacks %q:\n%s", want, out.String())
	}
}

// TestGivenCompileLog: a compile log named by the caller, even relative
// to the working directory, is given to the test binaries by its absolute
// path; only the lines appended after it was opened count, and it is kept.
func TestGivenCompileLog(t *testing.T) {
	t.Chdir(t.TempDir())
	earlier := "nvrtc-compile 9.000 old.cu ok variants\n"
	if err := os.WriteFile("compiles.log", []byte(earlier), 0o644); err != nil {
		t.Fatal(err)
	}
	log, err := openCompileLog("compiles.log")
	if err != nil {
		t.Fatal(err)
	}
	if !filepath.IsAbs(log.path) {
		t.Errorf("compile log path %q is not absolute", log.path)
	}
	f, err := os.OpenFile(log.path, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		t.Fatal(err)
	}
	fmt.Fprintln(f, "nvrtc-compile 0.250 new.cu ok properties")
	f.Close()
	s := testsum.New(io.Discard)
	if err := log.readInto(s); err != nil {
		t.Fatal(err)
	}
	log.close()
	var sum strings.Builder
	s.Print(&sum)
	if want := "kernels compiled: 1 in 0.25s\n  properties  1 in 0.25s\n"; !strings.Contains(sum.String(), want) {
		t.Errorf("summary:\n%s\nwant only this run's compile, properties': %q", sum.String(), want)
	}
	if _, err := os.Stat("compiles.log"); err != nil {
		t.Errorf("the given compile log was not kept: %v", err)
	}
}

// TestMissingCompileLog: a log that no test binary created is no compiles.
func TestMissingCompileLog(t *testing.T) {
	log, err := openCompileLog(filepath.Join(t.TempDir(), "never-written.log"))
	if err != nil {
		t.Fatal(err)
	}
	s := testsum.New(io.Discard)
	err = log.readInto(s)
	var sum strings.Builder
	s.Print(&sum)
	if err != nil || !strings.Contains(sum.String(), "kernels compiled: none") {
		t.Errorf("readInto: %v, summary:\n%s\nwant no compiles and no error", err, sum.String())
	}
}

// TestCompileLogEnvIsNVRTCs pins the variable testsummary sets to the one
// cudabind/nvrtc reads.
func TestCompileLogEnvIsNVRTCs(t *testing.T) {
	if envCompileLog != nvrtc.EnvCompileLog {
		t.Errorf("envCompileLog = %q, nvrtc.EnvCompileLog = %q", envCompileLog, nvrtc.EnvCompileLog)
	}
}
