// Package auto registers auto and auto-bf16, the variants that plan each
// problem on the fastest path proven on the GPU at hand (see
// docs/tuning-and-auto.md).
//
// The choice comes from the GPU's crossover table (package
// tables/crossover): the entry nearest the problem, and in its ranking the
// fastest path auto may take; else Heuristic decides. Only paths whose
// capabilities accept the problem are considered, and a path that refuses
// it at plan time gives way to the next whose bound lies within the first
// choice's (Admits). Each plan is held to the error model of its path
// (ModelFor, read through convolve.ModelOf); auto takes the paths of the
// Direct and FFT32 models, auto-bf16 those of BF16 and FFT32. The
// capabilities are the union of the paths', and FiniteInput when any path
// declares it. A plan is the chosen path's plan and says which it chose
// and why (Plan.Chosen, SettingSource).
package auto

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/convbench/convbench/convolve"
	"github.com/convbench/convbench/cudabind"
	"github.com/convbench/convbench/tables/crossover"
)

// Name is the registered auto variant's name: the paths of the Direct
// and FFT32 models.
const Name = "auto"

// nameBF16 is the name of the registered auto variant that takes every
// path auto takes and those that round their operands to TF32 or
// bfloat16 (the BF16 and FFT32 models): for a user who accepts
// bfloat16's operand error, the fastest path at that accuracy.
const nameBF16 = "auto-bf16"

// paths are the paths the registered auto variant chooses among, names or
// prefixes ending in '*', in the order a choice falls back on them.
var paths = []string{"gpu-regtile", "gpu-tiled", "gpu-sepfused", "gpu-separable", "gpu-tc-*", "gpu-fft"}

func init() {
	convolve.Register(New(Options{Name: Name, Models: []convolve.ErrorModel{convolve.Direct, convolve.FFT32},
		Summary: "the fastest proven path per problem (crossover table of the GPU, else a heuristic) among the paths of the Direct and FFT32 error models, each plan held to its path's"}))
	convolve.Register(New(Options{Name: nameBF16, Model: convolve.BF16, Models: []convolve.ErrorModel{convolve.BF16, convolve.FFT32},
		Summary: "auto with the tensor-core paths that round operands to TF32 or bfloat16 too (the BF16 and FFT32 error models), each plan held to its path's"}))
}

// Options configure an auto variant.
type Options struct {
	Name    string
	Summary string
	// Model is the error model the variant declares
	// (Capabilities.Accuracy): that of the problems it cannot plan.
	Model convolve.ErrorModel
	// Models are the error models of the paths it takes: a path whose
	// model one of them admits (Admits). nil means Model alone. Each plan
	// is held to its path's model (ModelFor).
	Models []convolve.ErrorModel
	// Paths are the registered variants it chooses among, names or
	// prefixes ending in '*', in fallback order; nil means Paths.
	Paths []string
	// Heuristic orders the paths for a problem no crossover entry
	// decides; nil means Heuristic.
	Heuristic func(p convolve.Problem) []string
	// Tables are the crossover tables; nil means crossover.Tables.Default.
	Tables func() (*crossover.Set, error)
	// Device names the GPU the plans run on, as its crossover table
	// does; nil means the default CUDA device's name.
	Device func() (string, error)
}

// Variant is an auto variant.
type Variant struct {
	opt Options
	// cache holds paths' result for a registry of cache.n variants.
	cache struct {
		sync.Mutex
		ok    bool
		n     int
		paths []convolve.Variant
	}
}

// New returns an auto variant with options o (not registered).
func New(o Options) *Variant {
	if o.Paths == nil {
		o.Paths = paths
	}
	if o.Models == nil {
		o.Models = []convolve.ErrorModel{o.Model}
	}
	if o.Heuristic == nil {
		o.Heuristic = Heuristic
	}
	if o.Tables == nil {
		o.Tables = crossover.Tables.Default
	}
	if o.Device == nil {
		o.Device = defaultDevice
	}
	return &Variant{opt: o}
}

func defaultDevice() (string, error) {
	d, err := cudabind.Default()
	if err != nil {
		return "", err
	}
	return d.Info().Name, nil
}

