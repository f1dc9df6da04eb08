package benchmarks

import (
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/convbench/convbench/convolve"
	"github.com/convbench/convbench/gpu/userkernel"
	_ "github.com/convbench/convbench/internal/allvariants" // every variant family
	"github.com/convbench/convbench/runfile"
)

var (
	sweepFlag      = flag.String("sweep", "default", "the preset of cases BenchmarkConv runs (see Presets); axis flags given beside it replace its axes, and axis flags without it build the sweep alone")
	listFlag       = flag.Bool("list", false, "print every variant with its capabilities and every preset with its axes, and exit")
	gpuFlag        = flag.Int("gpu", 0, "CUDA device ordinal; the GPU variants run on device 0 only (pick another GPU with CUDA_VISIBLE_DEVICES)")
	axisFlags      = func() *Axes { a := new(Axes); registerAxisFlags(flag.CommandLine, a); return a }()
	cpuCapFlag     = flag.Int64("cpu-cap", DefaultCPUCap, "largest multiply-adds per run of a CPU case; 0 means no cap")
	cpuThreadsFlag = flag.Int("cpu-threads", runtime.NumCPU(), "GOMAXPROCS while a CPU variant runs (testing's -cpu 1 would serialise cpu-fast)")
	seedFlag       = flag.Uint64("seed", 42, "seed of the input noise")

	noiseFlag      = flag.Float64("noise", DefaultNoise.Target, "target spread of a result line's median, percent: the half-width of its 95% confidence interval (see Noise)")
	noiseFloorFlag = flag.Duration("noise-floor", DefaultNoise.Floor, "medians below this are held to the -noise width of this time instead of their own")
	minSamplesFlag = flag.Int("min-samples", DefaultNoise.MinSamples, "samples of a result line before its spread is tested")
	maxTimeFlag    = flag.Duration("max-time", DefaultNoise.MaxTime, "time limit of one result line's sampling (it still takes at least 6 samples)")
	sampleTimeFlag = flag.Duration("sample-time", DefaultNoise.SampleTime, "least duration of one sample: shorter runs are timed in batches")
	minTimeFlag    = flag.Duration("min-time", DefaultNoise.MinTime, "least sampling time of a result line whose median is below -noise-floor (see Noise)")
	warmUpFlag     = flag.Duration("warm-up", DefaultNoise.WarmUp, "time a case's runs are timed and discarded before its first result line")
	maxRetakesFlag = flag.Int("max-retakes", defaultMaxRetakes, "samples of a result line taken below 90% of the max SM clock that are discarded and taken again; later ones are kept and counted")

	proveTimeoutFlag = flag.Duration("prove-timeout", DefaultProveTimeout, "longest the property suite may run on one user kernel (-kernel) before it is killed and the kernel refused as a hang; 0 means no limit")
)

// kernelFlag holds the user kernels -kernel added.
var kernelFlag = RegisterKernelFlag(flag.CommandLine)

// FlagKernels are the user kernels the -kernel flags of this test binary
// added (for TestUserKernels).
func FlagKernels() []*userkernel.Kernel { return kernelFlag.Kernels() }

// bench is the state of the benchmark run, set up by TestMain when
// -test.bench is given.
var bench struct {
	runner *Runner
	cases  []Case
	// refused holds, by variant, why a user kernel's cases are not timed.
	refused map[string]string
}

func TestMain(m *testing.M) {
	// -kernel adds variants that -variants may name, wherever it stands.
	if err := ParseKernelFlags(flag.CommandLine, os.Args[1:]); err != nil {
		fmt.Fprintln(os.Stderr, "benchmarks:", err)
		os.Exit(2)
	}
	flag.Parse()
	if *listFlag {
		if err := WriteList(os.Stdout, convolve.Variants()); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(2)
		}
		os.Exit(0)
	}
	if err := ValidateGPU(*gpuFlag); err != nil {
		fmt.Fprintln(os.Stderr, "benchmarks:", err)
		os.Exit(2)
	}
	if f := flag.Lookup("test.bench"); f != nil && selectsBenchmark(f.Value.String(), "BenchmarkConv") {
		if err := setupBench(os.Stdout, os.Stderr); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(2)
		}
	}
	code := m.Run()
	if bench.runner != nil {
		if err := bench.runner.Close(); err != nil {
			fmt.Fprintln(os.Stderr, "[benchmarks] releasing the last case:", err)
		}
	}
	os.Exit(code)
}

