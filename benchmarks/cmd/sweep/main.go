// Command sweep runs one benchmark preset, or a sweep set by axis flags,
// and stores its raw output.
//
// The axis flags of the benchmarks (-variants, -sizes, -filters, -types,
// -channels, -layouts, -borders, -modes, -blocks, -timing, -mem, -image;
// benchmarks.AxisFlags) are checked here and passed on to the binary: beside
// -sweep they replace the preset's axes, without it they make the sweep
// alone. Such a run is stored as <preset>-custom-<digest>.txt, or
// custom-<digest>.txt, the digest being of the axis flags. -list prints
// a table of the variants of each family with their capabilities, and
// every preset with its axes; -gpu
// takes only 0 (the GPU variants run on device 0; pick another GPU with
// CUDA_VISIBLE_DEVICES).
//
// -shard K/N runs only every Nth case of the sweep, from the Kth in its
// order (the others are skipped with -test.skip), and stores the run as
// <name>.shard-K-of-N.txt, so that N sweeps, one a GPU, run a long preset
// between them; -merge FILE... then joins the N shards' files, one whole
// set, into <name>.txt beside them (a header line, then each file as it
// was written) and removes them. It refuses a shard missing or given
// twice, shards of different sweeps or counts, and a case in two of them.
//
// -devices LIST (CUDA device ordinals, such as 0,1,2,3) does both on one
// host: it runs the sweep in one shard per device, all at once, each
// shard's benchmark binary on its device (CUDA_VISIBLE_DEVICES), from one
// test binary built for them all, with each shard's progress lines
// tagged by its device, and stores the merged run as one sweep's
// (<name>.txt, or <name>-2.txt beside an earlier one) with its summary.
// Where a shard writes nothing, or the shards' runs do not merge (two
// models of GPU), the files written are kept and the error says why and
// what is left to run. Each shard's CUDA_VISIBLE_DEVICES replaces any the
// environment sets. It refuses a
// sweep with CPU cases, which the shards would time on the same cores;
// with one device the sweep runs whole on it.
//
//	go run ./benchmarks/cmd/sweep -devices 0,1,2,3 -sweep roofline -count 6
//
// It builds the benchmarks test binary (or takes a prebuilt one with
// -bin), runs it with -test.cpu 1 and the preset, streams progress to
// stderr, writes the unedited output to <data>/<gpu-slug>/<preset>.txt
// behind a header line with the exact command and commit, and prints a
// summary table sorted by variant, size and filter, with a column for
// every axis that varies in the run (the values every case shares in its
// caption), each case's speed-up over the baseline variant of its
// problem (-baseline NAME; by default the reference where the sweep has
// it, else the problem's slowest variant), and each case whose lines
// disagree beyond their own intervals flagged unstable. What it prints
// fits 120 columns: its progress lines name a case by the keys that vary
// across the sweep, and longer lines wrap. Without a GPU the binary
// runs the CPU variants and says so; the file then goes under a cpu-...
// slug.
//
// <data> is results/local/data by default: a user's runs stay out of the
// committed data, which git ignores there, so that the committed report
// stays in step with results/data and git status stays clean. -publish
// writes under results/data instead, the committed runs the report is
// built from (make publish copies results/local/data there); -data names
// any other directory.
//
// -kernel FILE (repeatable) adds a user's CUDA source, described by a
// comment header or a sidecar file (package gpu/userkernel), as the
// variant user-<file name>, which -variants may name. The benchmark binary
// proves it with the whole property suite (package convtest) before it
// times it, each kernel in a run of the suite of its own, and refuses to
// time it, failing its cases with the failed property, when the suite
// fails it; a kernel that crashes its run of the suite (a sticky CUDA
// error) is refused as a crash, one whose run outlasts -prove-timeout
// (default 10m) as a hang, and neither stops the other kernels' proofs
// or the sweep:
//
//	go run ./benchmarks/cmd/sweep -kernel my.cu -variants 'user-.*|gpu-tiled' -sizes 4096x4096 -filters gauss9
//
// The framework's own cost, the time to make a plan with its NVRTC
// compile, is timed by preset plan (every GPU family, a cold plan with the
// compile caches bypassed and a warm one; the default preset times
// gpu-regtile's) or by -timing plan-cold,plan beside any axes (see
// the package doc of benchmarks); the report's section "Plan cost" sets the cold
// plans against the goal of 200 ms:
//
//	go run ./benchmarks/cmd/sweep -sweep plan
//	go run ./benchmarks/cmd/sweep -variants gpu-regtile -timing plan,plan-cold
//
// On a host with the tree but no git or Go, run it with -bin (a binary
// from make gpu-bins); the header then names the commit as unknown.
//
// Each result line is one sample set of its case, sampled until the
// spread of its median is under -noise percent or -max-time passes (see
// benchmarks.Noise); -count sets the lines per case, 6 by default: the
// least for which benchstat gives a case's median its 95% interval.
// Before anything runs, the sweep warns of a -count under that, and
// under 4, with which benchstat's U-test can call no difference between
// two runs significant. A line takes at least six samples, so a case
// whose six samples outlast -max-time overruns it.
//
// Every flag is checked before anything runs: a bad value is one line
// naming the flag, the value and what it wants, and exit status 2. Before
// sampling, the sweep prints its case count and an estimate of its
// duration: one run of each CPU case shape, probed in this process on an
// image of at most 2^18 pixels and scaled by pixels, GPU cases at a
// nominal rate, each of their lines that the energy meter tops up with
// the energy phase it runs where its samples span under a second
// (benchmarks.EstimateSweep, at benchmarks.NominalEnergyMeter); it names the cases that will
// overrun -max-time. While the binary runs, each case's progress line
// says the time left, from the estimates of the cases left scaled by how
// long the finished ones took against theirs (benchmarks.ETA). A run in
// which no case ran writes no file and exits 1 with the reason; a run
// never replaces an earlier file: a second run of the same flags is
// written as <name>-2.txt, then -3, and so on.
//
// -dry-run stops there: it prints the estimate and the cases, by the
// keys of their names that vary between them, and runs and writes
// nothing. A run that wrote its file ends with the command that builds
// the report of its data directory, go run ./results/cmd/report -data
// <data> -out <report>, where <report> is the directory report beside
// <data> (results/local/report for the default data); -report writes
// that report itself (README.md and index.html, as the command does).
//
// A case whose variant refuses it as unsupported when it is planned (a
// *convolve.CapabilityError, such as a stream variant's image whose rows
// do not fit under its cap) is skipped, not failed: the file records it
// in a "# unsupported <case>: <reason>" line, the summary counts those
// cases and names each with its reason, and they do not make the sweep
// fail. Any other error of a case fails it.
//
// A case that ends the benchmark binary (a crash, a signal, or a sticky
// CUDA error after which the process cannot use the device again) or runs
// longer than -case-timeout (a hung kernel: the binary's process group is
// killed) is recorded in the file as failed, with a command that runs it
// alone, and the binary is restarted on the cases not yet run; no case
// runs twice, and the sweep exits 1.
//
//	go run ./benchmarks/cmd/sweep -sweep=default -count=6 -noise=1 -max-time=2s -report
//	go run ./benchmarks/cmd/sweep -variants 'gpu-tiled|npp' -sizes 6000x4000 -filters gauss9,dense9 -types u8,f32
package main

