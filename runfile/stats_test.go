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