// Admits reports whether a path declaring model path may serve a
// variant declaring model decl: whether path's bound lies within decl's
// on every problem. Direct lies within TF32 and TF32 within BF16
// (convolve.OperandTolerance grows with the operands' unit roundoff, 0
// for Direct); FFT64 lies within FFT32 (convolve.FFTTolerance grows with
// the arithmetic's unit roundoff, over the same norms and transform
// size); every model lies within itself. No other pair is ordered.
func Admits(decl, path convolve.ErrorModel) bool {
	if decl == path {
		return true
	}
	switch decl {
	case convolve.TF32:
		return path == convolve.Direct
	case convolve.BF16:
		return path == convolve.Direct || path == convolve.TF32
	case convolve.FFT32:
		return path == convolve.FFT64
	}
	return false
}

// Heuristic is the order in which auto tries the paths on a problem no
// crossover entry decides, before the rest of its paths: a separable
// filter up to K = 63 (gpu-sepfused's largest) on the fused separable
// path (2K taps per output instead of K^2, memory-bound well past the
// direct paths' crossover), then the separable pair; a larger separable
// filter on the separable pair, then as a dense one; a dense filter up
// to K = 31 (gpu-regtile's largest) on the register-tiled direct path,
// then the shared-tiled one; a larger one first on the FFT path, whose
// time barely grows with K, then the 3xTF32 tensor cores and the direct
// paths.
func Heuristic(p convolve.Problem) []string {
	k := p.K()
	sep := p.FilterKind() == convolve.SeparableFilter
	switch {
	case sep && k <= 63:
		return []string{"gpu-sepfused", "gpu-separable", "gpu-regtile", "gpu-tiled"}
	case sep:
		return []string{"gpu-separable", "gpu-fft", "gpu-tc-3xtf32", "gpu-tiled", "gpu-regtile"}
	case k <= 31:
		return []string{"gpu-regtile", "gpu-tiled", "gpu-tc-3xtf32"}
	}
	return []string{"gpu-fft", "gpu-tc-3xtf32", "gpu-tiled", "gpu-regtile"}
}

// paths returns the registered variants of the options' paths that the
// declared model admits, in path order, without auto variants.
func (a *Variant) paths() []convolve.Variant {
	n := convolve.Registered()
	a.cache.Lock()
	defer a.cache.Unlock()
	if !a.cache.ok || a.cache.n != n {
		a.cache.paths, a.cache.n, a.cache.ok = a.findPaths(), n, true
	}
	return slices.Clone(a.cache.paths)
}

// findPaths is paths, read from the registry.
func (a *Variant) findPaths() []convolve.Variant {
	var out []convolve.Variant
	seen := map[string]bool{}
	all := convolve.Variants()
	for _, pat := range a.opt.Paths {
		for _, v := range all {
			if _, isAuto := v.(*Variant); isAuto {
				continue
			}
			d := v.Describe()
			if seen[d.Name] || !match(pat, d.Name) || !a.takes(d.Caps.Accuracy) {
				continue
			}
			seen[d.Name] = true
			out = append(out, v)
		}
	}
	return out
}

// PathNames are the names of the registered variants a may run, in
// fallback order (Options.Paths, whose models a's admit).
func (a *Variant) PathNames() []string {
	var out []string
	for _, v := range a.paths() {
		out = append(out, v.Describe().Name)
	}
	return out
}

// takes reports whether a path declaring model m is one auto may take.
func (a *Variant) takes(m convolve.ErrorModel) bool {
	return slices.ContainsFunc(a.opt.Models, func(decl convolve.ErrorModel) bool { return Admits(decl, m) })
}

// ModelFor is the error model auto's plan of p under cfg is held to: the
// declared model of the path Choose puts first (Plan falls back only to
// paths within it), or auto's declared model where no path can serve p.
func (a *Variant) ModelFor(p convolve.Problem, cfg convolve.Config) convolve.ErrorModel {
	choices, err := a.Choose(p, cfg)
	if err != nil || len(choices) == 0 {
		return a.opt.Model
	}
	v, err := convolve.Lookup(choices[0].Variant)
	if err != nil {
		return a.opt.Model
	}
	return v.Describe().Caps.Accuracy
}

func match(pattern, name string) bool {
	if prefix, ok := strings.CutSuffix(pattern, "*"); ok {
		return strings.HasPrefix(name, prefix)
	}
	return pattern == name
}

// Describe names the variant and declares the union of its paths'
// capabilities, its model, and FiniteInput when any path declares it.
func (a *Variant) Describe() convolve.Description {
	d := convolve.Description{Name: a.opt.Name, Summary: a.opt.Summary}
	ps := a.paths()
	if len(ps) == 0 {
		d.Summary += " (no path registered)"
	}
	d.Caps = union(ps)
	d.Caps.Accuracy = a.opt.Model
	return d
}

