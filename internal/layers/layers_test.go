package layers

import (
	"slices"
	"strings"
	"testing"

	"github.com/convbench/convbench/internal/modroot"
)

// A rule forbids the packages under from (a module-relative directory)
// to depend, directly or through others, on any package under one of to
// (nil: any package of the module), except those under one of allow.
// The packages under one of skip are left out of from.
type rule struct {
	why   string
	from  string
	skip  []string
	to    []string
	allow []string
}

var rules = []rule{
	{why: "convolve is the contract: it imports nothing of the module's",
		from: "convolve", allow: []string{"convolve"}},
	{why: "the CUDA bindings know nothing of convolution",
		from: "cudabind", allow: []string{"cudabind"}},
	{why: "convtest is a leaf: the contract, the CPU reference, the verifier and the child-process supervisor only",
		from: "convtest", allow: []string{"convtest", "convolve", "refimpl", "verify", "internal/childproc"}},
	{why: "the child-process supervisor, which convtest uses, imports nothing of the module's",
		from: "internal/childproc", allow: []string{"internal/childproc"}},
	{why: "the GPU code reads no report tree",
		from: "gpu", to: []string{"results"}},
	{why: "the tables are read by GPU code, not built on it",
		from: "tables", to: []string{"cudabind", "gpu", "refimpl", "results"}},
	{why: "the report is built from stored files alone, read through the run-file package",
		from: "results", to: []string{"cudabind", "gpu", "refimpl", "benchmarks"}},
	{why: "the benchmarks write runs through the run-file package, not the report's",
		from: "benchmarks", skip: []string{"benchmarks/cmd"}, to: []string{"results"}},
	{why: "the run file is a leaf: its format needs at most the contract",
		from: "runfile", allow: []string{"runfile", "convolve"}},
	{why: "comparing two runs needs their names and an interval, not the GPU code or the report",
		from: "benchmarks/cmd/compare", to: []string{"cudabind", "gpu", "refimpl", "results", "benchmarks"}},
}

// under reports whether the module-relative path p is dir or below it.
func under(p, dir string) bool { return p == dir || strings.HasPrefix(p, dir+"/") }

func TestUnder(t *testing.T) {
	for _, tt := range []struct {
		p, dir string
		want   bool
	}{
		{"gpu", "gpu", true},
		{"gpu/variants", "gpu", true},
		{"gpus", "gpu", false},
		{"benchmarks/cmd/compare", "benchmarks", true},
		{"cudabind", "cudabind/npp", false},
	} {
		if got := under(tt.p, tt.dir); got != tt.want {
			t.Errorf("under(%q, %q) = %v, want %v", tt.p, tt.dir, got, tt.want)
		}
	}
}

// graph returns the non-test imports within the module of every package
// in it, by module-relative path.
func graph(t *testing.T) map[string][]string {
	t.Helper()
	root, mod, err := modroot.Find("")
	if err != nil {
		t.Fatal(err)
	}
	pkgs, err := modroot.Packages(root)
	if err != nil {
		t.Fatal(err)
	}
	g := map[string][]string{}
	for _, p := range pkgs {
		var deps []string
		for _, imp := range p.Imports {
			if d, ok := strings.CutPrefix(imp, mod+"/"); ok {
				deps = append(deps, d)
			}
		}
		g[p.Rel] = deps
	}
	return g
}

// path returns a chain of imports from p to a package q with bad(q), or
// nil: the first found by a breadth-first walk, so the shortest.
func path(g map[string][]string, p string, bad func(string) bool) []string {
	prev := map[string]string{p: ""}
	queue := []string{p}
	for len(queue) > 0 {
		q := queue[0]
		queue = queue[1:]
		if q != p && bad(q) {
			var chain []string
			for ; q != ""; q = prev[q] {
				chain = append(chain, q)
			}
			slices.Reverse(chain)
			return chain
		}
		for _, d := range g[q] {
			if _, seen := prev[d]; !seen {
				prev[d] = q
				queue = append(queue, d)
			}
		}
	}
	return nil
}

func TestRules(t *testing.T) {
	g := graph(t)
	if len(g) < 20 {
		t.Fatalf("found %d packages in the module; the walk is broken", len(g))
	}
	for _, r := range rules {
		bad := func(q string) bool {
			return (r.to == nil || slices.ContainsFunc(r.to, func(d string) bool { return under(q, d) })) &&
				!slices.ContainsFunc(r.allow, func(d string) bool { return under(q, d) })
		}
		seen := false
		for p := range g {
			if !under(p, r.from) || slices.ContainsFunc(r.skip, func(d string) bool { return under(p, d) }) {
				continue
			}
			seen = true
			if chain := path(g, p, bad); chain != nil {
				t.Errorf("%s imports %s (%s): %s", p, chain[len(chain)-1], strings.Join(chain, " -> "), r.why)
			}
		}
		if !seen {
			t.Errorf("rule %q: no package under %s", r.why, r.from)
		}
	}
}

// TestRulesCatch proves the check finds a forbidden dependency, direct
// or through another package, and passes an allowed one.
func TestRulesCatch(t *testing.T) {
	g := map[string][]string{
		"convtest": {"verify"},
		"verify":   {"refimpl", "gpu/variants"},
		"refimpl":  {"convolve"},
		"results":  {"runfile"},
		"runfile":  {"convolve"},
	}
	gpu := func(q string) bool { return under(q, "gpu") }
	if got := path(g, "convtest", gpu); !slices.Equal(got, []string{"convtest", "verify", "gpu/variants"}) {
		t.Errorf("path through verify = %v", got)
	}
	bench := func(q string) bool { return under(q, "benchmarks") || under(q, "gpu") }
	if got := path(g, "results", bench); got != nil {
		t.Errorf("an allowed import reported: %v", got)
	}
}
