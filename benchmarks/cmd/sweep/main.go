// Command sweep runs one benchmark preset, or a sweep set by axis flags,
// and stores its raw output.
//
// The axis flags of the benchmarks (-variants, -sizes, -filters, -types,
// -channels, -layouts, -borders, -modes, -blocks, -timing, -mem, -image;
// benchmarks.AxisFlags) are checked here and passed on to the binary: beside
// -sweep they replace the preset's axes, without it they make the sweep
// alone. Such a run is stored as <preset>-custom-<digest>.txt, or
// custom-<digest>.txt, the digest being of the axis flags. -list prints
// every variant with its capabilities and every preset with its axes; -gpu
// takes only 0 (the GPU variants run on device 0; pick another GPU with
// CUDA_VISIBLE_DEVICES).
//
// It builds the benchmarks test binary (or takes a prebuilt one with
// -bin), runs it with -test.cpu 1 and the preset, streams progress to
// stderr, writes the unedited output to <data>/<gpu-slug>/<preset>.txt
// behind a header line with the exact command and commit, and prints a
// summary table sorted by variant, size and filter. Without a GPU the
// binary runs the CPU variants and says so; the file then goes under a
// cpu-... slug.
//
// <data> is results/local/data by default: a user's runs stay out of the
// committed data, which git ignores there, so that the committed report
// stays in step with results/data and git status stays clean. -publish
// writes under results/data instead, the committed runs the report is
// built from (make publish copies results/local/data there); -data names
// any other directory.
//
// -kernel FILE (repeatable) adds a user's CUDA source, described by a
// comment header or a sidecar file (package cudabind/userkernel), as the
// variant user-<file name>, which -variants may name. The benchmark binary
// proves it with the whole property suite (package convtest) before it
// times it, and refuses to time it, failing its cases with the failed
// property, when the suite fails it:
//
//	go run ./benchmarks/cmd/sweep -kernel my.cu -variants 'user-.*|gpu-tiled' -sizes 4096x4096 -filters gauss9
//
// On a host with the tree but no git or Go, run it with -bin (a binary
// from make gpu-bins); the header then names the commit as unknown.
//
// Each result line is one sample set of its case, sampled until the
// spread of its median is under -noise percent or -max-time passes (see
// benchmarks.Noise); -count sets the lines per case.
//
//	go run ./benchmarks/cmd/sweep -sweep=default -count=5 -noise=1 -max-time=2s
//	go run ./benchmarks/cmd/sweep -variants 'gpu-tiled|npp' -sizes 6000x4000 -filters gauss9,dense9 -types u8,f32
package main

import (
	"bytes"
	"crypto/sha256"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/convbench/convbench/benchmarks"
	"github.com/convbench/convbench/benchmarks/benchname"
	"github.com/convbench/convbench/convolve"
	_ "github.com/convbench/convbench/cudabind/gpuslab" // the gpu-slab variants
	"github.com/convbench/convbench/results"
)

func main() {
	o, err := parseFlags(flag.CommandLine, os.Args[1:])
	if err != nil {
		fmt.Fprintln(os.Stderr, "sweep:", err)
		os.Exit(2)
	}
	if o.list {
		if err := benchmarks.WriteList(os.Stdout, convolve.Variants()); err != nil {
			fmt.Fprintln(os.Stderr, "sweep:", err)
			os.Exit(1)
		}
		return
	}
	if err := run(o.preset, o.axes, o.args, o.count, o.noise, o.maxTime, o.cpuCap, o.bin, o.dataDir, o.publish); err != nil {
		fmt.Fprintln(os.Stderr, "sweep:", err)
		os.Exit(1)
	}
}

// options are the command's flags, parsed.
type options struct {
	preset        string // "" for a sweep of the axis flags alone
	axes          benchmarks.Axes
	args          []string // the axis and -kernel flags, for the benchmark binary
	count         int
	noise         float64
	maxTime       time.Duration
	cpuCap        int64
	bin, dataDir  string
	publish, list bool
}

