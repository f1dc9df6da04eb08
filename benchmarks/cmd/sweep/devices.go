package main

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/convbench/convbench/convolve"
	"github.com/convbench/convbench/results"
)

// parseDevices parses the value of -devices: distinct CUDA device
// ordinals, comma-separated (convolve.ParseDevices).
func parseDevices(v string) ([]string, error) {
	ords, err := convolve.ParseDevices(v)
	if err == nil && len(ords) == 0 {
		err = errors.New("no device ordinal")
	}
	if err != nil {
		return nil, fmt.Errorf("-devices %s: %v: want a list such as 0,1,2,3", v, err)
	}
	var devs []string
	for _, n := range ords {
		f := strconv.Itoa(n)
		if slices.Contains(devs, f) {
			return nil, fmt.Errorf("-devices %s: device %s is named twice", v, f)
		}
		devs = append(devs, f)
	}
	return devs, nil
}

// runDevices runs the sweep o names in one shard per device of
// o.devices, all at once, each shard's benchmark binary on its device
// (CUDA_VISIBLE_DEVICES, replacing any the environment sets), from one
// test binary built for them all. Each shard's progress goes to stderr
// behind its device's tag. The shards write their runs into a temporary
// folder; when every shard wrote one they are merged (mergeShards) and
// the run is stored as a single sweep's would be, with its summary on
// stdout. Where a shard wrote nothing, or the runs do not merge, the
// shards' files are stored as they are and the error says what is left
// to do. A sweep with CPU cases is refused: the shards would time them on
// the host's shared cores. With one device the sweep runs whole on it.
func runDevices(o *options, stdout, stderr io.Writer) error {
	if len(o.devices) == 1 {
		so := *o
		so.devices, so.device = nil, o.devices[0]
		_, err := runOne(&so, stdout, stderr)
		return err
	}
	_, ex, err := expandSweep(o)
	if err != nil {
		return err
	}
	var cpu []string
	for _, c := range ex.Cases {
		if !c.GPU && !slices.Contains(cpu, c.Variant) {
			cpu = append(cpu, c.Variant)
		}
	}
	if len(cpu) > 0 {
		return fmt.Errorf("-devices: the sweep has CPU cases (%s), which the shards would time on the host's shared cores, each slowing the others'; name GPU variants with -variants, or run without -devices", strings.Join(cpu, ", "))
	}
	return runShards(o, len(ex.Cases), stdout, stderr)
}

// runShards runs the n = len(o.devices) shards of o's sweep of cases
// cases at once and stores their runs (see runDevices).
func runShards(o *options, cases int, stdout, stderr io.Writer) error {
	n := len(o.devices)
	if cases < n {
		return fmt.Errorf("-devices %s: the sweep has %d cases, fewer than the %d devices; nothing written", strings.Join(o.devices, ","), cases, n)
	}
	root, _, err := checkout()
	if err != nil {
		return err
	}
	work, err := os.MkdirTemp("", "convbench-devices-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(work)
	tb, err := testBinary(o, root, stderr)
	if err != nil {
		return err
	}
	defer tb.cleanup()
	fmt.Fprintf(stderr, "sweep: %d shards at once, one on each of the devices %s\n", n, strings.Join(o.devices, ", "))

	var mu sync.Mutex // orders the shards' lines on stderr
	paths, errs := make([]string, n), make([]error, n)
	var wg sync.WaitGroup
	for i, dev := range o.devices {
		so := *o
		so.devices, so.device, so.built = nil, dev, tb
		so.shard = shard{i + 1, n}
		so.dataDir, so.publish = work, false
		w := &taggedWriter{w: stderr, mu: &mu, tag: "[device " + dev + "] "}
		wg.Go(func() {
			paths[i], errs[i] = runOne(&so, io.Discard, w)
			w.Flush()
		})
	}
	wg.Wait()
	return storeShards(o, outputDir(root, o.dataDir, o.publish), paths, errs, stdout, stderr)
}

// storeShards stores the shards' runs, paths with errs their errors,
// under final: merged into one run, with its summary on stdout, where
// every shard wrote one and they merge, else each as it is, the error
// saying what is left to do.
func storeShards(o *options, final string, paths []string, errs []error, stdout, stderr io.Writer) error {
	n := len(paths)
	var failed, todo []string
	for i, err := range errs {
		if err != nil {
			failed = append(failed, fmt.Sprintf("shard %d of %d on device %s: %v", i+1, n, o.devices[i], err))
		}
		if paths[i] == "" {
			todo = append(todo, fmt.Sprintf("CUDA_VISIBLE_DEVICES=%s sweep <the same flags> -shard %d/%d", o.devices[i], i+1, n))
		}
	}
	if todo == nil {
		merged, err := mergeShards(paths)
		if err == nil {
			path, err := store(final, merged)
			if err != nil {
				return err
			}
			fmt.Fprintf(stderr, "sweep: wrote %s, the runs of its %d shards\n", path, n)
			if err := printStored(stdout, path, o.baseline); err != nil {
				return err
			}
			if failed != nil {
				return fmt.Errorf("%s; their results are in %s", strings.Join(failed, "; "), path)
			}
			return nil
		}
		failed = append(failed, err.Error())
	}
	return keepShards(final, paths, failed, todo)
}

// keepShards stores the runs the shards wrote (paths, "" where one wrote
// none) into final as they are, and returns the error of the failures
// with what is left to run (todo) and merge.
func keepShards(final string, paths, failed, todo []string) error {
	var kept []string
	for _, p := range paths {
		if p == "" {
			continue
		}
		out, err := store(final, p)
		if err != nil {
			return err
		}
		kept = append(kept, out)
	}
	msg := strings.Join(failed, "; ")
	switch {
	case kept == nil:
		return errors.New(msg + "; nothing written")
	case todo == nil:
		return fmt.Errorf("%s; the shards' runs are kept as they are: %s", msg, strings.Join(kept, ", "))
	}
	return fmt.Errorf("%s; the runs of %d of the %d shards are kept (%s): to finish the sweep run %s, then sweep -merge on the %d shards' files",
		msg, len(kept), len(paths), strings.Join(kept, ", "), strings.Join(todo, " and "), len(paths))
}

// store writes the run at path, written by a shard under the temporary
// folder's <slug>/, into final/<slug>/ under the same name, or beside an
// earlier file of that name as writeNew does, and returns where.
func store(final, path string) (string, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return "", err
	}
	dir := filepath.Join(final, filepath.Base(filepath.Dir(path)))
	return writeNew(dir, strings.TrimSuffix(filepath.Base(path), ".txt"), data)
}

// printStored prints the summary of the run stored at path, its
// speed-ups over the variant named baseline ("" for the default).
func printStored(stdout io.Writer, path, baseline string) error {
	data, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	r, err := results.ReadRun(bytes.NewReader(data), path)
	if err != nil {
		return err
	}
	r.Preset = strings.TrimSuffix(filepath.Base(path), ".txt")
	return printSummary(stdout, r, baseline)
}

// A taggedWriter writes whole lines to w, each behind tag, holding mu
// while it writes so that the lines of several writers do not mix.
type taggedWriter struct {
	w   io.Writer
	mu  *sync.Mutex
	tag string
	buf lineBuffer
}

func (t *taggedWriter) Write(b []byte) (int, error) {
	t.buf.write(b, t.line)
	return len(b), nil
}

// Flush writes what is left of a last line, with a newline.
func (t *taggedWriter) Flush() { t.buf.flush(t.line) }

func (t *taggedWriter) line(l string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	io.WriteString(t.w, t.tag+l+"\n")
}