// setupBench finds the host's devices, expands the preset and prints the
// configuration lines (stdout) and what was left out (stdout as comments,
// and stderr). Its stderr lines start with "[benchmarks]", or with words
// and a space before any colon, so that output read with both streams
// merged (go test -bench 2>&1) holds no stray configuration line.
func setupBench(stdout, stderr io.Writer) error {
	name := *sweepFlag
	sweepGiven := false
	flag.Visit(func(f *flag.Flag) { sweepGiven = sweepGiven || f.Name == "sweep" })
	if axisFlags.Set() && !sweepGiven {
		name = ""
	}
	preset, err := BuildSweep(name, *axisFlags)
	if err != nil {
		return err
	}
	noise := Noise{Target: *noiseFlag, Floor: *noiseFloorFlag, MinSamples: *minSamplesFlag, MaxTime: *maxTimeFlag, SampleTime: *sampleTimeFlag,
		MinTime: *minTimeFlag, WarmUp: *warmUpFlag}
	if err := noise.Validate(); err != nil {
		return err
	}
	if *maxRetakesFlag < 0 {
		return fmt.Errorf("benchmarks: -max-retakes=%d: must not be negative", *maxRetakesFlag)
	}
	if *proveTimeoutFlag < 0 {
		return fmt.Errorf("benchmarks: -prove-timeout=%v: must not be negative (0 means no limit)", *proveTimeoutFlag)
	}
	if err := oneCallPerLine(stderr); err != nil {
		return err
	}
	host := openHost(*maxRetakesFlag)
	env := Env{GPU: host.GPU != nil, Pinned: host.Pinned, CPUCap: *cpuCapFlag, Variants: convolve.Variants()}
	if host.GPU != nil {
		env.GPUs = host.GPU.Count
	}
	ex := preset.Expand(env)
	if slices.ContainsFunc(ex.Cases, func(c Case) bool { return !c.GPU }) {
		c := MeasureCPU(*cpuThreadsFlag)
		host.CPU = &c
	}
	for _, l := range configLines(host, preset.Name, *cpuThreadsFlag, *cpuCapFlag) {
		fmt.Fprintln(stdout, l)
	}
	if axisFlags.Set() {
		fmt.Fprintln(stdout, runfile.ConfigLine(runfile.KeySweepAxes, axisFlags.FlagString()))
	}
	fmt.Fprintln(stdout, runfile.ConfigLine(runfile.KeyNoise, noise.String()))
	for _, l := range host.Guard.ConfigLines() {
		fmt.Fprintln(stdout, l)
	}
	if host.GPU != nil {
		if host.Guard.On() {
			fmt.Fprintf(stderr, "[benchmarks] clock guard on: GPU samples below %d MHz (90%% of %d MHz) are discarded and taken again, at most %d per line\n",
				host.Guard.LimitMHz(), host.Guard.MaxMHz, host.Guard.MaxRetakes)
		} else {
			fmt.Fprintf(stderr, "[benchmarks] clock guard off (%s): GPU samples are kept whatever the SM clock\n", host.Guard.Off)
		}
	}
	for _, l := range unitLines() {
		fmt.Fprintln(stdout, l)
	}
	if host.GPU == nil {
		fmt.Fprintf(stderr, "[benchmarks] no GPU (%s): running the CPU variants only\n", host.NoGPUReason)
		fmt.Fprintln(stdout, runfile.NoGPULine(host.NoGPUReason))
	}
	for _, n := range ex.Notes {
		fmt.Fprintln(stdout, "# "+n)
		fmt.Fprintln(stderr, "[benchmarks] "+n)
	}
	for _, l := range kernelFlag.Lines() {
		fmt.Fprintln(stdout, "# "+l)
	}
	if c, ok := timelineCase(ex.Cases); ok && host.Device != nil {
		fmt.Fprintf(stderr, "[benchmarks] timeline of one overlapped run of %s\n", c.Name())
		if err := writeTimeline(stdout, host.Device, c, *seedFlag); err != nil {
			fmt.Fprintf(stdout, "# timeline of %s: %v\n", c.Name(), err)
			fmt.Fprintln(stderr, "[benchmarks] timeline:", err)
		}
	}
	bench.refused = proveUserKernels(kernelFlag, ex.Cases, stdout, stderr)
	bench.cases = ex.Cases
	selected := selectedCases(ex.Cases)
	if len(selected) == 0 && len(ex.Cases) > 0 {
		fmt.Fprintf(stderr, "[benchmarks] -test.bench %q and -test.skip %q select none of the sweep's %d cases, named as %s\n",
			flagValue("test.bench"), flagValue("test.skip"), len(ex.Cases), "BenchmarkConv/"+ex.Cases[0].Name())
	}
	if host.GPU != nil {
		timed := slices.DeleteFunc(slices.Clone(selected), func(c Case) bool { return bench.refused[c.Variant] != "" })
		if err := precompile(timed, runtime.NumCPU(), stderr); err != nil {
			fmt.Fprintln(stderr, "[benchmarks]", err)
		}
	}
	bench.runner = &Runner{
		Device:     host.Device,
		Peaks:      host.Peaks(),
		CPUThreads: *cpuThreadsFlag,
		Progress:   newProgress(stderr, preset.Name, len(selected), time.Now()),
		Seed:       *seedFlag,
		Noise:      noise,
		Guard:      host.Guard,
		Energy:     host.Energy,
		Settings:   stdout,
		// A case its variant refuses at plan time is a comment line
		// of the run, beside the fault and no-GPU lines.
		Unsupported: stdout,
	}
	return nil
}