// parseFlags defines the command's flags on fs and parses args. The
// -kernel flags are applied first (benchmarks.ParseKernelFlags), so that
// -variants may name the variants they add; a bad kernel description, like
// any bad flag value, is an error.
func parseFlags(fs *flag.FlagSet, args []string) (*options, error) {
	o := new(options)
	sweep := fs.String("sweep", "default", "preset to run; axis flags beside it replace its axes, and axis flags without it make the sweep alone")
	fs.IntVar(&o.count, "count", 5, "runs of every case (-test.count)")
	fs.Float64Var(&o.noise, "noise", benchmarks.DefaultNoise.Target, "target spread of each result line's median, percent (the benchmarks' -noise)")
	fs.DurationVar(&o.maxTime, "max-time", benchmarks.DefaultNoise.MaxTime, "time limit of one result line's sampling (the benchmarks' -max-time)")
	fs.Int64Var(&o.cpuCap, "cpu-cap", benchmarks.DefaultCPUCap, "largest multiply-adds per CPU case; 0 means no cap")
	fs.StringVar(&o.bin, "bin", "", "prebuilt benchmarks test binary; empty builds one with go test -c")
	fs.StringVar(&o.dataDir, "data", "", "directory the run is written under (default <repo>/"+LocalDataDir+", or <repo>/"+PublishedDataDir+" with -publish)")
	fs.BoolVar(&o.publish, "publish", false, "write the run under "+PublishedDataDir+", the committed data the report is built from, instead of "+LocalDataDir)
	fs.BoolVar(&o.list, "list", false, "print every variant with its capabilities and every preset with its axes, and exit")
	gpu := fs.Int("gpu", 0, "CUDA device ordinal; the GPU variants run on device 0 only (pick another GPU with CUDA_VISIBLE_DEVICES)")
	raw := map[string]string{} // the values the axis flags were given
	for _, f := range benchmarks.AxisFlags() {
		fs.Func(f.Name, f.Usage, func(s string) error {
			raw[f.Name] = s
			return f.Apply(&o.axes, s)
		})
	}
	kernels := benchmarks.RegisterKernelFlag(fs)
	if err := benchmarks.ParseKernelFlags(fs, args); err != nil {
		return nil, err
	}
	if err := fs.Parse(args); err != nil {
		return nil, err
	}
	if o.list {
		return o, nil
	}
	if err := benchmarks.ValidateGPU(*gpu); err != nil {
		return nil, err
	}
	o.preset, o.args = *sweep, axisArgs(raw)
	if len(o.args) > 0 && !given(fs, "sweep") {
		o.preset = ""
	}
	o.args = append(o.args, kernels.Args()...)
	return o, nil
}

// Where runs go, relative to the repository root: a user's runs under
// LocalDataDir, which git ignores, and published runs, committed, under
// PublishedDataDir.
const (
	LocalDataDir     = "results/local/data"
	PublishedDataDir = "results/data"
)

// outputDir is the directory a run is written under: dataDir when set,
// else PublishedDataDir with publish, else LocalDataDir, under root.
func outputDir(root, dataDir string, publish bool) string {
	switch {
	case dataDir != "":
		return dataDir
	case publish:
		return filepath.Join(root, filepath.FromSlash(PublishedDataDir))
	}
	return filepath.Join(root, filepath.FromSlash(LocalDataDir))
}

// given reports whether the flag called name was set on fs.
func given(fs *flag.FlagSet, name string) bool {
	set := false
	fs.Visit(func(f *flag.Flag) { set = set || f.Name == name })
	return set
}

// axisArgs returns the axis flags given, with the values in raw, as
// arguments of the benchmark binary, "-name=value", in the order
// AxisFlags lists them.
func axisArgs(raw map[string]string) []string {
	var args []string
	for _, a := range benchmarks.AxisFlags() {
		if v, ok := raw[a.Name]; ok {
			args = append(args, "-"+a.Name+"="+v)
		}
	}
	return args
}

