// Package results turns stored benchmark output into the reports'
// tables and figures. Raw `go test -bench` output of every preset and GPU
// lives, unedited, under results/data/<gpu-slug>/<preset>.txt with a
// header line naming the command and commit; Load reads it with
// benchfmt and benchproc, the table builders reshape it into each source
// report's tables (our numbers beside the report's published ones), and
// the plots draw the reports' figures. Write puts all of it under
// results/report/. The package reads stored files only and imports no GPU
// package; the filter gallery beside the report is rendered by the
// variants themselves, in cmd/gallery.
package results

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/convbench/convbench/runfile"
	"golang.org/x/perf/benchfmt"
	"golang.org/x/perf/benchmath"
)

// nameKeys are the sub-benchmark keys of a case name, runfile.Keys.
var nameKeys = runfile.Keys()

// Sample is every measurement of one benchmark case in one file.
type Sample struct {
	Keys   map[string]string    // the case name's key=value pairs
	Config map[string]string    // file configuration (gpu, cpu, ...)
	Values map[string][]float64 // unit -> one value per run
	// Implied lists the keys the stored name lacked, in nameKeys order;
	// Keys holds the values their absence implies (runfile.Parse).
	Implied []string
	// named is a result holding the case's name with every key of
	// nameKeys, implied ones included, for benchproc filters to match.
	named *benchfmt.Result
}

// Median returns the median of the unit's values (benchmath's summary of
// them) and whether there were any.
func (s *Sample) Median(unit string) (float64, bool) {
	m := measureOf(s, unit)
	if !m.OK() {
		return 0, false
	}
	return m.Center(), true
}

// Max returns the largest of the unit's values and whether there were any.
func (s *Sample) Max(unit string) (float64, bool) {
	v := s.Values[unit]
	if len(v) == 0 {
		return 0, false
	}
	return slices.Max(v), true
}

// TimeUnit returns the unit Time reads, the first of runfile.TimeUnits
// the case has: gpu-ns/op for GPU kernel cases, total-ns/op for pipeline
// cases, ns/op for CPU cases.
func (s *Sample) TimeUnit() string {
	for _, u := range runfile.TimeUnits {
		if len(s.Values[u]) > 0 {
			return u
		}
	}
	return "ns/op"
}

// Time returns the median of the case's time per operation in
// nanoseconds, in the unit TimeUnit names.
func (s *Sample) Time() (float64, bool) {
	return s.Median(s.TimeUnit())
}

// Spread returns how widely the case's times vary between runs: the
// slowest minus the fastest, over the median. It needs two runs or more
// and a positive median.
func (s *Sample) Spread() (float64, bool) {
	u := s.TimeUnit()
	v := s.Values[u]
	med, ok := s.Median(u)
	if len(v) < 2 || !ok || med <= 0 {
		return 0, false
	}
	return (slices.Max(v) - slices.Min(v)) / med, true
}

// Run is one stored file: a preset run on one host.
type Run struct {
	Path   string
	Host   string // the directory name: GPU slug, or cpu-... without GPU
	Preset string // the file name without .txt
	Header string // the first line: command and commit
	// Command is the command line that produced the run, as the comment
	// lines the file opens with name it ("command: ..."; for a merged
	// run, its first shard's), or "" where they name none.
	Command string
	Config  map[string]string
	Samples []*Sample // in file order
	// Failures are the "--- FAIL" lines: cases that failed their gate.
	Failures []string
	// Timeline is the phases of one overlapped run of a multi-device case
	// that the run wrote ("# timeline " lines), in file order.
	Timeline []runfile.Span
	// Settings are how the cases whose plans say so were set up ("#
	// setting " lines: block, tunables, their source, auto's path), in
	// file order.
	Settings []CaseSetting
	// Unsupported are the cases the run skipped because their variants
	// refused them as unsupported when they were planned ("# unsupported "
	// lines, runfile.UnsupportedLine), in file order.
	Unsupported []UnsupportedCase
	// Modified is when the file was last written, as Load found it; zero
	// for a run ReadRun read from elsewhere.
	Modified time.Time
	// measured holds, per key of runfile.MeasuredKeys, the value of each
	// line that records it, sorted: one a shard of a merged run.
	measured map[string][]float64
}

