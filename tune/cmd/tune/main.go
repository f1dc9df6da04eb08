// Command tune tunes GPU variants on this host's GPU and writes the
// results into its tuning table, tables/tuning/<gpu slug>.json, which
// every plan then reads (see docs/tuning-and-auto.md).
//
//	go run ./tune/cmd/tune -variants gpu-regtile,gpu-tiled,gpu-sepfused -k 3,5,7,11,21 -sizes large -time 165s
//
// Each variant and class (element type, K, size class) is tuned by
// tune.Tune, seeded with the default setting and the table's stored
// choice, in a child process of its own: a candidate that crashes or
// hangs (-case-timeout) fails alone, is never chosen, and is named at the
// end with the command that tries it alone (-setting). It exits 1 when a
// class failed or a candidate crashed or hung.
package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/convbench/convbench/convolve"
	_ "github.com/convbench/convbench/internal/allvariants" // every variant family
	"github.com/convbench/convbench/tables/tuning"
	"github.com/convbench/convbench/tune"
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}

type options struct {
	variants, ks, sizes, types string
	budget, verify, samples    int
	total, caseTimeout         time.Duration
	seed                       uint64
	out, commit                string
	verbose                    bool
	setting                    string
	pt                         convolve.Setting // setting parsed
}

// A job is a (variant, class) pair a run tunes.
type job struct {
	v     convolve.Variant
	class tune.Class
}

