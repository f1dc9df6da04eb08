package convtest

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/convbench/convbench/convolve"
)

// parseCase reads a case back from its String form.
func parseCase(s string) (testCase, error) {
	f := strings.Fields(s)
	if len(f) < 4 {
		return testCase{}, fmt.Errorf("case %q: want at least operation, size, channels and type", s)
	}
	var c testCase
	found := false
	for _, o := range convolve.Operations {
		if o.String() == f[0] {
			c.Op, found = o, true
		}
	}
	if !found {
		return testCase{}, fmt.Errorf("case %q: unknown operation %q", s, f[0])
	}
	if _, err := fmt.Sscanf(f[1], "%dx%d", &c.W, &c.H); err != nil {
		return testCase{}, fmt.Errorf("case %q: size %q: want WxH", s, f[1])
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
			return testCase{}, fmt.Errorf("case %q: %q: %v", s, tok, err)
		}
	}
	return c.normalize(), nil
}

// setWord sets the field a bare word names: element type, layout, weight
// kind or mode.
func (c *testCase) setWord(w string) error {
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
			c.Weights = weightKind(i)
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
