// Command report rebuilds a report from stored benchmark runs.
//
// It reads the raw runs under -data (default results/data) and writes into
// -out (default results/report) the report's tables (Markdown, and on the
// terminal with -print) and plots, built by package results, and the same
// report as a web page (package results/htmlreport). It needs no GPU. A
// report of other runs than results/data, such as make bench's under
// results/local/data, opens with each of those runs: every case's median
// with its interval, its speed-up over the baseline variant of its
// problem (-baseline) and whether its runs agree, and its time against
// the axis the run varied. The report links the filter gallery that
// cmd/gallery renders and leaves it as it is.
package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/convbench/convbench/internal/modroot"
	"github.com/convbench/convbench/results"
	"github.com/convbench/convbench/results/htmlreport"
)

func main() {
	err := run(os.Args[1:], os.Stdout, os.Stderr)
	if errors.Is(err, flag.ErrHelp) {
		return
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "report:", err)
		os.Exit(1)
	}
}

// run is the command with its arguments, printing tables to stdout and
// what it did to stderr.
func run(args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("report", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: report [-data DIR] [-out DIR] [-baseline VARIANT] [-print]")
		fs.PrintDefaults()
	}
	data := fs.String("data", "", "directory of stored runs, <host>/<preset>.txt (default <repo>/results/data)")
	out := fs.String("out", "", "directory the report is written to (default <repo>/results/report)")
	print := fs.Bool("print", false, "also print every table of our data on the terminal")
	baseline := fs.String("baseline", "", "variant each run's speed-up column compares its cases with (default: the reference where a case has it, else the slowest)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("unexpected arguments %q", fs.Args())
	}
	root := "."
	if r, _, err := modroot.Find(""); err == nil {
		root = r
	}
	if *data == "" {
		*data = filepath.Join(root, "results", "data")
	}
	if *out == "" {
		*out = filepath.Join(root, "results", "report")
	}
	name := *data
	abs, errData := filepath.Abs(*data)
	absRoot, errRoot := filepath.Abs(root)
	if rel, err := filepath.Rel(absRoot, abs); errData == nil && errRoot == nil && err == nil && !strings.HasPrefix(rel, "..") {
		name = filepath.ToSlash(rel)
	}
	r, err := results.Write(results.Options{DataDir: *data, OutDir: *out, DataName: name, Baseline: *baseline})
	if err != nil {
		return err
	}
	if err := htmlreport.Write(r, *out); err != nil {
		return err
	}
	if *print {
		for _, s := range r.Sections {
			for _, t := range s.Tables {
				if strings.HasPrefix(t.Title, "Published") {
					continue
				}
				t.RenderTerminal(stdout)
			}
		}
	}
	fmt.Fprintf(stderr, "report: %d hosts, wrote %s\n", len(r.Hosts), *out)
	return nil
}