// parse reads the command line: the options, checked, and the jobs they
// select.
func parse(args []string, stderr io.Writer) (options, []job, error) {
	var o options
	fs := flag.NewFlagSet("tune", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.StringVar(&o.variants, "variants", "gpu-regtile,gpu-tiled,gpu-sepfused", "comma-separated variants to tune (each must declare a tuning space)")
	fs.StringVar(&o.ks, "k", "3,5,7,11,21", "comma-separated filter sides")
	fs.StringVar(&o.sizes, "sizes", "large", "comma-separated size classes: small, medium, large, huge")
	fs.StringVar(&o.types, "types", "f32", "comma-separated element types: f32, u8, i16")
	fs.IntVar(&o.budget, "budget", tune.DefaultBudget, "most candidates tried per variant and class")
	fs.DurationVar(&o.total, "time", 0, "time budget of the whole run, what is left shared evenly by the classes left (0: none)")
	fs.IntVar(&o.verify, "verify", tune.DefaultVerify, "random problems each candidate must pass before it is timed")
	fs.IntVar(&o.samples, "samples", tune.DefaultSamples, "timed samples per candidate (the median is kept)")
	fs.Uint64Var(&o.seed, "seed", 1, "seed of the random sample and the verification problems")
	fs.StringVar(&o.out, "out", filepath.Join("tables", "tuning"), "directory of the tuning tables (the default, run from the repository root, is the one package tables/tuning embeds)")
	fs.StringVar(&o.commit, "commit", "", "commit recorded in the entries (default: git's HEAD, else the COMMIT file beside the binary)")
	fs.BoolVar(&o.verbose, "v", false, "a line per candidate on stderr")
	fs.DurationVar(&o.caseTimeout, "case-timeout", DefaultCaseTimeout, "time limit of one candidate (its plans, verification and timing; also of compiling one kernel ahead and of a class's start; the default fits the largest class's candidates, seconds each, with room): past it the candidate is a hang, its process is killed and the class goes on in a new one")
	fs.StringVar(&o.setting, "setting", "", "verify and time this one setting alone (\"block=32x8 rx=4,ry=8\", as the tuner's lines write it, or \"default\") of the one variant and class the other flags select, in this process, and write no table")
	if err := fs.Parse(args); err != nil {
		return o, nil, err
	}
	if fs.NArg() > 0 {
		return o, nil, fmt.Errorf("unexpected arguments %q", fs.Args())
	}
	jobs, err := o.jobs()
	if err != nil {
		return o, nil, err
	}
	if o.setting != "" {
		if len(jobs) != 1 {
			return o, nil, fmt.Errorf("-setting %q: the other flags select %d variants and classes, want one (a single -variants, -types, -k and -sizes)", o.setting, len(jobs))
		}
		if o.pt, err = parseSetting(o.setting, jobs[0].v); err != nil {
			return o, nil, err
		}
	}
	return o, jobs, nil
}

// jobs parses -variants (each must declare a tuning space), -k (odd
// positive sides), -sizes and -types, checks the counts and durations,
// and returns the product of the lists, variant by variant, then type,
// filter side and size class.
func (o *options) jobs() ([]job, error) {
	variants, err := parseList(o.variants, func(name string) (convolve.Variant, error) {
		v, err := convolve.Lookup(name)
		if err == nil && v.Describe().Caps.Space == nil {
			err = fmt.Errorf("variant %s declares no tuning space", name)
		}
		return v, err
	})
	if err != nil {
		return nil, err
	}
	ks, err := parseList(o.ks, func(s string) (int, error) {
		k, err := strconv.Atoi(s)
		if err != nil || k < 1 || k%2 == 0 {
			return 0, fmt.Errorf("-k %q: %q is not an odd positive filter side", o.ks, s)
		}
		return k, nil
	})
	if err != nil {
		return nil, err
	}
	sizes, err := parseList(o.sizes, convolve.ParseSizeClass)
	if err != nil {
		return nil, err
	}
	types, err := parseList(o.types, convolve.ParseElemType)
	if err != nil {
		return nil, err
	}
	if len(variants) == 0 || len(ks) == 0 || len(sizes) == 0 || len(types) == 0 {
		return nil, fmt.Errorf("nothing to tune: -variants, -k, -sizes and -types must each name one at least")
	}
	switch {
	case o.budget < 1:
		return nil, fmt.Errorf("-budget %d: want 1 or more", o.budget)
	case o.verify < 0:
		return nil, fmt.Errorf("-verify %d: want 1 or more (0: the default, %d)", o.verify, tune.DefaultVerify)
	case o.samples < 0:
		return nil, fmt.Errorf("-samples %d: want 1 or more (0: the default, %d)", o.samples, tune.DefaultSamples)
	case o.total < 0:
		return nil, fmt.Errorf("-time %v: want a positive duration (0: none)", o.total)
	case o.caseTimeout <= 0:
		return nil, fmt.Errorf("-case-timeout %v: want a positive duration", o.caseTimeout)
	}
	var jobs []job
	for _, v := range variants {
		for _, t := range types {
			if caps := v.Describe().Caps; len(caps.Types) > 0 && !slices.Contains(caps.Types, t) {
				return nil, fmt.Errorf("variant %s does not take element type %v", v.Describe().Name, t)
			}
			for _, k := range ks {
				for _, s := range sizes {
					jobs = append(jobs, job{v, tune.Class{Type: t, K: k, Size: s}})
				}
			}
		}
	}
	return jobs, nil
}

// parseSetting reads a setting of v as convolve.Setting.String writes it,
// or "default".
func parseSetting(s string, v convolve.Variant) (convolve.Setting, error) {
	var st convolve.Setting
	fields := strings.Fields(s)
	if len(fields) == 1 && fields[0] == "default" {
		return st, nil
	}
	if len(fields) == 0 || len(fields) > 2 {
		return st, fmt.Errorf("-setting %q: want \"block=WxH\", \"name=value,...\" tunables, both separated by a space, or \"default\"", s)
	}
	d := v.Describe()
	for _, f := range fields {
		if b, ok := strings.CutPrefix(f, "block="); ok {
			if st.Block != (convolve.Block{}) {
				return st, fmt.Errorf("-setting %q: block given twice", s)
			}
			blk, err := convolve.ParseBlock(b)
			if err != nil {
				return st, fmt.Errorf("-setting %q: %w", s, err)
			}
			st.Block = blk
			continue
		}
		if st.Tunables != nil {
			return st, fmt.Errorf("-setting %q: tunables given twice", s)
		}
		t, err := convolve.ParseTunables(f)
		if err != nil {
			return st, fmt.Errorf("-setting %q: %w", s, err)
		}
		for name := range t {
			if !slices.Contains(d.Caps.Tunables, name) {
				return st, fmt.Errorf("-setting %q: %s has no tunable %q (its tunables: %s)", s, d.Name, name, strings.Join(d.Caps.Tunables, ", "))
			}
		}
		st.Tunables = t
	}
	return st, nil
}

// parseList parses each non-empty element of the comma-separated list.
func parseList[T any](list string, parse func(string) (T, error)) ([]T, error) {
	var out []T
	for _, f := range strings.Split(list, ",") {
		if f = strings.TrimSpace(f); f == "" {
			continue
		}
		v, err := parse(f)
		if err != nil {
			return nil, err
		}
		out = append(out, v)
	}
	return out, nil
}

func run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	o, jobs, err := parse(args, stderr)
	if errors.Is(err, flag.ErrHelp) {
		return 0
	}
	if err != nil {
		fmt.Fprintln(stderr, "tune:", err)
		return 2
	}
	if mode := os.Getenv(childEnvVar); mode != "" {
		return runChild(mode, o, jobs, stdin, stdout, stderr)
	}
	if o.setting != "" {
		return trySetting(o, jobs[0], stdout, stderr)
	}
	exe, err := os.Executable()
	if err != nil {
		fmt.Fprintln(stderr, "tune: cannot find its own executable to run the classes in:", err)
		return 1
	}
	r := &childRunner{bin: exe, name: commandName(), common: commonArgs(o), limit: o.caseTimeout, stderr: stderr}
	return tuneJobs(o, jobs, r, stdout, stderr)
}

