package convolve

import (
	"errors"
	"fmt"
	"runtime"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// Block is a CUDA thread-block shape. The zero value means the variant's
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

// Config is the per-plan configuration. The zero value asks for each
// variant's defaults.
type Config struct {
	Block Block
	// NoFMA compiles GPU kernels with --fmad=false, so every multiply and
	// add rounds separately as in the CPU naive baseline.
	NoFMA bool
	// FastMath compiles GPU kernels with --use_fast_math.
	FastMath bool
	// Tunables are variant-specific named integer settings; a variant
	// rejects names it does not know. A GPU variant with a tuning space
	// (Capabilities.Space) fills those left unset, and the block when it
	// is zero, from its GPU's tuning table, or its heuristic defaults.
	Tunables map[string]int
	// Untuned leaves the tuning tables aside: the block and tunables left
	// unset take the family's heuristic defaults.
	Untuned bool
	// Devices are the CUDA device ordinals a GPU plan runs on; empty means
	// the variant's default (device 0 for a single-device variant). A
	// single-device variant takes at most one; a multi-device variant one
	// per device it drives, where a repeated ordinal is another logical
	// device (executor, streams, buffers) on the same GPU.
	Devices []int
}

// FormatDevices writes device ordinals as Config.String and the gpus
// benchmark key do: "0,1", "0,0".
func FormatDevices(devs []int) string {
	parts := make([]string, len(devs))
	for i, d := range devs {
		parts[i] = strconv.Itoa(d)
	}
	return strings.Join(parts, ",")
}

// ParseDevices reads a comma list of device ordinals as FormatDevices
// writes it ("0,1", "0,0"; spaces around an ordinal are allowed); "" is
// none. An ordinal is a non-negative decimal number without a sign or
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
	if c.Block != (Block{}) {
		parts = append(parts, "block="+c.Block.String())
	}
	if c.NoFMA {
		parts = append(parts, "fmad=false")
	}
	if c.FastMath {
		parts = append(parts, "fast-math")
	}
	if len(c.Tunables) > 0 {
		parts = append(parts, strings.Split(FormatTunables(c.Tunables), ",")...)
	}
	if c.Untuned {
		parts = append(parts, "untuned")
	}
	if len(c.Devices) > 0 {
		parts = append(parts, "gpus="+FormatDevices(c.Devices))
	}
	return strings.Join(parts, " ")
}

// FormatTunables writes tunables as "name=value" pairs joined by commas
// in name order ("ry=2,shared=1"); ParseTunables reads it back. Benchmark
// names (tune=...) and property-test descriptors use this form.
func FormatTunables(t map[string]int) string {
	keys := make([]string, 0, len(t))
	for k := range t {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = fmt.Sprintf("%s=%d", k, t[k])
	}
	return strings.Join(parts, ",")
}

// ParseTunables parses FormatTunables's form: "" (nil, no tunables) or
// "name=value" pairs joined by commas, each value an integer, each name
// once.
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
	// MaxFilterSide. A GPU variant may still refuse a filter at plan time
	// when the device's memory limits are smaller.
	MaxFilterSide int
	// SeparableOnly variants accept only rank-1 filters.
	SeparableOnly bool
	// ReferenceOrder variants sum every Filter2D output in cpu-naive's
	// order (filter rows, then columns, ascending, zero-border taps
	// included), so with Config.NoFMA their output equals cpu-naive's bit
	// for bit (report 002's exactness point). Tests and the benchmarks'
	// correctness gate hold them to it.
	ReferenceOrder bool
	// GPU variants need a CUDA device.
	GPU bool
	// MultiDevice variants run on several devices (Config.Devices with
	// more than one entry); CheckConfig refuses more than one to others.
	MultiDevice bool
	// NoGraphReplay variants' device plans cannot replay their runs from
	// CUDA graphs (a run spans several executors and host barriers):
	// their TimeKernelGraph returns an error, and only TimeKernel times
	// their device work.
	NoGraphReplay bool
	// FixedBlocks lists the accepted block shapes; empty means any shape
	// up to 1024 threads (GPU variants) or none at all (CPU variants).
	FixedBlocks []Block
	// Tunables names the Config.Tunables the variant reads.
	Tunables []string
	// Space, when set, is what a tuner searches over: blocks, tunables
	// and their restrictions (see TuningSpace).
	Space *TuningSpace
	// TunableValues lists values worth trying of tunables that Space does
	// not list (the tunables of a variant another wraps, say), for
	// conformance suites that draw configurations; a tunable in neither
	// is taken for a 0/1 switch.
	TunableValues map[string][]int
	// FiniteInput variants do not follow IEEE arithmetic over every tap
	// (they leave out zero taps, factor the filter, or run code that
	// cannot be inspected), so NaN and infinite values would give other
	// results than the reference's. They are refused such input: Check
	// (and so PlanFor) returns a *NonFiniteError for a filter with a
	// non-finite weight, and their plans' Run returns one for a
	// non-finite input element (CheckFiniteImage; the scan, on every
	// core, is part of Run and so of a benchmark's total time). Variants
	// without it compute with NaN and infinities as the reference does.
	FiniteInput bool
	// Accuracy is the error model the variant's Filter2D outputs obey
	// (see ErrorModel); the zero value, Direct, is float32 direct
	// summation. The property suite and the benchmarks' correctness gate
	// compare outputs with the reference within the tolerance of this
	// model (refimpl.ExpectModel).
	Accuracy ErrorModel
}

