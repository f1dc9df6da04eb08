package convolve

import (
	"cmp"
	"errors"
	"fmt"
	"maps"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// Block is a CUDA thread-block shape; the zero value is the variant's
// default.
type Block struct{ X, Y int }

func (b Block) String() string { return fmt.Sprintf("%dx%d", b.X, b.Y) }

// ParseBlock parses "32x8".
func ParseBlock(s string) (Block, error) {
	var b Block
	if _, err := fmt.Sscanf(s, "%dx%d", &b.X, &b.Y); err != nil || fmt.Sprintf("%dx%d", b.X, b.Y) != s {
		return Block{}, fmt.Errorf("convolve: block %q: want WxH such as 32x8", s)
	}
	if b.X < 1 || b.Y < 1 || b.X*b.Y > 1024 {
		return Block{}, fmt.Errorf("convolve: block %q: sides must be positive with at most 1024 threads", s)
	}
	return b, nil
}

// Config is the per-plan configuration; the zero value asks for each
// variant's defaults.
type Config struct {
	Block    Block
	NoFMA    bool // compile GPU kernels with --fmad=false
	FastMath bool // compile GPU kernels with --use_fast_math
	// Tunables are variant-specific named integer settings. A variant with
	// a tuning space fills those left unset, and a zero block, from its
	// GPU's tuning table or its heuristic defaults.
	Tunables map[string]int
	// Untuned leaves the tuning tables aside for the heuristic defaults.
	Untuned bool
	// Devices are the CUDA device ordinals a GPU plan runs on; empty is
	// the variant's default. A repeated ordinal is another logical device
	// on the same GPU.
	Devices []int
}

// FormatDevices writes device ordinals as "0,1".
func FormatDevices(devs []int) string { return joinComma(devs) }

// ParseDevices reads FormatDevices's form, spaces around an ordinal
// allowed; "" is none. An ordinal is a decimal number without a sign or
// leading zeros.
func ParseDevices(s string) ([]int, error) {
	if s == "" {
		return nil, nil
	}
	parts := strings.Split(s, ",")
	devs := make([]int, len(parts))
	for i, part := range parts {
		part = strings.TrimSpace(part)
		n, err := strconv.Atoi(part)
		if err != nil || n < 0 || strconv.Itoa(n) != part {
			return nil, fmt.Errorf("%q is not a device ordinal", part)
		}
		devs[i] = n
	}
	return devs, nil
}

func (c Config) String() string {
	var parts []string
	for _, p := range []struct {
		set  bool
		text string
	}{
		{c.Block != (Block{}), "block=" + c.Block.String()},
		{c.NoFMA, "fmad=false"},
		{c.FastMath, "fast-math"},
		{len(c.Tunables) > 0, strings.ReplaceAll(FormatTunables(c.Tunables), ",", " ")},
		{c.Untuned, "untuned"},
		{len(c.Devices) > 0, "gpus=" + FormatDevices(c.Devices)},
	} {
		if p.set {
			parts = append(parts, p.text)
		}
	}
	return strings.Join(parts, " ")
}

// FormatTunables writes tunables as "name=value" pairs joined by commas
// in name order ("ry=2,shared=1").
func FormatTunables(t map[string]int) string {
	keys := slices.Sorted(maps.Keys(t))
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = fmt.Sprintf("%s=%d", k, t[k])
	}
	return strings.Join(parts, ",")
}

// ParseTunables parses FormatTunables's form; "" is nil.
func ParseTunables(s string) (map[string]int, error) {
	if s == "" {
		return nil, nil
	}
	t := map[string]int{}
	for _, part := range strings.Split(s, ",") {
		name, val, ok := strings.Cut(part, "=")
		if !ok || name == "" {
			return nil, fmt.Errorf("convolve: tunables %q: %q is not name=value", s, part)
		}
		n, err := strconv.Atoi(val)
		if err != nil {
			return nil, fmt.Errorf("convolve: tunables %q: value of %s: %w", s, name, err)
		}
		if _, dup := t[name]; dup {
			return nil, fmt.Errorf("convolve: tunables %q: %s given twice", s, name)
		}
		t[name] = n
	}
	return t, nil
}