import (
	"bytes"
	"crypto/sha256"
	"errors"
	"flag"
	"fmt"
	"io"
	"maps"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/convbench/convbench/benchmarks"
	"github.com/convbench/convbench/convolve"
	"github.com/convbench/convbench/cudabind"
	_ "github.com/convbench/convbench/internal/allvariants" // every variant family
	"github.com/convbench/convbench/results"
	"github.com/convbench/convbench/runfile"
)

func main() {
	os.Exit(sweepMain(os.Args[1:], os.Stdout, os.Stderr))
}

// Exit statuses: a run that failed, and a command line that is wrong.
const (
	exitFailed = 1
	exitUsage  = 2
)

// hint is the line that follows a usage error.
const hint = "run sweep -h for the flags"

// sweepMain runs the command with args, and returns its exit status: 0,
// exitUsage for a wrong command line (one line naming the flag, then
// hint), or exitFailed for a run that failed.
func sweepMain(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("sweep", flag.ContinueOnError)
	o, err := parseFlags(fs, args)
	if errors.Is(err, flag.ErrHelp) {
		// The flags' own values, not their recorders, so that the
		// usage names each one's type and default.
		fs.VisitAll(func(f *flag.Flag) {
			if r, ok := f.Value.(recorder); ok {
				f.Value = r.Value
			}
		})
		printUsage(stderr, fs)
		return 0
	}
	if err == nil && o.list {
		if err := benchmarks.WriteList(stdout, convolve.Variants()); err != nil {
			fmt.Fprintln(stderr, "sweep:", err)
			return exitFailed
		}
		return 0
	}
	if err == nil && o.merge != nil {
		var path string
		if path, err = mergeShards(o.merge); err == nil {
			fmt.Fprintf(stderr, "sweep: wrote %s\n", path)
			return 0
		}
	} else if err == nil {
		err = run(o, stdout, stderr)
	}
	if err == nil {
		return 0
	}
	printError(stderr, err)
	var fe *flagError
	if errors.As(err, &fe) {
		fmt.Fprintln(stderr, hint)
		return exitUsage
	}
	return exitFailed
}

