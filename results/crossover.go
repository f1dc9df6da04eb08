package results

import (
	"cmp"
	"fmt"
	"maps"
	"math"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/convbench/convbench/convolve"
	"github.com/convbench/convbench/runfile"
	"github.com/convbench/convbench/tables/crossover"
)

// crossoverFamilies are the filter families of preset crossover.
var crossoverFamilies = []string{"dense", "gauss"}

// crossoverPeers are the variants our fastest path is set against.
var crossoverPeers = []string{"cudnn", "cudnn-tf32", "gpu-fft", "npp", "npp-interior"}

// autoVariant picks a float32-accurate path per problem; autoGoal is how
// much slower than the fastest path it may take an auto variant may be.
const (
	autoVariant = "auto"
	autoGoal    = 1.1
)

// isAuto reports whether v names an auto variant: auto or auto-<model>.
func isAuto(v string) bool { return v == autoVariant || strings.HasPrefix(v, autoVariant+"-") }

// autoPaths reads the run's auto-paths line ("auto=p1,p2; auto-bf16=p1").
func autoPaths(run *Run) map[string][]string {
	line := run.Config[runfile.KeyAutoPaths]
	if line == "" || line == "none" {
		return nil
	}
	m := map[string][]string{}
	for _, part := range strings.Split(line, ";") {
		name, list, ok := strings.Cut(strings.TrimSpace(part), "=")
		if ok && list != "" {
			m[name] = strings.Split(list, ",")
		}
	}
	return m
}

// looserPaths are the paths only an auto variant of a looser error model
// than auto's may take; nil when the run does not list auto's paths.
func looserPaths(run *Run) map[string]bool {
	paths := autoPaths(run)
	own, ok := paths[autoVariant]
	if !ok {
		return nil
	}
	looser := map[string]bool{}
	for a, ps := range paths {
		if a == autoVariant {
			continue
		}
		for _, v := range ps {
			if !slices.Contains(own, v) {
				looser[v] = true
			}
		}
	}
	return looser
}

// autoTakes reports whether auto variant a may take path v.
func autoTakes(paths map[string][]string, a, v string) bool {
	ps, ok := paths[a]
	if !ok {
		return isPath(v)
	}
	return slices.Contains(ps, v)
}

// isOurPath reports whether v is a path not among crossoverPeers.
func isOurPath(v string) bool {
	return isPath(v) && !slices.Contains(crossoverPeers, v)
}

// isPath reports whether v is a path auto may run: a gpu-* variant.
func isPath(v string) bool { return strings.HasPrefix(v, "gpu-") }

// crossoverRun returns h's run of preset crossover (Host.runOrCustom).
func crossoverRun(h *Host) *Run { return h.runOrCustom("crossover") }

// crossoverCase is one problem of a crossover run and its variants' times.
type crossoverCase struct {
	size, family string
	k            int
	times        map[string]Measure
	energy       map[string]Measure // mJ a run, where the lines record it
	ran          map[string]string  // each auto variant's path, by its setting line
}

// filter is the name of the case's filter ("dense21").
func (c crossoverCase) filter() string { return convolve.FilterSpec{Family: c.family, K: c.k}.String() }

// kind is the kind of the case's filter (convolve.Filter.Kind).
func (c crossoverCase) kind() (convolve.FilterKind, error) {
	f, err := convolve.ParseFilter(c.filter())
	if err != nil {
		return "", err
	}
	return f.Kind(), nil
}

// ranked lists the variants keep accepts, fastest first, then by name.
func (c crossoverCase) ranked(keep func(string) bool) []string {
	var vs []string
	for v, m := range c.times {
		if m.OK() && m.Center() > 0 && (keep == nil || keep(v)) {
			vs = append(vs, v)
		}
	}
	slices.SortFunc(vs, func(a, b string) int {
		return cmp.Or(cmp.Compare(c.times[a].Center(), c.times[b].Center()), strings.Compare(a, b))
	})
	return vs
}

// pathInNote finds the path an auto plan chose in its setting note.
var pathInNote = regexp.MustCompile(`\bpath ([a-z0-9-]+)`)

