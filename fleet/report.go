package fleet

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
)

// WriteReport writes the job's cross-GPU report to w: the tasks left out
// with their failures, then the comparison of what was gathered, the same
// benchmark cases across slugs for a sweep, the packages' tests for the
// tests run.
func (j *Job) WriteReport(w io.Writer, g *Gathered) error {
	var b bytes.Buffer
	fmt.Fprintf(&b, "# Fleet %s: %s across %d targets\n\n", j.Name, j.what(), len(j.Tasks))
	fmt.Fprintf(&b, "%d files gathered from %d done tasks.\n", len(g.Files), len(j.Tasks)-len(g.Left))
	if len(g.Left) > 0 {
		fmt.Fprintf(&b, "\nLeft out, not done:\n\n")
		for _, s := range g.Left {
			fmt.Fprintf(&b, "- %s\n", reportLine(s))
		}
	}
	b.WriteString("\n")
	var c interface{ WriteMarkdown(io.Writer) error }
	var err error
	switch j.Mode {
	case ModeSweep:
		c, err = Compare(g.Files) // a sweep gathers runs (*.txt) only
	case ModeTests:
		c, err = compareTests(g.Summary)
	}
	if err != nil {
		return err
	}
	if c != nil {
		if err := c.WriteMarkdown(&b); err != nil {
			return err
		}
	}
	_, err = w.Write(b.Bytes())
	return err
}

// SaveReport writes the report to fleet-JOBNAME.md under reportDir,
// replacing an earlier one of the same job, and returns its path.
func (j *Job) SaveReport(reportDir string, g *Gathered) (string, error) {
	var b bytes.Buffer
	if err := j.WriteReport(&b, g); err != nil {
		return "", err
	}
	if err := os.MkdirAll(reportDir, 0o755); err != nil {
		return "", err
	}
	path := filepath.Join(reportDir, "fleet-"+j.Name+".md")
	return path, os.WriteFile(path, b.Bytes(), 0o644)
}

// what says what the job runs.
func (j *Job) what() string {
	if j.Mode == ModeTests {
		return "the tests run"
	}
	return fmt.Sprintf("sweep %q", strings.Join(j.SweepArgs, " "))
}

func reportLine(s TaskStatus) string {
	if s.State == Failed {
		return failure(s)
	}
	return fmt.Sprintf("task %d (%s): %s", s.Task.Index, s.Task.Target, s.State)
}
