// Package results turns stored benchmark output into the reports'
// tables and figures. Load reads the raw output under
// results/data/<gpu-slug>/<preset>.txt, and Write renders the tables
// (ours beside the reports' published ones) and plots under
// results/report/. It reads stored files only and imports no GPU package.
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

// nameKeys are the keys of a case name.
var nameKeys = runfile.Keys()

// Sample is every measurement of one benchmark case in one file.
type Sample struct {
	Keys    map[string]string    // the case name's key=value pairs
	Config  map[string]string    // file configuration (gpu, cpu, ...)
	Values  map[string][]float64 // unit -> one value per run
	Implied []string             // the keys the stored name lacked, in nameKeys order
	named   *benchfmt.Result     // the name with every key, for benchproc filters
}

// Median returns the median of the unit's values and whether there were any.
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

// TimeUnit returns the first of runfile.TimeUnits the case has, or ns/op.
func (s *Sample) TimeUnit() string {
	for _, u := range runfile.TimeUnits {
		if len(s.Values[u]) > 0 {
			return u
		}
	}
	return "ns/op"
}

// Time returns the median time per operation in ns, in TimeUnit.
func (s *Sample) Time() (float64, bool) {
	return s.Median(s.TimeUnit())
}

// Spread returns the slowest run's time minus the fastest's, over the median.
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
	Path     string
	Host     string // the directory name: GPU slug, or cpu-... without GPU
	Preset   string // the file name without .txt
	Header   string // the first line: command and commit
	Command  string // the command line the opening comment lines name, or ""
	Config   map[string]string
	Samples  []*Sample // in file order
	Failures []string  // the "--- FAIL" lines: cases that failed their gate
	// Timeline, Settings and Unsupported are the "# timeline ",
	// "# setting " and "# unsupported " lines, in file order.
	Timeline    []runfile.Span
	Settings    []CaseSetting
	Unsupported []UnsupportedCase
	Modified    time.Time            // when Load found the file last written
	measured    map[string][]float64 // per measured key, each line's value, sorted
}

// CaseSetting is one "# setting <case>: <note>" line of a run.
type CaseSetting struct {
	Keys map[string]string
	Note string
}

// UnsupportedCase is a case a run skipped as unsupported, and why.
type UnsupportedCase struct {
	Name   string
	Keys   map[string]string
	Reason string
}

// parseUnsupported parses an unsupported line; ok is false for others.
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

// parseSetting parses a setting line; ok is false for others.
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

// SettingOf returns the note of r's last setting line whose case matches q.
func (r *Run) SettingOf(q Q) (string, bool) {
	for i := len(r.Settings) - 1; i >= 0; i-- {
		keys := r.Settings[i].Keys
		if !slices.ContainsFunc(slices.Collect(maps.Keys(q)), func(k string) bool { return keys[k] != q[k] }) {
			return r.Settings[i].Note, true
		}
	}
	return "", false
}

// Commit returns the commit the run's header names (runfile.HeaderCommit).
func (r *Run) Commit() string { return runfile.HeaderCommit(r.Header) }

// Find returns the samples matching every key=value of want.
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

// Sample returns the single sample matching want, or nil when none or several do.
func (r *Run) Sample(want Q) *Sample {
	if ss := r.Find(want); len(ss) == 1 {
		return ss[0]
	}
	return nil
}

// completeName is a case's benchmark name with every key of nameKeys.
func completeName(keys map[string]string) benchfmt.Name {
	var b strings.Builder
	b.WriteString("Conv")
	for _, k := range nameKeys {
		b.WriteString("/" + k + "=" + keys[k])
	}
	return benchfmt.Name(b.String())
}

// ReadRun parses one file of benchmark output. A sample's Config holds
// the configuration and measured lines in effect at its first result.
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

// readResults reads data's result lines into r.Samples, a sample per case.
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

// isCase reports whether a result's name is a case of BenchmarkConv.
func isCase(name benchfmt.Name) bool {
	_, parts := name.Parts()
	return string(name.Base()) == "Conv" && len(parts) > 0
}

// newSample is the sample of rec's case, without values.
func newSample(rec *benchfmt.Result, measuredAt []measuredValue) (*Sample, error) {
	name := string(rec.Name.Full())
	keys, err := runfile.Parse(name)
	if err != nil {
		return nil, err
	}
	s := &Sample{Keys: map[string]string{}, Config: map[string]string{}, Values: map[string][]float64{}}
	for _, k := range nameKeys {
		s.Keys[k] = keys[k]
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

// addValues appends rec's values to s in the units the benchmark wrote.
func (s *Sample) addValues(rec *benchfmt.Result) {
	for _, v := range rec.Values {
		unit, x := v.Unit, v.Value
		if v.OrigUnit != "" {
			unit, x = v.OrigUnit, v.OrigValue
		}
		s.Values[unit] = append(s.Values[unit], x)
	}
}

// config is r's first sample's configuration, medianOfBlocks keys at medians.
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

// measuredValue is a measured key's value on line line of a run.
type measuredValue struct {
	line       int // from 1
	key, value string
}

// readLines reads data's non-result lines into r; it returns the measured values.
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

// parseMeasured parses a measured line, or an older configuration line of a measured key.
func parseMeasured(line string) (key, value string, ok bool) {
	if key, value, ok = runfile.ParseMeasured(line); ok {
		return key, value, true
	}
	key, value, ok = strings.Cut(line, ": ")
	return key, value, ok && runfile.IsMeasured(key)
}

// appendParsed appends what parse reads from line to dst.
func appendParsed[T any](dst *[]T, parse func(string) (T, bool, error), line string) error {
	v, ok, err := parse(line)
	if ok && err == nil {
		*dst = append(*dst, v)
	}
	return err
}

// medianOfBlocks are the measured keys a merged run holds at their median.
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
