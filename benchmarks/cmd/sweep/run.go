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
	name, ex, err := expandSweep(o)
	if err != nil {
		return "", err
	}
	root, commit, err := checkout()
	if err != nil {
		return "", err
	}
	if st, err := os.Stat(filepath.Join(root, "benchmarks")); err != nil || !st.IsDir() {
		return "", fmt.Errorf("no benchmarks directory under %s: run the sweep inside the convbench tree (the test binary runs in its benchmarks directory)", root)
	}
	mine, others, err := shardCases(o.shard, ex.Cases)
	if err != nil {
		return "", fmt.Errorf("%w; nothing written", err)
	}
	tb, err := testBinary(o, root, stderr)
	if err != nil {
		return "", err
	}
	defer tb.cleanup()
	if c, ok := binaryCommit(tb.path); ok && o.bin != "" {
		commit = c
	}
	est := estimate(mine, sweepNoise(o), o.count, stderr)
	printEstimate(stderr, name, est)

	args := binaryArgs(o, ex.Cases, others)
	binName := binDisplayName(tb.path, o.bin != "")
	if o.device != "" {
		binName = "CUDA_VISIBLE_DEVICES=" + o.device + " " + binName
	}
	steps := append(slices.Clone(tb.steps), "cd benchmarks && "+binName+" "+shellJoin(args))
	progress := &progressFilter{w: stderr, eta: benchmarks.NewETA(est), now: time.Now, label: benchmarks.CaseLabels(caseNames(ex.Cases))}
	if !o.shard.whole() {
		progress.name, progress.total = name, len(mine)
	}
	res := runCases(o, tb.path, binName, root, args, ex.Cases, others, progress, stderr)
	header := runfile.Header(name, commit, strings.Join(steps, " && "), 0)
	path, err := storeRun(o, root, name, header, res, progress, stdout, stderr)
	if path == "" || err != nil {
		return path, err
	}
	return path, res.end(path, stderr)
}

// shardCases splits the sweep's cases into those of shard s (mine) and
// the other shards' (others, by name), which the binary skips as if
// done; it is an error when s holds none.
func shardCases(s shard, cases []benchmarks.Case) (mine []benchmarks.Case, others map[string]bool, err error) {
	others = map[string]bool{}
	for i, c := range cases {
		if s.holds(i) {
			mine = append(mine, c)
		} else {
			others[c.Name()] = true
		}
	}
	if len(mine) == 0 {
		return nil, nil, fmt.Errorf("-shard %d/%d holds no case: the sweep has %d, fewer than %d shards", s.k, s.n, len(cases), s.n)
	}
	return mine, others, nil
}

// sweepNoise is the sampling rule of o's result lines: -noise and
// -max-time over benchmarks.DefaultNoise.
func sweepNoise(o *options) benchmarks.Noise {
	noise := benchmarks.DefaultNoise
	noise.Target, noise.MaxTime = o.noise, o.maxTime
	return noise
}

// binaryArgs are the benchmark binary's arguments for o's sweep of cases:
// one benchmark run a line, the sampling flags, the preset, the axis and
// -kernel flags with their files made absolute, and a -test.skip of the
// other shards' cases (others).
func binaryArgs(o *options, cases []benchmarks.Case, others map[string]bool) []string {
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
		args = append(args, "-test.skip", skipPattern(caseNames(cases), others))
	}
	return args
}

// storeRun writes the binary's output of res behind header as the run
// called name, under the data directory's folder of the GPU (or CPU) it
// ran on, says where, and prints the run's summary. It returns the path
// written, or "" with the reason when no case ran.
func storeRun(o *options, root, name, header string, res binaryRun, progress *progressFilter, stdout, stderr io.Writer) (string, error) {
	out := res.out.Bytes()
	gpu, cpu := configValue(out, runfile.KeyGPU), configValue(out, runfile.KeyCPU)
	if gpu == "none" {
		gpu = ""
	}
	dir := filepath.Join(outputDir(root, o.dataDir, o.publish), runfile.Slug(gpu, cpu))
	r, err := results.ReadRun(bytes.NewReader(out), filepath.Join(dir, name+".txt"))
	if err != nil {
		return "", fmt.Errorf("reading the benchmark output: %w", err)
	}
	if len(r.Samples) == 0 {
		if res.stopErr != nil {
			return "", fmt.Errorf("%w, nothing written", res.stopErr)
		}
		return "", noCaseRan(res.runErr, r, out, progress.Tail())
	}
	path, err := writeNew(dir, name, append([]byte(header), out...))
	if err != nil {
		return "", err
	}
	fmt.Fprintf(stderr, "sweep: wrote %s\n", path)
	if gpu == "" && configValue(out, runfile.KeyGPU) == "none" {
		fmt.Fprintln(stderr, noGPUNote(progress.sawNoGPU(), out))
	}
	r.Path, r.Preset = path, strings.TrimSuffix(filepath.Base(path), ".txt")
	return path, printSummary(stdout, r, o.baseline)
}

