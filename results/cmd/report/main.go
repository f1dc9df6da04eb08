// Command report rebuilds results/report/ from the raw benchmark runs
// under results/data/: each source report's tables (Markdown, and on the
// terminal with -print), SVG plots of their figures, and the filter
// gallery. It needs no GPU; the gallery uses the fastest variant this
// host can run (gpu-shared with a GPU, else cpu-fast) unless -gallery
// names one, and -gallery=none skips it.
package main

import (
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/convbench/convbench/cudabind"
	_ "github.com/convbench/convbench/cudabind/variants"
	_ "github.com/convbench/convbench/refimpl"
	"github.com/convbench/convbench/results"
)

func main() {
	data := flag.String("data", "", "directory of raw runs (default <repo>/results/data)")
	out := flag.String("out", "", "output directory (default <repo>/results/report)")
	gallery := flag.String("gallery", "", "variant that renders the gallery; empty picks the fastest available, none skips it")
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
	switch *gallery {
	case "":
		*gallery = "cpu-fast"
		if _, err := cudabind.Default(); err == nil {
			*gallery = "gpu-shared"
		}
	case "none":
		*gallery = ""
	}
	r, err := results.Write(results.Options{DataDir: *data, OutDir: *out, GalleryVariant: *gallery})
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
	if *gallery != "" {
		fmt.Fprintf(os.Stderr, " (gallery by %s)", *gallery)
	}
	fmt.Fprintln(os.Stderr)
}
