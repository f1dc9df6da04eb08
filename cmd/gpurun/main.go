// Command gpurun runs the prebuilt binaries of make gpu-bins on a GPU host without Go, stage by stage, and keeps their raw logs.
//
// From the root of a copy of the tree with its .gpu/ (see docs/gpu-hosts.md),
// run .gpu/gpurun OUTDIR STAGE... or scripts/gpu-run.sh OUTDIR STAGE....
// Every command writes a log under OUTDIR whose first line names the
// binaries' commit (.gpu/COMMIT) and the GPU, and whose second the command,
// "# command: (cd DIR && ...)"; OUTDIR/summary.txt gets a line a command
// (exit status, tests passed, failed and skipped, seconds, compute-sanitizer's
// summary) and each stage's summary lines. A failed stage does not stop the
// others; a table of the stages comes last. The exit status is 1 when a
// stage failed, 2 for a wrong command line.
//
// The stages, their outputs and the environment variables they read with
// their defaults are listed in docs/gpu-hosts.md, "Stages and their variables".
package main

import (
	"cmp"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"text/tabwriter"
	"time"
)

func main() {
	os.Exit(gpurun(os.Args[1:], os.Getenv, os.Stdout, os.Stderr))
}

const usage = `usage: gpurun OUTDIR STAGE...
stages: release tests faults props sanitizers sanitizers-slabs props-sanitizers memcheck racecheck
        tune tune-props gallery crossover sweep:NAME bench:PRESET ncu:NAME shards:PRESET kernel:FILE
(run from the repository root; docs/gpu-hosts.md, "Stages and their variables", describes each stage and its variables)`

// plainStages and argStages (whose name takes a part after a colon) run a
// stage and return its note.
var (
	plainStages = map[string]func(*runner) string{
		"release": (*runner).release, "tests": (*runner).tests, "faults": (*runner).faults, "props": (*runner).props,
		"sanitizers": (*runner).gpuSanitizers, "props-sanitizers": (*runner).gpuSanitizers, "sanitizers-slabs": (*runner).slabSanitizers,
		"memcheck": (*runner).memcheck, "racecheck": (*runner).racecheck, "tune": (*runner).tune, "tune-props": (*runner).tuneProps,
		"gallery": (*runner).gallery, "crossover": (*runner).crossover,
	}
	argStages = map[string]func(*runner, string) string{
		"sweep": (*runner).sweepStage, "bench": (*runner).bench, "ncu": (*runner).ncu, "shards": (*runner).shards, "kernel": (*runner).kernel,
	}
)

// checkStage says what is wrong with a stage's name, or nil.
func checkStage(s string) error {
	kind, arg, colon := strings.Cut(s, ":")
	_, plain := plainStages[kind]
	_, takesArg := argStages[kind]
	switch {
	case !plain && !takesArg:
		return fmt.Errorf("unknown stage %q", s)
	case takesArg && arg == "":
		return fmt.Errorf("stage %q needs its part after the colon, such as %s:default", s, kind)
	case plain && colon:
		return fmt.Errorf("stage %q takes nothing after a colon", s)
	}
	return nil
}

// gpurun runs the command with args and returns its exit status.
func gpurun(args []string, getenv func(string) string, stdout, stderr io.Writer) int {
	if len(args) > 0 && (args[0] == "-h" || args[0] == "-help" || args[0] == "--help") {
		fmt.Fprintln(stdout, usage)
		return 0
	}
	if len(args) < 2 {
		fmt.Fprintln(stderr, usage)
		return 2
	}
	for _, s := range args[1:] {
		if err := checkStage(s); err != nil {
			fmt.Fprintf(stderr, "gpurun: %v\n%s\n", err, usage)
			return 2
		}
	}
	r, err := newRunner(args[0], getenv, stdout)
	if err != nil {
		fmt.Fprintln(stderr, "gpurun:", err)
		return 2
	}
	defer r.summary.Close()
	r.note(fmt.Sprintf("# commit %s gpu: %s date: %s", r.commit, r.gpu, time.Now().UTC().Format(time.RFC3339)))
	var rows []string
	for _, s := range args[1:] {
		rows = append(rows, r.stage(s))
	}
	failed := r.failures()
	if failed > 0 {
		r.note(fmt.Sprintf("%d stage command(s) failed", failed))
	}
	tw := tabwriter.NewWriter(stdout, 0, 8, 2, ' ', 0)
	fmt.Fprintln(tw, "\nstage\tresult\tsecs\tnote")
	for _, row := range rows {
		fmt.Fprintln(tw, row)
	}
	tw.Flush()
	return min(failed, 1)
}

// newRunner returns a runner from the repository root, the working
// directory, writing under outDir.
func newRunner(outDir string, getenv func(string) string, stdout io.Writer) (*runner, error) {
	root, err := os.Getwd()
	if err != nil {
		return nil, err
	}
	if _, err := os.Stat(filepath.Join(root, "go.mod")); err != nil {
		return nil, fmt.Errorf("no go.mod in %s: run gpurun from the repository root", root)
	}
	r := &runner{root: root, stdout: stdout, getenv: getenv}
	if r.out, err = filepath.Abs(outDir); err != nil {
		return nil, err
	}
	if err := os.MkdirAll(r.out, 0o755); err != nil {
		return nil, err
	}
	if r.summary, err = os.OpenFile(r.outPath("summary.txt"), os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644); err != nil {
		return nil, err
	}
	if r.bin, err = filepath.Abs(r.setting("GPU_BIN", filepath.Join(root, ".gpu"))); err != nil {
		return nil, err
	}
	b, _ := os.ReadFile(r.binary("COMMIT"))
	r.commit = cmp.Or(firstLine(string(b)), "unknown")
	if out, _, err := output("", "nvidia-smi", "--query-gpu=name,driver_version", "--format=csv,noheader"); err == nil {
		r.gpu = firstLine(out)
	}
	if getenv("CONVBENCH_CACHE_DIR") == "" {
		r.env = append(r.env, "CONVBENCH_CACHE_DIR="+r.cacheDir())
	}
	return r, nil
}

// testPackageOf names the package a test binary tests; tests replace it.
var testPackageOf = testBinaryPackage

// firstLine is s's first line, trimmed.
func firstLine(s string) string {
	l, _, _ := strings.Cut(s, "\n")
	return strings.TrimSpace(l)
}

// gpuLine is a GPU's line of nvidia-smi -L, its index the submatch.
var gpuLine = regexp.MustCompile(`(?m)^GPU ([0-9]+):`)

// gpuIndices lists the GPUs of nvidia-smi -L by index.
func gpuIndices() []string {
	out, _, err := output("", "nvidia-smi", "-L")
	if err != nil {
		return nil
	}
	var gpus []string
	for _, m := range gpuLine.FindAllStringSubmatch(out, -1) {
		gpus = append(gpus, m[1])
	}
	return gpus
}

// stage runs one stage, by name, and returns its row of the last table:
// its name, ok or NOT OK, its seconds and its note.
func (r *runner) stage(s string) string {
	before, t0 := r.failures(), time.Now()
	kind, arg, _ := strings.Cut(s, ":")
	var note string
	if run, ok := argStages[kind]; ok {
		note = run(r, arg)
	} else {
		note = plainStages[kind](r)
	}
	result := "ok"
	if r.failures() != before {
		result = "NOT OK"
	}
	return fmt.Sprintf("%s\t%s\t%d\t%s", s, result, int(time.Since(t0).Seconds()), note)
}