// expandSweep builds the sweep o names and its cases on this host, and
// names its run (runName, with the shard's suffix); it is an error when
// the host runs none of the cases.
func expandSweep(o *options) (string, benchmarks.Expansion, error) {
	built, err := benchmarks.BuildSweep(o.preset, o.axes)
	if err != nil {
		return "", benchmarks.Expansion{}, err
	}
	name := runName(built.Name, o.args) + o.shard.suffix()
	ex := built.Expand(hostEnv(o.cpuCap))
	if len(ex.Cases) == 0 {
		return name, ex, fmt.Errorf("no case to run, nothing written: %s", strings.Join(ex.Notes, "; "))
	}
	return name, ex, nil
}

// binaryRun is what the runs of the benchmark binary on a sweep left:
// their output, the cases that ended a run (faults), the last failed
// exit (runErr), and stopErr where the sweep ended early: a restart that
// ran no case.
type binaryRun struct {
	out             *bytes.Buffer
	faults          []fault
	runErr, stopErr error
}

// end reports the faults of a run stored at path on stderr and returns
// the run's error: the sweep stopped early, cases that ended the binary,
// or the binary's failed exit; nil when none.
func (res binaryRun) end(path string, stderr io.Writer) error {
	if len(res.faults) > 0 {
		fmt.Fprintf(stderr, "sweep: %s ended the benchmark binary and failed; the other cases ran in a new one:\n", plural(len(res.faults), "case"))
		for _, f := range res.faults {
			fmt.Fprintf(stderr, "  %s\n", f)
		}
	}
	switch {
	case res.stopErr != nil:
		return fmt.Errorf("%w; the cases that ran are in %s", res.stopErr, path)
	case len(res.faults) > 0:
		return fmt.Errorf("%s failed by ending the benchmark binary (%s); the other cases are in %s", plural(len(res.faults), "case"), faultNames(res.faults), path)
	case res.runErr != nil:
		return fmt.Errorf("the benchmark binary failed (%v); failed cases are listed above and in %s", res.runErr, path)
	}
	return nil
}

// runCases runs the benchmark binary bin with args on the sweep's cases,
// in the benchmarks directory under root, the cases of skipped (a map,
// not nil: the other shards') counting as done, and returns its output
// with the faults and errors of its runs. A case that ends the binary (a
// crash, a sticky CUDA error or a hang past its time limit) is recorded
// in the output as failed, with the command that reproduces it, and the
// binary is started again on the cases that had not started: no case
// runs twice.
func runCases(o *options, bin, binName, root string, args []string, cases []benchmarks.Case, skipped map[string]bool,
	progress *progressFilter, stderr io.Writer) binaryRun {
	res := binaryRun{out: new(bytes.Buffer)}
	out := res.out
	all := caseNames(cases)
	limit := o.caseTimeout
	if limit <= 0 {
		limit = DefaultCaseTimeout
	}
	done := maps.Clone(skipped)
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
			res.runErr = a.err
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
			last := res.faults[len(res.faults)-1]
			res.stopErr = fmt.Errorf("%w after the %s of %s (%s); stopped with %d cases not run",
				errNoProgress, last.Kind, last.Case, why, notDone(all, done))
			return res
		}
		if a.fault == nil {
			return res
		}
		f := *a.fault
		res.faults = append(res.faults, f)
		out.WriteString(f.lines(out.Bytes()))
		fmt.Fprintf(stderr, "sweep: %s\n", f)
		if a.finished || notDone(all, done) == 0 {
			return res
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
	why := "the reason is above"
	if !shown {
		why = noGPUReason(out)
	}
	return fmt.Sprintf("sweep: no GPU on this host (%s): the file holds the CPU variants only", why)
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
