package convtest

import (
	"errors"
	"fmt"
	"math"
	"math/rand"
	"slices"

	"github.com/convbench/convbench/convolve"
	"github.com/convbench/convbench/convolve/testimage"
	"github.com/convbench/convbench/verify"
)

// property is one law every variant (or every variant it applies to) must
// obey on every case of its domain.
type property struct {
	name string
	// ops and kinds restrict the domain (nil: no restriction); fix sets
	// the fields the property needs; accept rejects cases it cannot use.
	ops    []convolve.Operation
	kinds  []weightKind
	fix    func(d *domain, c testCase) testCase
	accept func(testCase) bool
	// acceptFor, when set, replaces accept with a constraint that depends
	// on the variant.
	acceptFor func(e *env) func(testCase) bool
	// applies returns why the property does not apply to the variant, or "".
	applies func(e *env) string
	check   func(e *env, c testCase) error
	// countsAllocations marks a check that compares the device's live
	// allocations before and after: it runs alone on the device
	// (env.exclusive).
	countsAllocations bool
	// budget, when not 0, replaces defaultBudget as the bound on a case's
	// work (a property whose arithmetic is slow on the CPU draws smaller
	// cases).
	budget int
}

var filter2DOnly = []convolve.Operation{convolve.Filter2D}

// properties is the suite, in the order it runs.
var properties = []*property{
	{name: "agreement", check: checkAgreement},
	{name: "determinism", check: checkDeterminism},
	{name: "no-leak", check: checkNoLeak, countsAllocations: true},
	{name: "identity", ops: filter2DOnly, fix: withWeights(identityWeights), check: checkIdentity,
		kinds: []weightKind{identityWeights}},
	{name: "impulse", ops: filter2DOnly, fix: withZeroBorder, accept: filterFits, check: checkImpulse},
	{name: "linearity", ops: filter2DOnly, check: checkLinearity},
	{name: "translation", ops: filter2DOnly, fix: withZeroBorder, accept: translationFits, check: checkTranslation},
	{name: "flip", ops: filter2DOnly, fix: withMode(convolve.Convolve), check: checkFlip},
	{name: "separable", ops: filter2DOnly, kinds: []weightKind{outerWeights, smoothWeights},
		applies: separableApplies, acceptFor: partnerDomainAccept, check: checkSeparable},
	{name: "bit-exact", ops: filter2DOnly, fix: withoutFMA, applies: bitExactApplies, check: checkBitExact},
}

// bitExactApplies: a GPU variant that declares ReferenceOrder sums in
// cpu-naive's order and so, compiled with --fmad=false, must equal
// cpu-naive bit for bit (report 002's point).
func bitExactApplies(e *env) string {
	if c := e.desc.Caps; !c.GPU || !c.ReferenceOrder {
		return fmt.Sprintf("%s does not promise cpu-naive's summation order", e.name)
	}
	return ""
}

func withoutFMA(_ *domain, c testCase) testCase {
	c.NoFMA, c.Fast = true, false
	return c
}

// checkBitExact: compiled with --fmad=false the variant equals cpu-naive
// bit for bit.
func checkBitExact(e *env, c testCase) error {
	naive, err := convolve.Lookup("cpu-naive")
	if err != nil {
		return err
	}
	p, in, err := c.problemAndInput()
	if err != nil {
		return err
	}
	got, err := e.runOnce(e.variant, p, c.Config(), in)
	if err != nil {
		return err
	}
	want, err := e.runOnce(naive, p, convolve.Config{}, in)
	if err != nil {
		return fmt.Errorf("cpu-naive: %w", err)
	}
	if err := sameBits(e.name+" (fmad=false) vs cpu-naive", want, got); err != nil {
		return fmt.Errorf("%w\n%s", err, mismatchDiffExact(got, want))
	}
	return nil
}

// mismatchDiffExact is mismatchDiff for a bitwise comparison.
func mismatchDiffExact(got, want *convolve.Image) string {
	m, err := convolve.Compare(got, want, nil)
	if err != nil || m.OK() {
		return ""
	}
	return mismatchDiff(got, want, nil, m.First)
}

func withWeights(k weightKind) func(*domain, testCase) testCase {
	return func(_ *domain, c testCase) testCase { c.Weights = k; return c }
}