// CaseSetting is one "# setting <case>: <note>" line of a run: the case's
// name keys and the note.
type CaseSetting struct {
	Keys map[string]string
	Note string
}

// UnsupportedCase is a case a run skipped because its variant refused it
// as unsupported at plan time: its name, the name's keys and the reason.
type UnsupportedCase struct {
	Name   string
	Keys   map[string]string
	Reason string
}

// parseUnsupported parses an unsupported line; ok is false for any other
// line.
func parseUnsupported(line string) (UnsupportedCase, bool, error) {
	name, reason, ok := runfile.ParseUnsupported(line)
	if !ok {
		return UnsupportedCase{}, false, nil
	}
	keys, err := runfile.Parse(name)
	if err != nil {
		return UnsupportedCase{}, false, fmt.Errorf("unsupported line %q: %w", line, err)
	}
	return UnsupportedCase{Name: name, Keys: keys, Reason: reason}, true, nil
}

// parseSetting parses a setting line; ok is false for any other line.
func parseSetting(line string) (CaseSetting, bool, error) {
	name, note, ok, err := runfile.ParseSetting(line)
	if !ok {
		return CaseSetting{}, false, err
	}
	keys, err := runfile.Parse(name)
	if err != nil {
		return CaseSetting{}, false, fmt.Errorf("setting line %q: %w", line, err)
	}
	return CaseSetting{Keys: keys, Note: note}, true, nil
}

// SettingOf returns the note of the last setting line of r whose case has
// every key of q, and whether there is one.
func (r *Run) SettingOf(q Q) (string, bool) {
	for i := len(r.Settings) - 1; i >= 0; i-- {
		keys := r.Settings[i].Keys
		if !slices.ContainsFunc(slices.Collect(maps.Keys(q)), func(k string) bool { return keys[k] != q[k] }) {
			return r.Settings[i].Note, true
		}
	}
	return "", false
}

// Commit returns the short commit the run's header names, with
// " (with uncommitted changes)" when the header says so, or "" when it
// names none (runfile.HeaderCommit).
func (r *Run) Commit() string { return runfile.HeaderCommit(r.Header) }

// Find returns the samples whose keys match every key=value of want, by
// the benchproc filter that query names (Q.Filter).
func (r *Run) Find(want Q) []*Sample {
	f, err := want.filter()
	if err != nil {
		return nil
	}
	var out []*Sample
	for _, s := range r.Samples {
		if s.named == nil {
			s.named = &benchfmt.Result{Name: completeName(s.Keys)}
		}
		if ok, err := f.Apply(s.named); err == nil && ok {
			out = append(out, s)
		}
	}
	return out
}

// Sample returns the single sample matching want, or nil when none or
// several do.
func (r *Run) Sample(want Q) *Sample {
	if ss := r.Find(want); len(ss) == 1 {
		return ss[0]
	}
	return nil
}

// completeName is the benchmark name of a case with every key of
// nameKeys, implied ones included.
func completeName(keys map[string]string) benchfmt.Name {
	var b strings.Builder
	b.WriteString("Conv")
	for _, k := range nameKeys {
		b.WriteString("/" + k + "=" + keys[k])
	}
	return benchfmt.Name(b.String())
}