// readCrossover collects run's f32 graph-replay cases, sorted.
func readCrossover(run *Run) []crossoverCase {
	base := Q{"type": "f32", "ch": "1", "border": "zero", "cache": "hot", "timing": "kernel-graph", "opts": "default", "tune": "default"}
	type key struct {
		size, family string
		k            int
	}
	var keys []key
	for _, smp := range run.Find(base) {
		family, k, ok := familyK(smp.Keys["filter"], crossoverFamilies)
		if !ok {
			continue
		}
		keys = appendNew(keys, key{smp.Keys["size"], family, k})
	}
	slices.SortFunc(keys, func(a, b key) int {
		return cmp.Or(strings.Compare(a.family, b.family), compareSizes(a.size, b.size), a.k-b.k)
	})
	var out []crossoverCase
	for _, k := range keys {
		c := crossoverCase{size: k.size, family: k.family, k: k.k, times: map[string]Measure{}, energy: map[string]Measure{}, ran: map[string]string{}}
		q := base.with("size", c.size, "filter", c.filter())
		_, byVariant := groupBy(run.Find(q), func(smp *Sample) string { return smp.Keys["variant"] })
		for v, ss := range byVariant {
			if smp := fastestSample(ss); smp != nil {
				c.times[v] = timeOf(smp)
				if e := energyOf(smp); e.OK() {
					c.energy[v] = e
				}
			}
			if note, ok := run.SettingOf(q.with("variant", v)); ok && isAuto(v) {
				if m := pathInNote.FindStringSubmatch(note); m != nil {
					c.ran[v] = m[1]
				}
			}
		}
		out = append(out, c)
	}
	return out
}

// CrossoverTable is the crossover table of a run of preset crossover:
// per size class, K and filter kind, every non-auto variant that passed,
// fastest first. It is an error when the run names no GPU, holds no case,
// or holds two images of one size class for the same K and kind.
func CrossoverTable(run *Run) (*crossover.Table, error) {
	gpu := run.Config[runfile.KeyGPU]
	if gpu == "" {
		return nil, fmt.Errorf("results: %s: the run names no gpu", run.Path)
	}
	t := &crossover.Table{GPU: gpu, Run: run.Path + run.at()}
	cases := map[string]string{}
	for _, c := range readCrossover(run) {
		w, h, ok := parseSize(c.size)
		if !ok {
			continue
		}
		kind, err := c.kind()
		if err != nil {
			return nil, fmt.Errorf("results: %s: %w", run.Path, err)
		}
		e := crossover.Entry{Size: convolve.SizeClassOf(w, h), K: c.k, Kind: kind, Type: convolve.Float32.String(),
			Case: c.size + " " + c.filter()}
		for _, v := range c.ranked(notAuto) {
			e.Ranking = append(e.Ranking, crossover.Timing{Variant: v, MedianNS: c.times[v].Center()})
		}
		if len(e.Ranking) == 0 {
			continue
		}
		if prev, dup := cases[e.Key()]; dup {
			return nil, fmt.Errorf("results: %s: cases %s and %s are both %s", run.Path, prev, e.Case, e.Key())
		}
		cases[e.Key()] = e.Case
		t.Entries = append(t.Entries, e)
	}
	if len(t.Entries) == 0 {
		return nil, fmt.Errorf("results: %s: no case of preset crossover (f32, one channel, zero border, dense<K> or gauss<K>, kernel-graph timing)", run.Path)
	}
	return t, nil
}