func withMode(m convolve.Mode) func(*domain, testCase) testCase {
	return func(_ *domain, c testCase) testCase { c.Mode = m; return c }
}

// withZeroBorder asks for the Zero border; a variant without it keeps its
// own (the interior does not depend on the border).
func withZeroBorder(d *domain, c testCase) testCase {
	if len(d.caps.Borders) == 0 || slices.Contains(d.caps.Borders, convolve.Zero) {
		c.Border = convolve.Zero
	}
	return c
}

// filterFits: the image is at least as large as the filter.
func filterFits(c testCase) bool { return c.W >= c.KW && c.H >= c.KH }

// checkAgreement: the output matches the float64 reference within the
// per-element tolerance, every element is written, the input is not
// modified, and for device plans the Upload/TimeKernel/Download path the
// benchmarks time gives the same answer.
func checkAgreement(e *env, c testCase) (err error) {
	p, in, err := c.problemAndInput()
	if err != nil {
		return err
	}
	before := in.Clone()
	ref, tol, err := e.expect(p, c.Config(), in)
	if err != nil {
		return fmt.Errorf("reference: %w", err)
	}
	pl, err := e.plan(p, c.Config())
	if err != nil {
		return err
	}
	defer closePlan(pl, &err)
	for _, poison := range poisons(p.OutputGeometry().Type) {
		out, err := runPoisoned(pl, p, in, poison)
		if err != nil {
			return err
		}
		if err := agree(fmt.Sprintf("Run over poison %v", poison), out, ref, tol); err != nil {
			return err
		}
	}
	if err := sameBits("input after Run (the variant wrote to its input)", before, in); err != nil {
		return err
	}
	dp, ok := pl.Plan.(convolve.DevicePlan)
	if e.desc.Caps.GPU && !ok {
		return fmt.Errorf("GPU plan %T does not implement convolve.DevicePlan", pl.Plan)
	}
	if !ok {
		return nil
	}
	if err := dp.Upload(in); err != nil {
		return fmt.Errorf("upload: %w", err)
	}
	if _, err := dp.TimeKernel(2); err != nil {
		return fmt.Errorf("TimeKernel(2): %w", err)
	}
	out, err := p.NewOutput()
	if err != nil {
		return err
	}
	out.Fill(poisons(out.Type)[0])
	if err := dp.Download(out); err != nil {
		return fmt.Errorf("download: %w", err)
	}
	return agree("Upload+TimeKernel(2)+Download", out, ref, tol)
}

// checkDeterminism: two runs of one plan over different poisons, and a run
// of a fresh plan, give the same bits.
func checkDeterminism(e *env, c testCase) (err error) {
	p, in, err := c.problemAndInput()
	if err != nil {
		return err
	}
	pl, err := e.plan(p, c.Config())
	if err != nil {
		return err
	}
	defer closePlan(pl, &err)
	first, err := runPoisoned(pl, p, in, math.NaN())
	if err != nil {
		return err
	}
	second, err := runPoisoned(pl, p, in, 77)
	if err != nil {
		return err
	}
	if err := sameBits("second run of the same plan", first, second); err != nil {
		return err
	}
	third, err := e.runOnce(e.variant, p, c.Config(), in)
	if err != nil {
		return err
	}
	return sameBits("run of a second plan", first, third)
}

// checkNoLeak: planning, running, a rejected run and closing leave the
// device's live allocations and the open plans where they were.
func checkNoLeak(e *env, c testCase) error {
	p, in, err := c.problemAndInput()
	if err != nil {
		return err
	}
	allocs0, haveAllocs := e.liveAllocations()
	open0 := e.open.Load()
	err = func() (err error) {
		pl, err := e.plan(p, c.Config())
		if err != nil {
			return err
		}
		defer closePlan(pl, &err)
		if _, err := runPoisoned(pl, p, in, math.NaN()); err != nil {
			return err
		}
		wrong := p
		wrong.Input.Width++
		bad, err := wrong.NewOutput()
		if err != nil {
			return err
		}
		if err := pl.Run(in, bad); err == nil {
			return fmt.Errorf("a run into an output of %v succeeded; want an error", bad.Geometry)
		}
		return nil
	}()
	if err != nil {
		return err
	}
	if n := e.open.Load(); n != open0 {
		return fmt.Errorf("open plans %d after Close, %d before", n, open0)
	}
	if haveAllocs {
		if n, _ := e.liveAllocations(); n != allocs0 {
			return fmt.Errorf("device allocations %d after Close, %d before", n, allocs0)
		}
	}
	return nil
}

