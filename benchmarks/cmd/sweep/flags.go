package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"strings"
	"time"

	"github.com/convbench/convbench/benchmarks"
	"github.com/convbench/convbench/convolve"
	"github.com/convbench/convbench/results"
)

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
