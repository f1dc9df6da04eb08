// Command compare compares stored benchmark runs, case by case, whenever
// and wherever they were run.
//
//	go run ./benchmarks/cmd/compare [-all] OLD NEW [NEW ...]
//
// Cases pair by the name they are written with today
// (runfile.PairingName: older runs name CPU cases with opts=none, or
// GPU cases without opts), whatever the hosts' configuration lines say.
// For every time metric (sec/op, gpu-sec/op, total-sec/op, ...; -all
// adds every other metric) it prints one table: each case's median in
// every file with its confidence interval, and each later file's change
// against the first, as benchstat does, with the same statistics
// (golang.org/x/perf/benchmath):
//
//   - the interval is distribution-free, made of order statistics, at the
//     level of the sweep's summary (runfile.Confidence, 90%): at
//     benchstat's default 95% the five runs of the sweep's default -count
//     have none, while at 90% they give their range, an interval of
//     93.75% confidence;
//   - a change is printed where the Mann-Whitney U test of the two files'
//     runs gives p <= 0.05 (five runs against five reach p = 0.008), and
//     "~" where it does not; under each table a line per later file
//     counts the cases it shares with the first, those that differ
//     (lower and higher) and those that do not.
//
// Rows name a case by the values of the keys of its name that differ
// between cases, under a header naming the keys. Keys every case shares,
// or leaves at its default, are named once above the tables; a key whose
// value another spells out (k=5 of filter=gauss5) is left out; where the
// columns would be wider than 120, keys move from them into group lines
// above the rows, as few groups as fit. With two files the columns are
// "old" and "new"; with more, "A", "B", ....
//
// It exits with status 2 and one line on standard error for a file it
// cannot read, a file without benchmark results, or files with no case
// in common.
package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
)

// maxWidth is the widest line the tables aim for, in bytes.
const maxWidth = 120

const usage = `usage: compare [-all] OLD NEW [NEW ...]

Compares the medians of every case in the benchmark results files NEW
against OLD: their confidence intervals and whether they differ.
  -all	compare every metric, not only times
`

func main() {
	if err := run(os.Args[1:], os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "compare:", err)
		os.Exit(2)
	}
}

// run compares the files named in args and writes the tables to w.
func run(args []string, w io.Writer) error {
	fs := flag.NewFlagSet("compare", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	all := fs.Bool("all", false, "compare every metric, not only times")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			_, err = io.WriteString(w, usage)
			return err
		}
		return fmt.Errorf("%v (usage: compare [-all] OLD NEW [NEW ...])", err)
	}
	paths := fs.Args()
	if len(paths) < 2 {
		return fmt.Errorf("got %d files, want two or more (usage: compare [-all] OLD NEW [NEW ...])", len(paths))
	}
	var files []*file
	for _, p := range paths {
		f, err := readFile(p)
		if err != nil {
			return err
		}
		files = append(files, f)
	}
	labelFiles(files)
	c, err := newComparison(files, *all)
	if err != nil {
		return err
	}
	return c.write(w)
}
