package allvariants

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/convbench/convbench/internal/modroot"
)

// module returns the module's root directory and path (modroot.Find).
func module(t *testing.T) (root, path string) {
	t.Helper()
	root, path, err := modroot.Find("")
	if err != nil || path == "" {
		t.Fatalf("module root %q, path %q: %v", root, path, err)
	}
	return root, path
}

// pkg is a package of the module: its import path, name, imports and
// parsed non-test files.
type pkg struct {
	path, name string
	imports    []string
	files      []*ast.File
}

// parsed holds what packages returned first.
var parsed []pkg

// packages parses the non-test files of every package of the module.
func packages(t *testing.T) []pkg {
	t.Helper()
	if parsed != nil {
		return parsed
	}
	root, mod := module(t)
	all, err := modroot.Packages(root)
	if err != nil {
		t.Fatal(err)
	}
	var ps []pkg
	for _, bp := range all {
		p := pkg{path: path.Join(mod, bp.Rel), name: bp.Name, imports: bp.Imports}
		fset := token.NewFileSet()
		for _, name := range bp.GoFiles {
			f, err := parser.ParseFile(fset, filepath.Join(bp.Dir, name), nil, 0)
			if err != nil {
				t.Fatal(err)
			}
			p.files = append(p.files, f)
		}
		ps = append(ps, p)
	}
	if len(ps) < 20 {
		t.Fatalf("found %d packages in the module; the walk is broken", len(ps))
	}
	parsed = ps
	return ps
}

// localName returns the name by which f refers to the package of import
// path imp, or "" when f does not import it.
func localName(f *ast.File, imp string) string {
	for _, s := range f.Imports {
		if p, err := strconv.Unquote(s.Path.Value); err != nil || p != imp {
			continue
		}
		if s.Name != nil {
			return s.Name.Name
		}
		return imp[strings.LastIndex(imp, "/")+1:]
	}
	return ""
}

// calls reports whether n calls sel of the package it names x, as
// x.sel(...); an empty x names no package.
func calls(n ast.Node, x, sel string) bool {
	found := false
	ast.Inspect(n, func(n ast.Node) bool {
		if c, ok := n.(*ast.CallExpr); ok {
			if s, ok := c.Fun.(*ast.SelectorExpr); ok && s.Sel.Name == sel {
				if id, ok := s.X.(*ast.Ident); ok && x != "" && id.Name == x {
					found = true
				}
			}
		}
		return !found
	})
	return found
}

// registersAtInit reports whether the package of files registers a
// variant while it initialises: whether an init function or a
// package-level variable's initialiser calls convolve.Register (of the
// package at import path conv), directly or through the package's own
// functions.
func registersAtInit(files []*ast.File, conv string) bool {
	// reaches holds the package's functions that call convolve.Register,
	// directly or through another; callees, what each function calls by
	// a bare name.
	reaches := map[string]bool{}
	callees := map[string][]string{}
	var roots []ast.Node // init bodies and variable initialisers
	for _, f := range files {
		x := localName(f, conv)
		for _, d := range f.Decls {
			switch d := d.(type) {
			case *ast.FuncDecl:
				if d.Body == nil || d.Recv != nil {
					continue
				}
				if d.Name.Name == "init" {
					if calls(d.Body, x, "Register") {
						return true
					}
					roots = append(roots, d.Body)
					continue
				}
				if calls(d.Body, x, "Register") {
					reaches[d.Name.Name] = true
				}
				callees[d.Name.Name] = append(callees[d.Name.Name], bareCalls(d.Body)...)
			case *ast.GenDecl:
				if d.Tok != token.VAR {
					continue
				}
				for _, s := range d.Specs {
					for _, v := range s.(*ast.ValueSpec).Values {
						if calls(v, x, "Register") {
							return true
						}
						roots = append(roots, v)
					}
				}
			}
		}
	}
	for grew := true; grew; {
		grew = false
		for fn, cs := range callees {
			if !reaches[fn] && slices.ContainsFunc(cs, func(c string) bool { return reaches[c] }) {
				reaches[fn] = true
				grew = true
			}
		}
	}
	for _, r := range roots {
		if slices.ContainsFunc(bareCalls(r), func(c string) bool { return reaches[c] }) {
			return true
		}
	}
	return false
}

// bareCalls returns the names n calls without a qualifier, as f(...).
func bareCalls(n ast.Node) []string {
	var names []string
	ast.Inspect(n, func(n ast.Node) bool {
		if c, ok := n.(*ast.CallExpr); ok {
			if id, ok := c.Fun.(*ast.Ident); ok {
				names = append(names, id.Name)
			}
		}
		return true
	})
	return names
}

// TestEveryFamily checks that the package imports every package of the
// module whose initialisation registers variants, and nothing else.
func TestEveryFamily(t *testing.T) {
	_, mod := module(t)
	conv := mod + "/convolve"
	var families, self []string
	for _, p := range packages(t) {
		if p.path == mod+"/internal/allvariants" {
			self = p.imports
		}
		if p.name != "main" && registersAtInit(p.files, conv) {
			families = append(families, p.path)
		}
	}
	if len(families) == 0 {
		t.Fatal("no package of the module registers variants as it initialises; the scan is broken")
	}
	for _, f := range families {
		if !slices.Contains(self, f) {
			t.Errorf("%s registers variants as it initialises, and allvariants does not import it", f)
		}
	}
	for _, imp := range self {
		if !slices.Contains(families, imp) {
			t.Errorf("allvariants imports %s, which registers no variant as it initialises", imp)
		}
	}
}

// TestRegistersAtInit proves the scan finds a registration made by init,
// by a variable's initialiser, or through the package's own functions,
// under any import name, and passes a package that only offers a
// function to register with.
func TestRegistersAtInit(t *testing.T) {
	const conv = "example.com/m/convolve"
	for _, tt := range []struct {
		name, src string
		want      bool
	}{
		{"init", `package p; import "example.com/m/convolve"; func init() { convolve.Register(v{}) }`, true},
		{"renamed", `package p; import c "example.com/m/convolve"; func init() { c.Register(v{}) }`, true},
		{"through two functions", `package p; import "example.com/m/convolve"
			func init() { if err := all(); err != nil { panic(err) } }
			func all() error { return one("a") }
			func one(n string) error { convolve.Register(v{n}); return nil }`, true},
		{"variable", `package p; import "example.com/m/convolve"; var _ = register(); func register() int { convolve.Register(v{}); return 0 }`, true},
		{"function only", `package p; import "example.com/m/convolve"; func Register(n string) { convolve.Register(v{n}) }; func init() { other() }; func other() {}`, false},
		{"another Register", `package p; import "example.com/m/other"; func init() { other.Register(v{}) }`, false},
		{"lookup", `package p; import "example.com/m/convolve"; func init() { convolve.Lookup("x") }`, false},
	} {
		f, err := parser.ParseFile(token.NewFileSet(), tt.name+".go", tt.src, 0)
		if err != nil {
			t.Fatalf("%s: %v", tt.name, err)
		}
		if got := registersAtInit([]*ast.File{f}, conv); got != tt.want {
			t.Errorf("%s: registersAtInit = %v, want %v", tt.name, got, tt.want)
		}
	}
}