// run builds the sweep (benchmarks.BuildSweep: preset, with the axes set
// by axisArgs in place of its own; with preset empty, the axes alone),
// runs it through the benchmark binary, which gets axisArgs (the axis
// flags and the -kernel flags), and stores its output under the sweep's
// name.
func run(preset string, axes benchmarks.Axes, axisArgs []string, count int, noise float64, maxTime time.Duration, cpuCap int64, bin, dataDir string, publish bool) error {
	built, err := benchmarks.BuildSweep(preset, axes)
	if err != nil {
		return err
	}
	sweep := runName(built.Name, axisArgs)
	if count < 1 {
		return fmt.Errorf("-count %d: must be at least 1", count)
	}
	root, commit, err := checkout()
	if err != nil {
		return err
	}
	dataDir = outputDir(root, dataDir, publish)
	var steps []string
	if bin == "" {
		tmp, err := os.MkdirTemp("", "convbench-sweep")
		if err != nil {
			return err
		}
		defer os.RemoveAll(tmp)
		bin = filepath.Join(tmp, "benchmarks.test")
		build := exec.Command("go", "test", "-c", "-o", bin, "./benchmarks")
		build.Dir = root
		build.Env = append(os.Environ(), "CGO_ENABLED=0")
		build.Stdout, build.Stderr = os.Stderr, os.Stderr
		steps = append(steps, "CGO_ENABLED=0 go test -c -o benchmarks.test ./benchmarks")
		if err := build.Run(); err != nil {
			return fmt.Errorf("building the benchmarks: %w", err)
		}
	} else if bin, err = filepath.Abs(bin); err != nil {
		return err
	} else if c, ok := binaryCommit(bin); ok {
		commit = c
	}
	args := []string{"-test.run", "^$", "-test.bench", ".", "-test.cpu", "1",
		"-test.count", fmt.Sprint(count), "-test.benchtime", "1x", "-test.timeout", "0",
		fmt.Sprintf("-cpu-cap=%d", cpuCap), fmt.Sprintf("-noise=%g", noise), "-max-time=" + maxTime.String()}
	if preset != "" {
		args = append(args, "-sweep="+preset)
	}
	args = append(args, absPaths(axisArgs)...)
	binName := "../" + filepath.Base(bin)
	if len(steps) == 0 {
		binName = bin
	}
	steps = append(steps, "cd benchmarks && "+binName+" "+shellJoin(args))

	var out bytes.Buffer
	cmd := exec.Command(bin, args...)
	cmd.Dir = filepath.Join(root, "benchmarks")
	cmd.Stdout = &out
	cmd.Stderr = os.Stderr
	runErr := cmd.Run()

	gpu, cpu := configValue(out.Bytes(), "gpu"), configValue(out.Bytes(), "cpu")
	if gpu == "none" {
		gpu = ""
	}
	dir := filepath.Join(dataDir, benchname.Slug(gpu, cpu))
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	path := filepath.Join(dir, sweep+".txt")
	header := fmt.Sprintf("# convbench sweep %s, commit %s, command: %s\n", sweep, commit, strings.Join(steps, " && "))
	if err := os.WriteFile(path, append([]byte(header), out.Bytes()...), 0o644); err != nil {
		return err
	}
	fmt.Fprintf(os.Stderr, "sweep: wrote %s\n", path)
	if gpu == "" {
		fmt.Fprintln(os.Stderr, "sweep: no GPU on this host: the file holds the CPU variants only")
	}
	if err := printSummary(os.Stdout, path); err != nil {
		return err
	}
	if runErr != nil {
		return fmt.Errorf("the benchmark binary failed (%v); failed cases are listed above and in %s", runErr, path)
	}
	return nil
}

// printSummary writes the summary table of the stored run at path to w,
// rows sorted by variant, size, filter and the other keys
// (results.SortSamples), then the cases that failed their gate.
func printSummary(w io.Writer, path string) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	r, err := results.ReadRun(f, path)
	if err != nil {
		return err
	}
	if len(r.Samples) == 0 && len(r.Failures) == 0 {
		return fmt.Errorf("no case ran: none of the selected variants can run here (the reasons are in the lines above and in %s)", path)
	}
	sum := results.Summary(r)
	if err := sum.RenderTerminal(w); err != nil {
		return err
	}
	for _, row := range sum.Rows {
		if slices.ContainsFunc(row, func(c string) bool { return strings.Contains(c, "±∞") }) {
			if _, err := fmt.Fprintf(w, "±∞: too few runs for a %.0f%% confidence interval of the median; -count 5 or more gives one\n", 100*results.Confidence); err != nil {
				return err
			}
			break
		}
	}
	for _, fl := range r.Failures {
		if _, err := fmt.Fprintln(w, fl); err != nil {
			return err
		}
	}
	return nil
}