// checkIdentity: the identity filter returns the input exactly, whatever
// the border, mode, type or size (each term but one is an exact zero).
// A variant of another error model than Direct computes every output from
// the whole image and is held to its model's tolerance instead.
func checkIdentity(e *env, c testCase) error {
	p, in, err := c.problemAndInput()
	if err != nil {
		return err
	}
	out, err := e.runOnce(e.variant, p, c.Config(), in)
	if err != nil {
		return err
	}
	if m := e.model(p, c.Config()); m != convolve.Direct {
		ref, tol, err := e.expect(p, c.Config(), in)
		if err != nil {
			return fmt.Errorf("reference: %w", err)
		}
		return agree(fmt.Sprintf("identity filter output vs input (within the %v bound)", m), out, ref, tol)
	}
	return agree("identity filter output vs input (exact)", out, in, nil)
}

// impulseAt is the position of the impulse: far enough from the edges that
// the whole filter footprint around it lies inside the image.
func impulseAt(c testCase) (px, py int) {
	rng := rand.New(rand.NewSource(c.Seed ^ 0x1e5))
	ax, ay := c.KW/2, c.KH/2
	return ax + rng.Intn(c.W-2*ax), ay + rng.Intn(c.H-2*ay)
}

// checkImpulse: an image that is 0 except a 1 at (px, py) in every channel
// gives the filter around (px, py): rotated by 180 degrees for correlate,
// as stored for convolve. The only non-zero term at each output is one
// weight times 1, so the tolerance is convolve.Tolerance with sum|w*x| =
// |w| (which also covers a separable path's factorisation).
func checkImpulse(e *env, c testCase) error {
	p, err := c.Problem()
	if err != nil {
		return err
	}
	px, py := impulseAt(c)
	in, err := testimage.Impulse(c.Geometry(), px, py)
	if err != nil {
		return err
	}
	poisonPadding(in)
	want, err := p.NewOutput()
	if err != nil {
		return err
	}
	tol, err := p.NewOutput()
	if err != nil {
		return err
	}
	ax, ay := c.KW/2, c.KH/2
	for ch := 0; ch < c.Channels; ch++ {
		for y := 0; y < c.H; y++ {
			for x := 0; x < c.W; x++ {
				i, j := px-x+ax, py-y+ay // correlate: flipped
				if c.Mode == convolve.Convolve {
					i, j = x-px+ax, y-py+ay
				}
				w := 0.0
				if i >= 0 && i < c.KW && j >= 0 && j < c.KH {
					w = float64(p.Filter.At(i, j))
				}
				want.Set(x, y, ch, w)
				tol.Set(x, y, ch, convolve.Tolerance(c.KW, c.KH, math.Abs(w), w))
			}
		}
	}
	if e.model(p, c.Config()) != convolve.Direct {
		// The model's bound of the same image (its reference equals want).
		if _, tol, err = e.expect(p, c.Config(), in); err != nil {
			return fmt.Errorf("reference: %w", err)
		}
	}
	out, err := e.runOnce(e.variant, p, c.Config(), in)
	if err != nil {
		return err
	}
	return agree(fmt.Sprintf("impulse at (%d,%d) vs %v filter", px, py, map[bool]string{true: "unflipped", false: "flipped"}[c.Mode == convolve.Convolve]), out, want, tol)
}