// sectionCrossover sets each GPU's crossover run out by path, peer and auto variant.
func sectionCrossover(hosts []*Host) *Section {
	s := &Section{Report: "crossover", Title: "Crossover: direct, tensor-core and FFT paths and the peers against K"}
	goal := &Table{ID: "crossover-auto-goal", Title: "auto against the fastest path",
		Caption: fmt.Sprintf("Each GPU's crossover run, per auto variant: the cases where it ran beside at least one path it may take (`gpu-*` whose error model its own admits: `auto` the float32 direct and separable paths, the 3xTF32 tensor cores and `gpu-fft`; `auto-bf16` the TF32 and bfloat16 tensor cores too), how many of them it finished within %s× the median kernel time of the fastest of those, and the worst ratio and its case; the last column is the worst ratio against the fastest path of any model, what an auto variant's accuracy costs where a looser path is faster.", Sig(autoGoal, 2)),
		Header:  []string{"GPU", "Variant", "Cases", fmt.Sprintf("Within %s×", Sig(autoGoal, 2)), "Worst / fastest path it may take", "Worst case", "Verdict", "Worst / fastest path of any model"}}
	pathGoalsTable := pathGoalTable()
	recorded, shown := false, false // whether a run records energy; whether any run is shown
	for h, run := range gpuRuns(hosts, crossoverRun) {
		cases := readCrossover(run)
		if len(cases) == 0 {
			continue
		}
		which := "run `" + run.Preset + "`" + run.at()
		shown = true
		s.Plots = append(s.Plots, crossoverPlots(h, cases)...)
		s.Tables = append(s.Tables, crossoverWinners(h, which, cases))
		if t := crossoverEnergy(h, which, cases); t != nil {
			s.Tables = append(s.Tables, t)
			recorded = true
		}
		s.add(crossoverPeersTable(h, which, cases), crossoverStarts(h, which, cases))
		for _, g := range pathGoals {
			if row, ok := pathGoalRow(h, g, cases); ok {
				pathGoalsTable.Rows = append(pathGoalsTable.Rows, row)
			}
		}
		paths := autoPaths(run)
		for _, a := range autoVariants(cases) {
			at, row := crossoverAuto(h, a, which, run.Config[runfile.KeyCrossover], paths, cases)
			if at != nil {
				s.Tables = append(s.Tables, at)
				goal.Rows = append(goal.Rows, row)
			}
		}
	}
	s.lead(goal, pathGoalsTable)
	if shown && !recorded {
		s.Notes = append(s.Notes, noEnergyRecorded)
	}
	return s
}

// isDirectCUDACores reports whether v is a direct path on CUDA cores.
func isDirectCUDACores(v string) bool { return v == "gpu-regtile" || v == "gpu-tiled" }

// crossoverStarts is h's table of the smallest K, per size of its dense
// cases, from which the tensor cores beat the direct CUDA-core paths and
// gpu-fft beats every other path; nil without dense cases.
func crossoverStarts(h *Host, which string, cases []crossoverCase) *Table {
	cols := [][2]func(string) bool{
		{func(v string) bool { return strings.HasPrefix(v, "gpu-tc-") }, isDirectCUDACores},
		{func(v string) bool { return v == "gpu-fft" }, func(v string) bool { return isPath(v) && v != "gpu-fft" }},
	}
	t := &Table{ID: "crossover-starts-" + h.Slug, Title: "Where the tensor cores and the FFT start to pay — " + h.Title,
		Caption: "From " + which + ", dense filters: per image size, the smallest K from which, at that K and at every larger K the run measured, the fastest tensor-core variant (`gpu-tc-*`, whatever its error model) is faster than the fastest direct path on CUDA cores (`gpu-regtile`, `gpu-tiled`), and `gpu-fft` is faster than every other path (`gpu-*`); \"—\" where that does not hold at the largest K measured, \"none measured\" where the run has no case with both sides. Medians of kernel time; a K at which either side did not run is left out.",
		Header:  []string{"Size", "Ks measured", "Tensor cores beat CUDA-core direct from K", "gpu-fft beats every other path from K"}}
	dense := slices.DeleteFunc(slices.Clone(cases), func(c crossoverCase) bool { return c.family != "dense" })
	sizes, bySize := groupBy(dense, func(c crossoverCase) string { return c.size })
	for _, size := range sizes {
		row := []string{size, strings.Join(mapCells(bySize[size], func(c crossoverCase) string { return strconv.Itoa(c.k) }), ", ")}
		for _, cl := range cols {
			from, measured := "—", false
			for _, c := range bySize[size] {
				a, b := c.ranked(cl[0]), c.ranked(cl[1])
				if len(a) == 0 || len(b) == 0 {
					continue
				}
				measured = true
				if c.times[a[0]].Center() < c.times[b[0]].Center() {
					if from == "—" {
						from = strconv.Itoa(c.k)
					}
				} else {
					from = "—"
				}
			}
			if !measured {
				from = "none measured"
			}
			row = append(row, from)
		}
		t.Rows = append(t.Rows, row)
	}
	if len(t.Rows) == 0 {
		return nil
	}
	return t
}

// minTested is the fewest runs of each case the U test can tell apart.
const minTested = 4