// runName is the file name (without .txt) of a run of the sweep called
// name: the preset's name, or for a sweep that axis or -kernel flags set,
// "<name>-<digest>" with the first 8 hex digits of the SHA-256 of those
// arguments, so that runs of different axes keep different files and
// a run of the same axes replaces its earlier one.
func runName(name string, axisArgs []string) string {
	if len(axisArgs) == 0 {
		return name
	}
	sum := sha256.Sum256([]byte(strings.Join(axisArgs, "\x00")))
	return fmt.Sprintf("%s-%x", name, sum[:4])
}

// absPaths makes the file paths of -image and -filters absolute, since
// the benchmark binary runs in the benchmarks directory.
func absPaths(args []string) []string {
	out := make([]string, len(args))
	for i, a := range args {
		name, value, _ := strings.Cut(strings.TrimPrefix(a, "-"), "=")
		switch name {
		case "image":
			value = absIfFile(value)
		case "filters":
			items := strings.Split(value, ",")
			for j, it := range items {
				items[j] = absIfFile(it)
			}
			value = strings.Join(items, ",")
		}
		out[i] = "-" + name + "=" + value
	}
	return out
}

func absIfFile(p string) string {
	if st, err := os.Stat(p); err == nil && st.Mode().IsRegular() {
		if abs, err := filepath.Abs(p); err == nil {
			return abs
		}
	}
	return p
}

// checkout returns the repository root and the commit the run is of. In a
// git checkout they come from git; in a copy of the tree without git (a
// GPU host given the tree and a prebuilt binary) the root is the nearest
// directory up from the working directory that holds go.mod, and the
// commit is unknown.
func checkout() (root, commit string, err error) {
	if root, err = gitOutput("rev-parse", "--show-toplevel"); err == nil {
		if commit, err = gitOutput("rev-parse", "HEAD"); err != nil {
			return "", "", fmt.Errorf("reading the commit: %w", err)
		}
		if st, _ := gitOutput("status", "--porcelain", "--untracked-files=no"); st != "" {
			commit += " (with uncommitted changes)"
		}
		return root, commit, nil
	}
	dir, werr := os.Getwd()
	if werr != nil {
		return "", "", fmt.Errorf("finding the repository root: %v, %w", err, werr)
	}
	for {
		if _, serr := os.Stat(filepath.Join(dir, "go.mod")); serr == nil {
			return dir, "unknown (not a git checkout)", nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", "", fmt.Errorf("finding the repository root: not a git checkout (%v) and no go.mod above the working directory", err)
		}
		dir = parent
	}
}

// binaryCommit reads the COMMIT file that make gpu-bins writes beside the
// binaries it builds. A prebuilt binary holds that commit's code whatever
// the checkout it runs in, so its commit is the one a run's header names.
func binaryCommit(bin string) (string, bool) {
	b, err := os.ReadFile(filepath.Join(filepath.Dir(bin), "COMMIT"))
	c := strings.TrimSpace(string(b))
	if err != nil || c == "" {
		return "", false
	}
	return c + " (prebuilt " + filepath.Base(bin) + ")", true
}

func gitOutput(args ...string) (string, error) {
	out, err := exec.Command("git", args...).Output()
	return strings.TrimSpace(string(out)), err
}

// configValue returns the value of the first "key: value" line.
func configValue(out []byte, key string) string {
	for _, line := range strings.Split(string(out), "\n") {
		if v, ok := strings.CutPrefix(line, key+": "); ok {
			return strings.TrimSpace(v)
		}
	}
	return ""
}

func shellJoin(args []string) string {
	q := make([]string, len(args))
	for i, a := range args {
		if strings.ContainsAny(a, "^$ *'\"") {
			a = "'" + strings.ReplaceAll(a, "'", `'\''`) + "'"
		}
		q[i] = a
	}
	return strings.Join(q, " ")
}
