package convtest

import (
	"fmt"
	"math/rand"
	"slices"
	"strings"
	"testing"

	"github.com/convbench/convbench/convolve"
)

// testCaps are capability sets the generator must respect.
var testCaps = map[string]convolve.Capabilities{
	"everything": {},
	"gpu-narrow": {
		Ops: []convolve.Operation{convolve.Filter2D}, Types: []convolve.ElemType{convolve.Uint8},
		Channels: []int{1, 3}, Layouts: []convolve.Layout{convolve.Planar},
		Borders: []convolve.Border{convolve.Replicate, convolve.Wrap}, MaxFilterSide: 15, GPU: true,
		FixedBlocks: []convolve.Block{{X: 16, Y: 16}, {X: 32, Y: 8}}, Tunables: []string{"ry", "shared"},
		TunableValues: map[string][]int{"ry": {1, 2, 4, 8}},
	},
	"separable-only": {Ops: []convolve.Operation{convolve.Filter2D}, SeparableOnly: true, GPU: true},
	"sobel-only":     {Ops: []convolve.Operation{convolve.SobelMagnitude}, Borders: []convolve.Border{convolve.Mirror}},
}

// measure decreases with every shrink step.
func measure(c testCase) int {
	m := c.W + c.H + c.KW + c.KH + c.Channels + c.Pad + int(c.Type) + int(c.Layout) + int(c.Border) + int(c.Mode) + int(c.Op)
	if c.Block != (convolve.Block{}) {
		m++
	}
	if c.NoFMA {
		m++
	}
	if c.Fast {
		m++
	}
	if c.Tune != "" {
		m++
	}
	return m
}

func TestGeneratedCasesStayWithinCapabilities(t *testing.T) {
	for name, caps := range testCaps {
		t.Run(name, func(t *testing.T) {
			for _, pr := range properties {
				var pool []testCase
				if caps.GPU {
					pool = specPool(caps, 7, nil, DefaultPool)
				}
				d := newDomain(caps, pr, pool)
				rng := rand.New(rand.NewSource(1))
				drawn := 0
				for i := 0; i < 200; i++ {
					c, ok := d.draw(rng)
					if !ok {
						continue
					}
					drawn++
					p, err := c.Problem()
					if err != nil {
						t.Fatalf("%s: drawn case %v: %v", pr.name, c, err)
					}
					if err := caps.Check(p); err != nil {
						t.Fatalf("%s: drawn case %v outside the capabilities: %v", pr.name, c, err)
					}
					if err := caps.CheckConfig(c.Config()); err != nil {
						t.Fatalf("%s: drawn case %v has a configuration outside the capabilities: %v", pr.name, c, err)
					}
					if c.work() > d.budget {
						t.Fatalf("%s: drawn case %v over the work budget", pr.name, c)
					}
					if pool != nil && !slices.ContainsFunc(pool, func(s testCase) bool { return sameSpec(d, s, c, pr) }) {
						t.Fatalf("%s: drawn case %v is not a pool specialization", pr.name, c)
					}
					// Shrinking proposes only smaller cases.
					s := d.shrink(c)
					for v, ok := s(); ok; v, ok = s() {
						if m := measure(v.(testCase)); m >= measure(c) {
							t.Fatalf("%s: shrink of %v proposes %v, not smaller", pr.name, c, v)
						}
					}
				}
				applicable := slices.Contains(d.ops, convolve.Filter2D) || pr.ops == nil
				if applicable && drawn == 0 && pr.applies == nil {
					t.Errorf("%s: no case drawn", pr.name)
				}
			}
		})
	}
}

// sameSpec reports whether c was drawn from pool entry s: the compiled
// fields agree, except those the property fixes.
func sameSpec(d *domain, s, c testCase, pr *property) bool {
	if pr.fix != nil {
		s = pr.fix(d, s)
	}
	if s.Op != c.Op {
		return false
	}
	return s.KW == c.KW && s.KH == c.KH && s.Border == c.Border && s.Type == c.Type && s.Channels == c.Channels &&
		s.Layout == c.Layout && s.Block == c.Block && s.NoFMA == c.NoFMA && s.Fast == c.Fast && s.Tune == c.Tune
}

func TestSpecPoolsCoverTheFilterRange(t *testing.T) {
	caps := convolve.Capabilities{Ops: []convolve.Operation{convolve.Filter2D}, MaxFilterSide: 63, GPU: true}
	seen := map[int]bool{}
	for seed := int64(1); seed <= 40; seed++ {
		pool := specPool(caps, seed, nil, DefaultPool)
		if len(pool) != DefaultPool {
			t.Fatalf("seed %d: pool of %d, want %d", seed, len(pool), DefaultPool)
		}
		for _, c := range pool {
			seen[c.KW] = true
			seen[c.KH] = true
		}
	}
	for _, k := range []int{1, 3, 5, 7} {
		if !seen[k] {
			t.Errorf("K=%d never drawn over 40 seeds", k)
		}
	}
	large := 0
	for k := range seen {
		if k > 31 {
			large++
		}
	}
	if !seen[63] && large < 5 {
		t.Errorf("only %d sizes above 31 drawn over 40 seeds (largest allowed 63)", large)
	}
}

