package convolve

import (
	"cmp"
	"fmt"
	"maps"
	"slices"
	"strings"
)

// DeviceLimits are the limits of a device that validity rules and tuning
// restrictions read. A zero field is unknown and left unchecked.
type DeviceLimits struct {
	Name               string // the device's name ("NVIDIA H100 80GB HBM3")
	Major, Minor       int    // compute capability
	SMs                int
	SharedPerBlock     int // most dynamic shared memory per block, after opting in, in bytes
	SharedPerSM        int
	MaxThreadsPerBlock int
	MaxThreadsPerSM    int
	RegistersPerBlock  int
	ConstantBytes      int
	MemoryBytes        int64 // total device memory
	MaxGridDimX        int
	// The largest 1-D and 2-D linear textures, in elements and rows.
	MaxTex1DLinearWidth  int
	MaxTex2DLinearWidth  int
	MaxTex2DLinearHeight int
}

// Tunable is one tunable parameter of a kernel family: a Config.Tunables
// name and the values a tuner tries, neighbours next to each other.
type Tunable struct {
	Name   string
	Values []int
}

// Setting is one point of a tuning space: a block shape (zero: the
// default) and a value per tunable.
type Setting struct {
	Block    Block
	Tunables map[string]int
}

// String writes the setting as "block=32x8 rx=4,ry=8".
func (s Setting) String() string {
	var parts []string
	if s.Block != (Block{}) {
		parts = append(parts, "block="+s.Block.String())
	}
	if len(s.Tunables) > 0 {
		parts = append(parts, FormatTunables(s.Tunables))
	}
	return cmp.Or(strings.Join(parts, " "), "default")
}

// Equal reports whether s and t are the same point.
func (s Setting) Equal(t Setting) bool {
	return s.Block == t.Block && maps.Equal(s.Tunables, t.Tunables)
}

// Apply returns cfg with the block and tunables of s set over its own.
func (s Setting) Apply(cfg Config) Config {
	if s.Block != (Block{}) {
		cfg.Block = s.Block
	}
	if len(s.Tunables) > 0 {
		t := map[string]int{}
		maps.Copy(t, cfg.Tunables)
		maps.Copy(t, s.Tunables)
		cfg.Tunables = t
	}
	return cfg
}

// TuningSpace is what a kernel family can be tuned over: the cross
// product of Blocks and every Tunable's Values that Allow accepts.
type TuningSpace struct {
	Blocks   []Block   // empty: the variant's default shape only
	Tunables []Tunable // each a name of Capabilities.Tunables
	// Allow, when set, returns why setting s cannot run problem p on a
	// device with limits lim, or nil.
	Allow func(p Problem, s Setting, lim DeviceLimits) error
	// Default is the family's heuristic setting for p in blocks of block
	// (zero: the family's default shape) on a device with limits lim.
	Default func(p Problem, block Block, lim DeviceLimits) Setting
}

// Check reports a space that cannot work with capabilities caps: a
// tunable the variant does not read, given twice or without values, a
// value given twice, a bad block or one outside caps.FixedBlocks, or no
// Default.
func (sp *TuningSpace) Check(caps Capabilities) error {
	if sp.Default == nil {
		return fmt.Errorf("convolve: tuning space has no Default")
	}
	seen := map[string]bool{}
	for _, t := range sp.Tunables {
		if !slices.Contains(caps.Tunables, t.Name) {
			return fmt.Errorf("convolve: tuning space: tunable %q is not one of the variant's (%s)", t.Name, strings.Join(caps.Tunables, ", "))
		}
		if seen[t.Name] {
			return fmt.Errorf("convolve: tuning space: tunable %q given twice", t.Name)
		}
		seen[t.Name] = true
		if len(t.Values) == 0 {
			return fmt.Errorf("convolve: tuning space: tunable %q has no values", t.Name)
		}
		for i, v := range t.Values {
			if slices.Contains(t.Values[:i], v) {
				return fmt.Errorf("convolve: tuning space: tunable %q: value %d given twice", t.Name, v)
			}
		}
	}
	for i, b := range sp.Blocks {
		if b.X < 1 || b.Y < 1 || b.X*b.Y > 1024 {
			return fmt.Errorf("convolve: tuning space: block %v: sides must be positive with at most 1024 threads", b)
		}
		if slices.Contains(sp.Blocks[:i], b) {
			return fmt.Errorf("convolve: tuning space: block %v given twice", b)
		}
		if len(caps.FixedBlocks) > 0 && !slices.Contains(caps.FixedBlocks, b) {
			return fmt.Errorf("convolve: tuning space: block %v is not one of the variant's fixed blocks", b)
		}
	}
	return nil
}

// String lists the space's axes: "blocks=32x4,32x8 rx=1,2,4 ry=1,2"
// (blocks=default when it has none).
func (sp *TuningSpace) String() string {
	parts := []string{"blocks=" + cmp.Or(joinComma(sp.Blocks), "default")}
	for _, t := range sp.Tunables {
		parts = append(parts, t.Name+"="+joinComma(t.Values))
	}
	return strings.Join(parts, " ")
}