// ReadRun parses one file of benchmark output. A sample's Config holds
// the file's configuration lines in effect at its first result line and
// the values of the measured lines (runfile.MeasuredLine) written before
// it; the run's Config is its first sample's, with gpu-copy-gbps, where
// several blocks of the file measured it (the shards of a merged run), at
// the median of their values (medianOfBlocks).
func ReadRun(r io.Reader, path string) (*Run, error) {
	data, err := io.ReadAll(r)
	if err != nil {
		return nil, fmt.Errorf("results: %s: %w", path, err)
	}
	run := &Run{Path: path, Host: filepath.Base(filepath.Dir(path)), Preset: strings.TrimSuffix(filepath.Base(path), ".txt")}
	measuredAt, err := run.readLines(data, path)
	if err != nil {
		return nil, err
	}
	if err := run.readResults(data, path, measuredAt); err != nil {
		return nil, err
	}
	run.Config = run.config()
	return run, nil
}

// readResults reads the result lines of data's cases into r.Samples, one
// sample per case name in file order, each holding every line's values.
func (r *Run) readResults(data []byte, path string, measuredAt []measuredValue) error {
	byName := map[string]*Sample{}
	br := benchfmt.NewReader(bytes.NewReader(data), path)
	for br.Scan() {
		switch rec := br.Result(); rec := rec.(type) {
		case *benchfmt.SyntaxError:
			return fmt.Errorf("results: %w", rec)
		case *benchfmt.Result:
			if !isCase(rec.Name) {
				continue
			}
			name := string(rec.Name.Full())
			s := byName[name]
			if s == nil {
				var err error
				if s, err = newSample(rec, measuredAt); err != nil {
					return fmt.Errorf("results: %s: %w", path, err)
				}
				byName[name] = s
				r.Samples = append(r.Samples, s)
			}
			s.addValues(rec)
		}
	}
	if err := br.Err(); err != nil {
		return fmt.Errorf("results: %w", err)
	}
	return nil
}

// isCase reports whether a result line's name is a case of BenchmarkConv,
// not BenchmarkConv alone: the parent line Go prints when none of its
// cases ran.
func isCase(name benchfmt.Name) bool {
	_, parts := name.Parts()
	return string(name.Base()) == "Conv" && len(parts) > 0
}

// newSample is the sample of the case of rec's name, without values: its
// name keys (runfile.Parse), the file configuration in effect at rec and
// the measured values written before it.
func newSample(rec *benchfmt.Result, measuredAt []measuredValue) (*Sample, error) {
	name := string(rec.Name.Full())
	keys, err := runfile.Parse(name)
	if err != nil {
		return nil, err
	}
	s := &Sample{Keys: map[string]string{}, Config: map[string]string{}, Values: map[string][]float64{}}
	for _, k := range nameKeys {
		s.Keys[k] = keys[k]
	}
	for _, k := range nameKeys {
		if !strings.Contains(name, "/"+k+"=") {
			s.Implied = append(s.Implied, k)
		}
	}
	for _, c := range rec.Config {
		if c.File {
			s.Config[c.Key] = string(c.Value)
		}
	}
	_, line := rec.Pos()
	for _, m := range measuredAt {
		if m.line < line {
			s.Config[m.key] = m.value
		}
	}
	return s, nil
}

// addValues appends the values of result line rec to s, in the units the
// benchmark wrote (benchfmt tidies ns/op into sec/op).
func (s *Sample) addValues(rec *benchfmt.Result) {
	for _, v := range rec.Values {
		unit, x := v.Unit, v.Value
		if v.OrigUnit != "" {
			unit, x = v.OrigUnit, v.OrigValue
		}
		s.Values[unit] = append(s.Values[unit], x)
	}
}

// config is the configuration of r: its first sample's, with each key of
// medianOfBlocks that several blocks measured at the median of their
// values; empty for a run without samples.
func (r *Run) config() map[string]string {
	if len(r.Samples) == 0 {
		return map[string]string{}
	}
	c := maps.Clone(r.Samples[0].Config)
	for _, k := range medianOfBlocks {
		if vs := r.measured[k]; len(vs) > 1 {
			c[k] = strconv.FormatFloat(Measure{benchmath.NewSample(vs, &thresholds)}.Center(), 'f', -1, 64)
		}
	}
	return c
}