// linearPair returns two filters f, g and coefficients a, b for the
// linearity check. For separable-only variants f and g share their row
// factor, so a*f + b*g stays rank one.
func linearPair(c testCase, sepOnly bool) (f, g *convolve.Filter, a, b float64, err error) {
	rng := rand.New(rand.NewSource(c.Seed ^ 0x11ea))
	a = float64(float32(rng.Float64()*4 - 2))
	b = float64(float32(rng.Float64()*4 - 2))
	if !sepOnly {
		if f, err = c.Filter(); err != nil {
			return
		}
		g, err = makeFilter(c.Weights, c.KW, c.KH, c.Seed+1, "g")
		return
	}
	row := randomVector(rng, c.KW)
	w1, w2 := make([]float32, c.KW*c.KH), make([]float32, c.KW*c.KH)
	outer(w1, row, randomVector(rng, c.KH))
	outer(w2, row, randomVector(rng, c.KH))
	if f, err = convolve.NewFilter("f", c.KW, c.KH, w1); err != nil {
		return
	}
	g, err = convolve.NewFilter("g", c.KW, c.KH, w2)
	return
}

// checkLinearity: run(h) = a*run(f) + b*run(g) for h = float32(a*f + b*g).
// With R the exact results, |run(h) - R(h)| <= tol_h, likewise for f and g,
// and |R(h) - a*R(f) - b*R(g)| <= u*(|a| sum|f*x| + |b| sum|g*x|) from
// rounding h's weights, which is at most (|a| tol_f + |b| tol_g)/3 because
// each tolerance is at least 3u times its sum. So the bound is
// tol_h + (4/3)(|a| tol_f + |b| tol_g), plus the float64 rounding of the
// combination. The TF32 and BF16 tolerances are larger than Direct's, so
// the same bound holds with theirs. An FFT model's tolerance may be far
// below 3u times an output's own sum, so there the rounding of h's weights
// is bounded through Cauchy-Schwarz, sum|f*x| <= ||f||_2 ||x||_2 with x
// the bordered channel (verify.Terms), and the bound is
// tol_h + |a| tol_f + |b| tol_g + u (|a| ||f||_2 + |b| ||g||_2) ||x||_2.
func checkLinearity(e *env, c testCase) error {
	f, g, a, b, err := linearPair(c, e.desc.Caps.SeparableOnly)
	if err != nil {
		return err
	}
	hw := make([]float32, len(f.Weights))
	for i := range hw {
		hw[i] = float32(a*float64(f.Weights[i]) + b*float64(g.Weights[i]))
	}
	h, err := convolve.NewFilter("h", c.KW, c.KH, hw)
	if err != nil {
		return err
	}
	in, err := c.Input()
	if err != nil {
		return err
	}
	var outs, tols [3]*convolve.Image
	var weightRounding []float64 // per channel, FFT models only
	for k, filt := range []*convolve.Filter{f, g, h} {
		p := c.problem(filt)
		_, tols[k], err = e.expect(p, c.Config(), in)
		if err != nil {
			return fmt.Errorf("reference: %w", err)
		}
		if k < 2 && e.model(p, c.Config()).IsFFT() {
			terms, err := verify.Terms(p, in)
			if err != nil {
				return fmt.Errorf("reference: %w", err)
			}
			weightRounding = slices.Grow(weightRounding, len(terms))[:len(terms)]
			for ch, t := range terms {
				weightRounding[ch] += 0x1p-24 * math.Abs([]float64{a, b}[k]) * t.FilterL2 * t.InL2
			}
		}
		if outs[k], err = e.runOnce(e.variant, p, c.Config(), in); err != nil {
			return err
		}
	}
	want, _ := c.problem(h).NewOutput()
	tol, _ := c.problem(h).NewOutput()
	for ch := 0; ch < c.Channels; ch++ {
		for y := 0; y < c.H; y++ {
			for x := 0; x < c.W; x++ {
				v := a*outs[0].At(x, y, ch) + b*outs[1].At(x, y, ch)
				t := tols[2].At(x, y, ch)
				if weightRounding != nil {
					t += math.Abs(a)*tols[0].At(x, y, ch) + math.Abs(b)*tols[1].At(x, y, ch) + weightRounding[ch]
				} else {
					t += 4.0 / 3 * (math.Abs(a)*tols[0].At(x, y, ch) + math.Abs(b)*tols[1].At(x, y, ch))
				}
				t += 0x1p-50 * math.Abs(v)
				setExact(want, tol, x, y, ch, v, t)
			}
		}
	}
	return agree(fmt.Sprintf("run(%.4g*f %+.4g*g) vs %.4g*run(f) %+.4g*run(g)", a, b, a, b), outs[2], want, tol)
}

