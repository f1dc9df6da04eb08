package main

import (
	"fmt"
	"io"
	"slices"

	"github.com/convbench/convbench/results"
)

// printSummary writes the summary table of run r to w (results.Summary:
// a column for every axis the run varies, each case's median with its
// interval, whether its lines agree, the legend), then how many cases are
// unstable, and the cases that failed.
func printSummary(w io.Writer, r *results.Run) error {
	t := results.Summary(r)
	if err := t.RenderTerminal(w); err != nil {
		return err
	}
	var notes []string
	if n := unstableRows(t); n > 0 {
		notes = append(notes, fmt.Sprintf("%s UNSTABLE: their lines differ by more than each line's own interval allows (a shared or throttling host); trust their spread, not their median spread", plural(n, "case")))
	}
	notes = append(notes, r.Failures...)
	for _, n := range notes {
		if _, err := fmt.Fprintln(w, n); err != nil {
			return err
		}
	}
	return nil
}

// unstableRows counts the rows of summary t whose "runs agree" cell says
// UNSTABLE.
func unstableRows(t *results.Table) int {
	col := slices.Index(t.Header, "runs agree")
	if col < 0 {
		return 0
	}
	n := 0
	for _, row := range t.Rows {
		if col < len(row) && row[col] == "UNSTABLE" {
			n++
		}
	}
	return n
}

// plural is "1 case" or "n cases".
func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}
