package convtest

import (
	"cmp"
	"math/rand"
	"reflect"
	"slices"

	"github.com/convbench/convbench/convolve"
	"github.com/leanovate/gopter"
)

const (
	// maxImageSide bounds the random image sides.
	maxImageSide = 300
	// cpuMaxK and gpuMaxK bound the filter sides drawn for variants that
	// accept any size (a declared MaxFilterSide smaller than these wins).
	cpuMaxK = 101
	gpuMaxK = 127
	// defaultBudget bounds W*H*C*KW*KH of a case, which keeps the float64
	// reference and the CPU variants to a few milliseconds per case.
	defaultBudget = 1 << 21
)

// commonBlocks are block shapes drawn for GPU variants that accept any
// shape; the zero Block asks for the variant's default.
var commonBlocks = []convolve.Block{
	{}, {}, {X: 32, Y: 8}, {X: 16, Y: 16}, {X: 8, Y: 8}, {X: 32, Y: 4}, {X: 64, Y: 4}, {X: 128, Y: 1}, {X: 16, Y: 4}, {X: 4, Y: 4}, {X: 32, Y: 32}, {X: 8, Y: 32}, {X: 24, Y: 8}, {X: 1, Y: 64},
}

// domain is the set of cases one property draws for one variant: within
// the variant's capabilities, the work budget and the property's own
// constraints.
type domain struct {
	caps    convolve.Capabilities
	maxK    int
	maxSide int
	budget  int
	kinds   []weightKind
	ops     []convolve.Operation
	// pool, for GPU variants, holds the specializations (the fields a
	// kernel is compiled for) that cases draw from.
	pool []testCase
	// fix imposes the property's fixed fields on a drawn case; accept is
	// its extra constraint on any case, shrunk ones included.
	fix    func(*domain, testCase) testCase
	accept func(testCase) bool
	// stopShrink, when set, reports that shrinking has run out of time:
	// the shrinker then proposes nothing.
	stopShrink func() bool
	// rule, when set, is the variant's validity rule on its device: a
	// case it refuses is outside the domain (redrawn, never checked).
	rule *rule
}

// newDomain builds the domain of a property (nil: no constraint beyond the
// capabilities) for a variant. A non-nil pool restricts the specializations
// to its entries (the property's fix may still change them).
func newDomain(caps convolve.Capabilities, pr *property, pool []testCase) *domain {
	d := &domain{caps: caps, maxSide: maxImageSide, budget: defaultBudget}
	limit := cpuMaxK
	if caps.GPU {
		limit = gpuMaxK
	}
	d.maxK = limit
	if caps.MaxFilterSide > 0 && caps.MaxFilterSide < limit {
		d.maxK = caps.MaxFilterSide
	}
	if d.maxK%2 == 0 {
		d.maxK--
	}
	d.kinds = []weightKind{randomWeights, outerWeights, smoothWeights, integerWeights}
	if pr != nil && pr.kinds != nil {
		d.kinds = pr.kinds
	}
	if caps.SeparableOnly {
		d.kinds = slices.DeleteFunc(slices.Clone(d.kinds), func(k weightKind) bool { return !k.separable() })
	}
	d.ops = convolve.Operations
	if len(caps.Ops) > 0 {
		d.ops = caps.Ops
	}
	if pr != nil {
		if pr.ops != nil {
			d.ops = slices.DeleteFunc(slices.Clone(pr.ops), func(o convolve.Operation) bool { return !slices.Contains(d.ops, o) })
		}
		d.fix, d.accept = pr.fix, pr.accept
		if pr.budget > 0 {
			d.budget = pr.budget
		}
	}
	d.pool = pool
	return d
}

