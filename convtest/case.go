package convtest

import (
	"fmt"
	"math"
	"math/rand"
	"slices"
	"strings"
	"sync"

	"github.com/convbench/convbench/convolve"
	"github.com/convbench/convbench/convolve/testimage"
)

// weightKind says how a case's filter weights are drawn from its seed.
type weightKind int

const (
	// randomWeights are uniform in [-1, 1): a full-rank filter.
	randomWeights weightKind = iota
	// outerWeights are the float32 products of two random vectors: a
	// rank-one (separable) filter.
	outerWeights
	// smoothWeights are the outer product of two sampled Gaussians, all
	// positive and summing to about 1, like a blur.
	smoothWeights
	// integerWeights are small integers in -4..4, as edge filters have.
	integerWeights
	// identityWeights are 0 except a 1 at the anchor.
	identityWeights
)

var weightKindNames = []string{"random", "outer", "smooth", "integer", "identity"}

func (k weightKind) String() string {
	if k >= 0 && int(k) < len(weightKindNames) {
		return weightKindNames[k]
	}
	return fmt.Sprintf("weightKind(%d)", int(k))
}

// separable reports whether every filter of this kind is rank one.
func (k weightKind) separable() bool {
	return k == outerWeights || k == smoothWeights || k == identityWeights
}

// testCase is one generated test problem. It holds no pixels: the input image
// and the filter weights are derived from Seed, so a case prints in one
// line and shrinks field by field.
type testCase struct {
	Op       convolve.Operation
	W, H     int
	Channels int
	Type     convolve.ElemType
	Layout   convolve.Layout
	// Pad is the number of padding elements at the end of each input row
	// (Stride = row elements + Pad); padding holds poison values.
	Pad     int
	KW, KH  int // filter sides (the operation's own for Sobel and RGB->YUV)
	Weights weightKind
	Border  convolve.Border
	Mode    convolve.Mode
	Block   convolve.Block // zero: the variant's default
	NoFMA   bool
	Fast    bool // FastMath
	// Tune holds Config.Tunables in convolve.FormatTunables's form:
	// "name=value" pairs joined by commas in
	// name order ("" for none), so that a testCase stays comparable.
	Tune string
	Seed int64
}

func (c testCase) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%v %dx%d c=%d %v", c.Op, c.W, c.H, c.Channels, c.Type)
	if c.Channels > 1 {
		fmt.Fprintf(&b, " %v", c.Layout)
	}
	if c.Pad > 0 {
		fmt.Fprintf(&b, " pad=%d", c.Pad)
	}
	switch c.Op {
	case convolve.Filter2D:
		fmt.Fprintf(&b, " K=%dx%d %v %v border=%v", c.KW, c.KH, c.Weights, c.Mode, c.Border)
	case convolve.SobelMagnitude:
		fmt.Fprintf(&b, " border=%v", c.Border)
	}
	if c.Block != (convolve.Block{}) {
		fmt.Fprintf(&b, " block=%v", c.Block)
	}
	if c.NoFMA {
		b.WriteString(" fmad=false")
	}
	if c.Fast {
		b.WriteString(" fast-math")
	}
	if c.Tune != "" {
		b.WriteString(" " + c.Tune)
	}
	fmt.Fprintf(&b, " seed=%d", c.Seed)
	return b.String()
}

// normalize makes the fields that the operation fixes consistent and
// clears those it ignores (they are not printed either).
func (c testCase) normalize() testCase {
	switch c.Op {
	case convolve.SobelMagnitude:
		c.KW, c.KH = 3, 3
		c.Weights, c.Mode = 0, 0
	case convolve.RGBToYUV:
		c.KW, c.KH = 1, 1
		c.Channels, c.Type = 3, convolve.Uint8
		c.Weights, c.Mode, c.Border = 0, 0, 0
	}
	if c.Channels == 1 {
		c.Layout = convolve.Interleaved
	}
	return c
}