// tuneJobs tunes the jobs in children that r runs, writes the entries
// into the GPU's table under o.out and returns the exit status.
func tuneJobs(o options, jobs []job, r *childRunner, stdout, stderr io.Writer) int {
	dev, err := r.device(jobs[0])
	if err != nil {
		fmt.Fprintln(stderr, "tune: needs a GPU:", err)
		return 1
	}
	commit := o.commit
	if commit == "" {
		commit = findCommit()
	}
	start := time.Now()
	fmt.Fprintf(stdout, "# tune on %s (driver %s, NVRTC %s), commit %s: %d classes, budget %d candidates each", dev.Name, dev.Driver, dev.NVRTC, commit, len(jobs), o.budget)
	if o.total > 0 {
		fmt.Fprintf(stdout, " and %v in all", o.total)
	}
	fmt.Fprintf(stdout, ", each class in a child process, %v a candidate (-case-timeout)\n", o.caseTimeout)
	var entries []tuning.Entry
	var faults []fault
	failed := 0
	winners := map[string][]convolve.Setting{} // by variant, type and size class, the latest first
	stored := storedChoices(o.out, dev.Name)
	for i, j := range jobs {
		t0 := time.Now()
		var budget time.Duration
		if o.total > 0 {
			// What is left, shared by the classes left.
			budget = max((o.total-t0.Sub(start))/time.Duration(len(jobs)-i), time.Millisecond)
		}
		// Seeds: the stored choice, the choices of the classes of the
		// same variant, type and size tuned before, the other Ks' defaults.
		var seeds []convolve.Setting
		if st, ok := stored[tuning.Entry{Variant: j.v.Describe().Name, Type: j.class.Type.String(), K: j.class.K, Size: j.class.Size}.Key()]; ok {
			seeds = append(seeds, st)
		}
		key := fmt.Sprintf("%s/%v/%s", j.v.Describe().Name, j.class.Type, j.class.Size)
		seeds = append(append(seeds, winners[key]...), otherDefaults(j, jobs, dev.Limits)...)
		res := r.tune(j, budget, seeds)
		faults = append(faults, res.faults...)
		if res.err != nil {
			line := fmt.Sprintf("%s: %v", jobName(j), res.err)
			if res.entry != nil {
				line += fmt.Sprintf(" (%s)", tally(*res.entry))
			}
			fmt.Fprintln(stdout, line)
			failed++
			continue
		}
		e := *res.entry
		if e.Chosen.Status != tuning.OK {
			fmt.Fprintf(stdout, "%s: the child process chose a candidate of status %q\n", jobName(j), e.Chosen.Status)
			failed++
			continue
		}
		if st, err := e.Chosen.Setting(); err == nil {
			winners[key] = append([]convolve.Setting{st}, winners[key]...)
		}
		e.Commit, e.Driver, e.NVRTC = commit, dev.Driver, dev.NVRTC
		e.Date = time.Now().UTC().Format(time.RFC3339)
		entries = append(entries, e)
		fmt.Fprintln(stdout, summary(e, time.Since(t0)))
	}
	return finish(o.out, dev.Name, entries, faults, failed, stdout, stderr)
}

// finish writes the faults' lines and the entries into the table of gpu
// under dir, and returns the exit status.
func finish(dir, gpu string, entries []tuning.Entry, faults []fault, failed int, stdout, stderr io.Writer) int {
	for _, f := range faults {
		fmt.Fprintf(stdout, "# %s\n", f)
	}
	if len(entries) > 0 {
		path, err := tune.Save(dir, gpu, entries)
		if err != nil {
			fmt.Fprintln(stderr, "tune:", err)
			return 1
		}
		fmt.Fprintf(stdout, "# wrote %d entries into %s\n", len(entries), path)
	}
	if len(faults) > 0 {
		fmt.Fprintf(stderr, "tune: %s crashed or hung a process; the \"# crash\" and \"# hang\" lines above name each with the command that reproduces it alone\n", countFaults(faults))
	}
	if failed > 0 || len(faults) > 0 {
		return 1
	}
	return 0
}