// printUsage writes what -h prints: the usage line, then every flag
// of fs with its type and default, as flag.PrintDefaults does, each
// description wrapped at results.TerminalWidth.
func printUsage(w io.Writer, fs *flag.FlagSet) {
	fmt.Fprintln(w, "usage: sweep [flags]")
	fs.VisitAll(func(f *flag.Flag) {
		name, usage := flag.UnquoteUsage(f)
		head := "  -" + f.Name
		if name != "" {
			head += " " + name
		}
		switch f.DefValue {
		case "", "0", "0s", "false", "[]":
		default:
			if _, ok := f.Value.(interface{ IsBoolFlag() bool }); !ok || f.DefValue != "false" {
				usage += fmt.Sprintf(" (default %s)", quoteDefault(f))
			}
		}
		fmt.Fprintln(w, head)
		for _, l := range results.Wrap(usage, results.TerminalWidth-6, "") {
			fmt.Fprintln(w, "      "+l)
		}
	})
}

// quoteDefault is f's default as flag.PrintDefaults shows it: quoted
// for a string flag.
func quoteDefault(f *flag.Flag) string {
	if name, _ := flag.UnquoteUsage(f); name == "string" {
		return fmt.Sprintf("%q", f.DefValue)
	}
	return f.DefValue
}

// printError writes err after "sweep: ", wrapped at
// results.TerminalWidth with the lines after the first indented.
func printError(w io.Writer, err error) {
	for _, l := range results.Wrap("sweep: "+err.Error(), results.TerminalWidth, "  ") {
		fmt.Fprintln(w, l)
	}
}

// options are the command's flags, parsed.
type options struct {
	preset        string // "" for a sweep of the axis flags alone
	axes          benchmarks.Axes
	raw           map[string]string // the values the axis flags were given
	args          []string          // the axis and -kernel flags, for the benchmark binary
	count         int
	noise         float64
	maxTime       time.Duration
	cpuCap        int64
	bin, dataDir  string
	publish, list bool
	baseline      string // the variant the summary's speed-ups compare with; "" for the default
	dryRun        bool   // list the cases and the estimate, and run nothing
	report        bool   // write the report of the data directory after the run
	caseTimeout   time.Duration
	proveTimeout  time.Duration // the binary's -prove-timeout, passed when kernels > 0
	kernels       int           // the user kernels -kernel added
	shard         shard         // the part of the cases this run takes (-shard)
	merge         []string      // the shards' files -merge names
	devices       []string      // the CUDA devices -devices spreads the shards over
	// device is the CUDA device a shard of a -devices run takes
	// (CUDA_VISIBLE_DEVICES of its benchmark binary); "" leaves the
	// environment as it is.
	device string
	// built is the test binary a -devices run built once for its shards;
	// nil builds one (or takes -bin).
	built *testBin
}

// flagError is a wrong command line: the flag, the value it was given
// and what is wrong with it, which says what the flag wants.
type flagError struct {
	Name, Value string
	Err         error
}

func (e *flagError) Error() string {
	msg := stripPrefixes(e.Err.Error())
	if strings.HasPrefix(msg, "-"+e.Name+" ") || strings.HasPrefix(msg, "-"+e.Name+":") {
		return msg
	}
	if e.Value == "" {
		return "-" + e.Name + ": " + msg
	}
	return fmt.Sprintf("-%s %s: %s", e.Name, e.Value, msg)
}

func (e *flagError) Unwrap() error { return e.Err }

