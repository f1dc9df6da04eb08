package main

import (
	"bytes"
	"fmt"
	"io"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/convbench/convbench/benchmarks"
	"github.com/convbench/convbench/convolve"
	"github.com/convbench/convbench/cudabind"
	"github.com/convbench/convbench/results"
	"github.com/convbench/convbench/runfile"
)

// hostEnv is what the sweep knows of the host before the binary runs:
// the CUDA devices the driver lists (without opening one), and the
// registered variants.
func hostEnv(cpuCap int64) benchmarks.Env {
	env := benchmarks.Env{CPUCap: cpuCap, Variants: convolve.Variants()}
	if infos, err := cudabind.Devices(); err == nil && len(infos) > 0 {
		env.GPU, env.GPUs, env.Pinned = true, len(infos), true
	}
	return env
}

// run builds the sweep (benchmarks.BuildSweep: preset, with the axes set
// by the axis flags in place of its own; with preset empty, the axes
// alone), expands it on this host and estimates it, runs it through the
// benchmark binary, which gets the axis and -kernel flags, and stores its
// output under the sweep's name, unless no case ran; then it writes the
// report of the data directory (-report) or prints the command that
// does. Before any of it, it warns of a -count too small for benchstat
// (countWarning); -dry-run stops after the estimate and the cases.
func run(o *options, stdout, stderr io.Writer) error {
	warnCount(stderr, o.count)
	if o.dryRun {
		return dryRun(o, stdout, stderr)
	}
	if len(o.devices) > 0 {
		if err := runDevices(o, stdout, stderr); err != nil {
			return err
		}
		return endReport(o, stderr)
	}
	path, err := runOne(o, stdout, stderr)
	if path == "" || !o.shard.whole() {
		return err
	}
	if rerr := endReport(o, stderr); err == nil {
		err = rerr
	}
	return err
}

// endReport ends a run that wrote a file: it writes the report of the
// data directory with -report, else says how to (finishReport).
func endReport(o *options, stderr io.Writer) error {
	root, _, err := checkout()
	if err != nil {
		return err
	}
	return finishReport(stderr, root, outputDir(root, o.dataDir, o.publish), o.baseline, o.report)
}

