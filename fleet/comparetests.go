package fleet

import (
	"bufio"
	"cmp"
	"fmt"
	"io"
	"path/filepath"
	"sort"
	"strings"
)

// TestsComparison is the tests run's packages across slugs, from each
// slug's tests-summary.txt (gpurun's "<import path> pass=N fail=N skip=N
// secs=S cpu-s=C" lines, cpu-s optional, and its last "total wall-s=S
// cache=C").
type TestsComparison struct {
	Slugs    []string
	Packages []string
	Cells    map[string]map[string]string // package -> slug -> "pass/fail/skip secs"
	Totals   map[string]string            // slug -> "wall-s=S cache=C"
}

// compareTests reads the tests summaries, each at SLUG/JOBNAME/tests-summary.txt
// under a logs directory.
func compareTests(summaries []string) (*TestsComparison, error) {
	c := &TestsComparison{Cells: map[string]map[string]string{}, Totals: map[string]string{}}
	seen := map[string]bool{}
	for _, path := range summaries {
		slug := filepath.Base(filepath.Dir(filepath.Dir(path)))
		c.Slugs = append(c.Slugs, slug)
		if err := c.read(path, slug, seen); err != nil {
			return nil, err
		}
	}
	sort.Strings(c.Slugs)
	sort.Strings(c.Packages)
	return c, nil
}

func (c *TestsComparison) read(path, slug string, seen map[string]bool) error {
	lines, err := readLines(path)
	for _, line := range lines {
		f := strings.Fields(line)
		if len(f) == 3 && f[0] == "total" {
			c.Totals[slug] = f[1] + " " + f[2]
			continue
		}
		kv := map[string]string{}
		for _, field := range f[min(1, len(f)):] {
			k, v, _ := strings.Cut(field, "=")
			kv[k] = v
		}
		if (len(f) != 5 && (len(f) != 6 || kv["cpu-s"] == "")) || kv["pass"] == "" || kv["secs"] == "" {
			return fmt.Errorf("fleet: %s: line %q is not \"<package> pass=N fail=N skip=N secs=S [cpu-s=C]\"", path, line)
		}
		pkg := f[0]
		if !seen[pkg] {
			seen[pkg] = true
			c.Packages = append(c.Packages, pkg)
			c.Cells[pkg] = map[string]string{}
		}
		c.Cells[pkg][slug] = fmt.Sprintf("%s/%s/%s %ss", kv["pass"], kv["fail"], kv["skip"], kv["secs"])
	}
	return err
}

// WriteMarkdown writes the comparison as a Markdown table: a row a
// package, a column a slug, each cell the tests passed/failed/skipped and
// the seconds; the last row the run's wall time.
func (c *TestsComparison) WriteMarkdown(w io.Writer) error {
	bw := bufio.NewWriter(w)
	fmt.Fprintf(bw, "tests run on %d slugs; cell: tests passed/failed/skipped and seconds\n\n", len(c.Slugs))
	fmt.Fprintf(bw, "| package | %s |\n", strings.Join(c.Slugs, " | "))
	fmt.Fprintf(bw, "|---%s|\n", strings.Repeat("|---:", len(c.Slugs)))
	row := func(name string, cell func(slug string) string) {
		cells := make([]string, len(c.Slugs))
		for i, s := range c.Slugs {
			cells[i] = cmp.Or(cell(s), "-")
		}
		fmt.Fprintf(bw, "| %s | %s |\n", name, strings.Join(cells, " | "))
	}
	for _, p := range c.Packages {
		row(p, func(s string) string { return c.Cells[p][s] })
	}
	row("total", func(s string) string { return c.Totals[s] })
	return bw.Flush()
}
