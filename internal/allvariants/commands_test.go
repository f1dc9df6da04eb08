package allvariants

import (
	"slices"
	"strings"
	"testing"
)

// TestCommands checks that every command of the module that resolves
// variants by name (its own code calls convolve.Lookup or
// convolve.Variants) imports the package, and that the sweep, the
// gallery and the tuner are found to. The report and crossover commands
// are not: they read variant names from stored runs and resolve none,
// and the layer rules keep them off every variant family.
func TestCommands(t *testing.T) {
	_, mod := module(t)
	conv := mod + "/convolve"
	var resolvers []string
	for _, p := range packages(t) {
		if p.name != "main" {
			continue
		}
		resolves := false
		for _, f := range p.files {
			x := localName(f, conv)
			resolves = resolves || calls(f, x, "Lookup") || calls(f, x, "Variants")
		}
		if !resolves {
			continue
		}
		resolvers = append(resolvers, strings.TrimPrefix(p.path, mod+"/"))
		if !slices.Contains(p.imports, mod+"/internal/allvariants") {
			t.Errorf("%s resolves variants by name and does not import internal/allvariants", p.path)
		}
	}
	for _, want := range []string{"benchmarks/cmd/sweep", "cmd/gallery", "tune/cmd/tune"} {
		if !slices.Contains(resolvers, want) {
			t.Errorf("%s is not found to resolve variants by name (found %v); the scan is broken", want, resolvers)
		}
	}
	for _, none := range []string{"results/cmd/report", "results/cmd/crossover"} {
		if slices.Contains(resolvers, none) {
			t.Errorf("%s resolves variants by name: it reads a report's names from stored runs alone", none)
		}
	}
}