// runOne runs the sweep, or the shard of it that o names, and returns the
// path of the file it wrote ("" where it wrote none) with the run's error.
func runOne(o *options, stdout, stderr io.Writer) (string, error) {
	built, ex, err := expandSweep(o)
	if err != nil {
		return "", err
	}
	name := runName(built.Name, o.args) + o.shard.suffix()
	root, commit, err := checkout()
	if err != nil {
		return "", err
	}
	if st, err := os.Stat(filepath.Join(root, "benchmarks")); err != nil || !st.IsDir() {
		return "", fmt.Errorf("no benchmarks directory under %s: run the sweep inside the convbench tree (the test binary runs in its benchmarks directory)", root)
	}
	// Another shard's cases are skipped as if done.
	var mine []benchmarks.Case
	others := map[string]bool{}
	for i, c := range ex.Cases {
		if o.shard.holds(i) {
			mine = append(mine, c)
		} else {
			others[c.Name()] = true
		}
	}
	if len(mine) == 0 {
		return "", fmt.Errorf("-shard %d/%d holds no case: the sweep has %d, fewer than %d shards; nothing written", o.shard.k, o.shard.n, len(ex.Cases), o.shard.n)
	}
	tb := o.built
	if tb == nil {
		if tb, err = buildTestBinary(root, o.bin, stderr); err != nil {
			return "", err
		}
		defer tb.cleanup()
	}
	bin, steps := tb.path, slices.Clone(tb.steps)
	if c, ok := binaryCommit(bin); ok && o.bin != "" {
		commit = c
	}
	noise := benchmarks.DefaultNoise
	noise.Target, noise.MaxTime = o.noise, o.maxTime
	est := estimate(mine, noise, o.count, stderr)
	printEstimate(stderr, name, est)

	args := []string{"-test.run", "^$", "-test.bench", ".", "-test.cpu", "1",
		"-test.count", fmt.Sprint(o.count), "-test.benchtime", "1x", "-test.timeout", "0",
		fmt.Sprintf("-cpu-cap=%d", o.cpuCap), fmt.Sprintf("-noise=%g", o.noise), "-max-time=" + o.maxTime.String()}
	if o.preset != "" {
		args = append(args, "-sweep="+o.preset)
	}
	if o.kernels > 0 {
		args = append(args, "-prove-timeout="+o.proveTimeout.String())
	}
	args = append(args, absPaths(o.args)...)
	if len(others) > 0 {
		args = append(args, "-test.skip", skipPattern(caseNames(ex.Cases), others))
	}
	binName := binDisplayName(bin, o.bin != "")
	if o.device != "" {
		binName = "CUDA_VISIBLE_DEVICES=" + o.device + " " + binName
	}
	steps = append(steps, "cd benchmarks && "+binName+" "+shellJoin(args))

	progress := &progressFilter{w: stderr, eta: benchmarks.NewETA(est), now: time.Now, label: benchmarks.CaseLabels(caseNames(ex.Cases))}
	if !o.shard.whole() {
		progress.name, progress.total = name, len(mine)
	}
	out, faults, runErr, stopErr := runCases(o, bin, binName, root, args, ex.Cases, others, progress, stderr)

	gpu, cpu := configValue(out.Bytes(), runfile.KeyGPU), configValue(out.Bytes(), runfile.KeyCPU)
	if gpu == "none" {
		gpu = ""
	}
	dir := filepath.Join(outputDir(root, o.dataDir, o.publish), runfile.Slug(gpu, cpu))
	r, err := results.ReadRun(bytes.NewReader(out.Bytes()), filepath.Join(dir, name+".txt"))
	if err != nil {
		return "", fmt.Errorf("reading the benchmark output: %w", err)
	}
	if len(r.Samples) == 0 {
		if stopErr != nil {
			return "", fmt.Errorf("%w, nothing written", stopErr)
		}
		return "", noCaseRan(runErr, r, out.Bytes(), progress.Tail())
	}
	header := runfile.Header(name, commit, strings.Join(steps, " && "), 0)
	path, err := writeNew(dir, name, append([]byte(header), out.Bytes()...))
	if err != nil {
		return "", err
	}
	fmt.Fprintf(stderr, "sweep: wrote %s\n", path)
	if gpu == "" && configValue(out.Bytes(), runfile.KeyGPU) == "none" {
		fmt.Fprintln(stderr, noGPUNote(progress.sawNoGPU(), out.Bytes()))
	}
	r.Path, r.Preset = path, strings.TrimSuffix(filepath.Base(path), ".txt")
	if err := printSummary(stdout, r, o.baseline); err != nil {
		return path, err
	}
	if len(faults) > 0 {
		fmt.Fprintf(stderr, "sweep: %s ended the benchmark binary and failed; the other cases ran in a new one:\n", plural(len(faults), "case"))
		for _, f := range faults {
			fmt.Fprintf(stderr, "  %s\n", f)
		}
	}
	switch {
	case stopErr != nil:
		return path, fmt.Errorf("%w; the cases that ran are in %s", stopErr, path)
	case len(faults) > 0:
		return path, fmt.Errorf("%s failed by ending the benchmark binary (%s); the other cases are in %s", plural(len(faults), "case"), faultNames(faults), path)
	case runErr != nil:
		return path, fmt.Errorf("the benchmark binary failed (%v); failed cases are listed above and in %s", runErr, path)
	}
	return path, nil
}

// expandSweep builds the sweep o names and its cases on this host; it is
// an error when the host runs none of them.
func expandSweep(o *options) (benchmarks.Preset, benchmarks.Expansion, error) {
	built, err := benchmarks.BuildSweep(o.preset, o.axes)
	if err != nil {
		return built, benchmarks.Expansion{}, err
	}
	ex := built.Expand(hostEnv(o.cpuCap))
	if len(ex.Cases) == 0 {
		return built, ex, fmt.Errorf("no case to run, nothing written: %s", strings.Join(ex.Notes, "; "))
	}
	return built, ex, nil
}