func TestShrinkReachesTheSmallestCase(t *testing.T) {
	d := newDomain(convolve.Capabilities{}, nil, nil)
	c := testCase{Op: convolve.SobelMagnitude, W: 200, H: 90, Channels: 4, Type: convolve.Int16, Layout: convolve.Planar,
		Pad: 5, KW: 3, KH: 3, Border: convolve.Wrap, Mode: convolve.Convolve, Seed: 9}
	for steps := 0; ; steps++ {
		s := d.shrink(c)
		v, ok := s()
		if !ok {
			break
		}
		if steps > 1000 {
			t.Fatal("shrinking does not end")
		}
		c = v.(testCase)
	}
	want := testCase{Op: convolve.Filter2D, W: 1, H: 1, Channels: 1, KW: 1, KH: 1, Seed: 9}
	if c != want {
		t.Errorf("always taking the first shrink ends at %v, want %v", c, want)
	}
}

func TestCaseString(t *testing.T) {
	c := testCase{Op: convolve.Filter2D, W: 37, H: 5, Channels: 3, Type: convolve.Uint8, Layout: convolve.Planar, Pad: 2,
		KW: 7, KH: 3, Weights: outerWeights, Border: convolve.Wrap, Mode: convolve.Convolve,
		Block: convolve.Block{X: 32, Y: 8}, NoFMA: true, Seed: 123}
	want := "filter2d 37x5 c=3 u8 planar pad=2 K=7x3 outer convolve border=wrap block=32x8 fmad=false seed=123"
	if got := c.String(); got != want {
		t.Errorf("String() = %q, want %q", got, want)
	}
}

func TestReproduceCommand(t *testing.T) {
	o := Options{Seed: 42, N: 300, Rerun: "go test ./properties -props.variant='^gpu-shared$'", FlagPrefix: "props"}
	got := o.reproduceCommand("TestProperties/gpu-shared/agreement")
	for _, part := range []string{"go test ./properties -props.variant='^gpu-shared$'", "-run '^TestProperties$/^gpu-shared$/^agreement$'", "-props.seed=42", "-props.n=300"} {
		if !strings.Contains(got, part) {
			t.Errorf("reproduce command %q lacks %q", got, part)
		}
	}
	o = Options{Seed: 7, N: 5}.resolve()
	got = o.reproduceCommand("TestMine/a.b")
	for _, part := range []string{"go test -run '^TestMine$/^a\\.b$'", "-convtest.seed=7", "-convtest.n=5"} {
		if !strings.Contains(got, part) {
			t.Errorf("reproduce command %q lacks %q", got, part)
		}
	}
	if strings.Contains(got, "pool") {
		t.Errorf("reproduce command %q names the default pool", got)
	}
	o = Options{Seed: 7, N: 5, Pool: 3}.resolve()
	if got = o.reproduceCommand("TestMine"); !strings.Contains(got, " -convtest.pool=3 ") {
		t.Errorf("reproduce command %q lacks the pool of 3", got)
	}
}

// TestSpecPoolSize: the pool holds the number of specializations asked
// for, and a smaller pool is the start of a larger one at the same seed.
func TestSpecPoolSize(t *testing.T) {
	caps := convolve.Capabilities{Ops: []convolve.Operation{convolve.Filter2D}, MaxFilterSide: 63, GPU: true}
	for seed := int64(1); seed <= 20; seed++ {
		full := specPool(caps, seed, nil, DefaultPool)
		for _, size := range []int{1, 3, 4, DefaultPool, 9} {
			pool := specPool(caps, seed, nil, size)
			if len(pool) != size {
				t.Fatalf("seed %d size %d: pool of %d", seed, size, len(pool))
			}
			if n := min(size, len(full)); !slices.Equal(pool[:n], full[:n]) {
				t.Errorf("seed %d: the pool of %d does not start as the pool of %d", seed, size, DefaultPool)
			}
		}
	}
}

func TestDerivedSeedsDiffer(t *testing.T) {
	a, b := derivedSeed(1, "cpu-fast", "agreement"), derivedSeed(1, "cpu-fast", "flip")
	c := derivedSeed(2, "cpu-fast", "agreement")
	if a == b || a == c || a != derivedSeed(1, "cpu-fast", "agreement") {
		t.Errorf("derived seeds %d %d %d: want distinct per property and seed, equal for equal inputs", a, b, c)
	}
}