// setExact stores v in a float32 image without losing precision in the
// comparison: the rounding of v to float32 is added to the tolerance.
func setExact(want, tol *convolve.Image, x, y, ch int, v, t float64) {
	r := float32(v)
	want.F32[want.Offset(x, y, ch)] = r
	t += math.Abs(float64(r) - v)
	tr := float32(t)
	if float64(tr) < t {
		tr = math.Nextafter32(tr, float32(math.Inf(1)))
	}
	tol.F32[tol.Offset(x, y, ch)] = tr
}

// translationShift derives the shift and the margins of the larger image
// from the case.
func translationShift(c testCase) (dx, dy, ex, ey int) {
	rng := rand.New(rand.NewSource(c.Seed ^ 0x7a5))
	return rng.Intn(13), rng.Intn(13), rng.Intn(7), rng.Intn(7)
}

// translationFits: some output pixel's window lies inside the image, and
// the larger image fits the work budget.
func translationFits(c testCase) bool {
	return filterFits(c) && (c.W+18)*(c.H+18)*c.Channels*c.KW*c.KH <= defaultBudget
}

// checkTranslation: the case's image A is a crop, at (dx, dy), of a larger
// random image B. Wherever the filter window lies inside A, the output of A
// at (x, y) equals the output of B at (x+dx, y+dy): both are the same sum
// of the same values, so each is within tol of the same exact value and
// they differ by at most 2*tol. Under an FFT model the bound of B's output
// depends on B's norms and so is taken from B's reference.
func checkTranslation(e *env, c testCase) error {
	dx, dy, ex, ey := translationShift(c)
	bc := c
	bc.W, bc.H, bc.Pad = c.W+dx+ex, c.H+dy+ey, c.Pad+1
	big, err := bc.Input()
	if err != nil {
		return err
	}
	small, err := convolve.NewImage(c.Geometry())
	if err != nil {
		return err
	}
	poisonPadding(small)
	for ch := 0; ch < c.Channels; ch++ {
		for y := 0; y < c.H; y++ {
			for x := 0; x < c.W; x++ {
				small.Set(x, y, ch, big.At(x+dx, y+dy, ch))
			}
		}
	}
	f, err := c.Filter()
	if err != nil {
		return err
	}
	pa, pb := c.problem(f), bc.problem(f)
	_, tol, err := e.expect(pa, c.Config(), small)
	if err != nil {
		return fmt.Errorf("reference: %w", err)
	}
	tolB := func(x, y, ch int) float64 { return tol.At(x-dx, y-dy, ch) }
	if e.model(pa, c.Config()).IsFFT() {
		_, tb, err := e.expect(pb, c.Config(), big)
		if err != nil {
			return fmt.Errorf("reference: %w", err)
		}
		tolB = func(x, y, ch int) float64 { return tb.At(x, y, ch) }
	}
	outA, err := e.runOnce(e.variant, pa, c.Config(), small)
	if err != nil {
		return err
	}
	outB, err := e.runOnce(e.variant, pb, c.Config(), big)
	if err != nil {
		return err
	}
	ax, ay := c.KW/2, c.KH/2
	for ch := 0; ch < c.Channels; ch++ {
		for y := ay; y < c.H-ay; y++ {
			for x := ax; x < c.W-ax; x++ {
				a, b := outA.At(x, y, ch), outB.At(x+dx, y+dy, ch)
				if t := tol.At(x, y, ch) + tolB(x+dx, y+dy, ch); !(math.Abs(a-b) <= t) {
					return fmt.Errorf("shift by (%d,%d) into a %dx%d image: output (x=%d, y=%d, c=%d) is %v, shifted output (x=%d, y=%d) is %v; differ by %.3g > the sum of their tolerances %.3g",
						dx, dy, bc.W, bc.H, x, y, ch, a, x+dx, y+dy, b, math.Abs(a-b), t)
				}
			}
		}
	}
	return nil
}