// specPool draws the GPU specializations of one variant for one seed:
// every property of the variant draws its cases from the same few, so
// compiled kernels are reused. Between them the first specializations
// set every value of every tunable (coverTune), so that each seed proves
// every kernel a tunable selects, and every element type the variant
// accepts, so that a property open to one type only (subnormal pixels are
// float32) finds a specialization; a slot that finds no valid
// specialization with its forced values in 20 draws takes a free one.
// With a rule, every specialization is one the rule accepts.
func specPool(caps convolve.Capabilities, seed int64, r *rule, size int) []testCase {
	d := newDomain(caps, nil, nil)
	d.rule = r
	rng := rand.New(rand.NewSource(seed))
	types := caps.Types
	if len(types) == 0 {
		types = convolve.ElemTypes
	}
	var pool []testCase
	misses := 0
	for try := 0; len(pool) < size && try < 100*size; try++ {
		c := d.drawSpec(rng)
		if misses < 20 {
			c.Tune = coverTune(c.Tune, caps, len(pool))
			if len(pool) < len(types) {
				c.Type = types[len(pool)]
				c = c.normalize()
			}
		}
		c.W, c.H, c.Seed = 1, 1, 1
		c.Weights = d.kinds[0]
		if d.specValid(c) && !slices.Contains(pool, c) {
			pool = append(pool, c)
			misses = 0
		} else {
			misses++
		}
	}
	return pool
}

// variantPool is the specialization pool of e's variant for seed: the
// pool specPool draws, then, for each property of the suite that applies
// to the variant and can draw no case from it (a property's own
// constraint, such as translation's room around the filter, can rule out
// every specialization of a pool), a specialization drawn under that
// property's constraints. So every property finds cases at every seed;
// the pool grows only for a property that would otherwise find none.
func variantPool(e *env, seed int64) []testCase {
	pool := specPool(e.desc.Caps, seed, e.rule, cmp.Or(e.poolSize, DefaultPool))
	if len(pool) == 0 {
		return nil
	}
	base := newDomain(e.desc.Caps, nil, nil)
	base.rule = e.rule
	rng := rand.New(rand.NewSource(seed ^ 0x2c0e5))
	for _, pr := range properties {
		if pr.applies != nil && pr.applies(e) != "" {
			continue
		}
		d := propertyDomain(e, pr)
		if len(d.ops) == 0 {
			continue
		}
		d.pool = pool
		if _, ok := d.draw(rng); ok {
			continue
		}
		// A specialization of a case drawn under the property's own
		// constraints, kept when cases of the property can be drawn from it.
		for try := 0; try < 20; try++ {
			d.pool = nil
			c, ok := d.draw(rng)
			if !ok {
				break
			}
			c.W, c.H, c.Pad, c.Seed = 1, 1, 0, 1
			c.Weights, c.Mode = base.kinds[0], 0
			c = c.normalize()
			d.pool = []testCase{c}
			if _, ok := d.draw(rng); ok && base.specValid(c) && !slices.Contains(pool, c) {
				pool = append(pool, c)
				break
			}
		}
	}
	return pool
}

// coverTune returns the tune t (testCase.Tune) with every tunable of caps
// that has more than slot values (valuesOf) set to its slot-th value.
func coverTune(t string, caps convolve.Capabilities, slot int) string {
	set, _ := convolve.ParseTunables(t)
	if set == nil {
		set = map[string]int{}
	}
	for _, name := range caps.Tunables {
		if vals := valuesOf(name, caps); slot < len(vals) {
			set[name] = vals[slot]
		}
	}
	return convolve.FormatTunables(set)
}

func pick[T any](rng *rand.Rand, all []T, allowed []T) T {
	if len(allowed) > 0 {
		return allowed[rng.Intn(len(allowed))]
	}
	return all[rng.Intn(len(all))]
}

// drawK draws an odd filter side up to max, mostly small.
func drawK(rng *rand.Rand, max int) int {
	hi := max
	switch r := rng.Float64(); {
	case r < 0.45:
		hi = min(7, max)
	case r < 0.8:
		hi = min(31, max)
	}
	return 2*rng.Intn((hi+1)/2) + 1
}

