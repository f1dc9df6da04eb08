package benchmarks

import (
	"testing"

	"github.com/convbench/convbench/convolve"
)

// The reference of a problem is computed once per input content: a second
// case with the same problem and input reuses it, a changed element or
// filter weight does not.
func TestExpectCache(t *testing.T) {
	c := Case{Variant: "gpu-naive", Width: 37, Height: 23, Filter: "gauss5", Channels: 1, GPU: true}
	p, err := c.Problem()
	if err != nil {
		t.Fatal(err)
	}
	in, err := NewInput(p, 9)
	if err != nil {
		t.Fatal(err)
	}
	ref1, _, err := expect(p, in, convolve.Direct, nil)
	if err != nil {
		t.Fatal(err)
	}
	again, err := NewInput(p, 9)
	if err != nil {
		t.Fatal(err)
	}
	ref2, _, err := expect(p, again, convolve.Direct, nil)
	if err != nil {
		t.Fatal(err)
	}
	if ref1 != ref2 {
		t.Error("same problem and input: the reference was computed again")
	}
	again.F32[5*37+11] += 0.5
	ref3, _, err := expect(p, again, convolve.Direct, nil)
	if err != nil {
		t.Fatal(err)
	}
	if ref3 == ref1 || ref3.At(11, 5, 0) == ref1.At(11, 5, 0) {
		t.Error("a changed input element reused the old reference")
	}
	q := p
	box, err := convolve.Box(5)
	if err != nil {
		t.Fatal(err)
	}
	q.Filter = box
	if ref4, _, err := expect(q, in, convolve.Direct, nil); err != nil || ref4 == ref1 {
		t.Errorf("another filter of the same size reused the reference (err %v)", err)
	}
}