// union is the capabilities any of vs has: a list is empty (all) when
// one of theirs is, the largest filter side is the largest of theirs,
// SeparableOnly only when every one is, GPU and FiniteInput when any is.
// Without paths it is the zero value, and Choose refuses every problem.
func union(vs []convolve.Variant) convolve.Capabilities {
	var c convolve.Capabilities
	if len(vs) == 0 {
		return c
	}
	caps := make([]convolve.Capabilities, len(vs))
	c.SeparableOnly = true
	for i, v := range vs {
		pc := v.Describe().Caps
		caps[i] = pc
		side := pc.MaxFilterSide
		if side == 0 {
			side = convolve.MaxFilterSide
		}
		c.MaxFilterSide = max(c.MaxFilterSide, side)
		c.SeparableOnly = c.SeparableOnly && pc.SeparableOnly
		c.GPU = c.GPU || pc.GPU
		c.FiniteInput = c.FiniteInput || pc.FiniteInput
	}
	c.Ops = unionOf(caps, func(c convolve.Capabilities) []convolve.Operation { return c.Ops })
	c.Types = unionOf(caps, func(c convolve.Capabilities) []convolve.ElemType { return c.Types })
	c.Channels = unionOf(caps, func(c convolve.Capabilities) []int { return c.Channels })
	c.Layouts = unionOf(caps, func(c convolve.Capabilities) []convolve.Layout { return c.Layouts })
	c.Borders = unionOf(caps, func(c convolve.Capabilities) []convolve.Border { return c.Borders })
	return c
}

// unionOf is the union of the lists list gives of caps, in order of first
// appearance, or nil (all) when one of them is empty.
func unionOf[T comparable](caps []convolve.Capabilities, list func(convolve.Capabilities) []T) []T {
	var out []T
	for _, c := range caps {
		l := list(c)
		if len(l) == 0 {
			return nil
		}
		for _, x := range l {
			if !slices.Contains(out, x) {
				out = append(out, x)
			}
		}
	}
	return out
}

// Choice is a path auto chose for a problem and why.
type Choice struct {
	Variant string
	// Source says why: "crossover (TABLE: ENTRY)", with "nearest" when
	// the entry's K or size class is not the problem's own, or
	// "heuristic (REASON)".
	Source string
}

func (c Choice) String() string { return c.Variant + ", " + c.Source }

// Choose checks p and cfg against auto's capabilities and returns, in the
// order auto tries them, the paths that can serve p under cfg: those of
// the crossover entry's ranking first where there is one, fastest first,
// then the heuristic's order, then the rest in path order. It returns a
// *convolve.CapabilityError naming auto when no path can.
func (a *Variant) Choose(p convolve.Problem, cfg convolve.Config) ([]Choice, error) {
	caps := a.Describe().Caps
	if err := caps.Check(p); err != nil {
		return nil, convolve.NameVariant(a.opt.Name, err)
	}
	if err := caps.CheckConfig(cfg); err != nil {
		return nil, convolve.NameVariant(a.opt.Name, err)
	}
	var ok []string
	var why []string
	for _, v := range a.paths() {
		d := v.Describe()
		err := d.Caps.Check(p)
		if err == nil {
			err = d.Caps.CheckConfig(cfg)
		}
		if err != nil {
			why = append(why, fmt.Sprintf("%s: %v", d.Name, err))
			continue
		}
		ok = append(ok, d.Name)
	}
	if len(ok) == 0 {
		if len(why) == 0 {
			why = []string{fmt.Sprintf("no path registered of %s", strings.Join(a.opt.Paths, ", "))}
		}
		return nil, &convolve.CapabilityError{Variant: a.opt.Name, What: "problem", Value: fmt.Sprintf("%v: no path can serve it (%s)", p, strings.Join(why, "; "))}
	}
	var out []Choice
	add := func(name, source string) {
		if slices.Contains(ok, name) && !slices.ContainsFunc(out, func(c Choice) bool { return c.Variant == name }) {
			out = append(out, Choice{Variant: name, Source: source})
		}
	}
	reason := a.lookup(p, ok, add)
	for _, name := range a.opt.Heuristic(p) {
		add(name, "heuristic ("+reason+")")
	}
	for _, name := range ok {
		add(name, "heuristic ("+reason+"; next path in order)")
	}
	return out, nil
}