// stripPrefixes drops the package prefixes ("convolve: ", "benchmarks: ")
// of the errors a flag's parsing wraps, which the flag's name replaces.
func stripPrefixes(msg string) string {
	for _, p := range []string{"convolve: ", "benchmarks: ", "userkernel: "} {
		msg = strings.ReplaceAll(msg, p, "")
	}
	return msg
}

// recorder wraps a flag's value and keeps the error of its first failed
// Set as a *flagError, which the flag package would flatten to text.
type recorder struct {
	flag.Value
	name string
	err  *error
}

func (r recorder) Set(s string) error {
	err := r.Value.Set(s)
	if err != nil && *r.err == nil {
		*r.err = &flagError{Name: r.name, Value: s, Err: err}
	}
	return err
}

// String is the wrapped value's, or "" for the zero recorder the flag
// package makes to find a flag's zero value.
func (r recorder) String() string {
	if r.Value == nil {
		return ""
	}
	return r.Value.String()
}

func (r recorder) IsBoolFlag() bool {
	b, ok := r.Value.(interface{ IsBoolFlag() bool })
	return ok && b.IsBoolFlag()
}

// parseFlags defines the command's flags on fs and parses args. The
// -kernel flags are applied first (benchmarks.ParseKernelFlags), so that
// -variants may name the variants they add. Every value is checked
// (checkOptions); a bad one, like an unknown flag, is a *flagError.
func parseFlags(fs *flag.FlagSet, args []string) (*options, error) {
	o := &options{raw: map[string]string{}}
	sweep := fs.String("sweep", "default", "preset to run (-list names them all; plan times cold and warm plans of every GPU family); axis flags beside it replace its axes, and axis flags without it make the sweep alone")
	fs.IntVar(&o.count, "count", DefaultCount, fmt.Sprintf("runs of every case (-test.count); benchstat needs %d for an interval, %d for a significant difference", minIntervalCount, minSignificantCount))
	fs.BoolVar(&o.dryRun, "dry-run", false, "print the cases and the estimated duration, and exit: nothing run, nothing written")
	fs.BoolVar(&o.report, "report", false, "after the run, write the report of the runs under the data directory into report/ beside it (results/local/report)")
	fs.Float64Var(&o.noise, "noise", benchmarks.DefaultNoise.Target, "target spread of each result line's median, percent (the benchmarks' -noise)")
	fs.DurationVar(&o.maxTime, "max-time", benchmarks.DefaultNoise.MaxTime, "time limit of one result line's sampling (the benchmarks' -max-time); a line still takes 6 samples, and the sweep names the cases whose 6 samples outlast it")
	fs.Int64Var(&o.cpuCap, "cpu-cap", benchmarks.DefaultCPUCap, "largest multiply-adds per CPU case; 0 means no cap")
	fs.StringVar(&o.bin, "bin", "", "prebuilt benchmarks test binary; empty builds one with go test -c")
	fs.StringVar(&o.dataDir, "data", "", "directory the run is written under (default <repo>/"+LocalDataDir+", or <repo>/"+PublishedDataDir+" with -publish)")
	fs.BoolVar(&o.publish, "publish", false, "write the run under "+PublishedDataDir+", the committed data the report is built from, instead of "+LocalDataDir)
	fs.DurationVar(&o.caseTimeout, "case-timeout", DefaultCaseTimeout, "time limit of one case (all its lines; the default fits the largest preset case, 6 lines of 2^33 multiply-adds on the CPU); past it the case is a hang: the benchmark binary is killed and started again on the cases left")
	fs.DurationVar(&o.proveTimeout, "prove-timeout", benchmarks.DefaultProveTimeout, "time limit of the property suite on one user kernel (-kernel), which runs before any case; past it the kernel is a hang: its run of the suite is killed and its cases are not timed")
	fs.StringVar(&o.baseline, "baseline", "", "variant the summary's speed-up column compares each case with (default: the reference where a case has it, else the slowest)")
	fs.BoolVar(&o.list, "list", false, "print every variant with its capabilities and every preset with its axes, and exit")
	gpu := fs.Int("gpu", 0, "CUDA device ordinal; the GPU variants run on device 0 only (pick another GPU with CUDA_VISIBLE_DEVICES)")
	fs.Func("shard", "K/N: run shard K of N of the sweep's cases (every Nth in the sweep's order, from the Kth), written as <name>.shard-K-of-N.txt, so that N sweeps, one a GPU (CUDA_VISIBLE_DEVICES), run it between them; -merge joins their files", func(v string) (err error) {
		o.shard, err = parseShard(v)
		return err
	})
	fs.Func("devices", "LIST: run the sweep in one shard per CUDA device of LIST (ordinals such as 0,1,2,3), all at once, each on its device (CUDA_VISIBLE_DEVICES), and merge their runs into one file; GPU cases only", func(v string) (err error) {
		o.devices, err = parseDevices(v)
		return err
	})
	merge := fs.Bool("merge", false, "merge the runs of every shard of one sweep, the files named after the flags (<name>.shard-K-of-N.txt), into <name>.txt beside them, and remove them")
	for _, f := range benchmarks.AxisFlags() {
		fs.Func(f.Name, f.Usage, func(s string) error {
			o.raw[f.Name] = s
			return f.Apply(&o.axes, s)
		})
	}
	kernels := benchmarks.RegisterKernelFlag(fs)
	var bad error
	fs.VisitAll(func(f *flag.Flag) { f.Value = recorder{Value: f.Value, name: f.Name, err: &bad} })
	fs.SetOutput(io.Discard)
	fs.Usage = func() {}
	if err := benchmarks.ParseKernelFlags(fs, args); err != nil {
		return nil, &flagError{Name: "kernel", Err: err}
	}
	if err := fs.Parse(args); err != nil {
		return nil, parseError(err, bad)
	}
	if *merge {
		if fs.NArg() == 0 {
			return nil, &flagError{Name: "merge", Err: errors.New("names no file: want the shards' runs, such as data/nvidia-h100/roofline.shard-*.txt")}
		}
		o.merge = fs.Args()
		return o, nil
	}
	if fs.NArg() > 0 {
		return nil, &flagError{Name: fs.Arg(0), Err: errors.New("not a flag: the sweep takes flags only, and file names after -merge")}
	}
	if o.list {
		return o, nil
	}
	if o.devices != nil && given(fs, "shard") {
		return nil, &flagError{Name: "devices", Value: strings.Join(o.devices, ","), Err: errors.New("makes its own shards, one a device: leave out -shard")}
	}
	if err := benchmarks.ValidateGPU(*gpu); err != nil {
		return nil, &flagError{Name: "gpu", Value: fmt.Sprint(*gpu), Err: err}
	}
	o.preset, o.args = *sweep, axisArgs(o.raw)
	if len(o.args) > 0 && !given(fs, "sweep") {
		o.preset = ""
	}
	o.args = append(o.args, kernels.Args()...)
	o.kernels = len(kernels.Kernels())
	if err := checkOptions(o); err != nil {
		return nil, err
	}
	return o, nil
}

