// Command ncusum summarises Nsight Compute's Speed Of Light section, kernel by kernel.
//
// It reads the CSV ncu writes and says where each kernel's time goes
// against the GPU's roofs, and which roof limits it.
//
//	ncu --csv --page details --section SpeedOfLight ./prog >prog.csv
//	ncusum prog.csv
//
// It reads the files named on the command line, or standard input when
// none is named. ncu's details page has a row per profiled kernel launch
// and metric, with the columns "ID", "Kernel Name", "Block Size", "Grid
// Size", "Section Name", "Metric Name", "Metric Unit" and "Metric Value"
// among others. Lines before the header row (the one that starts with
// "ID" in quotes), such as ncu's "==PROF==" lines, comments and the
// profiled program's own output, are skipped, and so are later lines
// that are not CSV rows reaching every column read and at most one field
// wider than the header (ncu ends a metric row at its Metric Value, with
// a trailing comma, and fills the rule columns of rule rows only). A
// field is read from its line alone: a quoted field that spans lines is
// not a row.
//
// For each launch it takes, from the rows of the GPU Speed Of Light
// Throughput section, the kernel's Duration (in microseconds, from
// nanoseconds, microseconds, milliseconds or seconds) and the shares of
// their peaks, in percent, of Compute (SM) Throughput, Memory Throughput,
// DRAM Throughput, L1/TEX Cache Throughput and L2 Cache Throughput. A
// metric a launch lacks, or whose value ncu gives as "n/a", is left
// empty. Numbers may carry thousands separators ("1,234.56"). A launch is
// the rows of one ID (of one process, where the file has a "Process ID"
// column); rows that give a launch a second kernel, block or grid, or a
// metric twice, are an error.
//
// Launches of the same kernel name, block size and grid size form a row
// of the table: the launch count, the median of each figure over the
// launches that have it, the total duration, and the limiter. The
// memory's share is the largest of the Memory, DRAM, L2 and L1/TEX
// shares (ncu's Memory Throughput can be below L1/TEX's). The limiter is
// "compute (SM)" where the SM's share is at least the memory's, else
// "memory" qualified by the unit with the largest share among DRAM, L2
// and L1/TEX ("memory (DRAM)"), with the limiter's share as the share of
// its roof. Rows are sorted by total duration, longest first.
//
// The table is Markdown, written as the report's tables are
// (results.Table): a heading, a caption naming the files, the table and
// its legend; -tsv writes tab-separated values instead, a header
// line and a line a row, the numbers to at most six decimal places.
//
// It exits with status 1 and a line on standard error naming the file
// and line for a value it cannot read, and when no launch is found.
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
	var launches []*launch
	var names []string
	if fs.NArg() == 0 {
		l, err := readLaunches(stdin, "stdin")
		if err != nil {
			return err
		}
		launches, names = l, []string{"stdin"}
	}
	for _, path := range fs.Args() {
		f, err := os.Open(path)
		if err != nil {
			return err
		}
		l, err := readLaunches(f, path)
		f.Close()
		if err != nil {
			return err
		}
		launches = append(launches, l...)
		names = append(names, path)
	}
	kernels := group(launches)
	if *tsv {
		return writeTSV(stdout, kernels)
	}
	return writeMarkdown(stdout, kernels, names)
}