// Capabilities is what a variant can compute. Empty lists mean "all".
type Capabilities struct {
	Ops      []Operation
	Types    []ElemType
	Channels []int
	Layouts  []Layout
	Borders  []Border
	// MaxFilterSide is the largest KW or KH accepted; 0 means
	// MaxFilterSide.
	MaxFilterSide int
	SeparableOnly bool // only rank-1 filters
	// ReferenceOrder variants sum every Filter2D output in cpu-naive's
	// order, so with Config.NoFMA their output equals cpu-naive's bit for
	// bit.
	ReferenceOrder bool
	GPU            bool // needs a CUDA device
	MultiDevice    bool // may run on more than one of Config.Devices
	// NoGraphReplay variants' device plans cannot replay their runs from
	// CUDA graphs: their TimeKernelGraph returns an error.
	NoGraphReplay bool
	// FixedBlocks lists the accepted block shapes; empty means any shape
	// up to 1024 threads (GPU variants) or none (CPU variants).
	FixedBlocks []Block
	Tunables    []string     // the Config.Tunables the variant reads
	Space       *TuningSpace // what a tuner searches over, when set
	// TunableValues lists values worth trying of tunables Space does not
	// list; a tunable in neither is taken for a 0/1 switch.
	TunableValues map[string][]int
	// FiniteInput variants do not follow IEEE arithmetic over every tap,
	// so they are refused NaN and infinities: Check returns a
	// *NonFiniteError for such a filter weight, and their plans' Run one
	// for such an input element (CheckFiniteImage).
	FiniteInput bool
	// Accuracy is the error model the variant's Filter2D outputs obey.
	Accuracy ErrorModel
}

// Clone returns a copy of c whose lists share no memory with c's; the
// tuning space is shared.
func (c Capabilities) Clone() Capabilities {
	c.Ops = slices.Clone(c.Ops)
	c.Types = slices.Clone(c.Types)
	c.Channels = slices.Clone(c.Channels)
	c.Layouts = slices.Clone(c.Layouts)
	c.Borders = slices.Clone(c.Borders)
	c.FixedBlocks = slices.Clone(c.FixedBlocks)
	c.Tunables = slices.Clone(c.Tunables)
	if c.TunableValues != nil {
		c.TunableValues = maps.Clone(c.TunableValues)
		for k, v := range c.TunableValues {
			c.TunableValues[k] = slices.Clone(v)
		}
	}
	return c
}

// Check reports the first capability problem p needs and c lacks, or nil.
func (c Capabilities) Check(p Problem) error {
	if err := p.Validate(); err != nil {
		return err
	}
	if len(c.Ops) > 0 && !slices.Contains(c.Ops, p.Op) {
		return &CapabilityError{What: "operation", Value: p.Op.String()}
	}
	if len(c.Types) > 0 && !slices.Contains(c.Types, p.Input.Type) {
		return &CapabilityError{What: "element type", Value: p.Input.Type.String()}
	}
	if len(c.Channels) > 0 && !slices.Contains(c.Channels, p.Input.Channels) {
		return &CapabilityError{What: "channel count", Value: fmt.Sprint(p.Input.Channels)}
	}
	if len(c.Layouts) > 0 && p.Input.Channels > 1 && !slices.Contains(c.Layouts, p.Input.Layout) {
		return &CapabilityError{What: "layout", Value: p.Input.Layout.String()}
	}
	if len(c.Borders) > 0 && !slices.Contains(c.Borders, p.Border) {
		return &CapabilityError{What: "border", Value: p.Border.String()}
	}
	kw, kh := p.KernelSize()
	max := cmp.Or(c.MaxFilterSide, MaxFilterSide)
	if kw > max || kh > max {
		return &CapabilityError{What: "filter size", Value: fmt.Sprintf("%dx%d (largest %d)", kw, kh, max)}
	}
	if c.FiniteInput && p.Op == Filter2D {
		if err := p.Filter.CheckFinite(); err != nil {
			return err
		}
	}
	if c.SeparableOnly && p.Op == Filter2D {
		if _, _, ok := p.Filter.Separable(); !ok {
			return &CapabilityError{What: "non-separable filter", Value: p.Filter.Name}
		}
	}
	return nil
}