// checkFlip: Convolve with f equals Correlate with f.Flipped() within twice
// the tolerance (both approximate the same exact value).
func checkFlip(e *env, c testCase) error {
	f, err := c.Filter()
	if err != nil {
		return err
	}
	in, err := c.Input()
	if err != nil {
		return err
	}
	pc := c.problem(f)
	pr := pc
	pr.Mode, pr.Filter = convolve.Correlate, f.Flipped()
	_, tol, err := e.expect(pc, c.Config(), in)
	if err != nil {
		return fmt.Errorf("reference: %w", err)
	}
	conv, err := e.runOnce(e.variant, pc, c.Config(), in)
	if err != nil {
		return err
	}
	corr, err := e.runOnce(e.variant, pr, c.Config(), in)
	if err != nil {
		return err
	}
	return agree("convolve(f) vs correlate(flipped f)", conv, corr, doubled(tol))
}

// summed is the element-wise sum of two tolerances: the bound on the
// difference of two outputs each within its own tolerance of one exact
// value.
func summed(a, b *convolve.Image) *convolve.Image {
	d := a.Clone()
	for i, v := range b.F32 {
		d.F32[i] += v
	}
	return d
}

func doubled(tol *convolve.Image) *convolve.Image {
	d := tol.Clone()
	for i, v := range d.F32 {
		d.F32[i] = 2 * v
	}
	return d
}

// separablePartners pairs a variant with a separable path with the 2-D
// variant it must agree with. A SeparableOnly variant not listed is paired
// with gpu-naive (GPU) or cpu-naive (CPU).
var separablePartners = map[string]string{
	"cpu-fast":      "cpu-naive",
	"gpu-separable": "gpu-naive",
}

func partnerName(e *env) string {
	if p, ok := separablePartners[e.name]; ok {
		return p
	}
	if !e.desc.Caps.SeparableOnly {
		return ""
	}
	if e.desc.Caps.GPU {
		return "gpu-naive"
	}
	return "cpu-naive"
}

func separableApplies(e *env) string {
	name := partnerName(e)
	if name == "" {
		return fmt.Sprintf("%s has no separable path to compare with a 2-D variant", e.name)
	}
	if _, err := convolve.Lookup(name); err != nil {
		pkg := convolve.CPUVariantsPackage
		if e.desc.Caps.GPU {
			pkg = convolve.GPUVariantsPackage
		}
		return fmt.Sprintf("partner variant %s of %s is not registered (importing %s registers it)", name, e.name, pkg)
	}
	return ""
}

// checkSeparable: a rank-one filter gives the same output (within twice the
// tolerance) through the variant's separable path and through the 2-D
// partner variant with its default configuration.
func checkSeparable(e *env, c testCase) error {
	partner, err := convolve.Lookup(partnerName(e))
	if err != nil {
		return err
	}
	p, err := c.Problem()
	if err != nil {
		return err
	}
	if _, _, ok := p.Filter.Separable(); !ok {
		return fmt.Errorf("generated %v filter is not separable", c.Weights)
	}
	in, err := c.Input()
	if err != nil {
		return err
	}
	_, tol, err := e.expect(p, c.Config(), in)
	if err != nil {
		return fmt.Errorf("reference: %w", err)
	}
	dtol := tol // the partner's bound: Direct
	if e.model(p, c.Config()) != convolve.Direct {
		if _, dtol, err = verify.Reference(p, in, convolve.Direct); err != nil {
			return fmt.Errorf("reference: %w", err)
		}
	}
	sep, err := e.runOnce(e.variant, p, c.Config(), in)
	if err != nil {
		return err
	}
	full, err := e.runOnce(partner, p, convolve.Config{}, in)
	if err != nil {
		var r *refusedError
		if errors.As(err, &r) {
			return err
		}
		return fmt.Errorf("partner %s: %w", partner.Describe().Name, err)
	}
	return agree(fmt.Sprintf("%s vs %s", e.name, partner.Describe().Name), sep, full, summed(tol, dtol))
}

// partnerDomainAccept returns the accept function of the separable
// property for a variant: the partner must support the case too.
func partnerDomainAccept(e *env) func(testCase) bool {
	partner, err := convolve.Lookup(partnerName(e))
	if err != nil {
		return func(testCase) bool { return false }
	}
	caps := partner.Describe().Caps
	return func(c testCase) bool {
		p, err := c.Problem()
		return err == nil && caps.Check(p) == nil && slices.Contains([]weightKind{outerWeights, smoothWeights}, c.Weights)
	}
}
