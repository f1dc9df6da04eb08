package docs

import (
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"
)

// root is the repository root, relative to this package's folder.
const root = "../.."

// maxReadmeLines is the most lines README.md may hold: what a newcomer
// reads in two minutes; the rest belongs under docs/.
const maxReadmeLines = 150

// link matches a Markdown link or image target: [text](target) or
// ![alt](target), the target without spaces.
var link = regexp.MustCompile(`!?\[[^\]]*\]\(([^)\s]+)\)`)

// heading matches a Markdown heading line.
var heading = regexp.MustCompile(`(?m)^#{1,6} +(.+?) *$`)

// pages returns README.md and every Markdown page under docs/, as paths
// relative to the repository root.
func pages(t *testing.T) []string {
	t.Helper()
	docs, err := filepath.Glob(filepath.Join(root, "docs", "*.md"))
	if err != nil {
		t.Fatal(err)
	}
	if len(docs) == 0 {
		t.Fatal("no pages under docs/")
	}
	out := []string{"README.md"}
	for _, d := range docs {
		rel, err := filepath.Rel(root, d)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, filepath.ToSlash(rel))
	}
	sort.Strings(out[1:])
	return out
}

func read(t *testing.T, page string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(page)))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// stripCode removes fenced code blocks and inline code spans, where
// brackets and parentheses are code, not links.
func stripCode(s string) string {
	var b strings.Builder
	fenced := false
	for _, line := range strings.Split(s, "\n") {
		if strings.HasPrefix(strings.TrimSpace(line), "```") {
			fenced = !fenced
			continue
		}
		if fenced {
			continue
		}
		parts := strings.Split(line, "`")
		for i := 0; i < len(parts); i += 2 {
			b.WriteString(parts[i])
		}
		b.WriteByte('\n')
	}
	return b.String()
}

// anchor is the fragment a heading's text gets: lower case, spaces as
// hyphens, punctuation other than hyphens and underscores dropped.
func anchor(h string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(h) {
		switch {
		case r == ' ':
			b.WriteByte('-')
		case r == '-' || r == '_' || r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r > 127:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// anchors lists the fragments of a page's headings.
func anchors(s string) map[string]bool {
	out := map[string]bool{}
	fenced := false
	var text strings.Builder
	for _, line := range strings.Split(s, "\n") {
		if strings.HasPrefix(strings.TrimSpace(line), "```") {
			fenced = !fenced
			continue
		}
		if !fenced {
			text.WriteString(line + "\n")
		}
	}
	for _, m := range heading.FindAllStringSubmatch(text.String(), -1) {
		out[anchor(m[1])] = true
	}
	return out
}

func TestReadmeLength(t *testing.T) {
	n := strings.Count(read(t, "README.md"), "\n")
	if n > maxReadmeLines {
		t.Errorf("README.md has %d lines, more than %d: move the detail to a page under docs/", n, maxReadmeLines)
	}
}

// TestLinks checks every relative link of README.md and docs/*.md: its
// file exists, and its fragment, if any, names a heading of a Markdown
// target. It also checks that the README links every page under docs/
// and that the pages show every image under docs/.
func TestLinks(t *testing.T) {
	all := pages(t)
	linked := map[string]bool{}
	for _, page := range all {
		for _, m := range link.FindAllStringSubmatch(stripCode(read(t, page)), -1) {
			target := m[1]
			if strings.Contains(target, "://") || strings.HasPrefix(target, "mailto:") {
				continue
			}
			file, frag, _ := strings.Cut(target, "#")
			path := page
			if file != "" {
				path = filepath.ToSlash(filepath.Join(filepath.Dir(page), file))
			}
			if _, err := os.Stat(filepath.Join(root, filepath.FromSlash(path))); err != nil {
				t.Errorf("%s: link %q: %v", page, target, err)
				continue
			}
			if page == "README.md" || path != page {
				linked[path] = true
			}
			if frag != "" && strings.HasSuffix(path, ".md") && !anchors(read(t, path))[frag] {
				t.Errorf("%s: link %q: no heading of %s has the anchor %q", page, target, path, frag)
			}
		}
	}
	readme := map[string]bool{}
	for _, m := range link.FindAllStringSubmatch(stripCode(read(t, "README.md")), -1) {
		readme[filepath.ToSlash(filepath.Clean(strings.SplitN(m[1], "#", 2)[0]))] = true
	}
	for _, page := range all[1:] {
		if !readme[page] {
			t.Errorf("README.md does not link %s", page)
		}
	}
	images, err := filepath.Glob(filepath.Join(root, "docs", "*.png"))
	if err != nil {
		t.Fatal(err)
	}
	for _, img := range images {
		rel, _ := filepath.Rel(root, img)
		if !linked[filepath.ToSlash(rel)] {
			t.Errorf("no page shows %s", filepath.ToSlash(rel))
		}
	}
}

func TestAnchor(t *testing.T) {
	for h, want := range map[string]string{
		"The release check":                "the-release-check",
		"Depth and time of the test run":   "depth-and-time-of-the-test-run",
		"auto: the fastest proven path":    "auto-the-fastest-proven-path",
		"The runner: `.gpu/gpurun OUTDIR`": "the-runner-gpugpurun-outdir",
		"Several GPUs and fleets":          "several-gpus-and-fleets",
	} {
		if got := anchor(h); got != want {
			t.Errorf("anchor(%q) = %q, want %q", h, got, want)
		}
	}
}