// crossoverRatio formats a's median over b's: ratioCell with minTested
// runs or more of each, else the untested ratio of the medians.
func crossoverRatio(a, b Measure) string {
	if a.OK() && b.OK() && (len(a.s.Values) < minTested || len(b.s.Values) < minTested) {
		ca, cb := a.Center(), b.Center()
		if ca > 0 && cb > 0 {
			return Sig(ca/cb, 3) + "×"
		}
	}
	return ratioCell(a, b)
}

// untested is the captions' note on crossoverRatio.
const untested = " Ratios need 4 runs or more of each case (`-count 4`) to be tested (Mann-Whitney U, p ≤ 0.05): with fewer they are the ratio of the medians, untested, and the spread of each median is the `median-ci95-%` of its lines."

// crossoverPlots draws each variant's kernel time against K, per family and image size.
func crossoverPlots(h *Host, cases []crossoverCase) []*Plot {
	type key struct{ family, size string }
	keys, byKey := groupBy(cases, func(c crossoverCase) key { return key{c.family, c.size} })
	var plots []*Plot
	for _, k := range keys {
		cs := byKey[k]
		p := &Plot{ID: "crossover-" + h.Slug + "-" + k.family + "-" + k.size,
			Title:  fmt.Sprintf("%s, %s<K>, %s, f32, graph replay: kernel time vs K", h.Title, k.family, k.size),
			XLabel: "filter size K", YLabel: "kernel time (ms)", LogY: true}
		var variants []string
		for _, c := range cs {
			p.X = append(p.X, strconv.Itoa(c.k))
			p.XValue = append(p.XValue, float64(c.k))
			for _, v := range c.ranked(nil) {
				variants = appendNew(variants, v)
			}
		}
		slices.SortFunc(variants, NaturalCompare)
		for _, v := range variants {
			ser := Series{Name: v, Variant: v, Source: h.Title}
			for _, c := range cs {
				ser.Y = append(ser.Y, c.times[v].Center()/1e6)
			}
			p.Series = append(p.Series, ser)
		}
		plots = append(plots, p)
	}
	return plots
}

// groupBy groups xs by key, the keys in the order they first occur.
func groupBy[T any, K comparable](xs []T, key func(T) K) ([]K, map[K][]T) {
	var keys []K
	by := map[K][]T{}
	for _, x := range xs {
		k := key(x)
		if _, ok := by[k]; !ok {
			keys = append(keys, k)
		}
		by[k] = append(by[k], x)
	}
	return keys, by
}

// crossoverWinners is each case's fastest non-auto variant and its runner-up.
func crossoverWinners(h *Host, which string, cases []crossoverCase) *Table {
	t := &Table{ID: "crossover-winners-" + h.Slug, Title: "Where each path wins — " + h.Title,
		Caption: "From " + which + ": per case the fastest variant by median kernel time (ms ± the half-width of its confidence interval; `timing=kernel-graph`, f32, one channel, zero border) among every path and peer that passed its correctness gate (`auto` left aside: it runs one of them), and the runner-up's time over the winner's, \"~\" where their runs do not differ significantly. Each variant is held to the error model it declares (TF32 and FFT paths to looser bounds than the float32 direct ones)." + untested,
		Header:  []string{"Size", "Filter", "Winner", "Time (ms)", "Runner-up", "Runner-up / winner"}, Keys: 2}
	t.Rows = fastestRows(cases, notAuto, func(c crossoverCase, r []string) []string {
		if len(r) > 1 {
			return []string{r[1], crossoverRatio(c.times[r[1]], c.times[r[0]])}
		}
		return []string{missing, missing}
	})
	return t
}

// notAuto reports whether v is not an auto variant.
func notAuto(v string) bool { return !isAuto(v) }

// fastestRows is a row per case that a variant keep accepts ran: size,
// filter, the fastest such variant and its time, then more's cells.
func fastestRows(cases []crossoverCase, keep func(string) bool, more func(c crossoverCase, ranked []string) []string) [][]string {
	var rows [][]string
	for _, c := range cases {
		if r := c.ranked(keep); len(r) > 0 {
			rows = append(rows, append([]string{c.size, c.filter(), r[0], msCI(c.times[r[0]])}, more(c, r)...))
		}
	}
	return rows
}