// NonFiniteError reports a NaN or infinite value given to a
// FiniteInput variant.
type NonFiniteError struct {
	Variant string
	What    string // which value: a filter weight or an input element, with its position
	Value   float64
}

func (e *NonFiniteError) Error() string {
	return fmt.Sprintf("convolve: %s needs finite input: %s is %v", cmp.Or(e.Variant, "variant"), e.What, e.Value)
}

// CheckFiniteImage returns a *NonFiniteError naming the first NaN or
// infinite element of a Float32 image, or nil; row padding is not looked
// at. Large images are scanned on every core.
func CheckFiniteImage(im *Image) error {
	if im == nil || im.Type != Float32 {
		return nil
	}
	rows, n, stride := im.Height, im.RowElems(), im.RowStride()
	if im.Layout == Planar {
		rows *= im.Channels
	}
	if len(im.F32) < (rows-1)*stride+n {
		return nil // Image.Check reports short data
	}
	row := func(r int) []float32 { return im.F32[r*stride : r*stride+n] }
	workers := min(runtime.GOMAXPROCS(0), rows, max(1, rows*n/(1<<18)))
	var bad atomic.Bool
	var wg sync.WaitGroup
	for w := 0; w < workers; w++ {
		wg.Go(func() {
			for r := w * rows / workers; r < (w+1)*rows/workers && !bad.Load(); r++ {
				if !finiteRow(row(r)) {
					bad.Store(true)
				}
			}
		})
	}
	wg.Wait()
	if !bad.Load() {
		return nil
	}
	for c := 0; c < im.Channels; c++ {
		for y := 0; y < im.Height; y++ {
			for x := 0; x < im.Width; x++ {
				if v := im.F32[im.Offset(x, y, c)]; v*0 != 0 {
					return &NonFiniteError{What: fmt.Sprintf("input element (x=%d, y=%d, c=%d)", x, y, c), Value: float64(v)}
				}
			}
		}
	}
	return nil
}

// finiteRow reports whether every value of v is finite: v*0 is 0 for a
// finite v and NaN otherwise (four sums, so that the adds do not wait on
// each other).
func finiteRow(v []float32) bool {
	var z0, z1, z2, z3 float32
	i := 0
	for ; i+4 <= len(v); i += 4 {
		z0 += v[i] * 0
		z1 += v[i+1] * 0
		z2 += v[i+2] * 0
		z3 += v[i+3] * 0
	}
	for ; i < len(v); i++ {
		z0 += v[i] * 0
	}
	return z0+z1+z2+z3 == 0
}

// ErrClosed is the error (wrapped) of a plan's methods after Close.
var ErrClosed = errors.New("convolve: plan used after Close")

// checkAll is Check and then CheckConfig.
func (c Capabilities) checkAll(p Problem, cfg Config) error {
	if err := c.Check(p); err != nil {
		return err
	}
	return c.CheckConfig(cfg)
}

// CheckConfig reports a configuration the variant cannot honour.
func (c Capabilities) CheckConfig(cfg Config) error {
	if cfg.Block != (Block{}) {
		if !c.GPU {
			return &CapabilityError{What: "block shape", Value: cfg.Block.String() + " (CPU variant)"}
		}
		if cfg.Block.X < 1 || cfg.Block.Y < 1 || cfg.Block.X*cfg.Block.Y > 1024 {
			return fmt.Errorf("convolve: block %v: sides must be positive with at most 1024 threads", cfg.Block)
		}
		if len(c.FixedBlocks) > 0 && !slices.Contains(c.FixedBlocks, cfg.Block) {
			return &CapabilityError{What: "block shape", Value: cfg.Block.String()}
		}
	}
	if (cfg.NoFMA || cfg.FastMath) && !c.GPU {
		return &CapabilityError{What: "compile options", Value: "fmad/fast-math (CPU variant)"}
	}
	if len(cfg.Devices) > 0 && !c.GPU {
		return &CapabilityError{What: "devices", Value: FormatDevices(cfg.Devices) + " (CPU variant)"}
	}
	if len(cfg.Devices) > 1 && !c.MultiDevice {
		return &CapabilityError{What: "devices", Value: FormatDevices(cfg.Devices) + " (a single-device variant)"}
	}
	for _, d := range cfg.Devices {
		if d < 0 {
			return fmt.Errorf("convolve: device ordinal %d: ordinals are not negative", d)
		}
	}
	for k := range cfg.Tunables {
		if !slices.Contains(c.Tunables, k) {
			return &CapabilityError{What: "tunable", Value: k}
		}
	}
	return nil
}