// lookup adds the crossover table's choice for p among ok, or returns
// why there is none.
func (a *Variant) lookup(p convolve.Problem, ok []string, add func(name, source string)) string {
	set, err := a.opt.Tables()
	if err != nil {
		return "crossover tables: " + err.Error()
	}
	gpu, err := a.opt.Device()
	if err != nil {
		return "no device: " + err.Error()
	}
	if set == nil || set.Table(gpu) == nil {
		return "no crossover table of " + gpu
	}
	m, found := crossover.Lookup(set, gpu, p, func(v string) bool { return slices.Contains(ok, v) })
	if !found {
		return fmt.Sprintf("no entry of %s for %s %s filters naming a path that can serve it", set.Source(gpu), p.Input.Type, p.FilterKind())
	}
	src := fmt.Sprintf("crossover (%s: %s, %s)", m.Source, m.Entry.Key(), m.Entry.Case)
	if !m.Exact {
		src = fmt.Sprintf("crossover (%s: nearest entry %s, %s)", m.Source, m.Entry.Key(), m.Entry.Case)
	}
	add(m.Chosen.Variant, src)
	for _, t := range m.Entry.Ranking {
		add(t.Variant, src+", next in its ranking")
	}
	return "not in the crossover's ranking"
}

// Plan plans p on the first path of Choose's order that accepts it. A
// path that refuses p at plan time with a *convolve.CapabilityError
// (a filter past its device's memory) gives way to the next whose error
// bound lies within the first choice's (ModelFor's model); any other
// error is returned, naming the path.
func (a *Variant) Plan(p convolve.Problem, cfg convolve.Config) (convolve.Plan, error) {
	choices, err := a.Choose(p, cfg)
	if err != nil {
		return nil, err
	}
	model := a.ModelFor(p, cfg)
	var refused []string
	for _, c := range choices {
		v, err := convolve.Lookup(c.Variant)
		if err != nil {
			return nil, err
		}
		if m := v.Describe().Caps.Accuracy; !Admits(model, m) {
			refused = append(refused, fmt.Sprintf("%s: its %v bound is not within the first choice's %v", c.Variant, m, model))
			continue
		}
		pl, err := convolve.PlanFor(v, p, cfg)
		var ce *convolve.CapabilityError
		if errors.As(err, &ce) {
			refused = append(refused, err.Error())
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("%s: path %s: %w", a.opt.Name, c.Variant, err)
		}
		if len(refused) > 0 {
			c.Source += "; refused first: " + strings.Join(refused, "; ")
		}
		return wrap(a, c, pl), nil
	}
	return nil, &convolve.CapabilityError{Variant: a.opt.Name, What: "problem", Value: fmt.Sprintf("%v: every path refused it (%s)", p, strings.Join(refused, "; "))}
}

// Warm prepares what auto's plan of p under cfg will need: the first
// path of Choose's order whose error bound lies within ModelFor's model,
// when it has a Warm method (the GPU variants compile their kernels in
// it), warms p under cfg. It returns Choose's error, or the path's. The
// property suite (convtest.Warmer) calls it before auto's first case.
func (a *Variant) Warm(p convolve.Problem, cfg convolve.Config) error {
	choices, err := a.Choose(p, cfg)
	if err != nil {
		return err
	}
	model := a.ModelFor(p, cfg)
	for _, c := range choices {
		v, err := convolve.Lookup(c.Variant)
		if err != nil {
			return err
		}
		if !Admits(model, v.Describe().Caps.Accuracy) {
			continue
		}
		if w, ok := v.(interface {
			Warm(convolve.Problem, convolve.Config) error
		}); ok {
			if err := w.Warm(p, cfg); err != nil {
				return fmt.Errorf("%s: path %s: %w", a.opt.Name, c.Variant, err)
			}
		}
		return nil
	}
	return nil
}

// LiveAllocations is the default CUDA device's count of live
// allocations, on which every path's plans allocate, or its
// *cudabind.UnavailableError. The property suite
// (convtest.AllocationCounter) checks that auto's plans leave it where
// it was.
func (a *Variant) LiveAllocations() (int, error) {
	d, err := cudabind.Default()
	if err != nil {
		return 0, err
	}
	return d.LiveAllocations(), nil
}

// ReleaseDevice resets the device contexts of this process that a sticky
// error poisoned (cudabind.ResetFaulted; convtest.DeviceReleaser).
func (a *Variant) ReleaseDevice() error {
	_, err := cudabind.ResetFaulted()
	return err
}

// Plan is a plan of auto: the chosen path's plan, with the check of
// non-finite input auto declares.
type Plan struct {
	convolve.Plan
	choice Choice
	name   string
	finite bool
}