// drawSide draws an image side: tiny, small or large.
func drawSide(rng *rand.Rand, max int) int {
	hi := max
	switch r := rng.Float64(); {
	case r < 0.25:
		hi = min(8, max)
	case r < 0.6:
		hi = min(64, max)
	}
	return 1 + rng.Intn(hi)
}

// drawSpec draws the fields a GPU kernel is specialized for.
func (d *domain) drawSpec(rng *rand.Rand) testCase {
	var c testCase
	c.Op = d.ops[rng.Intn(len(d.ops))]
	c.Type = pick(rng, convolve.ElemTypes, d.caps.Types)
	c.Channels = pick(rng, []int{1, 1, 2, 3, 3, 4}, d.caps.Channels)
	c.Layout = pick(rng, convolve.Layouts, d.caps.Layouts)
	c.Border = pick(rng, convolve.Borders, d.caps.Borders)
	c.KW = drawK(rng, d.maxK)
	c.KH = c.KW
	if rng.Intn(2) == 0 {
		c.KH = drawK(rng, d.maxK)
	}
	if d.caps.GPU {
		c.Block = pick(rng, commonBlocks, d.caps.FixedBlocks)
		c.NoFMA = rng.Intn(4) == 0
		c.Fast = rng.Intn(4) == 0
	}
	c.Tune = drawTune(rng, d.caps)
	return c.normalize()
}

// drawFree draws the fields that need no new specialization.
func (d *domain) drawFree(rng *rand.Rand, c *testCase) {
	c.W = drawSide(rng, d.maxSide)
	c.H = drawSide(rng, d.maxSide)
	if rng.Intn(2) == 0 {
		c.Pad = 1 + rng.Intn(9)
	}
	c.Weights = d.kinds[rng.Intn(len(d.kinds))]
	c.Mode = pick(rng, convolve.Modes, nil)
	c.Seed = rng.Int63()
}

// fitBudget shrinks the larger image side until the case fits the work
// budget.
func (d *domain) fitBudget(c testCase) testCase {
	for c.work() > d.budget && (c.W > 1 || c.H > 1) {
		if c.W >= c.H {
			c.W = max(1, c.W*3/4)
		} else {
			c.H = max(1, c.H*3/4)
		}
	}
	return c
}

// draw draws one valid case, or reports that none was found.
func (d *domain) draw(rng *rand.Rand) (testCase, bool) {
	if len(d.ops) == 0 || len(d.kinds) == 0 {
		return testCase{}, false
	}
	for try := 0; try < 200; try++ {
		var c testCase
		if d.pool != nil {
			if len(d.pool) == 0 {
				return testCase{}, false
			}
			c = d.pool[rng.Intn(len(d.pool))]
		} else {
			c = d.drawSpec(rng)
		}
		d.drawFree(rng, &c)
		if d.fix != nil {
			c = d.fix(d, c)
		}
		c = d.fitBudget(c.normalize())
		if d.valid(c) {
			return c, true
		}
	}
	return testCase{}, false
}

// specValid checks the capabilities and the validity rule.
func (d *domain) specValid(c testCase) bool {
	if c.normalize() != c || !slices.Contains(d.ops, c.Op) {
		return false
	}
	if c.Op == convolve.Filter2D && !slices.Contains(d.kinds, c.Weights) {
		return false
	}
	if c.KW < 1 || c.KH < 1 || c.KW%2 == 0 || c.KH%2 == 0 || c.KW > d.maxK || c.KH > d.maxK {
		return false
	}
	if d.caps.CheckConfig(c.Config()) != nil {
		return false
	}
	p, err := c.Problem()
	if err != nil || d.caps.Check(p) != nil {
		return false
	}
	return d.rule == nil || d.rule.accepts(p, c.Config())
}

