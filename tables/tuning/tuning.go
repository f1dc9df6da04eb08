// Package tuning holds the tuning tables: per GPU, the block shape and
// tunables a tuner chose for each GPU variant, element type, filter size
// and image size class, with the times of every candidate it tried. GPU
// plans look their GPU's entry up for the tunables a configuration
// leaves unset (Lookup); with none they take their families' defaults.
package tuning

import (
	"cmp"
	"embed"
	"encoding/json"
	"fmt"
	"slices"

	"github.com/convbench/convbench/convolve"
	"github.com/convbench/convbench/tables"
)

// EnvVar names the environment variable that overrides the embedded
// tables.
const EnvVar = "CONVBENCH_TUNING"

// The statuses of a candidate.
const (
	OK      = "ok"      // verified and timed
	Wrong   = "wrong"   // its output differed from the reference: never chosen
	Refused = "refused" // it failed to plan or to run
	// Crash and Hang ended the tune command's child process trying
	// them: a sticky CUDA error or the process's death, and the time
	// limit. Neither is ever chosen.
	Crash = "crash"
	Hang  = "hang"
)

// Table is the tuning of one GPU.
type Table struct {
	GPU     string  `json:"gpu"` // the device's name, as CUDA reports it
	Entries []Entry `json:"entries"`
}

// Entry is the tuning of one variant for one problem class: element
// type, filter size K (the larger side) and image size class.
type Entry struct {
	Variant string             `json:"variant"`
	Type    string             `json:"type"` // convolve.ElemType's name: f32, u8, i16
	K       int                `json:"k"`
	Size    convolve.SizeClass `json:"size"`
	// Problem is the problem the candidates were timed on.
	Problem string `json:"problem"`
	// Chosen is the fastest candidate that passed verification.
	Chosen Candidate `json:"chosen"`
	// Default is the family's heuristic setting, timed in the same run.
	Default Candidate `json:"default"`
	// Space is the number of points the restrictions allow; Excluded
	// the number they keep out; Search how they were searched
	// ("exhaustive", or "sampled N then local search").
	Space    int    `json:"space"`
	Excluded int    `json:"excluded"`
	Search   string `json:"search"`
	// Candidates is every point tried, in the order tried.
	Candidates []Candidate `json:"candidates"`
	// Where and when: the commit of the tuner, the CUDA driver and NVRTC
	// versions, the UTC date and the timing ("kernel-graph, median of 7").
	Commit string `json:"commit"`
	Driver string `json:"driver"`
	NVRTC  string `json:"nvrtc"`
	Date   string `json:"date"`
	Timing string `json:"timing"`
}

// Candidate is one point tried and what became of it.
type Candidate struct {
	Block    string         `json:"block,omitempty"` // "32x8"; empty: the variant's default
	Tunables map[string]int `json:"tunables,omitempty"`
	Status   string         `json:"status"`
	// MedianNS is the median kernel time of one run, in nanoseconds;
	// VsDefault is it over the default setting's median in the same run.
	MedianNS  float64 `json:"median_ns,omitempty"`
	VsDefault float64 `json:"vs_default,omitempty"`
	// Error says why a wrong, refused, crashed or hung candidate was.
	Error string `json:"error,omitempty"`
}

// Key is what an entry tunes: variant, type, K and size class.
func (e Entry) Key() string {
	return fmt.Sprintf("%s %s k=%d %s", e.Variant, e.Type, e.K, e.Size)
}

// CandidateOf is the candidate record of setting s.
func CandidateOf(s convolve.Setting) Candidate {
	c := Candidate{Tunables: s.Tunables}
	if s.Block != (convolve.Block{}) {
		c.Block = s.Block.String()
	}
	return c
}

// Setting is the candidate's block and tunables.
func (c Candidate) Setting() (convolve.Setting, error) {
	s := convolve.Setting{Tunables: c.Tunables}
	if c.Block != "" {
		b, err := convolve.ParseBlock(c.Block)
		if err != nil {
			return s, err
		}
		s.Block = b
	}
	return s, nil
}