// measuredValue is the value of a measured key that a line of a run
// records: a measured line (runfile.MeasuredLine), or, in runs written
// before those, a configuration line of a key of runfile.MeasuredKeys.
type measuredValue struct {
	line       int // from 1
	key, value string
}

// readLines reads what the lines of data record beside the result
// lines: r's header, command, failures, timeline, settings, unsupported
// cases and the values of its measured keys, each key's in r.measured,
// sorted; it returns the measured values in file order.
func (r *Run) readLines(data []byte, path string) ([]measuredValue, error) {
	var measuredAt []measuredValue
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(nil, 1<<20)
	leading := true
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		if n == 1 {
			r.Header = line
		}
		if leading = leading && strings.HasPrefix(line, "#"); leading && r.Command == "" {
			if cmd, ok := runfile.HeaderCommand(line); ok {
				r.Command = cmd
			}
		}
		if strings.HasPrefix(line, "--- FAIL: Conv/") || strings.HasPrefix(line, "--- FAIL: BenchmarkConv/") {
			r.Failures = append(r.Failures, line)
		}
		if k, v, ok := parseMeasured(line); ok {
			x, err := strconv.ParseFloat(strings.TrimSpace(v), 64)
			if err != nil {
				return nil, fmt.Errorf("results: %s:%d: measured value %q: %w", path, n, line, err)
			}
			if r.measured == nil {
				r.measured = map[string][]float64{}
			}
			r.measured[k] = append(r.measured[k], x)
			measuredAt = append(measuredAt, measuredValue{line: n, key: k, value: strings.TrimSpace(v)})
		}
		if err := errors.Join(appendParsed(&r.Timeline, runfile.ParseSpan, line),
			appendParsed(&r.Settings, parseSetting, line),
			appendParsed(&r.Unsupported, parseUnsupported, line)); err != nil {
			return nil, fmt.Errorf("results: %s: %w", path, err)
		}
	}
	for _, vs := range r.measured {
		slices.Sort(vs)
	}
	return measuredAt, sc.Err()
}

// parseMeasured parses a line that records the value of a measured key:
// a measured line (runfile.MeasuredLine), or, in runs written before
// those, a configuration line of a key of runfile.MeasuredKeys.
func parseMeasured(line string) (key, value string, ok bool) {
	if key, value, ok = runfile.ParseMeasured(line); ok {
		return key, value, true
	}
	key, value, ok = strings.Cut(line, ": ")
	return key, value, ok && runfile.IsMeasured(key)
}

// appendParsed appends to dst what parse reads from line, where line is
// of parse's kind; it returns parse's error.
func appendParsed[T any](dst *[]T, parse func(string) (T, bool, error), line string) error {
	v, ok, err := parse(line)
	if ok && err == nil {
		*dst = append(*dst, v)
	}
	return err
}

// medianOfBlocks are the measured keys whose value for a run that
// measured them in several blocks (the shards of a merged run) is the
// median of the blocks' values; for the others it is the first block's.
var medianOfBlocks = []string{runfile.KeyGPUCopyGBps}

// Load reads every dataDir/<host>/*.txt, sorted by host then preset.
func Load(dataDir string) ([]*Run, error) {
	paths, err := filepath.Glob(filepath.Join(dataDir, "*", "*.txt"))
	if err != nil {
		return nil, err
	}
	sort.Strings(paths)
	var runs []*Run
	for _, p := range paths {
		f, err := os.Open(p)
		if err != nil {
			return nil, err
		}
		run, err := ReadRun(f, p)
		if err == nil {
			var fi os.FileInfo
			if fi, err = f.Stat(); err == nil {
				run.Modified = fi.ModTime()
			}
		}
		f.Close()
		if err != nil {
			return nil, err
		}
		runs = append(runs, run)
	}
	return runs, nil
}
