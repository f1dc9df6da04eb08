package runfile

import (
	"math"
	"testing"
)

func TestTally(t *testing.T) {
	type pair struct {
		base, other float64
		differ      bool
	}
	for _, tt := range []struct {
		name                   string
		pairs                  []pair
		n, lower, higher, same int
		geomean                float64
	}{
		{"none", nil, 0, 0, 0, 0, math.NaN()},
		{"lower, higher and same", []pair{{2, 1, true}, {1, 4, true}, {1, 4, false}}, 3, 1, 1, 1, 2},
		{"equal medians the test calls different", []pair{{3, 3, true}, {2, 8, false}}, 2, 0, 0, 2, 2},
	} {
		var tl Tally
		for _, p := range tt.pairs {
			tl.Add(p.base, p.other, p.differ)
		}
		g := tl.Geomean()
		if tl.Pairs != tt.n || tl.Lower != tt.lower || tl.Higher != tt.higher || tl.Same != tt.same ||
			!(math.Abs(g-tt.geomean) < 1e-12 || math.IsNaN(g) && math.IsNaN(tt.geomean)) {
			t.Errorf("%s: %+v, geomean %v; want %d pairs, %d lower, %d higher, %d same, geomean %v", tt.name, tl, g, tt.n, tt.lower, tt.higher, tt.same, tt.geomean)
		}
	}
}

func TestIntervalRanks(t *testing.T) {
	for _, tt := range []struct {
		n          int
		level      float64
		lo, hi     int
		confidence float64
	}{
		{5, 0.90, 1, 5, 0.9375}, // the range: 1 - 2/2⁵
		{5, 0.95, 0, 0, 0},      // none: 93.75% is the most 5 runs give
		{6, 0.95, 1, 6, 0.96875},
		{4, 0.90, 0, 0, 0},
		{10, 0.90, 2, 8, 0.9346},
	} {
		lo, hi, conf := IntervalRanks(tt.n, tt.level)
		if lo != tt.lo || hi != tt.hi || tt.lo > 0 && math.Abs(conf-tt.confidence) > 1e-4 {
			t.Errorf("IntervalRanks(%d, %v) = %d, %d, %v; want %d, %d, %v", tt.n, tt.level, lo, hi, conf, tt.lo, tt.hi, tt.confidence)
		}
	}
}

func TestMinRunsAndBestP(t *testing.T) {
	for _, tt := range []struct {
		level float64
		want  int
	}{{0.95, 6}, {0.90, 5}} {
		if n := MinRuns(tt.level); n != tt.want {
			t.Errorf("MinRuns(%v) = %d, want %d", tt.level, n, tt.want)
		}
	}
	for _, tt := range []struct {
		n    int
		want float64
	}{{5, 2.0 / 252}, {3, 0.1}} {
		if p := BestP(tt.n); math.Abs(p-tt.want) > 1e-9 {
			t.Errorf("BestP(%d) = %v, want %v", tt.n, p, tt.want)
		}
	}
}
