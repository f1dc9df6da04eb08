package results

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/convbench/convbench/internal/golden"
	"github.com/convbench/convbench/tables"
	"github.com/convbench/convbench/tables/tuning"
)

// sectionsData is a small excerpt of the committed runs, every preset of
// one GPU host and two CPU hosts, a few cases of each with two runs a
// case: the input of every section's golden file (see its README).
const sectionsData = "testdata/sections"

func sectionsHosts(t *testing.T) []*Host {
	t.Helper()
	// The tuner's tables of the excerpt, not those the plans embed, so
	// that a new tuning does not change the golden files.
	saved := tuningTables
	t.Cleanup(func() { tuningTables = saved })
	tuningTables = (&tables.Kind[*tuning.Table]{Name: "tuning", Files: os.DirFS(filepath.Join(sectionsData, "tuning")), Parse: tuning.Parse}).Load
	runs, err := Load(sectionsData)
	if err != nil {
		t.Fatal(err)
	}
	// A checkout gives the files its own times: one time for all keeps
	// the run sections, newest first, in their host and preset order.
	for _, r := range runs {
		r.Modified = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	}
	return GroupHosts(runs)
}

// rendered is what a section puts in the report's Markdown, and whether
// it has anything to show: a table, a plot or a timeline.
func rendered(s *Section) (md string, shows bool) {
	var b bytes.Buffer
	writeSection(&b, s)
	shows = len(s.Tables) > 0 || slices.ContainsFunc(s.Plots, (*Plot).HasData) ||
		slices.ContainsFunc(s.Timelines, (*Timeline).HasData)
	return b.String(), shows
}

// checkGolden compares got with the golden file name under sectionsData,
// which -update rewrites first.
func checkGolden(t *testing.T, name, got string) {
	t.Helper()
	checkGoldenIn(t, sectionsData, name, got)
}

// checkGoldenIn compares got with the golden file dir/name (golden.Check).
func checkGoldenIn(t *testing.T, dir, name, got string) {
	t.Helper()
	golden.Check(t, filepath.Join(dir, name), []byte(got))
}

// Each section renders from the excerpt as its golden file says, as the
// report renders it (a host without a GPU keeping its CPU cases alone).
// A section that shows nothing from the excerpt is a missing input, not
// a pass: the excerpt must hold runs of its preset.
func TestSectionsGolden(t *testing.T) {
	for _, b := range sectionBuilders {
		t.Run(b.name, func(t *testing.T) {
			hosts := sectionsHosts(t)
			s := b.build(hosts)
			keepCPUOnly(hosts, []*Section{s})
			md, shows := rendered(s)
			if !shows {
				t.Fatalf("section %s (preset %s) shows nothing from %s: the excerpt lacks its input", b.name, s.Report, sectionsData)
			}
			checkGolden(t, b.name+".golden", md)
		})
	}
}

// The runs' own sections, which a user's report opens with, one per run.
func TestRunSectionsGolden(t *testing.T) {
	var b strings.Builder
	secs := runSections(sectionsHosts(t), "")
	if len(secs) == 0 {
		t.Fatalf("no run sections from %s", sectionsData)
	}
	for _, s := range secs {
		md, shows := rendered(s)
		if !shows {
			t.Errorf("run section %q shows nothing", s.Title)
		}
		b.WriteString(md)
	}
	checkGolden(t, "runs.golden", b.String())
}

// Sections renders every section of sectionBuilders, in its order, and
// every golden file under testdata/sections is one of theirs.
func TestSectionsGoldenFiles(t *testing.T) {
	hosts := sectionsHosts(t)
	secs := sections(hosts)
	if len(secs) != len(sectionBuilders) {
		t.Fatalf("Sections built %d sections, sectionBuilders lists %d", len(secs), len(sectionBuilders))
	}
	want := map[string]bool{"runs.golden": true}
	for i, b := range sectionBuilders {
		want[b.name+".golden"] = true
		if got := b.build(sectionsHosts(t)); got.Title != secs[i].Title {
			t.Errorf("Sections()[%d] is %q, sectionBuilders[%d] (%s) builds %q", i, secs[i].Title, i, b.name, got.Title)
		}
	}
	files, err := filepath.Glob(filepath.Join(sectionsData, "*.golden"))
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		if !want[filepath.Base(f)] {
			t.Errorf("%s is the golden file of no section", f)
		}
	}
}