// Geometry is the input geometry.
func (c testCase) Geometry() convolve.Geometry {
	g := convolve.Geometry{Width: c.W, Height: c.H, Channels: c.Channels, Type: c.Type, Layout: c.Layout}
	if c.Pad > 0 {
		g.Stride = g.RowElems() + c.Pad
	}
	return g
}

// Problem is the problem the case describes, with filter f (nil for
// operations without one).
func (c testCase) problem(f *convolve.Filter) convolve.Problem {
	p := convolve.Problem{Op: c.Op, Input: c.Geometry(), Border: c.Border, Mode: c.Mode}
	if c.Op == convolve.Filter2D {
		p.Filter = f
	}
	return p
}

// Problem builds the case's problem with its own filter.
func (c testCase) Problem() (convolve.Problem, error) {
	var f *convolve.Filter
	if c.Op == convolve.Filter2D {
		var err error
		if f, err = c.Filter(); err != nil {
			return convolve.Problem{}, err
		}
	}
	return c.problem(f), nil
}

// Config is the plan configuration of the case.
func (c testCase) Config() convolve.Config {
	cfg := convolve.Config{Block: c.Block, NoFMA: c.NoFMA, FastMath: c.Fast}
	// Tune is only ever drawn or parsed in ParseTunables's form.
	cfg.Tunables, _ = convolve.ParseTunables(c.Tune)
	return cfg
}

// drawTune sets each tunable of caps with probability 1/2, to one of its
// values (valuesOf).
func drawTune(rng *rand.Rand, caps convolve.Capabilities) string {
	t := map[string]int{}
	for _, name := range slices.Sorted(slices.Values(caps.Tunables)) {
		if rng.Intn(2) == 0 {
			continue
		}
		vals := valuesOf(name, caps)
		t[name] = vals[rng.Intn(len(vals))]
	}
	return convolve.FormatTunables(t)
}

// valuesOf is the values drawn for one tunable of caps: those its tuning
// space lists, else those its TunableValues lists, else 0 and 1.
func valuesOf(name string, caps convolve.Capabilities) []int {
	if caps.Space != nil {
		for _, tu := range caps.Space.Tunables {
			if tu.Name == name && len(tu.Values) > 0 {
				return tu.Values
			}
		}
	}
	if vals := caps.TunableValues[name]; len(vals) > 0 {
		return vals
	}
	return []int{0, 1}
}

// Filter builds the case's filter from its seed.
func (c testCase) Filter() (*convolve.Filter, error) {
	return makeFilter(c.Weights, c.KW, c.KH, c.Seed, "case")
}

// filterKey names a filter makeFilter draws.
type filterKey struct {
	kind   weightKind
	kw, kh int
	seed   int64
	name   string
}

// filterCache holds filters makeFilter drew, up to filterCacheSize of
// them, each of at most filterCacheTaps weights: the generator's checks
// build a case's problem several times, and seeding a math/rand source
// costs more than the rest of a small case's checks.
var filterCache = struct {
	sync.Mutex
	m map[filterKey]*convolve.Filter
}{m: map[filterKey]*convolve.Filter{}}

const (
	filterCacheSize = 4096
	filterCacheTaps = 1024
)

// makeFilter draws a KW x KH filter of the given kind from seed. Each
// call returns a filter of its own.
func makeFilter(kind weightKind, kw, kh int, seed int64, name string) (*convolve.Filter, error) {
	key := filterKey{kind, kw, kh, seed, name}
	if kw*kh > filterCacheTaps {
		return drawFilter(kind, kw, kh, seed, name)
	}
	filterCache.Lock()
	f, ok := filterCache.m[key]
	filterCache.Unlock()
	if ok {
		return f.Clone(), nil
	}
	f, err := drawFilter(kind, kw, kh, seed, name)
	if err != nil {
		return nil, err
	}
	filterCache.Lock()
	if len(filterCache.m) >= filterCacheSize {
		clear(filterCache.m)
	}
	filterCache.m[key] = f.Clone()
	filterCache.Unlock()
	return f, nil
}

