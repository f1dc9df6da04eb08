// Command gallery renders the filter gallery the report links to: every
// library filter, and the Sobel magnitude, applied to a generated scene
// (testimage.Scene) by the variants themselves, a PNG each, and a
// README.md that sets them in a table.
//
//	go run ./cmd/gallery -variant cpu-fast -out /tmp/gallery
//
// -out names the directory, which the gallery replaces whole. -variant
// names the variants that render it in order of preference: each image
// is made by the first that supports its filter. Without -variant, with a
// GPU, the GPU variants render it, ranked by their kernel time in this
// GPU's stored runs under -data; without a GPU, a gallery a GPU rendered
// is kept, and otherwise cpu-fast renders it.
package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/convbench/convbench/convolve"
	"github.com/convbench/convbench/cudabind"
	_ "github.com/convbench/convbench/internal/allvariants" // every variant family
	"github.com/convbench/convbench/internal/modroot"
	"github.com/convbench/convbench/results"
	"github.com/convbench/convbench/runfile"
)

func main() {
	err := run(os.Args[1:], os.Stderr)
	if errors.Is(err, flag.ErrHelp) {
		return
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "gallery:", err)
		os.Exit(1)
	}
}

// run is the command with its arguments, saying what it did on stderr.
func run(args []string, stderr io.Writer) error {
	fs := flag.NewFlagSet("gallery", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: gallery [-out DIR] [-variant NAME,...] [-data DIR]")
		fs.PrintDefaults()
	}
	out := fs.String("out", "", "directory the gallery replaces (default <repo>/results/report/gallery)")
	variant := fs.String("variant", "", "comma-separated variants that render the gallery, in order of preference, such as cpu-fast or gpu-tiled; empty picks the fastest this host can run")
	data := fs.String("data", "", "directory of stored runs, <host>/<preset>.txt, that rank this GPU's variants when -variant is empty (default <repo>/results/data)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("unexpected arguments %q", fs.Args())
	}
	root := "."
	if r, _, err := modroot.Find(""); err == nil {
		root = r
	}
	if *out == "" {
		*out = filepath.Join(root, "results", "report", "gallery")
	}
	if *data == "" {
		*data = filepath.Join(root, "results", "data")
	}
	var variants []string
	var note, why string
	if *variant == "" {
		variants, note, why = pickVariants(*data, relName(root, *data), *out)
	} else {
		variants = strings.Split(*variant, ",")
		for i, n := range variants {
			if variants[i] = strings.TrimSpace(n); variants[i] == "" {
				return fmt.Errorf("-variant %q: an empty variant name", *variant)
			}
		}
	}
	if len(variants) == 0 {
		fmt.Fprintf(stderr, "gallery: kept %s: %s\n", *out, why)
		return nil
	}
	g, err := render(note, variants...)
	if err != nil {
		return err
	}
	if err := os.RemoveAll(*out); err != nil {
		return err
	}
	if err := results.WriteFiles(*out, g); err != nil {
		return err
	}
	by := variants[0]
	if len(variants) > 1 {
		by = "the first of " + strings.Join(variants, ", ") + " that supports each filter"
	}
	fmt.Fprintf(stderr, "gallery: wrote %s, by %s\n", *out, by)
	return nil
}

// relName returns dir relative to root, with slashes, where dir lies
// under root, and dir as given otherwise.
func relName(root, dir string) string {
	abs, errDir := filepath.Abs(dir)
	absRoot, errRoot := filepath.Abs(root)
	rel, err := filepath.Rel(absRoot, abs)
	if errDir != nil || errRoot != nil || err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return dir
	}
	return filepath.ToSlash(rel)
}

// pickVariants picks the gallery's variants for this host, a note for
// its README, and, when it picks none, why. dataDir holds the stored runs
// that rank the GPU variants, named dataName in the note.
func pickVariants(dataDir, dataName, galleryDir string) (variants []string, note, why string) {
	dev, err := cudabind.Default()
	if err != nil {
		if renderedByGPU(galleryDir) {
			return nil, "", "no GPU here, and a GPU rendered the gallery there; -variant=cpu-fast replaces it"
		}
		return []string{"cpu-fast"}, "", ""
	}
	name := dev.Info().Name
	slug := runfile.Slug(name, "")
	runs, err := results.Load(dataDir)
	if err == nil {
		for _, h := range results.GroupHosts(runs) {
			if h.Slug != slug {
				continue
			}
			var ns []float64
			variants, ns = h.RankGPU()
			if len(variants) > 0 {
				note = fmt.Sprintf("Rendered on an %s; the GPU variants are ranked by their median kernel time on Gaussian 5x5 over 1024x1024 float in `%s/%s/` (fastest: `%s`, %.2f us).", name, dataName, slug, variants[0], ns[0]/1e3)
			}
		}
	}
	if len(variants) == 0 {
		note = fmt.Sprintf("Rendered on an %s, for which no run is stored: the GPU variants are in name order.", name)
	}
	for _, v := range convolve.Variants() {
		d := v.Describe()
		if d.Caps.GPU && !slices.Contains(variants, d.Name) {
			variants = append(variants, d.Name)
		}
	}
	return variants, note, ""
}
