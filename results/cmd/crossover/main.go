// Command crossover writes the crossover tables the auto variant reads.
//
// For each stored run of preset crossover named on the command line, it
// writes its GPU's table (results.CrossoverTable) as <out>/<gpu slug>.json.
// It needs no GPU.
//
//	go run ./results/cmd/crossover results/data/nvidia-h200/crossover.txt
//
// writes tables/crossover/nvidia-h200.json, which every binary built
// after it embeds; CONVBENCH_CROSSOVER reads tables from another -out.
package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/convbench/convbench/internal/modroot"
	"github.com/convbench/convbench/results"
	"github.com/convbench/convbench/tables"
)

func main() {
	err := run(os.Args[1:], os.Stdout, os.Stderr)
	if errors.Is(err, flag.ErrHelp) {
		return
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "crossover:", err)
		os.Exit(1)
	}
}

// run is the command with its arguments, saying what it wrote on stdout.
func run(args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("crossover", flag.ContinueOnError)
	fs.SetOutput(stderr)
	out := fs.String("out", "", "directory the tables are written to (default <repo>/tables/crossover)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() == 0 {
		return fmt.Errorf("name one stored run of preset crossover or more (results/data/<gpu>/crossover.txt)")
	}
	if *out == "" {
		root := "."
		if r, _, err := modroot.Find(""); err == nil {
			root = r
		}
		*out = filepath.Join(root, "tables", "crossover")
	}
	written := map[string]string{}
	for _, path := range fs.Args() {
		f, err := os.Open(path)
		if err != nil {
			return err
		}
		r, err := results.ReadRun(f, path)
		f.Close()
		if err != nil {
			return err
		}
		t, err := results.CrossoverTable(r)
		if err != nil {
			return err
		}
		if prev, dup := written[t.GPU]; dup {
			return fmt.Errorf("%s and %s are both runs of %s: name one", prev, path, t.GPU)
		}
		written[t.GPU] = path
		data, err := t.Marshal()
		if err != nil {
			return err
		}
		if err := os.MkdirAll(*out, 0o755); err != nil {
			return err
		}
		dst := tables.Path(*out, t.GPU)
		if err := os.WriteFile(dst, data, 0o644); err != nil {
			return err
		}
		fmt.Fprintf(stdout, "%s: %d entries of %s from %s\n", dst, len(t.Entries), t.GPU, path)
	}
	return nil
}