// runCases runs the benchmark binary bin with args on the sweep's cases,
// in the benchmarks directory under root, and returns its output. A case
// that ends the binary (a crash, a sticky CUDA error or a hang past its
// time limit) is recorded in the output as failed, with the command that
// reproduces it, and the binary is started again on the cases that had
// not started: no case runs twice. runErr is the binary's last failed
// exit; stopErr ends the sweep early: a restart that ran no case.
func runCases(o *options, bin, binName, root string, args []string, cases []benchmarks.Case, skipped map[string]bool,
	progress *progressFilter, stderr io.Writer) (out *bytes.Buffer, faults []fault, runErr, stopErr error) {
	out = new(bytes.Buffer)
	all := caseNames(cases)
	limit := o.caseTimeout
	if limit <= 0 {
		limit = DefaultCaseTimeout
	}
	done := maps.Clone(skipped)
	if done == nil {
		done = map[string]bool{}
	}
	for restart := 0; ; restart++ {
		runArgs := args
		if restart > 0 {
			runArgs = append(append([]string(nil), args...), "-test.skip", skipPattern(all, done))
			fmt.Fprintf(out, "# sweep: restarted the benchmark binary on the cases not yet run: cd benchmarks && %s %s\n", binName, shellJoin(runArgs))
		}
		cmd := exec.Command(bin, runArgs...)
		cmd.Dir = filepath.Join(root, "benchmarks")
		if o.device != "" {
			cmd.Env = append(os.Environ(), "CUDA_VISIBLE_DEVICES="+o.device)
		}
		w := &watch{limit: limit, repro: func(name string) string { return reproCommand(binName, args, name) }}
		a := runBinary(cmd, progress, w)
		out.Write(a.out)
		progress.eta.Finish(time.Now())
		if a.err != nil {
			runErr = a.err
		}
		progressed := false
		for _, c := range a.started {
			progressed = progressed || !done[c]
			done[c] = true
		}
		if restart > 0 && !progressed && !a.finished {
			why := fmt.Sprint(a.err)
			if tail := progress.Tail(); len(tail) > 0 {
				why += ": " + strings.Join(tail, "; ")
			}
			return out, faults, runErr, fmt.Errorf("%w after the %s of %s (%s); stopped with %d cases not run",
				errNoProgress, faults[len(faults)-1].Kind, faults[len(faults)-1].Case, why, notDone(all, done))
		}
		if a.fault == nil {
			return out, faults, runErr, nil
		}
		f := *a.fault
		faults = append(faults, f)
		out.WriteString(f.lines(out.Bytes()))
		fmt.Fprintf(stderr, "sweep: %s\n", f)
		if a.finished || notDone(all, done) == 0 {
			return out, faults, runErr, nil
		}
		fmt.Fprintf(stderr, "sweep: restarting the benchmark binary on the %d cases not yet run\n", notDone(all, done))
	}
}

// caseNames are the names of cases, in order.
func caseNames(cases []benchmarks.Case) []string {
	all := make([]string, len(cases))
	for i, c := range cases {
		all[i] = c.Name()
	}
	return all
}

// notDone counts the cases of all not in done.
func notDone(all []string, done map[string]bool) int {
	n := 0
	for _, c := range all {
		if !done[c] {
			n++
		}
	}
	return n
}

// faultNames lists the faults' kinds and cases.
func faultNames(faults []fault) string {
	s := make([]string, len(faults))
	for i, f := range faults {
		s[i] = f.Kind + " of " + f.Case
	}
	return strings.Join(s, ", ")
}

// noCaseRan is the error of a run without a single result line: the
// binary's refusal when it printed no configuration (its last lines on
// stderr), else the failed cases or the notes on what was left out.
func noCaseRan(runErr error, r *results.Run, out []byte, tail []string) error {
	if configValue(out, runfile.KeySweep) == "" {
		why := strings.Join(tail, "; ")
		if why == "" && runErr != nil {
			why = runErr.Error()
		}
		return fmt.Errorf("the benchmark binary ran no case, nothing written: %s", why)
	}
	if len(r.Failures) > 0 {
		return fmt.Errorf("no case ran, nothing written: every case failed (%d); the first: %s", len(r.Failures), r.Failures[0])
	}
	if len(r.Unsupported) > 0 {
		u := r.Unsupported[0]
		return fmt.Errorf("no case ran, nothing written: every case was skipped, %d as unsupported; the first: %s: %s", len(r.Unsupported), caseLabel(u.Keys), u.Reason)
	}
	var notes []string
	for _, l := range strings.Split(string(out), "\n") {
		if _, _, measured := runfile.ParseMeasured(l); measured {
			continue
		}
		if n, ok := strings.CutPrefix(l, "# "); ok {
			notes = append(notes, n)
		}
	}
	if len(notes) == 0 {
		notes = tail
	}
	return fmt.Errorf("no case ran, nothing written: %s", strings.Join(notes, "; "))
}

// noGPUNote is the sweep's line on a run without a GPU: that the file
// holds the CPU variants only, with the reason the binary gave where
// its own line did not show it already (shown).
func noGPUNote(shown bool, out []byte) string {
	if shown {
		return "sweep: no GPU on this host (the reason is above): the file holds the CPU variants only"
	}
	return fmt.Sprintf("sweep: no GPU on this host (%s): the file holds the CPU variants only", noGPUReason(out))
}

// noGPUReason is the reason the binary gave for running without a GPU
// (runfile.NoGPULine).
func noGPUReason(out []byte) string {
	for _, l := range strings.Split(string(out), "\n") {
		if r, ok := runfile.ParseNoGPU(l); ok {
			return r
		}
	}
	return "the binary found none"
}