// valid reports whether c belongs to the domain.
func (d *domain) valid(c testCase) bool {
	if c.W < 1 || c.H < 1 || c.W > d.maxSide || c.H > d.maxSide || c.Pad < 0 || c.work() > d.budget {
		return false
	}
	if d.accept != nil && !d.accept(c) {
		return false
	}
	return d.specValid(c)
}

// gen is the gopter generator of the domain's cases.
func (d *domain) gen() gopter.Gen {
	caseType := reflect.TypeOf(testCase{})
	return func(p *gopter.GenParameters) *gopter.GenResult {
		c, ok := d.draw(p.Rng)
		if !ok {
			return gopter.NewEmptyResult(caseType)
		}
		r := gopter.NewGenResult(c, d.shrink)
		r.Sieve = func(v interface{}) bool {
			c, ok := v.(testCase)
			return ok && d.valid(c)
		}
		return r
	}
}

// shrink proposes smaller cases, the boldest first; the generator's sieve
// drops those outside the domain. Every candidate lowers at least one
// field and raises none, so shrinking ends.
func (d *domain) shrink(v interface{}) gopter.Shrink {
	if d.stopShrink != nil && d.stopShrink() {
		return gopter.NoShrink
	}
	c := v.(testCase)
	var out []testCase
	seen := map[testCase]bool{c: true}
	add := func(m func(*testCase)) {
		n := c
		m(&n)
		n = n.normalize()
		if !seen[n] {
			seen[n] = true
			out = append(out, n)
		}
	}
	if c.Op != convolve.Filter2D {
		add(func(n *testCase) { n.Op = convolve.Filter2D })
	}
	for _, w := range smaller(c.W, 1) {
		add(func(n *testCase) { n.W = w })
	}
	for _, h := range smaller(c.H, 1) {
		add(func(n *testCase) { n.H = h })
	}
	for _, k := range smallerOdd(c.KW) {
		add(func(n *testCase) { n.KW = k })
	}
	for _, k := range smallerOdd(c.KH) {
		add(func(n *testCase) { n.KH = k })
	}
	for ch := 1; ch < c.Channels; ch++ {
		add(func(n *testCase) { n.Channels = ch })
	}
	if c.Pad > 0 {
		add(func(n *testCase) { n.Pad = 0 })
	}
	if c.Type != convolve.Float32 {
		add(func(n *testCase) { n.Type = convolve.Float32 })
	}
	if c.Layout != convolve.Interleaved {
		add(func(n *testCase) { n.Layout = convolve.Interleaved })
	}
	for b := convolve.Zero; b < c.Border; b++ {
		add(func(n *testCase) { n.Border = b })
	}
	if c.Mode != convolve.Correlate {
		add(func(n *testCase) { n.Mode = convolve.Correlate })
	}
	if c.Block != (convolve.Block{}) {
		add(func(n *testCase) { n.Block = convolve.Block{} })
	}
	if c.NoFMA {
		add(func(n *testCase) { n.NoFMA = false })
	}
	if c.Fast {
		add(func(n *testCase) { n.Fast = false })
	}
	if c.Tune != "" {
		add(func(n *testCase) { n.Tune = "" })
	}
	i := 0
	return func() (interface{}, bool) {
		if i >= len(out) {
			return nil, false
		}
		i++
		return out[i-1], true
	}
}

// smaller lists values below v down to lo: lo, halfway, and v-1.
func smaller(v, lo int) []int {
	var s []int
	for _, x := range []int{lo, lo + (v-lo)/2, v - 1} {
		if x >= lo && x < v && !slices.Contains(s, x) {
			s = append(s, x)
		}
	}
	return s
}

// smallerOdd lists odd values below the odd k: 1, 3, about k/2, k-2.
func smallerOdd(k int) []int {
	var s []int
	for _, x := range []int{1, 3, (k / 2) | 1, k - 2} {
		if x >= 1 && x < k && x%2 == 1 && !slices.Contains(s, x) {
			s = append(s, x)
		}
	}
	return s
}