// drawFilter is makeFilter without the cache.
func drawFilter(kind weightKind, kw, kh int, seed int64, name string) (*convolve.Filter, error) {
	rng := rand.New(rand.NewSource(seed ^ 0x0f11_7e25))
	w := make([]float32, kw*kh)
	switch kind {
	case randomWeights:
		for i := range w {
			w[i] = 2*rng.Float32() - 1
		}
	case outerWeights:
		row, col := randomVector(rng, kw), randomVector(rng, kh)
		outer(w, row, col)
	case smoothWeights:
		outer(w, gaussian(rng, kw), gaussian(rng, kh))
	case integerWeights:
		for i := range w {
			w[i] = float32(rng.Intn(9) - 4)
		}
	case identityWeights:
		// the centre below
	default:
		return nil, fmt.Errorf("properties: unknown weight kind %d", int(kind))
	}
	if kind == identityWeights || allZero(w) {
		w[len(w)/2] = 1
	}
	return convolve.NewFilter(fmt.Sprintf("%s-%v", name, kind), kw, kh, w)
}

func allZero(w []float32) bool {
	for _, v := range w {
		if v != 0 {
			return false
		}
	}
	return true
}

// randomVector has entries of magnitude 0.25..1 with random signs, so no
// factor is near zero.
func randomVector(rng *rand.Rand, n int) []float32 {
	v := make([]float32, n)
	for i := range v {
		v[i] = 0.25 + 0.75*rng.Float32()
		if rng.Intn(2) == 0 {
			v[i] = -v[i]
		}
	}
	return v
}

// gaussian is a normalised Gaussian of n samples with a random sigma.
func gaussian(rng *rand.Rand, n int) []float32 {
	sigma := 0.3 + rng.Float64()*float64(n)/2
	t := make([]float64, n)
	sum := 0.0
	for i := range t {
		x := float64(i) - float64(n-1)/2
		t[i] = math.Exp(-x * x / (2 * sigma * sigma))
		sum += t[i]
	}
	v := make([]float32, n)
	for i := range t {
		v[i] = float32(t[i] / sum)
	}
	return v
}

func outer(w, row, col []float32) {
	kw := len(row)
	for j, cv := range col {
		for i, rv := range row {
			w[j*kw+i] = cv * rv
		}
	}
}

// Input builds the case's input image: fresh random data from the seed,
// with row padding filled with poison that shows when a variant reads it.
func (c testCase) Input() (*convolve.Image, error) {
	im, err := testimage.Noise(c.Geometry(), c.Seed)
	if err != nil {
		return nil, err
	}
	poisonPadding(im)
	return im, nil
}

// problemAndInput is Problem and Input together, for the properties that
// need both.
func (c testCase) problemAndInput() (convolve.Problem, *convolve.Image, error) {
	p, err := c.Problem()
	if err != nil {
		return convolve.Problem{}, nil, err
	}
	in, err := c.Input()
	return p, in, err
}

// poisonPadding writes a value no correct variant can let through (NaN for
// float32, the most negative value for integers) into every element that
// is not a pixel: the ends of padded rows.
func poisonPadding(im *convolve.Image) {
	s := im.RowStride()
	n := im.RowElems()
	if s == n {
		return
	}
	rows := im.Height
	if im.Layout == convolve.Planar {
		rows *= im.Channels
	}
	for r := 0; r < rows; r++ {
		for i := r*s + n; i < (r+1)*s && i < im.Len(); i++ {
			switch im.Type {
			case convolve.Float32:
				im.F32[i] = float32(math.NaN())
			case convolve.Uint8:
				im.U8[i] = 255
			case convolve.Int16:
				im.I16[i] = math.MinInt16
			}
		}
	}
}

// work is the number of multiply-adds of one run of the case.
func (c testCase) work() int {
	return c.W * c.H * c.Channels * c.KW * c.KH
}