// Check reports an entry that cannot be used: a status other than ok for
// Chosen, a bad block, a missing key field.
func (e Entry) Check() error {
	if e.Variant == "" || e.Type == "" || e.K < 1 || e.Size == "" {
		return fmt.Errorf("tuning: entry %q: variant, type, k and size must be set", e.Key())
	}
	if _, err := convolve.ParseElemType(e.Type); err != nil {
		return fmt.Errorf("tuning: entry %q: %w", e.Key(), err)
	}
	if _, err := convolve.ParseSizeClass(string(e.Size)); err != nil {
		return fmt.Errorf("tuning: entry %q: %w", e.Key(), err)
	}
	if e.Chosen.Status != OK {
		return fmt.Errorf("tuning: entry %q: chosen candidate has status %q, want %q", e.Key(), e.Chosen.Status, OK)
	}
	if _, err := e.Chosen.Setting(); err != nil {
		return fmt.Errorf("tuning: entry %q: %w", e.Key(), err)
	}
	return nil
}

// Parse reads a table and checks every entry.
func Parse(data []byte) (*Table, error) {
	var t Table
	if err := json.Unmarshal(data, &t); err != nil {
		return nil, fmt.Errorf("tuning: %w", err)
	}
	if t.GPU == "" {
		return nil, fmt.Errorf("tuning: table names no gpu")
	}
	for _, e := range t.Entries {
		if err := e.Check(); err != nil {
			return nil, err
		}
	}
	return &t, nil
}

// Marshal writes the table as indented JSON, entries sorted by key.
func (t *Table) Marshal() ([]byte, error) {
	slices.SortStableFunc(t.Entries, func(a, b Entry) int {
		return cmp.Or(cmp.Compare(a.Variant, b.Variant), cmp.Compare(a.Type, b.Type), cmp.Compare(a.K, b.K), tables.SizeCompare(a.Size, b.Size))
	})
	b, err := json.MarshalIndent(t, "", "  ")
	return append(b, '\n'), err
}

// Put adds e to the table, replacing an entry with the same key.
func (t *Table) Put(e Entry) {
	for i := range t.Entries {
		if t.Entries[i].Key() == e.Key() {
			t.Entries[i] = e
			return
		}
	}
	t.Entries = append(t.Entries, e)
}

// GPUName is the GPU the table is for, as CUDA reports it.
func (t *Table) GPUName() string { return t.GPU }

// Set is the tuning tables by GPU name.
type Set = tables.Set[*Table]

// Tables are the tuning tables a plan uses: the embedded ones, with
// those at the path in CONVBENCH_TUNING (a file or a directory of
// *.json) in place of those of the same GPUs, or none where it is "off".
var Tables = &tables.Kind[*Table]{Name: "tuning", Env: EnvVar, Files: embedded, Parse: Parse}

//go:embed *.json
var embedded embed.FS

// Match is the entry a lookup found: the entry, the table's source and
// whether K and size class are the problem's own (Exact) or the nearest.
type Match struct {
	Entry  Entry
	Source string
	Exact  bool
}

// Lookup finds the entry of gpu's table in s for variant and p's element
// type nearest to problem p (tables.Nearest). It reports false when there
// is no table of gpu or no entry of that variant and type.
func Lookup(s *Set, gpu, variant string, p convolve.Problem) (Match, bool) {
	t := s.Table(gpu)
	if t == nil {
		return Match{}, false
	}
	typ := p.Input.Type.String()
	i, exact := tables.Nearest(t.Entries, func(e Entry) bool { return e.Variant == variant && e.Type == typ },
		func(e Entry) int { return e.K }, func(e Entry) convolve.SizeClass { return e.Size }, p)
	if i < 0 {
		return Match{}, false
	}
	return Match{Entry: t.Entries[i], Source: s.Source(gpu), Exact: exact}, true
}
