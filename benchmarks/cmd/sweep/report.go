package main

import (
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"github.com/convbench/convbench/results"
	"github.com/convbench/convbench/results/htmlreport"
)

// reportDir is the directory the report of the runs under dataDir goes
// to: "report" beside it, as make bench's results/local/report is
// beside results/local/data.
func reportDir(dataDir string) string {
	return filepath.Join(filepath.Dir(filepath.Clean(dataDir)), "report")
}

// relTo is path relative to root where it lies under root, else path.
func relTo(root, path string) string {
	abs, err1 := filepath.Abs(path)
	absRoot, err2 := filepath.Abs(root)
	if err1 != nil || err2 != nil {
		return path
	}
	rel, err := filepath.Rel(absRoot, abs)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return path
	}
	return filepath.ToSlash(rel)
}

// reportCommand is the command, run at the repository root, that builds
// the report of the runs under dataDir into out, as make bench does,
// with the speed-ups over the variant named baseline where it is set.
func reportCommand(root, dataDir, out, baseline string) string {
	args := []string{"go", "run", "./results/cmd/report", "-data", relTo(root, dataDir), "-out", relTo(root, out)}
	if baseline != "" {
		args = append(args, "-baseline", baseline)
	}
	return shellJoin(args)
}

// finishReport ends a sweep that wrote a run under dataDir: with write,
// it writes the report of every run there into reportDir(dataDir), as
// results/cmd/report does (results.Write and htmlreport.Write), its
// speed-ups over the variant named baseline ("" for the default), and
// says where; without, it prints the command that writes it, wrapped
// at results.TerminalWidth.
func finishReport(w io.Writer, root, dataDir, baseline string, write bool) error {
	out := reportDir(dataDir)
	if !write {
		msg := fmt.Sprintf("sweep: its report: %s (or run the sweep with -report)", reportCommand(root, dataDir, out, baseline))
		printWrapped(w, msg)
		return nil
	}
	r, err := results.Write(results.Options{DataDir: dataDir, OutDir: out, DataName: relTo(root, dataDir), Baseline: baseline})
	if err != nil {
		return fmt.Errorf("writing the report of %s: %w", dataDir, err)
	}
	if err := htmlreport.Write(r, out); err != nil {
		return fmt.Errorf("writing the report of %s: %w", dataDir, err)
	}
	fmt.Fprintf(w, "sweep: wrote the report of %s: %s, and %s to open in a browser\n",
		relTo(root, dataDir), relTo(root, filepath.Join(out, "README.md")), relTo(root, filepath.Join(out, "index.html")))
	return nil
}
