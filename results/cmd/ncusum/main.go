// Command ncusum summarises Nsight Compute's Speed Of Light section, kernel by kernel.
//
//	ncu --csv --page details --section SpeedOfLight ./prog >prog.csv
//	ncusum prog.csv
//
// It reads the files named, or standard input. For each launch (the rows
// of one ID and process) it takes the Duration and the shares of peak of
// Compute (SM), Memory, DRAM, L1/TEX and L2 Throughput, a missing or "n/a"
// metric left empty. Launches of one kernel name, block and grid form a
// row: the count, the median of each figure, the total duration and the
// limiting roof, longest total first, as a Markdown table or, with -tsv,
// tab-separated values. A value it cannot read, a launch given a second
// kernel, block, grid or metric, or no launch at all is an error.
package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
)

const usage = `usage: ncusum [-tsv] [file.csv ...]

Summarises the Speed Of Light section of Nsight Compute's CSV details page
(ncu --csv --page details --section SpeedOfLight) by kernel: median
duration and throughput shares, and the limiting roof. Reads standard
input when no file is named.
`

func main() {
	err := run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr)
	if errors.Is(err, flag.ErrHelp) {
		return
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "ncusum:", err)
		os.Exit(1)
	}
}

// run is the command with its arguments, reading stdin when no file is
// named and writing the table to stdout.
func run(args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("ncusum", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprint(stderr, usage)
		fs.PrintDefaults()
	}
	tsv := fs.Bool("tsv", false, "write tab-separated values, numbers to six decimal places, instead of a Markdown table")
	if err := fs.Parse(args); err != nil {
		return err
	}
	names := fs.Args()
	if len(names) == 0 {
		names = []string{"stdin"}
	}
	var launches []*launch
	for _, path := range names {
		r := stdin
		if fs.NArg() > 0 {
			f, err := os.Open(path)
			if err != nil {
				return err
			}
			defer f.Close()
			r = f
		}
		l, err := readLaunches(r, path)
		if err != nil {
			return err
		}
		launches = append(launches, l...)
	}
	kernels := group(launches)
	if *tsv {
		return writeTSV(stdout, kernels)
	}
	return writeMarkdown(stdout, kernels, names)
}