// crossoverPeersTable is each peer's time over our fastest path's.
func crossoverPeersTable(h *Host, which string, cases []crossoverCase) *Table {
	t := &Table{ID: "crossover-peers-" + h.Slug, Title: "Our fastest path against the peers — " + h.Title,
		Caption: "From " + which + ": the fastest of our paths on each case (`gpu-*` but the cuFFT-based `gpu-fft`) and, per peer, the peer's median kernel time over it: above 1× our path is faster, below 1× the peer is; \"~\" where the runs do not differ significantly, a dash where the peer did not run the case (not installed on the host, refused, or not in the run). `cudnn` and `npp` are float32 direct convolution, `cudnn-tf32` rounds operands to TF32, `gpu-fft` is held to the FFT32 bound; `npp` times its two border passes beside the filter, `npp-interior` the filter alone over the interior." + untested,
		Header:  []string{"Size", "Filter", "Our fastest", "Time (ms)"}, Keys: 2}
	for _, p := range crossoverPeers {
		t.Header = append(t.Header, p+" / ours")
	}
	t.Rows = fastestRows(cases, isOurPath, func(c crossoverCase, ours []string) []string {
		return mapCells(crossoverPeers, func(p string) string { return crossoverRatio(c.times[p], c.times[ours[0]]) })
	})
	return t
}

// autoVariants returns the auto variants that ran a case, by name (auto first).
func autoVariants(cases []crossoverCase) []string {
	seen := map[string]bool{}
	for _, c := range cases {
		for v := range c.times {
			if isAuto(v) {
				seen[v] = true
			}
		}
	}
	return slices.Sorted(maps.Keys(seen))
}

// crossoverAuto is the table of auto variant a, and its goal row, or nil.
func crossoverAuto(h *Host, a, which, table string, paths map[string][]string, cases []crossoverCase) (*Table, []string) {
	read := " The run does not say which crossover table the auto variants read."
	if table != "" {
		read = " Where the auto variants took their paths from, as the run's configuration says: " + table + "."
	}
	if ps, ok := paths[a]; ok {
		read += " The paths `" + a + "` may take, as the run's auto-paths line says: " + strings.Join(ps, ", ") + "."
	} else {
		read += " The run does not say which paths `" + a + "` may take (no auto-paths line names it): it is set against every path, looser models included."
	}
	id := "crossover-auto-" + h.Slug
	if a != autoVariant {
		id = "crossover-" + a + "-" + h.Slug
	}
	t := &Table{ID: id, Title: "`" + a + "` against the fastest path — " + h.Title,
		Caption: fmt.Sprintf("From %s: `%s`'s median kernel time and the path it ran (from the run's setting lines; \"—\" where the run has none) against the fastest path it may take on the same case (a `gpu-*` path whose declared error model its own admits; see README.md, \"auto\"), and their ratio (\"~\" where the runs do not differ significantly); the goal is a ratio of at most %s×. The last two columns set it against the fastest path of any model (`gpu-*`, `gpu-fft` included): where a path of a looser model is faster, that ratio is what its accuracy costs.", which, a, Sig(autoGoal, 2)) + read + untested,
		Header:  []string{"Size", "Filter", a + " (ms)", "Path it ran", "Fastest path it may take", "Its time (ms)", a + " / it", fmt.Sprintf("Within %s×", Sig(autoGoal, 2)), "Fastest path of any model", a + " / that"}, Keys: 2}
	var tally goalTally
	worstAny := math.NaN()
	for _, c := range cases {
		m, ok := c.times[a]
		takes := c.ranked(func(v string) bool { return autoTakes(paths, a, v) })
		if !ok || !m.OK() || len(takes) == 0 {
			continue
		}
		best, any := takes[0], c.ranked(isPath)[0]
		ratio := m.Center() / c.times[best].Center()
		tally.add(ratio <= autoGoal, ratio, Sig(ratio, 3)+"×", c.size+" "+c.filter()+" (fastest "+best+")")
		if r := m.Center() / c.times[any].Center(); math.IsNaN(worstAny) || r > worstAny {
			worstAny = r
		}
		t.Rows = append(t.Rows, []string{c.size, c.filter(), msCI(m), OrMissing(c.ran[a]), best, msCI(c.times[best]), crossoverRatio(m, c.times[best]), yesNo(ratio <= autoGoal),
			any, crossoverRatio(m, c.times[any])})
	}
	if tally.cases == 0 {
		return nil, nil
	}
	return t, append(append([]string{h.Title, a, strconv.Itoa(tally.cases)}, tally.cells()...), Sig(worstAny, 3)+"×")
}