// Clone returns a copy of c whose lists share no memory with c's, for a
// variant that wraps another and changes its capabilities. The tuning
// space is shared (it is not changed in place).
func (c Capabilities) Clone() Capabilities {
	c.Ops = slices.Clone(c.Ops)
	c.Types = slices.Clone(c.Types)
	c.Channels = slices.Clone(c.Channels)
	c.Layouts = slices.Clone(c.Layouts)
	c.Borders = slices.Clone(c.Borders)
	c.FixedBlocks = slices.Clone(c.FixedBlocks)
	c.Tunables = slices.Clone(c.Tunables)
	if c.TunableValues != nil {
		vals := make(map[string][]int, len(c.TunableValues))
		for k, v := range c.TunableValues {
			vals[k] = slices.Clone(v)
		}
		c.TunableValues = vals
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
	max := c.MaxFilterSide
	if max == 0 {
		max = MaxFilterSide
	}
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

// NonFiniteError reports a NaN or infinite value given to a variant that
// declares Capabilities.FiniteInput: a filter weight at plan time or an
// input element at run time.
type NonFiniteError struct {
	Variant string
	What    string // which value: a filter weight or an input element, with its position
	Value   float64
}

func (e *NonFiniteError) Error() string {
	v := e.Variant
	if v == "" {
		v = "variant"
	}
	return fmt.Sprintf("convolve: %s needs finite input: %s is %v", v, e.What, e.Value)
}

// CheckFiniteImage returns a *NonFiniteError naming the first NaN or
// infinite element of a Float32 image (integer images have none), or nil.
// Row padding is not looked at. Plans of FiniteInput variants call it on
// every input; large images are scanned on every core, so that the scan
// stays small beside the copy of the image to a device.
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
// finite v and NaN otherwise, so the sums of v*0 tell (four of them, so
// that the adds do not wait on each other).
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

// ErrClosed is the error (wrapped) of Run and the other methods of a plan,
// and of a second Close, after the plan was closed.
var ErrClosed = errors.New("convolve: plan used after Close")

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
	v := e.Variant
	if v == "" {
		v = "variant"
	}
	return fmt.Sprintf("convolve: %s does not support %s %s", v, e.What, e.Value)
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
// its Capabilities: on its configuration's tunables, or on the limits of
// the device it runs on (shared memory per block, texture sizes, a
// memory cap). Supports is its validity rule, the only one: its Plan
// refuses what it refuses, from the same checks, before any device work;
// the conformance suite and the tuner consult it before they plan, and a
// test holds every preset case to it, so that what they draw or list is
// what the variant accepts. A plan that refuses what Supports accepts is
// a bug of the variant.
type Supporter interface {
	Variant
	// Supports reports whether the variant plans p under cfg on a device
	// with limits lim, without using a device: nil, an error of p or cfg
	// themselves (an even filter side, an unknown tunable value), or a
	// *CapabilityError that says what is not supported and why. Fields of
	// lim left zero are not checked.
	Supports(p Problem, cfg Config, lim DeviceLimits) error
	// DeviceLimits returns the limits of the device a plan under cfg runs
	// on (the first, for a plan of several devices), read from the device;
	// an error that says the device is unavailable where there is none.
	DeviceLimits(cfg Config) (DeviceLimits, error)
}

// Supports reports whether v plans p under cfg on a device with limits
// lim: the capabilities (Capabilities.Check and CheckConfig), then v's
// own rule where v is a Supporter. It returns nil, an error of p or cfg
// themselves, or an error holding a *CapabilityError (errors.As) that
// says what v does not support; every error names v.
func Supports(v Variant, p Problem, cfg Config, lim DeviceLimits) error {
	if v == nil {
		return fmt.Errorf("convolve: Supports of a nil variant")
	}
	d := v.Describe()
	err := d.Caps.Check(p)
	if err == nil {
		err = d.Caps.CheckConfig(cfg)
	}
	if s, ok := v.(Supporter); ok && err == nil {
		err = s.Supports(p, cfg, lim)
	}
	if err != nil {
		return variantError(d.Name, err)
	}
	return nil
}

// IsUnsupported reports whether err says that a variant does not support
// a problem or configuration (a *CapabilityError in its chain), as
// opposed to an invalid problem or a failure.
func IsUnsupported(err error) bool {
	var ce *CapabilityError
	return errors.As(err, &ce)
}

// Plan is a prepared problem. Run may be called many times; Close releases
// what Plan allocated. A plan is not safe for concurrent use.
type Plan interface {
	// Run computes out from in, end to end: for GPU plans that includes
	// the upload of in and the download of out.
	Run(in, out *Image) error
	Close() error
}

// DevicePlan is a plan whose parts can be timed apart, as GPU benchmarks
// need: Upload and Download move data, TimeKernel runs only the device
// work on what was uploaded.
type DevicePlan interface {
	Plan
	Upload(in *Image) error
	// TimeKernel runs the device work n times back to back, one host
	// launch per run, and returns the elapsed device time measured with
	// events, in one uninterrupted task.
	TimeKernel(n int) (time.Duration, error)
	// TimeKernelGraph is TimeKernel with the n runs replayed from CUDA
	// graphs captured once, so that the host's launch rate, which can be
	// slower than a small kernel, does not enter the time.
	TimeKernelGraph(n int) (time.Duration, error)
	Download(out *Image) error
}

var (
	registryMu sync.RWMutex
	registry   = map[string]Variant{}
)

// Register adds v to the registry. Like database/sql.Register it panics on
// a duplicate or empty name: that is a programming error found at start-up.
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
		if near := closest(name, names, 3); len(near) > 0 {
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
func Closest(name string, names []string, n int) []string { return closest(name, names, n) }

// closest returns up to n of names nearest to name by edit distance,
// nearest first (ties by name), among those within a third of name's
// length (at least 2 edits) or holding it as a part.
func closest(name string, names []string, n int) []string {
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

// Registered returns the number of registered variants. It only grows
// (Register adds, nothing removes), so a result computed over the
// registry stays right while Registered is unchanged.
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

func namesLocked() []string {
	names := make([]string, 0, len(registry))
	for n := range registry {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// The packages whose import registers variants (for a blank import).
const (
	CPUVariantsPackage = "github.com/convbench/convbench/refimpl"
	GPUVariantsPackage = "github.com/convbench/convbench/gpu/variants"
)

// PlanFor checks p and cfg against v's capabilities and then plans. Every
// error it returns names the variant: a validation error of p or cfg, a
// capability error and an error of v's own Plan alike. A
// *CapabilityError, *NonFiniteError or *MemoryError in the error's chain
// that names no variant gets v's name (NameVariant), and an error whose
// message still does not name the variant is wrapped as "convolve: NAME:
// message"; errors.As and errors.Is see through the wrapping. Callers
// should prefer PlanFor to v.Plan. A nil v is an error.
func PlanFor(v Variant, p Problem, cfg Config) (Plan, error) {
	if v == nil {
		return nil, fmt.Errorf("convolve: PlanFor of a nil variant (look variants up with Lookup)")
	}
	d := v.Describe()
	err := d.Caps.Check(p)
	if err == nil {
		err = d.Caps.CheckConfig(cfg)
	}
	if err != nil {
		return nil, variantError(d.Name, err)
	}
	pl, err := v.Plan(p, cfg)
	if err != nil {
		return nil, variantError(d.Name, err)
	}
	return pl, nil
}

// NameVariant gives name to the first *CapabilityError, the first
// *NonFiniteError and the first *MemoryError in err's chain (as errors.As
// finds them) where that error names no variant, and returns err.
func NameVariant(name string, err error) error {
	var ce *CapabilityError
	if errors.As(err, &ce) && ce.Variant == "" {
		ce.Variant = name
	}
	var nf *NonFiniteError
	if errors.As(err, &nf) && nf.Variant == "" {
		nf.Variant = name
	}
	var me *MemoryError
	if errors.As(err, &me) && me.Variant == "" {
		me.Variant = name
	}
	return err
}
