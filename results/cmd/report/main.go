// Command report rebuilds a report from the raw benchmark runs under
// -data (default results/data) into -out (default results/report): each
// source report's tables (Markdown, and on the terminal with -print) and
// plots of their figures, built by package results from the stored files
// alone, and the filter gallery, which this command renders with the
// variants themselves. It needs no GPU. A report of other runs than
// results/data, such as make bench's under results/local/data, opens with
// each of those runs (results.RunSections): every case's median with its
// interval and whether its runs agree, and its time against the axis the
// run varied.
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
	"io"
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
	if err := run(os.Args[1:], os.Stdout, os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, "report:", err)
		os.Exit(1)
	}
}

// run is the command with its arguments, printing tables to stdout and
// what it did to stderr.
func run(args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("report", flag.ContinueOnError)
	fs.SetOutput(stderr)
	data := fs.String("data", "", "directory of stored runs, <host>/<preset>.txt (default <repo>/results/data)")
	out := fs.String("out", "", "directory the report is written to (default <repo>/results/report)")
	gallery := fs.String("gallery", "", "comma-separated variants that render the gallery, in order of preference; empty picks the fastest this host can run, none skips it")
	print := fs.Bool("print", false, "also print every table of our data on the terminal")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("unexpected arguments %q", fs.Args())
	}
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
	name := *data
	if abs, err := filepath.Abs(*data); err == nil {
		if absRoot, err := filepath.Abs(root); err == nil {
			if rel, err := filepath.Rel(absRoot, abs); err == nil && !strings.HasPrefix(rel, "..") {
				name = filepath.ToSlash(rel)
			}
		}
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
	r, err := results.Write(results.Options{DataDir: *data, OutDir: *out, DataName: name})
	if err != nil {
		return err
	}
	if len(variants) > 0 {
		if err := writeGallery(filepath.Join(*out, "gallery"), note, variants); err != nil {
			return err
		}
	}
	if *print {
		for _, s := range r.Sections {
			for _, t := range s.Tables {
				if strings.HasPrefix(t.Title, "Published") {
					continue
				}
				t.RenderTerminal(stdout)
			}
		}
	}
	fmt.Fprintf(stderr, "report: %d hosts, wrote %s", len(r.Hosts), *out)
	switch {
	case len(variants) == 1:
		fmt.Fprintf(stderr, " (gallery by %s)", variants[0])
	case len(variants) > 1:
		fmt.Fprintf(stderr, " (gallery by the first of %s that supports each filter)", strings.Join(variants, ", "))
	case why != "":
		fmt.Fprintf(stderr, " (%s)", why)
	}
	fmt.Fprintln(stderr)
	return nil
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