func wrap(a *Variant, c Choice, pl convolve.Plan) convolve.Plan {
	ap := &Plan{Plan: pl, choice: c, name: a.opt.Name, finite: a.Describe().Caps.FiniteInput}
	if dp, ok := pl.(convolve.DevicePlan); ok {
		return &DevicePlan{Plan: ap, dev: dp}
	}
	return ap
}

// Chosen is the path the plan runs and why it was chosen.
func (p *Plan) Chosen() Choice { return p.choice }

// checkFinite returns a *convolve.NonFiniteError naming auto for a
// non-finite input element where auto declares FiniteInput.
func (p *Plan) checkFinite(in *convolve.Image) error {
	if !p.finite {
		return nil
	}
	return convolve.NameVariant(p.name, convolve.CheckFiniteImage(in))
}

// Run runs the chosen path's plan.
func (p *Plan) Run(in, out *convolve.Image) error {
	if err := p.checkFinite(in); err != nil {
		return err
	}
	return p.Plan.Run(in, out)
}

// Setting is the chosen path's block and tunables where its plan says
// (convolve.TunedPlan), else the zero setting.
func (p *Plan) Setting() convolve.Setting {
	if tp, ok := p.Plan.(convolve.TunedPlan); ok {
		return tp.Setting()
	}
	return convolve.Setting{}
}

// SettingSource names the chosen path and why it was chosen, then where
// the path's own setting came from where its plan says.
func (p *Plan) SettingSource() string {
	s := "path " + p.choice.String()
	if tp, ok := p.Plan.(convolve.TunedPlan); ok {
		s += "; its setting " + tp.SettingSource()
	}
	return s
}

// RunFLOPs is the floating-point operations of the chosen path's last
// run where its plan counts them, else 0.
func (p *Plan) RunFLOPs() int64 {
	if fc, ok := p.Plan.(interface{ RunFLOPs() int64 }); ok {
		return fc.RunFLOPs()
	}
	return 0
}

// DevicePlan is a Plan whose path's plan is a convolve.DevicePlan.
type DevicePlan struct {
	*Plan
	dev convolve.DevicePlan
}

// Upload uploads in through the chosen path's plan.
func (p *DevicePlan) Upload(in *convolve.Image) error {
	if err := p.checkFinite(in); err != nil {
		return err
	}
	return p.dev.Upload(in)
}

// TimeKernel times the chosen path's kernels.
func (p *DevicePlan) TimeKernel(n int) (time.Duration, error) { return p.dev.TimeKernel(n) }

// TimeKernelGraph times the chosen path's kernels replayed from CUDA
// graphs.
func (p *DevicePlan) TimeKernelGraph(n int) (time.Duration, error) { return p.dev.TimeKernelGraph(n) }

// Download downloads the output through the chosen path's plan.
func (p *DevicePlan) Download(out *convolve.Image) error { return p.dev.Download(out) }

// Supports is auto's validity rule (convolve.Supporter): p under cfg is
// supported on a device with limits lim when a path of Choose's order
// whose error bound lies within the first choice's supports it there, as
// Plan would find.
func (a *Variant) Supports(p convolve.Problem, cfg convolve.Config, lim convolve.DeviceLimits) error {
	choices, err := a.Choose(p, cfg)
	if err != nil {
		return err
	}
	var model convolve.ErrorModel // ModelFor's: the first choice's
	var refused []string
	for i, c := range choices {
		v, err := convolve.Lookup(c.Variant)
		if err != nil {
			return err
		}
		d := v.Describe()
		if i == 0 {
			model = d.Caps.Accuracy
		}
		if !Admits(model, d.Caps.Accuracy) {
			continue
		}
		err = convolve.Supports(v, p, cfg, lim)
		if err == nil {
			return nil
		}
		if !convolve.IsUnsupported(err) {
			return fmt.Errorf("%s: path %s: %w", a.opt.Name, c.Variant, err)
		}
		refused = append(refused, err.Error())
	}
	return &convolve.CapabilityError{Variant: a.opt.Name, What: "problem", Value: fmt.Sprintf("%v: every path refuses it (%s)", p, strings.Join(refused, "; "))}
}

// DeviceLimits returns the limits of the device a plan under cfg runs on
// (convolve.Supporter), as the first of auto's paths that can read them
// reads them.
func (a *Variant) DeviceLimits(cfg convolve.Config) (convolve.DeviceLimits, error) {
	for _, v := range a.paths() {
		if s, ok := v.(convolve.Supporter); ok {
			return s.DeviceLimits(cfg)
		}
	}
	return convolve.DeviceLimits{}, fmt.Errorf("%s: no path reads device limits", a.opt.Name)
}
