package results

import (
	"cmp"
	"fmt"
	"iter"
	"maps"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/convbench/convbench/runfile"
	"golang.org/x/perf/benchproc"
)

// Host is every stored run of one machine (one results/data directory).
type Host struct {
	Slug  string
	Title string // the GPU name, or the CPU with "(no GPU)"
	GPU   bool
	Runs  []*Run
}

// GroupHosts groups runs by their directory, in slug order.
func GroupHosts(runs []*Run) []*Host {
	by := map[string]*Host{}
	var order []string
	for _, r := range runs {
		h := by[r.Host]
		if h == nil {
			g := r.Config[runfile.KeyGPU]
			h = &Host{Slug: r.Host, Title: hostTitle(r), GPU: g != "" && g != "none"}
			by[r.Host] = h
			order = append(order, r.Host)
		}
		h.Runs = append(h.Runs, r)
	}
	sort.Strings(order)
	hosts := make([]*Host, len(order))
	for i, s := range order {
		hosts[i] = by[s]
	}
	return hosts
}

// Q is a query: key=value pairs of the case name every matching sample
// carries.
type Q map[string]string

// Filter is the benchproc filter of q: "/key:value" terms, all of which
// a result's name must match.
func (q Q) Filter() string {
	keys := slices.Sorted(maps.Keys(q))
	terms := make([]string, len(keys))
	for i, k := range keys {
		terms[i] = "/" + k + ":" + strconv.Quote(q[k])
	}
	if len(terms) == 0 {
		return "*"
	}
	return strings.Join(terms, " ")
}

// filters caches the parsed filter of each query.
var filters sync.Map // string -> *benchproc.Filter

func (q Q) filter() (*benchproc.Filter, error) {
	src := q.Filter()
	if f, ok := filters.Load(src); ok {
		return f.(*benchproc.Filter), nil
	}
	f, err := benchproc.NewFilter(src)
	if err != nil {
		return nil, fmt.Errorf("results: query %s: %w", src, err)
	}
	filters.Store(src, f)
	return f, nil
}

// with returns q plus the pairs kv (key, value, key, value, ...).
func (q Q) with(kv ...string) Q {
	out := Q{}
	for k, v := range q {
		out[k] = v
	}
	for i := 0; i+1 < len(kv); i += 2 {
		out[kv[i]] = kv[i+1]
	}
	return out
}

// Time returns the median time (ns) of the first run of h holding exactly
// one sample matching q.
func (h *Host) Time(q Q) (float64, bool) {
	s := h.Sample(q)
	if s == nil {
		return 0, false
	}
	return s.Time()
}

// Sample returns the first sample matching q in the first run holding
// exactly one, or nil.
func (h *Host) Sample(q Q) *Sample {
	for _, r := range h.Runs {
		if s := r.Sample(q); s != nil {
			return s
		}
	}
	return nil
}

// Has reports whether any run of h holds a sample of the variant.
func (h *Host) Has(q Q) bool {
	for _, r := range h.Runs {
		if len(r.Find(q)) > 0 {
			return true
		}
	}
	return false
}

// cpuQ and gpuQ are the fixed keys of CPU and GPU kernel cases; GPU
// cases are those compiled with the default options and tunables, so
// that a preset that also sweeps them (002, 004) still finds one sample.
func cpuQ(variant string) Q {
	return Q{"variant": variant, "timing": "cpu", "border": "zero"}
}

func gpuQ(variant, block string) Q {
	q := Q{"variant": variant, "timing": "kernel", "cache": "hot", "border": "zero", "opts": "default", "tune": "default"}
	if block != "" {
		q["block"] = block
	}
	return q
}

// caseQ is the fixed keys of variant's case: cpuQ for a CPU variant
// (cpu-*), else gpuQ with block.
func caseQ(variant, block string) Q {
	if strings.HasPrefix(variant, "cpu-") {
		return cpuQ(variant)
	}
	return gpuQ(variant, block)
}

// image returns q on an image of size, through filter, of element type
// typ and ch channels.
func (q Q) image(size, filter, typ, ch string) Q {
	return q.with("size", size, "filter", filter, "type", typ, "ch", ch)
}

