// Command compare compares stored benchmark runs, case by case, whenever
// and wherever they were run.
//
//	go run ./benchmarks/cmd/compare [-all] OLD NEW [NEW ...]
//	go run ./benchmarks/cmd/compare [-all] -col KEY [-baseline VALUE] FILE [FILE ...]
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
// With -col KEY, as benchstat's -col /KEY, it compares within the files
// (one run is enough) instead of between them: a column per value of
// KEY, a key of the cases' names (-col variant: which variant wins, and
// by how much), the files' runs of a case pooled, and rows of the cases
// that differ in their other keys. The first column, the base the others
// are compared with, is -baseline's value; by default the reference
// variant where -col variant finds it, else the value whose cases are
// slowest (the highest geometric mean of their medians over those of
// the same case in the other columns). A column that shares no case with
// the base is left out, and said so.
//
// It exits with status 2 and one line on standard error for a file it
// cannot read, a file without benchmark results, files with no case
// in common, or a -col or -baseline that no case has.
package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
)

// maxWidth is the widest line the tables aim for, in bytes.
const maxWidth = 120

const usage = `usage: compare [-all] OLD NEW [NEW ...]
       compare [-all] -col KEY [-baseline VALUE] FILE [FILE ...]

Compares the medians of every case in the benchmark results files NEW
against OLD: their confidence intervals and whether they differ. With
-col, compares within the files instead: one column per value of the
key KEY of the cases' names (-col variant: variant against variant),
the column of -baseline first and the others against it.
  -all	compare every metric, not only times
  -col KEY	a column per value of KEY (variant, size, type, ...), as benchstat -col /KEY
  -baseline VALUE	the column the others are compared with (default: the reference
	variant where -col variant finds it, else the value whose cases are slowest)
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
	col := fs.String("col", "", "a column per value of this key of the cases' names")
	base := fs.String("baseline", "", "with -col, the column the others are compared with")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			_, err = io.WriteString(w, usage)
			return err
		}
		return fmt.Errorf("%v (%s)", err, shortUsage)
	}
	paths := fs.Args()
	*col = strings.TrimPrefix(*col, "/")
	switch {
	case *col == "" && *base != "":
		return fmt.Errorf("-baseline %s: names a column of -col, which is not given (%s)", *base, shortUsage)
	case *col == "" && len(paths) < 2:
		return fmt.Errorf("got %d files, want two or more, or -col KEY (%s)", len(paths), shortUsage)
	case len(paths) < 1:
		return fmt.Errorf("got no file (%s)", shortUsage)
	}
	var files []*file
	for _, p := range paths {
		f, err := readFile(p)
		if err != nil {
			return err
		}
		files = append(files, f)
	}
	if *col != "" {
		var err error
		if files, err = byKey(files, *col, *base); err != nil {
			return err
		}
	} else {
		labelFiles(files)
	}
	c, err := newComparison(files, *all, *col)
	if err != nil {
		return err
	}
	return c.write(w)
}

// shortUsage is the usage an error about the command line ends with.
const shortUsage = "usage: compare [-all] OLD NEW [NEW ...], or compare [-all] -col KEY [-baseline VALUE] FILE [FILE ...]"
