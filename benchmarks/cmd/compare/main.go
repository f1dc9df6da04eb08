// Command compare runs benchstat on stored benchmark runs so that the
// same case pairs across them, whenever and wherever they were run.
//
// It copies each file with every case renamed to the form written today
// (benchmarks.RewriteForPairing: older runs name CPU cases with
// opts=none, or GPU cases without opts), then runs
//
//	go tool benchstat -table '' [flags] FILE=copy ...
//
// with one table for all files, so that runs on different hosts (whose
// configuration lines differ) still meet in one row per case; the column
// headers are the paths given. Flags before the files go to benchstat,
// each in one argument (-row=.name).
//
//	go run ./benchmarks/cmd/compare results/data/cpu-amd-epyc/default.txt results/local/data/cpu-.../default.txt
package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/convbench/convbench/benchmarks"
)

func main() {
	if err := run(os.Args[1:]); err != nil {
		fmt.Fprintln(os.Stderr, "compare:", err)
		os.Exit(1)
	}
}

func run(args []string) error {
	var flags, files []string
	for i, a := range args {
		if !strings.HasPrefix(a, "-") {
			flags, files = args[:i], args[i:]
			break
		}
		if !strings.Contains(a, "=") {
			return fmt.Errorf("benchstat flag %q: give it as one argument, %s=VALUE", a, a)
		}
	}
	if len(files) == 0 {
		return fmt.Errorf("usage: compare [-benchstat-flag=value ...] OLD NEW [FILE ...]")
	}
	tmp, err := os.MkdirTemp("", "convbench-compare")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	inputs, err := rewrite(files, tmp)
	if err != nil {
		return err
	}
	cmd := exec.Command("go", append(append([]string{"tool", "benchstat", "-table", ""}, flags...), inputs...)...)
	cmd.Stdout, cmd.Stderr = os.Stdout, os.Stderr
	return cmd.Run()
}

// rewrite copies each file into dir through benchmarks.RewriteForPairing
// and returns benchstat inputs "label=copy", labelled by the path given
// (its base name where the path holds '=').
func rewrite(files []string, dir string) ([]string, error) {
	var inputs []string
	for i, f := range files {
		in, err := os.Open(f)
		if err != nil {
			return nil, err
		}
		copyPath := filepath.Join(dir, fmt.Sprintf("%d.txt", i))
		out, err := os.Create(copyPath)
		if err != nil {
			in.Close()
			return nil, err
		}
		err = benchmarks.RewriteForPairing(out, in, f)
		in.Close()
		if cerr := out.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			return nil, fmt.Errorf("%s: %w", f, err)
		}
		label := f
		if strings.Contains(label, "=") {
			label = strings.ReplaceAll(filepath.Base(f), "=", "-")
		}
		inputs = append(inputs, label+"="+copyPath)
	}
	return inputs, nil
}
