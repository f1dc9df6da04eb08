package benchmarks

import (
	"flag"
	"fmt"
	"io"
	"os"
	"runtime"
	"testing"
	"time"

	"github.com/convbench/convbench/convolve"
)

var (
	sweepFlag      = flag.String("sweep", "default", "the preset of cases BenchmarkConv runs (see Presets)")
	cpuCapFlag     = flag.Int64("cpu-cap", DefaultCPUCap, "largest multiply-adds per run of a CPU case; 0 means no cap")
	cpuThreadsFlag = flag.Int("cpu-threads", runtime.NumCPU(), "GOMAXPROCS while a CPU variant runs (testing's -cpu 1 would serialise cpu-fast)")
	seedFlag       = flag.Uint64("seed", 42, "seed of the input noise")
)

// bench is the state of the benchmark run, set up by TestMain when
// -test.bench is given.
var bench struct {
	runner *Runner
	cases  []Case
}

func TestMain(m *testing.M) {
	flag.Parse()
	if f := flag.Lookup("test.bench"); f != nil && f.Value.String() != "" {
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
	preset, err := LookupPreset(*sweepFlag)
	if err != nil {
		return err
	}
	host := OpenHost()
	ex := preset.Expand(Env{GPU: host.GPU != nil, Pinned: host.Pinned, CPUCap: *cpuCapFlag, Variants: convolve.Variants()})
	for _, l := range ConfigLines(host, preset.Name, *cpuThreadsFlag, *cpuCapFlag) {
		fmt.Fprintln(stdout, l)
	}
	for _, l := range UnitLines() {
		fmt.Fprintln(stdout, l)
	}
	if host.GPU == nil {
		fmt.Fprintf(stderr, "[benchmarks] no GPU (%s): running the CPU variants only\n", host.NoGPUReason)
		fmt.Fprintf(stdout, "# no GPU: %s; CPU variants only\n", host.NoGPUReason)
	}
	for _, n := range ex.Notes {
		fmt.Fprintln(stdout, "# "+n)
		fmt.Fprintln(stderr, "[benchmarks] "+n)
	}
	bench.cases = ex.Cases
	if host.GPU != nil {
		if err := Precompile(ex.Cases, runtime.NumCPU(), stderr); err != nil {
			fmt.Fprintln(stderr, "[benchmarks]", err)
		}
	}
	bench.runner = &Runner{
		Device:     host.Device,
		Peaks:      host.Peaks(),
		CPUThreads: *cpuThreadsFlag,
		Progress:   NewProgress(stderr, preset.Name, len(ex.Cases), time.Now()),
		Seed:       *seedFlag,
	}
	return nil
}

// BenchmarkConv runs the cases of the -sweep preset.
func BenchmarkConv(b *testing.B) {
	if bench.runner == nil {
		b.Skip("no sweep set up")
	}
	for _, c := range bench.cases {
		b.Run(c.Name(), func(b *testing.B) { bench.runner.Run(b, c) })
	}
	bench.runner.Progress.Finish(time.Now())
}
