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
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/convbench/convbench/benchmarks"
	"github.com/convbench/convbench/convolve"
	_ "github.com/convbench/convbench/internal/allvariants" // every variant family
	"github.com/convbench/convbench/results"
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

// printError writes err after "sweep: ", wrapped at
// results.TerminalWidth with the lines after the first indented.
func printError(w io.Writer, err error) {
	printWrapped(w, "sweep: "+err.Error())
}

// printWrapped writes s to w wrapped at results.TerminalWidth, every
// line behind the spaces s starts with and the lines after the first
// indented two more, and returns the first error of the writes.
func printWrapped(w io.Writer, s string) error {
	indent := s[:len(s)-len(strings.TrimLeft(s, " "))]
	for _, l := range results.Wrap(s, results.TerminalWidth-len(indent), "  ") {
		if _, err := fmt.Fprintln(w, indent+l); err != nil {
			return err
		}
	}
	return nil
}