// countFaults says how many candidates and classes (with no candidate
// under way) the faults are: "3 candidates and 1 class".
func countFaults(faults []fault) string {
	var n [2]int
	for _, f := range faults {
		if f.Setting != "" {
			n[0]++
		} else {
			n[1]++
		}
	}
	var parts []string
	for i, noun := range [][2]string{{"candidate", "candidates"}, {"class", "classes"}} {
		switch {
		case n[i] == 1:
			parts = append(parts, "1 "+noun[0])
		case n[i] > 1:
			parts = append(parts, fmt.Sprintf("%d %s", n[i], noun[1]))
		}
	}
	return strings.Join(parts, " and ")
}

// trySetting verifies and times o.pt of job j in this process, prints
// how it fared and returns the exit status.
func trySetting(o options, j job, stdout, stderr io.Writer) int {
	g, err := openGPU()
	if err != nil {
		fmt.Fprintln(stderr, "tune: needs a GPU:", err)
		return 1
	}
	fmt.Fprintf(stdout, "# tune on %s (driver %s, NVRTC %s): setting %v alone, no table written\n", g.info.Name, g.info.Driver, g.info.NVRTC, o.pt)
	c, err := tune.Try(j.v, j.class, o.pt, tuneOptions(o, g.info.Limits, stderr))
	if err != nil {
		fmt.Fprintf(stdout, "%s: %v\n", jobName(j), err)
		return 1
	}
	if c.Status == tuning.OK {
		fmt.Fprintf(stdout, "%s, setting %v: ok, %.1f us\n", jobName(j), o.pt, c.MedianNS/1e3)
		return 0
	}
	fmt.Fprintf(stdout, "%s, setting %v: %s: %s\n", jobName(j), o.pt, c.Status, c.Error)
	return 1
}

// summary is the line of one tuned class.
func summary(e tuning.Entry, took time.Duration) string {
	chosen, _ := e.Chosen.Setting()
	def, _ := e.Default.Setting()
	vs := "default not timed"
	if e.Default.Status == tuning.OK {
		vs = fmt.Sprintf("%.3f of default %v (%.1f us)", e.Chosen.VsDefault, def, e.Default.MedianNS/1e3)
	}
	return fmt.Sprintf("%s: chose %v, %.1f us, %s; %d of %d tried (%s), %s, %v",
		e.Key(), chosen, e.Chosen.MedianNS/1e3, vs, len(e.Candidates), e.Space, e.Search, tally(e), took.Round(time.Second/10))
}

// tally counts the entry's candidates that were not ok.
func tally(e tuning.Entry) string {
	n := map[string]int{}
	for _, c := range e.Candidates {
		n[c.Status]++
	}
	return fmt.Sprintf("%d wrong, %d refused, %d crashed, %d hung", n[tuning.Wrong], n[tuning.Refused], n[tuning.Crash], n[tuning.Hang])
}

// findCommit is git's HEAD (noting uncommitted changes), else the COMMIT
// file beside the binary, else "unknown".
func findCommit() string {
	if out, err := exec.Command("git", "rev-parse", "HEAD").Output(); err == nil {
		c := strings.TrimSpace(string(out))
		if st, _ := exec.Command("git", "status", "--porcelain", "--untracked-files=no").Output(); len(strings.TrimSpace(string(st))) > 0 {
			c += " (with uncommitted changes)"
		}
		return c
	}
	if exe, err := os.Executable(); err == nil {
		if b, err := os.ReadFile(filepath.Join(filepath.Dir(exe), "COMMIT")); err == nil && len(strings.TrimSpace(string(b))) > 0 {
			return strings.TrimSpace(string(b)) + " (prebuilt " + filepath.Base(exe) + ")"
		}
	}
	return "unknown"
}

// storedChoices maps each entry key of gpu's table under dir to the
// setting that entry chose; a missing or unreadable table gives none
// (Save reports the unreadable one).
func storedChoices(dir, gpu string) map[string]convolve.Setting {
	t, err := tuning.Tables.ReadFile(dir, gpu)
	if err != nil {
		return nil
	}
	out := map[string]convolve.Setting{}
	for _, e := range t.Entries {
		if st, err := e.Chosen.Setting(); err == nil {
			out[e.Key()] = st
		}
	}
	return out
}

// otherDefaults are the family's default settings for the jobs of j's
// variant, type and size class with another K, in job order.
func otherDefaults(j job, jobs []job, lim convolve.DeviceLimits) []convolve.Setting {
	sp := j.v.Describe().Caps.Space
	if sp == nil || sp.Default == nil {
		return nil
	}
	var out []convolve.Setting
	for _, o := range jobs {
		if o.v.Describe().Name != j.v.Describe().Name || o.class.Type != j.class.Type || o.class.Size != j.class.Size || o.class.K == j.class.K {
			continue
		}
		if p, err := o.class.Problem(j.v.Describe().Caps); err == nil {
			out = append(out, sp.Default(p, convolve.Block{}, lim))
		}
	}
	return out
}
