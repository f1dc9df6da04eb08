// Command tune tunes GPU variants on this host's GPU and writes the
// results into the GPU's tuning table, tables/tuning/<gpu slug>.json,
// which every plan then reads (package tables/tuning).
//
//	go run ./tune/cmd/tune -variants gpu-regtile,gpu-tiled -k 3,5,7,11,21 -sizes large -time 110s
//
// For each variant and class (element type, K, size class) it runs
// tune.Tune: the family's default setting first, then the space
// exhaustively or by random sampling and local search, within -budget
// candidates per class and -time in all (what is left shared evenly by
// the classes left);
// every candidate is verified against the reference before it is timed.
// A line per class says what was chosen, how it compares with the
// default, and how many candidates were wrong or refused. On a GPU host
// without Go, .gpu/tune from make gpu-bins does the same
// (scripts/gpu-run.sh OUT tune).
package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/convbench/convbench/convolve"
	"github.com/convbench/convbench/cudabind"
	"github.com/convbench/convbench/gpu/variants"
	"github.com/convbench/convbench/tables/tuning"
	"github.com/convbench/convbench/tune"
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

type options struct {
	variants, ks, sizes, types string
	budget, verify, samples    int
	total                      time.Duration
	seed                       uint64
	out, commit                string
	verbose                    bool
}

// jobs are the (variant, class) pairs a run tunes.
type job struct {
	v     convolve.Variant
	class tune.Class
}