// rankingQ is the case GPU variants are ranked by: the default preset's
// Gaussian 5x5 filter over a 1024x1024 one-channel float image, hot L2,
// zero border, default compile options, kernel time.
var rankingQ = Q{"size": "1024x1024", "filter": "gauss5", "type": "f32", "ch": "1",
	"timing": "kernel", "cache": "hot", "border": "zero", "opts": "default", "tune": "default"}

// RankGPU returns the variants h measured on rankingQ, fastest first by
// median kernel time (the best block shape of each), with those times in
// nanoseconds. It is empty for a host with no such case.
func (h *Host) RankGPU() (variants []string, ns []float64) {
	best := map[string]float64{}
	for _, r := range h.Runs {
		for _, s := range r.Find(rankingQ) {
			t, ok := s.Median("gpu-ns/op")
			v := s.Keys["variant"]
			if !ok {
				continue
			}
			if old, seen := best[v]; !seen || t < old {
				best[v] = t
			}
		}
	}
	variants = slices.SortedFunc(maps.Keys(best), func(a, b string) int {
		return cmp.Or(cmp.Compare(best[a], best[b]), strings.Compare(a, b))
	})
	for _, v := range variants {
		ns = append(ns, best[v])
	}
	return variants, ns
}

// run returns h's run of the preset, or nil.
func (h *Host) run(preset string) *Run {
	for _, r := range h.Runs {
		if r.Preset == preset {
			return r
		}
	}
	return nil
}

// hostKeys are the configuration keys that describe a host, in the
// order the report lists them.
var hostKeys = []string{runfile.KeyGPUCC, runfile.KeyGPUSMs, runfile.KeyDriver, runfile.KeyGPUPeakGBps, runfile.KeyGPUCopyGBps,
	runfile.KeyGPUPeakFLOPs, runfile.KeyCPU, runfile.KeyCPUThreads, runfile.KeyCPUCap}

// Setup returns what the first run of h records of hostKeys, as key and
// value pairs in that order; nil for a host without runs.
func (h *Host) Setup() [][2]string {
	if len(h.Runs) == 0 {
		return nil
	}
	var kvs [][2]string
	for _, k := range hostKeys {
		if v := h.Runs[0].Config[k]; v != "" {
			kvs = append(kvs, [2]string{k, v})
		}
	}
	return kvs
}

// hostRuns yields each host of hosts that has a run of preset, with that
// run (Host.run).
func hostRuns(hosts []*Host, preset string) iter.Seq2[*Host, *Run] {
	return runsOf(hosts, func(h *Host) *Run { return h.run(preset) })
}

// gpuRuns yields each host of hosts with a GPU for which pick returns a
// run, with that run.
func gpuRuns(hosts []*Host, pick func(*Host) *Run) iter.Seq2[*Host, *Run] {
	return runsOf(hosts, func(h *Host) *Run {
		if !h.GPU {
			return nil
		}
		return pick(h)
	})
}

// runsOf yields each host of hosts for which pick returns a run, with
// that run.
func runsOf(hosts []*Host, pick func(*Host) *Run) iter.Seq2[*Host, *Run] {
	return func(yield func(*Host, *Run) bool) {
		for _, h := range hosts {
			if r := pick(h); r != nil && !yield(h, r) {
				return
			}
		}
	}
}

// at is " at <commit>" for a run whose header names its commit
// (Run.Commit), else "".
func (r *Run) at() string {
	if c := r.Commit(); c != "" {
		return " at " + c
	}
	return ""
}

// runOrCustom returns h's run of preset: the run of the preset's own axes
// when there is one, else, of the runs with narrowed axes
// (<preset>-custom-<digest>), the one with the most cases, the last by
// name among equals. A rerun with the same axes replaces its file, so each
// custom run is the newest of its axes. It returns nil when h has none.
func (h *Host) runOrCustom(preset string) *Run {
	if r := h.run(preset); r != nil {
		return r
	}
	var best *Run
	for _, r := range h.Runs {
		if !strings.HasPrefix(r.Preset, preset+"-custom-") {
			continue
		}
		if best == nil || len(r.Samples) > len(best.Samples) ||
			(len(r.Samples) == len(best.Samples) && r.Preset > best.Preset) {
			best = r
		}
	}
	return best
}
