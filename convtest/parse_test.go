package convtest

import (
	"math/rand"
	"testing"

	"github.com/convbench/convbench/convolve"
)

func TestParseCaseRoundTrip(t *testing.T) {
	caps := convolve.Capabilities{GPU: true, Tunables: []string{"ry", "shared"}}
	d := newDomain(caps, nil, nil)
	rng := rand.New(rand.NewSource(3))
	for i := 0; i < 500; i++ {
		c, ok := d.draw(rng)
		if !ok {
			continue
		}
		got, err := parseCase(c.String())
		if err != nil {
			t.Fatal(err)
		}
		if got != c {
			t.Fatalf("parseCase(%q) = %v", c.String(), got)
		}
	}
	for _, bad := range []string{"", "filter2d", "blur 3x3 c=1 f32", "filter2d 3by3 c=1 f32", "filter2d 3x3 c=1 f32 purple"} {
		if _, err := parseCase(bad); err == nil {
			t.Errorf("parseCase(%q) succeeded", bad)
		}
	}
}