// parseError is the *flagError of a failed fs.Parse: the one a flag's
// value recorded, or the flag package's own (an unknown flag, a missing
// value), reworded.
func parseError(err, recorded error) error {
	if errors.Is(err, flag.ErrHelp) {
		return err
	}
	if recorded != nil {
		return recorded
	}
	msg := err.Error()
	if name, ok := strings.CutPrefix(msg, "flag provided but not defined: -"); ok {
		return &flagError{Name: name, Err: errors.New("no such flag")}
	}
	if name, ok := strings.CutPrefix(msg, "flag needs an argument: -"); ok {
		return &flagError{Name: name, Err: errors.New("needs a value")}
	}
	return &flagError{Name: "?", Err: err}
}

// checkOptions checks the values the flag package cannot: the sampling
// rule, -count, -cpu-cap, the preset, the image sizes against
// convolve.MaxImageBytes and -bin.
func checkOptions(o *options) error {
	switch {
	case o.count < 1:
		return &flagError{Name: "count", Value: fmt.Sprint(o.count), Err: errors.New("want 1 or more result lines per case")}
	case !(o.noise > 0) || math.IsInf(o.noise, 1):
		return &flagError{Name: "noise", Value: fmt.Sprint(o.noise), Err: errors.New("want a positive percentage, such as 1")}
	case o.maxTime <= 0:
		return &flagError{Name: "max-time", Value: o.maxTime.String(), Err: errors.New("want a positive duration, such as 2s")}
	case o.caseTimeout <= 0:
		return &flagError{Name: "case-timeout", Value: o.caseTimeout.String(), Err: errors.New("want a positive duration, such as 10m")}
	case o.proveTimeout <= 0:
		return &flagError{Name: "prove-timeout", Value: o.proveTimeout.String(), Err: errors.New("want a positive duration, such as 10m")}
	case o.cpuCap < 0:
		return &flagError{Name: "cpu-cap", Value: fmt.Sprint(o.cpuCap), Err: errors.New("want 0 (no cap) or a positive count of multiply-adds")}
	}
	if o.baseline != "" {
		if _, err := convolve.Lookup(o.baseline); err != nil {
			return &flagError{Name: "baseline", Value: o.baseline, Err: err}
		}
	}
	if _, err := benchmarks.BuildSweep(o.preset, o.axes); err != nil {
		name := "sweep"
		if o.axes.Image != nil {
			name = "image"
		}
		return &flagError{Name: name, Value: o.preset, Err: err}
	}
	if err := checkSizes(o.axes, o.raw["sizes"]); err != nil {
		return err
	}
	if o.bin != "" {
		st, err := os.Stat(o.bin)
		switch {
		case err != nil:
			return &flagError{Name: "bin", Value: o.bin, Err: errors.New("no such test binary (make gpu-bins builds one; without -bin the sweep builds it)")}
		case !st.Mode().IsRegular() || st.Mode().Perm()&0o111 == 0:
			return &flagError{Name: "bin", Value: o.bin, Err: errors.New("not an executable file: want the benchmarks test binary")}
		}
	}
	return nil
}

