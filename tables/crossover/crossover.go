// Package crossover holds the crossover tables: per GPU, for each image
// size class, filter size K and filter kind, every variant that passed
// preset crossover's gate, fastest first, with its median kernel time.
// The auto variant looks its GPU's table up (Lookup); with none it takes
// its heuristic choice. results.CrossoverTable writes one from a run of
// the preset.
package crossover

import (
	"cmp"
	"embed"
	"encoding/json"
	"fmt"
	"math"
	"slices"

	"github.com/convbench/convbench/convolve"
	"github.com/convbench/convbench/tables"
)

// EnvVar names the environment variable that overrides the embedded
// tables.
const EnvVar = "CONVBENCH_CROSSOVER"

// Table is the crossover of one GPU.
type Table struct {
	GPU string `json:"gpu"` // the device's name, as CUDA reports it
	// Run names the stored run the table was written from and its
	// commit ("results/data/nvidia-h200/crossover.txt at 1a2b3c4").
	Run     string  `json:"run"`
	Entries []Entry `json:"entries"`
}

// Entry is one case of the crossover run: image size class, K (the
// filter's larger side), filter kind and element type, with the variants
// that passed it, fastest first.
type Entry struct {
	Size convolve.SizeClass  `json:"size"`
	K    int                 `json:"k"`
	Kind convolve.FilterKind `json:"kind"` // Dense or Separable
	Type string              `json:"type"` // convolve.ElemType's name
	// Case is the case measured: image size and filter spec
	// ("4096x4096 dense21").
	Case string `json:"case"`
	// Ranking is every variant that passed the case's correctness gate,
	// by median kernel time, fastest first.
	Ranking []Timing `json:"ranking"`
}

// Timing is one variant's median kernel time on an entry's case.
type Timing struct {
	Variant  string  `json:"variant"`
	MedianNS float64 `json:"median_ns"`
}

// Key is what an entry covers: size class, K, kind and type.
func (e Entry) Key() string {
	return fmt.Sprintf("%s k=%d %s %s", e.Size, e.K, e.Kind, e.Type)
}

// Check reports an entry that cannot be used: a missing or bad key
// field, an empty ranking, a time that is not positive and finite, a
// variant given twice or a ranking out of order.
func (e Entry) Check() error {
	if e.K < 1 || e.Type == "" {
		return fmt.Errorf("crossover: entry %q: k and type must be set", e.Key())
	}
	if _, err := convolve.ParseSizeClass(string(e.Size)); err != nil {
		return fmt.Errorf("crossover: entry %q: %w", e.Key(), err)
	}
	if e.Kind != convolve.DenseFilter && e.Kind != convolve.SeparableFilter {
		return fmt.Errorf("crossover: entry %q: kind %q is not %s or %s", e.Key(), e.Kind, convolve.DenseFilter, convolve.SeparableFilter)
	}
	if _, err := convolve.ParseElemType(e.Type); err != nil {
		return fmt.Errorf("crossover: entry %q: %w", e.Key(), err)
	}
	if len(e.Ranking) == 0 {
		return fmt.Errorf("crossover: entry %q: no variant in its ranking", e.Key())
	}
	seen := map[string]bool{}
	for i, t := range e.Ranking {
		if t.Variant == "" || seen[t.Variant] {
			return fmt.Errorf("crossover: entry %q: variant %q empty or given twice", e.Key(), t.Variant)
		}
		seen[t.Variant] = true
		if !(t.MedianNS > 0) || math.IsInf(t.MedianNS, 0) {
			return fmt.Errorf("crossover: entry %q: %s has time %v ns, want a positive finite time", e.Key(), t.Variant, t.MedianNS)
		}
		if i > 0 && t.MedianNS < e.Ranking[i-1].MedianNS {
			return fmt.Errorf("crossover: entry %q: %s (%v ns) ranked after the slower %s (%v ns)", e.Key(), t.Variant, t.MedianNS, e.Ranking[i-1].Variant, e.Ranking[i-1].MedianNS)
		}
	}
	return nil
}

// Parse reads a table and checks every entry.
func Parse(data []byte) (*Table, error) {
	var t Table
	if err := json.Unmarshal(data, &t); err != nil {
		return nil, fmt.Errorf("crossover: %w", err)
	}
	if t.GPU == "" {
		return nil, fmt.Errorf("crossover: table names no gpu")
	}
	keys := map[string]bool{}
	for _, e := range t.Entries {
		if err := e.Check(); err != nil {
			return nil, err
		}
		if keys[e.Key()] {
			return nil, fmt.Errorf("crossover: entry %q given twice", e.Key())
		}
		keys[e.Key()] = true
	}
	return &t, nil
}

// Marshal writes the table as indented JSON, entries sorted by kind,
// type, K and size class.
func (t *Table) Marshal() ([]byte, error) {
	slices.SortStableFunc(t.Entries, func(a, b Entry) int {
		return cmp.Or(cmp.Compare(a.Kind, b.Kind), cmp.Compare(a.Type, b.Type), cmp.Compare(a.K, b.K), tables.SizeCompare(a.Size, b.Size))
	})
	b, err := json.MarshalIndent(t, "", "  ")
	return append(b, '\n'), err
}

// GPUName is the GPU the table is for, as CUDA reports it.
func (t *Table) GPUName() string { return t.GPU }

// Set is the crossover tables by GPU name.
type Set = tables.Set[*Table]

// Tables are the crossover tables auto uses: the embedded ones, with
// those at the path in CONVBENCH_CROSSOVER (a file or a directory of
// *.json) in place of those of the same GPUs, or none where it is "off".
var Tables = &tables.Kind[*Table]{Name: "crossover", Env: EnvVar, Files: embedded, Parse: Parse}

//go:embed *.json
var embedded embed.FS

// Match is what a lookup found: the entry, the variant of its ranking
// chosen with its time, the table's source, and whether the entry's
// size class and K are the problem's own (Exact) or the nearest.
type Match struct {
	Entry  Entry
	Chosen Timing
	Source string
	Exact  bool
}

// Lookup finds, in gpu's table in s, the entry of p's element type and
// filter kind nearest to p (tables.Nearest), and in its ranking the
// fastest variant that admit accepts (any, when admit is nil). An entry
// stands for every channel count, layout and border of its type and
// kind. It reports false when there is no table of gpu, no entry of that
// type and kind, or no variant of its ranking that admit accepts.
func Lookup(s *Set, gpu string, p convolve.Problem, admit func(variant string) bool) (Match, bool) {
	t := s.Table(gpu)
	if t == nil {
		return Match{}, false
	}
	typ, kind := p.Input.Type.String(), p.FilterKind()
	i, exact := tables.Nearest(t.Entries, func(e Entry) bool { return e.Type == typ && e.Kind == kind },
		func(e Entry) int { return e.K }, func(e Entry) convolve.SizeClass { return e.Size }, p)
	if i < 0 {
		return Match{}, false
	}
	best := t.Entries[i]
	for _, c := range best.Ranking {
		if admit == nil || admit(c.Variant) {
			return Match{Entry: best, Chosen: c, Source: s.Source(gpu), Exact: exact}, true
		}
	}
	return Match{}, false
}
