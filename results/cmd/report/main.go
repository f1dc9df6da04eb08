// Command report rebuilds a report from the raw benchmark runs under
// -data (default results/data) into -out (default results/report): each
// source report's tables (Markdown, and on the terminal with -print) and
// plots of their figures, built by package results from the stored files
// alone, and the filter gallery, which this command renders with the
// variants themselves. It needs no GPU.
//
// The gallery is rendered by the fastest variants this host can run. With
// a GPU, those are the GPU variants ranked by their kernel time on
// results.RankingQ in this GPU's stored runs, then every other GPU
// variant. Without a GPU, a gallery a GPU rendered is kept as it is, and
// otherwise cpu-fast renders it. -gallery names the variants instead
// (comma-separated, in order of preference); -gallery=none skips it.
package main

import (
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"

	"github.com/convbench/convbench/benchmarks/benchname"
	"github.com/convbench/convbench/convolve"
	"github.com/convbench/convbench/cudabind"
	_ "github.com/convbench/convbench/cudabind/variants"
	_ "github.com/convbench/convbench/refimpl"
	"github.com/convbench/convbench/results"
)

func main() {
	data := flag.String("data", "", "directory of raw runs (default <repo>/results/data)")
	out := flag.String("out", "", "output directory (default <repo>/results/report)")
	gallery := flag.String("gallery", "", "comma-separated variants that render the gallery, in order of preference; empty picks the fastest this host can run, none skips it")
	print := flag.Bool("print", false, "also print every table of our data on the terminal")
	flag.Parse()
	root := "."
	if b, err := exec.Command("git", "rev-parse", "--show-toplevel").Output(); err == nil {
		root = strings.TrimSpace(string(b))
	}
	if *data == "" {
		*data = filepath.Join(root, "results", "data")
	}
	if *out == "" {
		*out = filepath.Join(root, "results", "report")
	}
	var variants []string
	var note, why string
	switch *gallery {
	case "":
		variants, note, why = galleryVariants(*data, filepath.Join(*out, "gallery"))
	case "none":
	default:
		variants = strings.Split(*gallery, ",")
	}
	r, err := results.Write(results.Options{DataDir: *data, OutDir: *out})
	if err == nil && len(variants) > 0 {
		err = writeGallery(filepath.Join(*out, "gallery"), note, variants)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "report:", err)
		os.Exit(1)
	}
	if *print {
		for _, s := range r.Sections {
			for _, t := range s.Tables {
				if strings.HasPrefix(t.Title, "Published") {
					continue
				}
				t.RenderTerminal(os.Stdout)
			}
		}
	}
	fmt.Fprintf(os.Stderr, "report: %d hosts, wrote %s", len(r.Hosts), *out)
	switch {
	case len(variants) == 1:
		fmt.Fprintf(os.Stderr, " (gallery by %s)", variants[0])
	case len(variants) > 1:
		fmt.Fprintf(os.Stderr, " (gallery by the first of %s that supports each filter)", strings.Join(variants, ", "))
	case why != "":
		fmt.Fprintf(os.Stderr, " (%s)", why)
	}
	fmt.Fprintln(os.Stderr)
}

// galleryVariants picks the gallery's variants for this host, a note for
// its README, and, when it picks none, why.
func galleryVariants(dataDir, galleryDir string) (variants []string, note, why string) {
	dev, err := cudabind.Default()
	if err != nil {
		if galleryByGPU(galleryDir) {
			return nil, "", "no GPU here: the gallery a GPU rendered is kept; -gallery=cpu-fast replaces it"
		}
		return []string{"cpu-fast"}, "", ""
	}
	name := dev.Info().Name
	slug := benchname.Slug(name, "")
	runs, err := results.Load(dataDir)
	if err == nil {
		for _, h := range results.GroupHosts(runs) {
			if h.Slug != slug {
				continue
			}
			var ns []float64
			variants, ns = h.RankGPU()
			if len(variants) > 0 {
				note = fmt.Sprintf("Rendered on an %s; the GPU variants are ranked by their median kernel time on Gaussian 5x5 over 1024x1024 float in `results/data/%s/` (fastest: `%s`, %.2f us).", name, slug, variants[0], ns[0]/1e3)
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

// writeGallery renders the gallery with variants and replaces dir with it.
func writeGallery(dir, note string, variants []string) error {
	g, err := renderGallery(note, variants...)
	if err != nil {
		return err
	}
	if err := os.RemoveAll(dir); err != nil {
		return err
	}
	return results.WriteFiles(dir, g)
}