// checkSizes refuses the sizes of -sizes (value) whose images, in the
// widest type and most channels of axes, exceed convolve.MaxImageBytes.
func checkSizes(axes benchmarks.Axes, value string) error {
	types := axes.Types
	if len(types) == 0 {
		types = []convolve.ElemType{convolve.Float32}
	}
	ch := 1
	for _, c := range axes.Channels {
		ch = max(ch, c)
	}
	for _, sz := range axes.Sizes {
		for _, t := range types {
			g := convolve.Geometry{Width: sz[0], Height: sz[1], Channels: ch, Type: t, Layout: convolve.Interleaved}
			var se *convolve.SizeError
			if err := g.Validate(); errors.As(err, &se) {
				return &flagError{Name: "sizes", Value: value, Err: fmt.Errorf("a %dx%d %v image of %d channel(s) is %v bytes, above the limit of one image, %d bytes (16 GiB, convolve.MaxImageBytes)",
					sz[0], sz[1], t, ch, se.Bytes, se.Limit)}
			}
		}
	}
	return nil
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

// A testBin is the benchmarks test binary a sweep runs: its path, the
// steps that built it for the run's header, and cleanup, which removes
// it where the sweep built it.
type testBin struct {
	path    string
	steps   []string
	cleanup func()
}

// buildTestBinary returns the benchmarks test binary to run: bin, made
// absolute, or one built into a temporary directory that its cleanup
// removes, with the build step for the header.
func buildTestBinary(root, bin string, stderr io.Writer) (*testBin, error) {
	if bin != "" {
		abs, err := filepath.Abs(bin)
		return &testBin{path: abs, cleanup: func() {}}, err
	}
	tmp, err := os.MkdirTemp("", "convbench-sweep")
	if err != nil {
		return nil, err
	}
	cleanup := func() { os.RemoveAll(tmp) }
	path := filepath.Join(tmp, "benchmarks.test")
	build := exec.Command("go", "test", "-c", "-o", path, "./benchmarks")
	build.Dir = root
	build.Env = append(os.Environ(), "CGO_ENABLED=0")
	build.Stdout, build.Stderr = stderr, stderr
	if err := build.Run(); err != nil {
		cleanup()
		return nil, fmt.Errorf("building the benchmarks test binary: %w", err)
	}
	return &testBin{path: path, steps: []string{"CGO_ENABLED=0 go test -c -o benchmarks.test ./benchmarks"}, cleanup: cleanup}, nil
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

// writeNew writes data to dir/name.txt, or, when that file exists, to
// the first of dir/name-2.txt, -3, ... that does not: an earlier run is
// never replaced. It returns the path written.
func writeNew(dir, name string, data []byte) (string, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	for i := 1; ; i++ {
		path := filepath.Join(dir, name+".txt")
		if i > 1 {
			path = filepath.Join(dir, fmt.Sprintf("%s-%d.txt", name, i))
		}
		f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
		if errors.Is(err, os.ErrExist) {
			continue
		}
		if err != nil {
			return "", err
		}
		if _, err := f.Write(data); err != nil {
			f.Close()
			return "", err
		}
		return path, f.Close()
	}
}

// estimate estimates the sweep's cases: the CPU cases by probes in this
// process (benchmarks.Runner.Probe), the GPU cases at a nominal rate.
func estimate(cases []benchmarks.Case, noise benchmarks.Noise, count int, stderr io.Writer) benchmarks.SweepEstimate {
	shapes := map[string]bool{}
	for _, c := range cases {
		if !c.GPU {
			shapes[benchmarks.ProbeCase(c).Name()] = true
		}
	}
	if len(shapes) > 0 {
		fmt.Fprintf(stderr, "sweep: probing %d CPU case shapes (one run each, at most %d pixels) for an estimate\n", len(shapes), benchmarks.ProbePixels)
	}
	r := &benchmarks.Runner{CPUThreads: runtime.NumCPU(), Seed: 42}
	probe := func(c benchmarks.Case) (time.Duration, error) { return r.Probe(c, 200*time.Millisecond) }
	return benchmarks.EstimateSweep(cases, noise, count, probe)
}

// maxOverrunLines bounds the overrunning cases printEstimate names.
const maxOverrunLines = 8

// printEstimate writes the case count, the estimated duration of the
// sweep and the cases that will overrun -max-time.
func printEstimate(w io.Writer, name string, e benchmarks.SweepEstimate) {
	low, exp, _ := e.Total()
	gpu, phased := 0, 0
	for _, c := range e.Cases {
		if !c.Probed {
			gpu++
		}
		if c.LowPhase > 0 || c.HighPhase > 0 {
			phased++
		}
	}
	basis := "CPU cases probed, one run each scaled by pixels"
	if gpu > 0 {
		basis += fmt.Sprintf("; %d GPU cases at a nominal rate", gpu)
	}
	if phased > 0 {
		m := benchmarks.NominalEnergyMeter
		basis += fmt.Sprintf("; the lines of %d of them that span under %v add an energy phase of about %v, as on a GPU whose energy counter updates every %v", phased, m.MinSpan, round(m.PhaseEstimate(0, time.Microsecond)), m.Period)
	}
	line := fmt.Sprintf("sweep %s: %d cases, %d lines each; estimated duration about %v with -max-time %v ending the lines, down to %v where they meet -noise %g%% at once (an estimate: %s)",
		name, len(e.Cases), e.Count, round(exp), e.Noise.MaxTime, round(low), e.Noise.Target, basis)
	for _, l := range results.Wrap(line, results.TerminalWidth, "  ") {
		fmt.Fprintln(w, l)
	}
	over := e.Overruns()
	if len(over) > 0 {
		fmt.Fprintf(w, "sweep: %d cases will overrun -max-time %v: a line takes at least %d samples\n", len(over), e.Noise.MaxTime, benchmarks.MinCISamples)
	}
	for i, c := range over {
		if i == maxOverrunLines {
			fmt.Fprintf(w, "  and %d more\n", len(over)-maxOverrunLines)
			break
		}
		fmt.Fprintf(w, "  %s: one sample ~%v, %d samples minimum = %v > -max-time %v\n",
			shortName(c.Case), round(c.Least/benchmarks.MinCISamples), benchmarks.MinCISamples, round(c.Least), e.Noise.MaxTime)
	}
	for _, c := range e.Cases {
		switch ce := new(convolve.CapabilityError); {
		case errors.As(c.Err, &ce):
			fmt.Fprintf(w, "sweep: %s refuses %s as unsupported, the run will skip it: %v\n", c.Case.Variant, shortName(c.Case), c.Err)
		case c.Err != nil:
			fmt.Fprintf(w, "sweep: the probe of %s failed, the run will fail it too: %v\n", shortName(c.Case), c.Err)
		}
	}
}

// shortName names a case by its variant, size, filter and type.
func shortName(c benchmarks.Case) string {
	return fmt.Sprintf("%s %dx%d %s %v", c.Variant, c.Width, c.Height, c.Filter, c.Type)
}

// round rounds a duration for a person: to the second from a minute up,
// to the millisecond under a second, to a tenth of a second between.
func round(d time.Duration) time.Duration {
	switch {
	case d >= time.Minute:
		return d.Round(time.Second)
	case d >= time.Second:
		return d.Round(100 * time.Millisecond)
	}
	return d.Round(time.Millisecond)
}

// progressFilter passes the benchmark binary's stderr through, line by
// line, with the time left on its progress lines (benchmarks.Progress)
// replaced by the ETA's and their case named by label, other lines
// wrapped at results.TerminalWidth, and keeps the last lines that are
// not progress, the reason of a failed run.
type progressFilter struct {
	w   io.Writer
	eta *benchmarks.ETA
	now func() time.Time
	// name and total, when total is set, replace the sweep's name and
	// case count in the binary's progress lines: a shard's (-shard) own,
	// where the binary counts every case of the preset, the other
	// shards' that it skips among them.
	name  string
	total int
	mu    sync.Mutex
	part  []byte
	tail  []string
	// onCase, when set, is called with the case each progress line
	// starts, and "" at the final line.
	onCase func(name string)
	// label, when set, names the case of a progress line on the
	// terminal (benchmarks.CaseLabels: the keys that vary in the sweep).
	label func(name string) string
	// noGPU is whether the binary's line on running without a GPU
	// passed, with its reason.
	noGPU bool
}

// sawNoGPU reports whether the binary's line on running without a GPU,
// which gives the reason, passed through.
func (p *progressFilter) sawNoGPU() bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.noGPU
}

// noGPUPrefix opens the benchmark binary's line on running without a
// GPU, which gives the reason.
const noGPUPrefix = "[benchmarks] no GPU ("

// tailLines is how many of the binary's last stderr lines Tail keeps.
const tailLines = 3

func (p *progressFilter) Write(b []byte) (int, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.part = append(p.part, b...)
	for {
		i := bytes.IndexByte(p.part, '\n')
		if i < 0 {
			return len(b), nil
		}
		p.line(string(p.part[:i]))
		p.part = p.part[i+1:]
	}
}

// Flush passes on a last line without a newline.
func (p *progressFilter) Flush() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if len(p.part) > 0 {
		p.line(string(p.part))
		p.part = nil
	}
}