func parse(args []string, stderr io.Writer) (options, []job, error) {
	var o options
	fs := flag.NewFlagSet("tune", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.StringVar(&o.variants, "variants", "gpu-regtile,gpu-tiled", "comma-separated variants to tune (each must declare a tuning space)")
	fs.StringVar(&o.ks, "k", "3,5,7,11,21", "comma-separated filter sides")
	fs.StringVar(&o.sizes, "sizes", "large", "comma-separated size classes: small, medium, large, huge")
	fs.StringVar(&o.types, "types", "f32", "comma-separated element types: f32, u8, i16")
	fs.IntVar(&o.budget, "budget", tune.DefaultBudget, "most candidates tried per variant and class")
	fs.DurationVar(&o.total, "time", 0, "time budget of the whole run, what is left shared evenly by the classes left (0: none)")
	fs.IntVar(&o.verify, "verify", tune.DefaultVerify, "random problems each candidate must pass before it is timed")
	fs.IntVar(&o.samples, "samples", tune.DefaultSamples, "timed samples per candidate (the median is kept)")
	fs.Uint64Var(&o.seed, "seed", 1, "seed of the random sample and the verification problems")
	fs.StringVar(&o.out, "out", filepath.Join("results", "tuning"), "directory of the tuning tables")
	fs.StringVar(&o.commit, "commit", "", "commit recorded in the entries (default: git's HEAD, else the COMMIT file beside the binary)")
	fs.BoolVar(&o.verbose, "v", false, "a line per candidate on stderr")
	if err := fs.Parse(args); err != nil {
		return o, nil, err
	}
	if fs.NArg() > 0 {
		return o, nil, fmt.Errorf("unexpected arguments %q", fs.Args())
	}
	var vs []convolve.Variant
	for _, name := range split(o.variants) {
		v, err := convolve.Lookup(name)
		if err != nil {
			return o, nil, err
		}
		if v.Describe().Caps.Space == nil {
			return o, nil, fmt.Errorf("variant %s declares no tuning space", name)
		}
		vs = append(vs, v)
	}
	var ks []int
	for _, s := range split(o.ks) {
		k, err := strconv.Atoi(s)
		if err != nil || k < 1 || k%2 == 0 {
			return o, nil, fmt.Errorf("-k %q: %q is not an odd positive filter side", o.ks, s)
		}
		ks = append(ks, k)
	}
	var sizes []convolve.SizeClass
	for _, s := range split(o.sizes) {
		c, err := convolve.ParseSizeClass(s)
		if err != nil {
			return o, nil, err
		}
		sizes = append(sizes, c)
	}
	var types []convolve.ElemType
	for _, s := range split(o.types) {
		t, err := convolve.ParseElemType(s)
		if err != nil {
			return o, nil, err
		}
		types = append(types, t)
	}
	if len(vs) == 0 || len(ks) == 0 || len(sizes) == 0 || len(types) == 0 {
		return o, nil, fmt.Errorf("nothing to tune: -variants, -k, -sizes and -types must each name one at least")
	}
	if o.budget < 1 {
		return o, nil, fmt.Errorf("-budget %d: want 1 or more", o.budget)
	}
	var jobs []job
	for _, v := range vs {
		for _, t := range types {
			if caps := v.Describe().Caps; len(caps.Types) > 0 && !slices.Contains(caps.Types, t) {
				return o, nil, fmt.Errorf("variant %s does not take element type %v", v.Describe().Name, t)
			}
			for _, k := range ks {
				for _, s := range sizes {
					jobs = append(jobs, job{v, tune.Class{Type: t, K: k, Size: s}})
				}
			}
		}
	}
	return o, jobs, nil
}

func split(s string) []string {
	var out []string
	for _, f := range strings.Split(s, ",") {
		if f = strings.TrimSpace(f); f != "" {
			out = append(out, f)
		}
	}
	return out
}

func run(args []string, stdout, stderr io.Writer) int {
	o, jobs, err := parse(args, stderr)
	if err != nil {
		fmt.Fprintln(stderr, "tune:", err)
		return 2
	}
	dev, err := cudabind.Default()
	if err != nil {
		fmt.Fprintln(stderr, "tune: needs a GPU:", err)
		return 1
	}
	info := dev.Info()
	commit := o.commit
	if commit == "" {
		commit = findCommit()
	}
	opts := tune.Options{Budget: o.budget, Seed: o.seed, Verify: o.verify, Samples: o.samples, Limits: variants.Limits(info)}
	start := time.Now()
	opts.Warm = func(v convolve.Variant, ps []convolve.Problem, cfgs []convolve.Config) {
		specs := make([]variants.WarmSpec, len(ps))
		for i := range ps {
			specs[i] = variants.WarmSpec{Variant: v, Problem: ps[i], Config: cfgs[i]}
		}
		variants.Warm(specs, runtime.NumCPU(), nil)
	}
	if o.verbose {
		opts.Log = func(format string, args ...any) { fmt.Fprintf(stderr, format+"\n", args...) }
	}
	fmt.Fprintf(stdout, "# tune on %s (driver %s, NVRTC %s), commit %s: %d classes, budget %d candidates each", info.Name, info.Driver(), info.NVRTC(), commit, len(jobs), o.budget)
	if o.total > 0 {
		fmt.Fprintf(stdout, " and %v in all", o.total)
	}
	fmt.Fprintln(stdout)
	var entries []tuning.Entry
	failed := 0
	// winners holds, per variant, type and size class, the settings
	// chosen so far, the latest first: with the defaults of the other K
	// classes they seed each search.
	winners := map[string][]convolve.Setting{}
	for i, j := range jobs {
		t0 := time.Now()
		if o.total > 0 {
			// What is left, shared by the classes left: time a class
			// did not use goes to the next.
			opts.Time = max((o.total-t0.Sub(start))/time.Duration(len(jobs)-i), time.Millisecond)
		}
		name := j.v.Describe().Name
		key := fmt.Sprintf("%s/%v/%s", name, j.class.Type, j.class.Size)
		opts.Seeds = append(slices.Clone(winners[key]), otherDefaults(j, jobs, opts.Limits)...)
		e, err := tune.Tune(j.v, j.class, opts)
		if err == nil {
			if st, err := e.Chosen.Setting(); err == nil {
				winners[key] = append([]convolve.Setting{st}, winners[key]...)
			}
		}
		if err != nil {
			fmt.Fprintf(stdout, "%s %v: %v\n", name, j.class, err)
			failed++
			continue
		}
		e.Commit, e.Driver, e.NVRTC = commit, info.Driver(), info.NVRTC()
		e.Date = time.Now().UTC().Format(time.RFC3339)
		entries = append(entries, e)
		fmt.Fprintln(stdout, summary(e, time.Since(t0)))
	}
	if len(entries) > 0 {
		path, err := tune.Save(o.out, info.Name, entries)
		if err != nil {
			fmt.Fprintln(stderr, "tune:", err)
			return 1
		}
		fmt.Fprintf(stdout, "# wrote %d entries into %s\n", len(entries), path)
	}
	if failed > 0 {
		return 1
	}
	return 0
}

// summary is the line of one tuned class.
func summary(e tuning.Entry, took time.Duration) string {
	var wrong, refused int
	for _, c := range e.Candidates {
		switch c.Status {
		case tuning.Wrong:
			wrong++
		case tuning.Refused:
			refused++
		}
	}
	chosen, _ := e.Chosen.Setting()
	def, _ := e.Default.Setting()
	vs := "default not timed"
	if e.Default.Status == tuning.OK {
		vs = fmt.Sprintf("%.3f of default %v (%.1f us)", e.Chosen.VsDefault, def, e.Default.MedianNS/1e3)
	}
	return fmt.Sprintf("%s: chose %v, %.1f us, %s; %d of %d tried (%s), %d wrong, %d refused, %v",
		e.Key(), chosen, e.Chosen.MedianNS/1e3, vs, len(e.Candidates), e.Space, e.Search, wrong, refused, took.Round(time.Second/10))
}

// findCommit is git's HEAD (with a note when the tree has changes), else
// the COMMIT file that make gpu-bins writes beside the binary, else
// "unknown".
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

// otherDefaults are the family's default settings for the jobs of j's
// variant, type and size class with another K, in job order: a search
// seeded with them tries the setting its neighbours would take untuned.
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
		if p, err := o.class.Problem(); err == nil {
			out = append(out, sp.Default(p, convolve.Block{}, lim))
		}
	}
	return out
}
