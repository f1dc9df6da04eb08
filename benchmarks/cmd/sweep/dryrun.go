package main

import (
	"fmt"
	"io"
	"slices"
	"strings"
	"text/tabwriter"

	"github.com/convbench/convbench/benchmarks"
	"github.com/convbench/convbench/results"
	"github.com/convbench/convbench/runfile"
)

// dryRun prints what the sweep o names would run on this host: its
// estimate (stderr) and its cases (stdout, listCases), and runs no case
// and writes nothing. The estimate probes the CPU case shapes, one run
// each, as a sweep does before it samples.
func dryRun(o *options, stdout, stderr io.Writer) error {
	name, ex, err := expandSweep(o)
	if err != nil {
		return err
	}
	mine, _, err := shardCases(o.shard, ex.Cases)
	if err != nil {
		return err
	}
	for _, n := range ex.Notes {
		fmt.Fprintln(stderr, "sweep: "+n)
	}
	printEstimate(stderr, name, estimate(mine, sweepNoise(o), o.count, stderr))
	if err := listCases(stdout, mine, results.TerminalWidth); err != nil {
		return err
	}
	fmt.Fprintf(stderr, "sweep: dry run of %s: no case run, nothing written\n", name)
	return nil
}

// listCases writes the cases, one a line, by the keys of their names
// (runfile.Keys) whose values differ between them, in columns under a
// heading, after a line that counts them and gives the keys every case
// holds alike, that line wrapped at width. Keys no name carries (those
// a case leaves to their implied values) are left out.
func listCases(w io.Writer, cases []benchmarks.Case, width int) error {
	keys := runfile.Keys()
	rows := make([]map[string]string, len(cases))
	named := map[string]bool{} // the keys some name carries
	for i, c := range cases {
		kv, err := runfile.Parse(c.Name())
		if err != nil {
			return err
		}
		rows[i] = kv
		for _, part := range strings.Split(c.Name(), "/") {
			k, _, _ := strings.Cut(part, "=")
			named[k] = true
		}
	}
	var varying, same []string
	for _, k := range keys {
		if !named[k] {
			continue
		}
		if slices.ContainsFunc(rows, func(r map[string]string) bool { return r[k] != rows[0][k] }) {
			varying = append(varying, k)
		} else {
			same = append(same, k+"="+rows[0][k])
		}
	}
	head := fmt.Sprintf("%d cases", len(cases))
	if len(same) > 0 {
		head += ", each with " + strings.Join(same, " ")
	}
	for _, l := range results.Wrap(head, width, "  ") {
		fmt.Fprintln(w, l)
	}
	if len(varying) == 0 {
		return nil
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, strings.Join(varying, "\t"))
	for _, r := range rows {
		vals := make([]string, len(varying))
		for i, k := range varying {
			vals[i] = r[k]
		}
		fmt.Fprintln(tw, strings.Join(vals, "\t"))
	}
	return tw.Flush()
}
