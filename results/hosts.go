package results

import (
	"cmp"
	"fmt"
	"iter"
	"maps"
	"slices"
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
	for _, r := range runs {
		h := by[r.Host]
		if h == nil {
			g := r.Config[runfile.KeyGPU]
			h = &Host{Slug: r.Host, Title: hostTitle(r), GPU: g != "" && g != "none"}
			by[r.Host] = h
		}
		h.Runs = append(h.Runs, r)
	}
	return slices.SortedFunc(maps.Values(by), func(a, b *Host) int { return strings.Compare(a.Slug, b.Slug) })
}

// Q is a query: key=value pairs of the case name every matching sample carries.
type Q map[string]string

// Filter is the benchproc filter of q: a "/key:value" term per pair.
func (q Q) Filter() string {
	if len(q) == 0 {
		return "*"
	}
	var terms []string
	for _, k := range slices.Sorted(maps.Keys(q)) {
		terms = append(terms, "/"+k+":"+strconv.Quote(q[k]))
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
	maps.Copy(out, q)
	for i := 0; i+1 < len(kv); i += 2 {
		out[kv[i]] = kv[i+1]
	}
	return out
}

// Sample returns the sample of the first run holding exactly one matching q, or nil.
func (h *Host) Sample(q Q) *Sample {
	for _, r := range h.Runs {
		if s := r.Sample(q); s != nil {
			return s
		}
	}
	return nil
}

// cpuQ and gpuQ are the fixed keys of CPU and GPU kernel cases.
func cpuQ(variant string) Q { return Q{"variant": variant, "timing": "cpu", "border": "zero"} }

func gpuQ(variant, block string) Q {
	q := Q{"variant": variant, "timing": "kernel", "cache": "hot", "border": "zero", "opts": "default", "tune": "default"}
	if block != "" {
		q["block"] = block
	}
	return q
}

// caseQ is cpuQ for a cpu-* variant, else gpuQ.
func caseQ(variant, block string) Q {
	if strings.HasPrefix(variant, "cpu-") {
		return cpuQ(variant)
	}
	return gpuQ(variant, block)
}

// image returns q with the image's size, filter, type and channels.
func (q Q) image(size, filter, typ, ch string) Q {
	return q.with("size", size, "filter", filter, "type", typ, "ch", ch)
}

// rankingQ is the case GPU variants are ranked by.
var rankingQ = Q{"size": "1024x1024", "filter": "gauss5", "type": "f32", "ch": "1",
	"timing": "kernel", "cache": "hot", "border": "zero", "opts": "default", "tune": "default"}

// RankGPU returns the variants h measured on rankingQ, fastest first by
// the median kernel time of their best block, with those times in ns.
func (h *Host) RankGPU() (variants []string, ns []float64) {
	best := map[string]float64{}
	for _, r := range h.Runs {
		for _, s := range r.Find(rankingQ) {
			t, ok := s.Median("gpu-ns/op")
			if old, seen := best[s.Keys["variant"]]; ok && (!seen || t < old) {
				best[s.Keys["variant"]] = t
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
	if i := slices.IndexFunc(h.Runs, func(r *Run) bool { return r.Preset == preset }); i >= 0 {
		return h.Runs[i]
	}
	return nil
}

// hostKeys are the configuration keys that describe a host.
var hostKeys = []string{runfile.KeyGPUCC, runfile.KeyGPUSMs, runfile.KeyDriver, runfile.KeyGPUPeakGBps, runfile.KeyGPUCopyGBps,
	runfile.KeyGPUPeakFLOPs, runfile.KeyCPU, runfile.KeyCPUThreads, runfile.KeyCPUCap}

// Setup returns what h's first run records of hostKeys, as key-value pairs in that order.
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

// hostRuns yields each host with a run of preset, with that run.
func hostRuns(hosts []*Host, preset string) iter.Seq2[*Host, *Run] {
	return runsOf(hosts, func(h *Host) *Run { return h.run(preset) })
}

// gpuRuns yields each GPU host for which pick returns a run, with it.
func gpuRuns(hosts []*Host, pick func(*Host) *Run) iter.Seq2[*Host, *Run] {
	return runsOf(hosts, func(h *Host) *Run {
		if !h.GPU {
			return nil
		}
		return pick(h)
	})
}

// runsOf yields each host for which pick returns a run, with it.
func runsOf(hosts []*Host, pick func(*Host) *Run) iter.Seq2[*Host, *Run] {
	return func(yield func(*Host, *Run) bool) {
		for _, h := range hosts {
			if r := pick(h); r != nil && !yield(h, r) {
				return
			}
		}
	}
}

// at is " at <commit>" where the run's header names one, else "".
func (r *Run) at() string {
	if c := r.Commit(); c != "" {
		return " at " + c
	}
	return ""
}

// runOrCustom returns h's run of preset, else its run with narrowed axes
// (<preset>-custom-<digest>) with the most cases, the last by name among
// equals; nil when h has none.
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
