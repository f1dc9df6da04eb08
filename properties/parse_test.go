package properties

import (
	"fmt"
	"math/rand"
	"strconv"
	"strings"
	"testing"

	"github.com/convbench/convbench/convolve"
)

var caseFlag = flagString("props.case", "", "check only this case, as a failure prints it (no random cases, no shrinking)")

// parseCase reads a case back from its String form.
func parseCase(s string) (Case, error) {
	f := strings.Fields(s)
	if len(f) < 4 {
		return Case{}, fmt.Errorf("case %q: want at least operation, size, channels and type", s)
	}
	var c Case
	found := false
	for _, o := range convolve.Operations {
		if o.String() == f[0] {
			c.Op, found = o, true
		}
	}
	if !found {
		return Case{}, fmt.Errorf("case %q: unknown operation %q", s, f[0])
	}
	if _, err := fmt.Sscanf(f[1], "%dx%d", &c.W, &c.H); err != nil {
		return Case{}, fmt.Errorf("case %q: size %q: want WxH", s, f[1])
	}
	c.KW, c.KH = 1, 1
	if c.Op == convolve.SobelMagnitude {
		c.KW, c.KH = 3, 3
	}
	for _, tok := range f[2:] {
		k, v, hasValue := strings.Cut(tok, "=")
		var err error
		switch {
		case k == "c" && hasValue:
			c.Channels, err = strconv.Atoi(v)
		case k == "pad" && hasValue:
			c.Pad, err = strconv.Atoi(v)
		case k == "K" && hasValue:
			_, err = fmt.Sscanf(v, "%dx%d", &c.KW, &c.KH)
		case k == "border" && hasValue:
			c.Border, err = convolve.ParseBorder(v)
		case k == "block" && hasValue:
			c.Block, err = convolve.ParseBlock(v)
		case k == "seed" && hasValue:
			c.Seed, err = strconv.ParseInt(v, 10, 64)
		case k == "fmad" && v == "false":
			c.NoFMA = true
		case tok == "fast-math":
			c.Fast = true
		case hasValue:
			if c.Tune != "" {
				c.Tune += ","
			}
			c.Tune += tok
		default:
			err = c.setWord(tok)
		}
		if err != nil {
			return Case{}, fmt.Errorf("case %q: %q: %v", s, tok, err)
		}
	}
	return c.normalize(), nil
}

// setWord sets the field a bare word names: element type, layout, weight
// kind or mode.
func (c *Case) setWord(w string) error {
	if t, err := convolve.ParseElemType(w); err == nil {
		c.Type = t
		return nil
	}
	for _, l := range convolve.Layouts {
		if l.String() == w {
			c.Layout = l
			return nil
		}
	}
	for i, name := range weightKindNames {
		if name == w {
			c.Weights = WeightKind(i)
			return nil
		}
	}
	for _, m := range convolve.Modes {
		if m.String() == w {
			c.Mode = m
			return nil
		}
	}
	return fmt.Errorf("unknown word")
}

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