// CapabilityError says which capability a problem or configuration needs
// that a variant lacks.
type CapabilityError struct {
	Variant string
	What    string // "border", "element type", ...
	Value   string // the value asked for
}

func (e *CapabilityError) Error() string {
	return fmt.Sprintf("convolve: %s does not support %s %s", cmp.Or(e.Variant, "variant"), e.What, e.Value)
}

// Description says what a variant is.
type Description struct {
	Name    string // short, stable, used in benchmark names: "gpu-shared"
	Summary string // one line
	Report  string // the report it reproduces ("000".."004"), or ""
	Caps    Capabilities
}

// Variant is one implementation of the operations.
type Variant interface {
	Describe() Description
	// Plan prepares p under cfg: compile, allocate and upload the filter.
	// It returns a *CapabilityError when p or cfg is outside the variant's
	// capabilities.
	Plan(p Problem, cfg Config) (Plan, error)
}

// Supporter is a variant whose support of a problem depends on more than
// its Capabilities: on its tunables or on the device's limits. Supports
// is its only validity rule: its Plan refuses what Supports refuses,
// before any device work.
type Supporter interface {
	Variant
	// Supports reports, without using a device, whether the variant plans
	// p under cfg on a device with limits lim (fields left zero are not
	// checked): nil, an error of p or cfg themselves, or a
	// *CapabilityError that says what is not supported.
	Supports(p Problem, cfg Config, lim DeviceLimits) error
	// DeviceLimits reads the limits of the (first) device a plan under
	// cfg runs on, or says that the device is unavailable.
	DeviceLimits(cfg Config) (DeviceLimits, error)
}

// Supports reports whether v plans p under cfg on a device with limits
// lim: its capabilities, then its own rule where it is a Supporter. It
// returns nil, an error of p or cfg themselves, or an error holding a
// *CapabilityError; every error names v.
func Supports(v Variant, p Problem, cfg Config, lim DeviceLimits) error {
	if v == nil {
		return fmt.Errorf("convolve: Supports of a nil variant")
	}
	d := v.Describe()
	err := d.Caps.checkAll(p, cfg)
	if s, ok := v.(Supporter); ok && err == nil {
		err = s.Supports(p, cfg, lim)
	}
	if err != nil {
		return variantError(d.Name, err)
	}
	return nil
}

// IsUnsupported reports whether err holds a *CapabilityError, as opposed
// to an invalid problem or a failure.
func IsUnsupported(err error) bool {
	_, ok := errors.AsType[*CapabilityError](err)
	return ok
}

// Plan is a prepared problem. Run may be called many times; Close releases
// what Plan allocated. A plan is not safe for concurrent use.
type Plan interface {
	// Run computes out from in, end to end: for GPU plans that includes
	// the upload of in and the download of out.
	Run(in, out *Image) error
	Close() error
}

// DevicePlan is a plan whose parts can be timed apart: Upload and
// Download move data, TimeKernel runs only the device work.
type DevicePlan interface {
	Plan
	Upload(in *Image) error
	// TimeKernel runs the device work n times back to back, one host
	// launch per run, and returns the device time measured with events.
	TimeKernel(n int) (time.Duration, error)
	// TimeKernelGraph is TimeKernel with the runs replayed from CUDA
	// graphs, so that the host's launch rate does not enter the time.
	TimeKernelGraph(n int) (time.Duration, error)
	Download(out *Image) error
}

var (
	registryMu sync.RWMutex
	registry   = map[string]Variant{}
)