// joinComma writes xs as fmt.Sprint does each, joined by commas.
func joinComma[T any](xs []T) string {
	s := make([]string, len(xs))
	for i, x := range xs {
		s[i] = fmt.Sprint(x)
	}
	return strings.Join(s, ",")
}

// Size is the number of points before Allow: the product of the number
// of blocks (at least 1) and of every tunable's values.
func (sp *TuningSpace) Size() int {
	n := max(len(sp.Blocks), 1)
	for _, t := range sp.Tunables {
		n *= len(t.Values)
	}
	return n
}

// Excluded is a point of a space that its restriction keeps out, and why.
type Excluded struct {
	Setting Setting
	Reason  string
}

// Settings enumerates the points of the space for p on a device with
// limits lim, blocks outermost, then tunables in order: those Allowed
// accepts, and those it keeps out with the reason.
func (sp *TuningSpace) Settings(p Problem, lim DeviceLimits) (ok []Setting, out []Excluded) {
	blocks := sp.Blocks
	if len(blocks) == 0 {
		blocks = []Block{{}}
	}
	var walk func(s Setting, i int)
	walk = func(s Setting, i int) {
		if i < len(sp.Tunables) {
			for _, v := range sp.Tunables[i].Values {
				n := Setting{Block: s.Block, Tunables: maps.Clone(s.Tunables)}
				n.Tunables[sp.Tunables[i].Name] = v
				walk(n, i+1)
			}
			return
		}
		if err := sp.Allowed(p, s, lim); err != nil {
			out = append(out, Excluded{s, err.Error()})
		} else {
			ok = append(ok, s)
		}
	}
	for _, b := range blocks {
		walk(Setting{Block: b, Tunables: map[string]int{}}, 0)
	}
	return ok, out
}

// Allowed returns why s cannot run p on a device with limits lim, or nil:
// a block over the device's threads per block, or Allow's reason.
func (sp *TuningSpace) Allowed(p Problem, s Setting, lim DeviceLimits) error {
	if lim.MaxThreadsPerBlock > 0 && s.Block.X*s.Block.Y > lim.MaxThreadsPerBlock {
		return fmt.Errorf("block %v has more than the device's %d threads", s.Block, lim.MaxThreadsPerBlock)
	}
	if sp.Allow != nil {
		return sp.Allow(p, s, lim)
	}
	return nil
}

// Neighbours returns the points one step from s, Allow not applied: one
// tunable moved to a value next to its own, or the block changed to one
// of Blocks with one side halved or doubled.
func (sp *TuningSpace) Neighbours(s Setting) []Setting {
	var ns []Setting
	for _, b := range sp.Blocks {
		if b == s.Block {
			continue
		}
		if (b.X == s.Block.X && (b.Y == 2*s.Block.Y || 2*b.Y == s.Block.Y)) ||
			(b.Y == s.Block.Y && (b.X == 2*s.Block.X || 2*b.X == s.Block.X)) {
			ns = append(ns, Setting{Block: b, Tunables: maps.Clone(s.Tunables)})
		}
	}
	for _, t := range sp.Tunables {
		i := slices.Index(t.Values, s.Tunables[t.Name])
		if i < 0 {
			continue
		}
		for _, j := range []int{i - 1, i + 1} {
			if j >= 0 && j < len(t.Values) {
				n := Setting{Block: s.Block, Tunables: maps.Clone(s.Tunables)}
				n.Tunables[t.Name] = t.Values[j]
				ns = append(ns, n)
			}
		}
	}
	return ns
}

// SizeClass is a class of image sizes that tuning tells apart.
type SizeClass string

// The size classes, by pixels per channel.
const (
	SizeSmall  SizeClass = "small"  // up to 512x512
	SizeMedium SizeClass = "medium" // up to 2048x2048
	SizeLarge  SizeClass = "large"  // up to 4096x4096
	SizeHuge   SizeClass = "huge"   // beyond
)

// SizeClasses lists the classes from the smallest.
var SizeClasses = []SizeClass{SizeSmall, SizeMedium, SizeLarge, SizeHuge}

var sizeSides = map[SizeClass]int{SizeSmall: 512, SizeMedium: 2048, SizeLarge: 4096, SizeHuge: 8192}

// SizeClassOf is the class of a w x h image.
func SizeClassOf(w, h int) SizeClass {
	px := int64(w) * int64(h)
	for _, c := range SizeClasses[:len(SizeClasses)-1] {
		if px <= int64(c.Side())*int64(c.Side()) {
			return c
		}
	}
	return SizeHuge
}

// Side is the square side a tuner times the class at: the largest image
// of the class (8192 for SizeHuge), or 0 for an unknown class.
func (c SizeClass) Side() int { return sizeSides[c] }

// ParseSizeClass parses a class name.
func ParseSizeClass(s string) (SizeClass, error) {
	for _, c := range SizeClasses {
		if string(c) == s {
			return c, nil
		}
	}
	return "", fmt.Errorf("convolve: size class %q: want one of small, medium, large, huge", s)
}

// TunedPlan is a plan that says with which setting it runs and where it
// came from: "tuned" (a tuning table), "default" (the heuristic) or
// "given" (the caller's Config).
type TunedPlan interface {
	Plan
	Setting() Setting
	SettingSource() string
}
