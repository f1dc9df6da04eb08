package docs

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// ownVariantSection is the section of docs/variants.md that tells a
// module of its own how to prove and time its variant.
const ownVariantSection = "## Prove your own variant"

// flagName matches a flag named in inline code: `-name` or `-name=value`.
var flagName = regexp.MustCompile("`-([a-z][a-z0-9.-]*)[=` ]")

// section returns the text of page from the heading line to the next
// heading of its level.
func section(t *testing.T, page, heading string) string {
	t.Helper()
	s := read(t, page)
	i := strings.Index(s, heading+"\n")
	if i < 0 {
		t.Fatalf("%s has no heading %q", page, heading)
	}
	s = s[i+len(heading):]
	if j := strings.Index(s, "\n"+strings.Fields(heading)[0]+" "); j >= 0 {
		s = s[:j]
	}
	return s
}

// binaryFlags builds the test binary of convtest/testdata/extmod, a
// module of its own that imports convtest and benchmarks, and returns
// the flags it defines beyond the testing package's (test.*).
func binaryFlags(t *testing.T) []string {
	t.Helper()
	gocmd, err := exec.LookPath("go")
	if err != nil {
		t.Skipf("no go command: %v", err)
	}
	abs, err := filepath.Abs(root)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if err := os.CopyFS(dir, os.DirFS(filepath.Join(root, "convtest", "testdata", "extmod"))); err != nil {
		t.Fatal(err)
	}
	env := append(os.Environ(), "GOFLAGS=-mod=mod", "GOWORK=off", "CGO_ENABLED=0")
	bin := filepath.Join(dir, "extmod.test")
	for _, args := range [][]string{{"mod", "edit", "-replace=github.com/convbench/convbench=" + abs}, {"test", "-c", "-o", bin, "."}} {
		cmd := exec.Command(gocmd, args...)
		cmd.Dir, cmd.Env = dir, env
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("go %s: %v\n%s", strings.Join(args, " "), err, out)
		}
	}
	var out bytes.Buffer
	cmd := exec.Command(bin, "-h")
	cmd.Stdout, cmd.Stderr = &out, &out
	cmd.Run() // -h exits 0 or 2 as the flag package decides; the listing is what counts
	var names []string
	for _, m := range regexp.MustCompile(`(?m)^  -(\S+)`).FindAllStringSubmatch(out.String(), -1) {
		if !strings.HasPrefix(m[1], "test.") {
			names = append(names, m[1])
		}
	}
	if len(names) == 0 {
		t.Fatalf("the external module's test binary lists no flag of its own:\n%s", out.String())
	}
	slices.Sort(names)
	return names
}

// The flags a module of its own gets in its test binary by importing
// convtest and benchmarks, beyond testing's, are the ones the page that
// tells it how to use them names, and it names no other flag of theirs:
// each flag it names is testing's (as go test spells it) or the binary's.
func TestOwnVariantFlags(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a module's test binary")
	}
	defined := binaryFlags(t)
	text := section(t, "docs/variants.md", ownVariantSection)
	named := map[string]bool{}
	for _, m := range flagName.FindAllStringSubmatch(text, -1) {
		named[m[1]] = true
	}
	for _, f := range defined {
		if !named[f] {
			t.Errorf("the test binary of a module that imports convtest and benchmarks takes -%s, which docs/variants.md (%s) does not name", f, ownVariantSection)
		}
	}
	testing := []string{"bench", "benchtime", "count", "cpu", "run", "short", "v", "timeout"}
	for f := range named {
		if !slices.Contains(defined, f) && !slices.Contains(testing, f) {
			t.Errorf("docs/variants.md (%s) names -%s, which the test binary of a module that imports convtest and benchmarks does not take (it takes %q and testing's)", ownVariantSection, f, defined)
		}
	}
}