// oneCallPerLine sets -test.benchtime to 1x: Runner.Run samples each
// result line until its noise target or time limit, so testing must call
// it once per line rather than grow b.N to a benchtime. A benchtime given
// on the command line is replaced, and stderr says so.
func oneCallPerLine(stderr io.Writer) error {
	f := flag.Lookup("test.benchtime")
	if f == nil || f.Value.String() == "1x" {
		return nil
	}
	given := false
	flag.Visit(func(v *flag.Flag) { given = given || v.Name == "test.benchtime" })
	old := f.Value.String()
	if err := f.Value.Set("1x"); err != nil {
		return fmt.Errorf("benchmarks: setting -test.benchtime=1x: %v", err)
	}
	if given {
		fmt.Fprintf(stderr, "[benchmarks] -test.benchtime=%s replaced by 1x: each result line is one sample set, taken until -noise or -max-time\n", old)
	}
	return nil
}

// BenchmarkConv runs the cases of the sweep the flags build (BuildSweep).
func BenchmarkConv(b *testing.B) {
	if bench.runner == nil {
		b.Skip("no sweep set up")
	}
	for _, c := range bench.cases {
		b.Run(c.Name(), func(b *testing.B) {
			if why := bench.refused[c.Variant]; why != "" {
				b.Fatalf("%s: not timed: %s", c.Variant, why)
			}
			bench.runner.Run(b, c)
		})
	}
	bench.runner.Finish(time.Now())
}

// proveUserKernels runs the property suite (ProveKernels, in a child run
// of this binary) on the user kernels of kf that have cases, and returns, by
// variant, why those it did not prove are refused. Each verdict is a
// comment line on stdout and a line on stderr.
func proveUserKernels(kf *KernelFlag, cases []Case, stdout, stderr io.Writer) map[string]string {
	count := map[string]int{}
	var names []string
	for _, k := range kf.Kernels() {
		for _, c := range cases {
			if c.Variant == k.Spec.Name {
				count[k.Spec.Name]++
			}
		}
		if count[k.Spec.Name] > 0 {
			names = append(names, k.Spec.Name)
		}
	}
	if len(names) == 0 {
		return nil
	}
	refused := map[string]string{}
	exe, err := os.Executable()
	if err != nil {
		for _, n := range names {
			refused[n] = "not proven: finding this test binary to run the property suite: " + err.Error()
		}
		return refused
	}
	extra := kf.Args()
	flag.Visit(func(f *flag.Flag) {
		if strings.HasPrefix(f.Name, "convtest.") || f.Name == "test.short" {
			extra = append(extra, "-"+f.Name+"="+f.Value.String())
		}
	})
	fmt.Fprintf(stderr, "[benchmarks] proving the user kernels %s with the property suite before timing them\n", strings.Join(names, ", "))
	for _, p := range ProveKernels(exe, names, extra, *proveTimeoutFlag, stderr) {
		var line string
		if p.Proven() {
			line = fmt.Sprintf("user kernel %s: passed the property suite; its %d cases are timed", p.Variant, count[p.Variant])
		} else {
			refused[p.Variant] = p.Refusal()
			line = fmt.Sprintf("user kernel %s: refused: %s; its %d cases are not timed", p.Variant, p.Refusal(), count[p.Variant])
		}
		fmt.Fprintln(stdout, "# "+line)
		fmt.Fprintln(stderr, "[benchmarks] "+line)
	}
	return refused
}

// binaryWithoutGPU is a command that runs this test binary with args
// and no CUDA driver to find (CONVBENCH_LIBCUDA names none), so that its
// benchmarks set up as on a machine without a GPU; it skips the test
// where the binary cannot be found.
func binaryWithoutGPU(t *testing.T, args ...string) *exec.Cmd {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Skip("cannot find the test binary: " + err.Error())
	}
	cmd := exec.Command(exe, args...)
	cmd.Env = append(os.Environ(), "CONVBENCH_LIBCUDA=/nonexistent/libcuda.so.1")
	return cmd
}

// TestNoSweepForNoBenchmark runs this test binary as convtest's shrinking
// children run it, -test.bench=^$ after the parent's flags: it must set up
// no sweep (no configuration lines, no proofs of user kernels), so that a
// child checks its one case and nothing more.
func TestNoSweepForNoBenchmark(t *testing.T) {
	if testing.Short() {
		t.Skip("runs this test binary again; -short")
	}
	out, err := exec.Command(os.Args[0], "-test.run=^$", "-test.bench=.", "-test.bench=^$").CombinedOutput()
	if err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	for _, l := range strings.Split(string(out), "\n") {
		if strings.HasPrefix(l, "Unit ") || strings.HasPrefix(l, "[benchmarks]") {
			t.Errorf("a run that selects no benchmark set up a sweep: %q", l)
		}
	}
}