// Every seed's pool sets every value of every tunable of every registered
// GPU variant, so one run of the suite proves each kernel a tunable picks.
func TestSpecPoolsCoverEveryTunable(t *testing.T) {
	caps := map[string]convolve.Capabilities{"test-ry-shared": testCaps["gpu-narrow"]}
	for _, v := range convolve.Variants() {
		if d := v.Describe(); d.Caps.GPU && len(d.Caps.Tunables) > 0 {
			caps[d.Name] = d.Caps
		}
	}
	if len(caps) < 2 {
		t.Fatalf("no registered GPU variant has a tunable")
	}
	for name, c := range caps {
		for _, seed := range []int64{1, 7, 20240601} {
			seen := map[string]bool{}
			for _, s := range specPool(c, seed, nil, DefaultPool) {
				for _, part := range strings.Split(s.Tune, ",") {
					seen[part] = true
				}
			}
			for _, tun := range c.Tunables {
				for _, v := range valuesOf(tun, c) {
					if want := fmt.Sprintf("%s=%d", tun, v); !seen[want] {
						t.Errorf("%s seed %d: no specialization sets %s", name, seed, want)
					}
				}
			}
		}
	}
}

func TestCoverTune(t *testing.T) {
	caps := convolve.Capabilities{Tunables: []string{"shared", "ry"}, TunableValues: map[string][]int{"ry": {1, 2, 4, 8}}}
	for _, tt := range []struct {
		in   string
		slot int
		want string
	}{
		{"", 0, "ry=1,shared=0"},
		{"", 1, "ry=2,shared=1"},
		{"shared=1", 3, "ry=8,shared=1"},
		{"ry=2", 4, "ry=2"},
		{"", 5, ""},
	} {
		if got := coverTune(tt.in, caps, tt.slot); got != tt.want {
			t.Errorf("coverTune(%q, slot %d) = %q, want %q", tt.in, tt.slot, got, tt.want)
		}
	}
}

// A variant without a tuning space (a wrapper's) gets the values its
// TunableValues lists: every drawn value is one of them, and each is drawn.
func TestDrawTuneFollowsTunableValues(t *testing.T) {
	rng := rand.New(rand.NewSource(1))
	seen := map[int]bool{}
	caps := convolve.Capabilities{Tunables: []string{"rx", "ry"},
		TunableValues: map[string][]int{"rx": {1, 2, 4, 8}, "ry": {1, 2, 4, 8}}}
	for range 200 {
		set, err := convolve.ParseTunables(drawTune(rng, caps))
		if err != nil {
			t.Fatal(err)
		}
		for name, v := range set {
			if v != 1 && v != 2 && v != 4 && v != 8 {
				t.Fatalf("drawTune set %s=%d, want 1, 2, 4 or 8", name, v)
			}
			if name == "rx" {
				seen[v] = true
			}
		}
	}
	if len(seen) != 4 {
		t.Errorf("rx values drawn %v, want all of 1, 2, 4, 8", seen)
	}
}

// A variant that declares a tuning space gets only the values it lists
// for a tunable, drawn or set to cover them, before any its TunableValues
// lists (gpu-regtile's rx takes 8, the tensor-core variants' only 1, 2
// and 4).
func TestDrawTuneFollowsSpace(t *testing.T) {
	space := &convolve.TuningSpace{Tunables: []convolve.Tunable{{Name: "rx", Values: []int{1, 2, 4}}}}
	caps := convolve.Capabilities{Tunables: []string{"rx"}, Space: space, TunableValues: map[string][]int{"rx": {1, 2, 4, 8}}}
	rng := rand.New(rand.NewSource(3))
	seen := map[int]bool{}
	for range 300 {
		set, err := convolve.ParseTunables(drawTune(rng, caps))
		if err != nil {
			t.Fatal(err)
		}
		if v, ok := set["rx"]; ok {
			if v != 1 && v != 2 && v != 4 {
				t.Fatalf("drawTune set rx=%d outside the space's 1, 2, 4", v)
			}
			seen[v] = true
		}
	}
	if len(seen) != 3 {
		t.Errorf("rx values drawn %v, want 1, 2 and 4", seen)
	}
	for slot := range 5 {
		set, _ := convolve.ParseTunables(coverTune("", caps, slot))
		if v, ok := set["rx"]; ok && v != 1 && v != 2 && v != 4 {
			t.Errorf("coverTune slot %d set rx=%d outside the space", slot, v)
		}
	}
}

// TestSpecPoolsCoverTheTypes: every seed's pool holds a specialization of
// each element type the variant accepts, separable-only variants included
// (their subnormal property needs a float32 one).
func TestSpecPoolsCoverTheTypes(t *testing.T) {
	for _, caps := range []convolve.Capabilities{
		{Ops: []convolve.Operation{convolve.Filter2D}, MaxFilterSide: 63, GPU: true, SeparableOnly: true},
		{Ops: []convolve.Operation{convolve.Filter2D}, Types: []convolve.ElemType{convolve.Float32, convolve.Uint8}, GPU: true},
		{Ops: []convolve.Operation{convolve.Filter2D, convolve.SobelMagnitude}, GPU: true},
	} {
		want := caps.Types
		if len(want) == 0 {
			want = convolve.ElemTypes
		}
		for seed := int64(1); seed <= 200; seed++ {
			seen := map[convolve.ElemType]bool{}
			for _, c := range specPool(caps, seed, nil, DefaultPool) {
				seen[c.Type] = true
			}
			for _, typ := range want {
				if !seen[typ] {
					t.Errorf("caps %+v seed %d: no %v specialization in the pool", caps, seed, typ)
				}
			}
		}
	}
}