// Tail is the last lines of the binary that were not progress.
func (p *progressFilter) Tail() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]string(nil), p.tail...)
}

func (p *progressFilter) line(s string) {
	l, ok := benchmarks.ParseProgressLine(s)
	if !ok {
		if strings.HasPrefix(s, noGPUPrefix) {
			p.noGPU = true
		}
		if t := strings.TrimSpace(s); t != "" && !strings.HasPrefix(s, "  ") {
			p.tail = append(p.tail, strings.TrimPrefix(t, "[benchmarks] "))
			if len(p.tail) > tailLines {
				p.tail = p.tail[1:]
			}
		}
		indent := s[:len(s)-len(strings.TrimLeft(s, " "))]
		for _, l := range results.Wrap(s, results.TerminalWidth-len(indent), "  ") {
			fmt.Fprintln(p.w, indent+l)
		}
		return
	}
	if p.onCase != nil {
		p.onCase(l.Case)
	}
	now := p.now()
	if p.total > 0 {
		l.Sweep, l.Total = p.name, p.total
		if l.Case == "" && l.Done >= p.total {
			l.Left = "finished"
		}
	}
	if l.Case == "" {
		p.eta.Finish(now)
	} else if p.eta.Start(l.Case, now) {
		if left, ok := p.eta.Left(now); ok {
			l.Left = fmt.Sprintf("about %v left (estimate)", round(left))
		}
	}
	if p.label != nil && l.Case != "" {
		l.Case = p.label(l.Case)
	}
	fmt.Fprintln(p.w, l.String())
}

// runName is the file name (without .txt) of a run of the sweep called
// name: the preset's name, or for a sweep that axis or -kernel flags set,
// "<name>-<digest>" with the first 8 hex digits of the SHA-256 of those
// arguments, so that runs of different axes keep different files
// (writeNew numbers the reruns of the same axes).
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
		if a == "" || strings.ContainsAny(a, "^$ *'\"|&;()<>\\?[]{}~`!#") {
			a = "'" + strings.ReplaceAll(a, "'", `'\''`) + "'"
		}
		q[i] = a
	}
	return strings.Join(q, " ")
}
