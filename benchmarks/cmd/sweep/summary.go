package main

import (
	"fmt"
	"io"
	"strings"

	"github.com/convbench/convbench/results"
	"github.com/convbench/convbench/runfile"
)

// printSummary writes the summary table of run r to w (results.Summary:
// a column for every axis the run varies, each case's median with its
// interval, its speed-up over the baseline variant, whether its lines
// agree, the legend), then how many cases are
// unstable and what their lines record as the cause (unstableNotes), the
// cases skipped as unsupported with their reasons (unsupportedNotes), and
// the cases that failed.
func printSummary(w io.Writer, r *results.Run, baseline string) error {
	t := results.Summary(r, baseline)
	if err := t.RenderTerminal(w); err != nil {
		return err
	}
	notes := unstableNotes(r)
	notes = append(notes, unsupportedNotes(r)...)
	notes = append(notes, failureNotes(r.Failures)...)
	for _, n := range notes {
		if err := printWrapped(w, n); err != nil {
			return err
		}
	}
	return nil
}

// unsupportedNotes are the summary's lines on the cases r skipped because
// their variants refused them as unsupported at plan time: their count,
// then one line a case, its variant, size, filter, timing and the name's
// other keys that are set, with the reason.
func unsupportedNotes(r *results.Run) []string {
	if len(r.Unsupported) == 0 {
		return nil
	}
	notes := []string{fmt.Sprintf("%s unsupported, skipped: their variants refuse them at plan time", plural(len(r.Unsupported), "case"))}
	for _, u := range r.Unsupported {
		notes = append(notes, "  "+caseLabel(u.Keys)+": "+u.Reason)
	}
	return notes
}

// caseLabel names a case by the values of its name's keys: variant, size,
// filter, type and timing, then those of block, border, channels, layout,
// cache, mem, opts, tune and gpus that are set (not "none" or "default",
// nor the usual zero border, one channel, interleaved layout and hot
// cache).
func caseLabel(keys map[string]string) string {
	parts := []string{keys["variant"], keys["size"], keys["filter"], keys["type"], keys["timing"]}
	usual := map[string]string{"border": "zero", "ch": "1", "layout": "interleaved", "cache": "hot"}
	for _, k := range []string{"block", "border", "ch", "layout", "cache", "mem", "opts", "tune", "gpus"} {
		v := keys[k]
		if v == "" || v == "none" || v == "default" || usual[k] == v {
			continue
		}
		parts = append(parts, k+"="+v)
	}
	return strings.Join(parts, " ")
}

// failureNotes are the summary's lines on the failed cases of a run,
// their "--- FAIL" lines: their count, then one line a case that names
// it by caseLabel (the file has the whole line).
func failureNotes(failures []string) []string {
	if len(failures) == 0 {
		return nil
	}
	notes := []string{fmt.Sprintf("%s FAILED (the run's file has their output):", plural(len(failures), "case"))}
	for _, f := range failures {
		name, _, _ := strings.Cut(strings.TrimSpace(strings.TrimPrefix(f, "--- FAIL:")), " ")
		if keys, err := runfile.Parse(name); err == nil {
			f = caseLabel(keys)
		}
		notes = append(notes, "  "+f)
	}
	return notes
}

// unstableNotes are the summary's lines on the cases of r whose lines
// disagree (results.Run.Unstable): how many, and how many of them each
// cause their lines record accounts for, the unmeasured last.
func unstableNotes(r *results.Run) []string {
	unstable := r.Unstable()
	if len(unstable) == 0 {
		return nil
	}
	count := map[results.Cause]int{}
	for _, u := range unstable {
		count[u.Cause]++
	}
	var by []string
	for _, c := range results.Causes() {
		if n := count[c]; n > 0 {
			by = append(by, fmt.Sprintf("%d %s", n, c))
		}
	}
	return []string{
		fmt.Sprintf("%s UNSTABLE: their lines differ by more than each line's own interval and the -noise target allow; trust their spread, not their median spread", plural(len(unstable), "case")),
		"  by cause: " + strings.Join(by, "; "),
	}
}

// plural is "1 case" or "n cases".
func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}