// Register adds v to the registry. It panics on a duplicate or empty
// name.
func Register(v Variant) {
	name := v.Describe().Name
	registryMu.Lock()
	defer registryMu.Unlock()
	if name == "" {
		panic("convolve: Register of a variant with an empty name")
	}
	if _, dup := registry[name]; dup {
		panic("convolve: Register called twice for variant " + name)
	}
	registry[name] = v
}

// Lookup returns the registered variant with that name.
func Lookup(name string) (Variant, error) {
	registryMu.RLock()
	defer registryMu.RUnlock()
	v, ok := registry[name]
	if !ok {
		names := namesLocked()
		if len(names) == 0 {
			return nil, fmt.Errorf("convolve: no variant named %q (registered: none; importing %s registers the CPU variants, %s the GPU ones)",
				name, CPUVariantsPackage, GPUVariantsPackage)
		}
		if near := Closest(name, names, 3); len(near) > 0 {
			return nil, fmt.Errorf("convolve: no variant named %q (did you mean %s? %d are registered)", name, strings.Join(near, ", "), len(names))
		}
		return nil, fmt.Errorf("convolve: no variant named %q (none of the %d registered is close; Variants lists them)", name, len(names))
	}
	return v, nil
}

// Closest returns up to n of names nearest to name by edit distance,
// nearest first (ties in the order of names), among those within a
// third of name's length (at least 2 edits) or holding it as a part: the
// names a "did you mean" offers for a mistyped one.
func Closest(name string, names []string, n int) []string {
	type cand struct {
		name string
		d    int
	}
	limit := max(2, len(name)/3)
	var cs []cand
	for _, c := range names {
		d := editDistance(name, c)
		if d <= limit || (len(name) >= 3 && strings.Contains(c, name)) {
			cs = append(cs, cand{c, d})
		}
	}
	slices.SortStableFunc(cs, func(a, b cand) int { return a.d - b.d })
	var out []string
	for _, c := range cs[:min(n, len(cs))] {
		out = append(out, c.name)
	}
	return out
}

// editDistance is the Levenshtein distance between a and b, in bytes.
func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			sub := prev[j-1]
			if a[i-1] != b[j-1] {
				sub++
			}
			cur[j] = min(sub, prev[j]+1, cur[j-1]+1)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}

// Registered returns the number of registered variants; it only grows.
func Registered() int {
	registryMu.RLock()
	defer registryMu.RUnlock()
	return len(registry)
}

// Variants returns every registered variant, sorted by name.
func Variants() []Variant {
	registryMu.RLock()
	defer registryMu.RUnlock()
	var vs []Variant
	for _, n := range namesLocked() {
		vs = append(vs, registry[n])
	}
	return vs
}

func namesLocked() []string { return slices.Sorted(maps.Keys(registry)) }

// The packages whose import registers variants (for a blank import).
const (
	CPUVariantsPackage = "github.com/convbench/convbench/refimpl"
	GPUVariantsPackage = "github.com/convbench/convbench/gpu/variants"
)

// PlanFor checks p and cfg against v's capabilities and then plans.
// Every error it returns names the variant (NameVariant, or a wrapping
// "convolve: NAME: message" that errors.As and errors.Is see through).
// Callers should prefer PlanFor to v.Plan.
func PlanFor(v Variant, p Problem, cfg Config) (Plan, error) {
	if v == nil {
		return nil, fmt.Errorf("convolve: PlanFor of a nil variant (look variants up with Lookup)")
	}
	d := v.Describe()
	if err := d.Caps.checkAll(p, cfg); err != nil {
		return nil, variantError(d.Name, err)
	}
	pl, err := v.Plan(p, cfg)
	if err != nil {
		return nil, variantError(d.Name, err)
	}
	return pl, nil
}

// NameVariant gives name to the first *CapabilityError, *NonFiniteError
// and *MemoryError in err's chain that names no variant, and returns err.
func NameVariant(name string, err error) error {
	if e, ok := errors.AsType[*CapabilityError](err); ok && e.Variant == "" {
		e.Variant = name
	}
	if e, ok := errors.AsType[*NonFiniteError](err); ok && e.Variant == "" {
		e.Variant = name
	}
	if e, ok := errors.AsType[*MemoryError](err); ok && e.Variant == "" {
		e.Variant = name
	}
	return err
}
