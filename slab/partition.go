package slab

import (
	"fmt"

	"github.com/convbench/convbench/convolve"
)

// Partition is the division of a problem's image into horizontal slabs:
// which output rows each slab computes and which image rows its input
// holds.
type Partition struct {
	// Height is the image's height, Border its border mode.
	Height int
	Border convolve.Border
	// Above and Below are the halo rows an output row needs: KH/2 above
	// and KH-1-KH/2 below, for the KH of the problem's filter.
	Above, Below int
	// Slabs are the non-empty slabs from top to bottom; their output rows
	// tile 0..Height-1 without gaps or overlaps.
	Slabs []Slab
}

// Slab is one horizontal band of the image. Its output is the image rows
// [Y0, Y1); its input is the rows In0..In1-1 of the image extended by the
// whole image's border (Partition.Source maps them into the image). Under
// the Zero border the input stops at the image's top and bottom edges,
// where the wrapped plan's own Zero border supplies the outside rows as it
// does for the whole image; under the other borders the input holds every
// halo row, taken through the whole image's border mapping, so that the
// wrapped plan never reads a row outside its input.
type Slab struct {
	Y0, Y1   int // output rows, Y0 < Y1
	In0, In1 int // input rows in image coordinates, In0 <= Y0 < Y1 <= In1
}

// Rows is the number of output rows, Y1-Y0.
func (s Slab) Rows() int { return s.Y1 - s.Y0 }

// InputRows is the number of input rows, halo rows included.
func (s Slab) InputRows() int { return s.In1 - s.In0 }

// Top is the row of the slab's input (and of the wrapped plan's output)
// that holds image row Y0.
func (s Slab) Top() int { return s.Y0 - s.In0 }

// halo returns the rows above and below an output row for p's filter.
func halo(p convolve.Problem) (above, below int) {
	_, kh := p.KernelSize()
	return kh / 2, kh - 1 - kh/2
}

// Divide splits p's image into n slabs of equal height (within one row):
// slab i computes rows i*H/n to (i+1)*H/n. When n exceeds the height H,
// the empty slabs are left out and the partition has H slabs of one row.
// n must be at least 1 and p valid.
func Divide(p convolve.Problem, n int) (*Partition, error) {
	if err := p.Validate(); err != nil {
		return nil, err
	}
	if n < 1 {
		return nil, fmt.Errorf("slab: %d slabs: need at least 1", n)
	}
	h := p.Input.Height
	n = min(n, h) // more slabs than rows: one row each
	var bounds []int
	for i := 0; i <= n; i++ {
		y := int(int64(i) * int64(h) / int64(n))
		if len(bounds) == 0 || y != bounds[len(bounds)-1] {
			bounds = append(bounds, y)
		}
	}
	return newPartition(p, bounds), nil
}

// DivideRows splits p's image into slabs of rows output rows each, from
// the top; the last one holds what is left. rows must be at least 1 and
// p valid.
func DivideRows(p convolve.Problem, rows int) (*Partition, error) {
	if err := p.Validate(); err != nil {
		return nil, err
	}
	if rows < 1 {
		return nil, fmt.Errorf("slab: %d rows a slab: need at least 1", rows)
	}
	h := p.Input.Height
	bounds := []int{0}
	for y := 0; y < h; {
		y = min(h, y+rows)
		bounds = append(bounds, y)
	}
	return newPartition(p, bounds), nil
}

// newPartition makes the slabs between increasing row bounds starting at
// 0 and ending at the image's height.
func newPartition(p convolve.Problem, bounds []int) *Partition {
	above, below := halo(p)
	pt := &Partition{Height: p.Input.Height, Border: p.Border, Above: above, Below: below}
	for i := 0; i+1 < len(bounds); i++ {
		s := Slab{Y0: bounds[i], Y1: bounds[i+1], In0: bounds[i] - above, In1: bounds[i+1] + below}
		if p.Border == convolve.Zero {
			// Rows the Zero border puts outside the image are left to
			// the wrapped plan's border, exactly as for the whole image.
			s.In0, s.In1 = max(s.In0, 0), min(s.In1, pt.Height)
		}
		pt.Slabs = append(pt.Slabs, s)
	}
	return pt
}

// Source returns the image row that input row i of slab s holds: image
// row s.In0+i mapped through the whole image's border.
func (pt *Partition) Source(s Slab, i int) int {
	y, _ := pt.Border.Index(s.In0+i, pt.Height)
	return y
}

// Owner returns the index in Slabs of the slab whose output holds image
// row y, or -1 when y is outside the image. A halo row of one slab is an
// output row of its owner: in resident mode it is the row a neighbour
// sends.
func (pt *Partition) Owner(y int) int {
	if y < 0 || y >= pt.Height {
		return -1
	}
	lo, hi := 0, len(pt.Slabs)
	for lo < hi {
		m := (lo + hi) / 2
		switch {
		case y < pt.Slabs[m].Y0:
			hi = m
		case y >= pt.Slabs[m].Y1:
			lo = m + 1
		default:
			return m
		}
	}
	return -1
}

// Problem returns the problem the wrapped plan of slab s solves: p with
// the slab's input height and packed rows.
func (pt *Partition) Problem(p convolve.Problem, s Slab) convolve.Problem {
	p.Input.Height = s.InputRows()
	p.Input.Stride = 0
	return p
}

// Copy is a run of rows that fills part of a slab's input: Rows image
// rows from Src on, in ascending order, into the slab's input rows from
// Dst on, all of them output rows of slab From.
type Copy struct {
	From     int // index of the slab whose output rows they are
	Src, Dst int // first image row, first input row of the receiving slab
	Rows     int
}

// Copies returns the runs that fill the input of slab i, top to bottom:
// the longest runs of ascending consecutive image rows with one owner.
// In one-shot mode each is one host-to-device copy of contiguous rows;
// in resident mode a run with From == i is the slab's own rows and the
// others are the halo rows its neighbours send (Owner), from the far
// side of the image under Wrap and, for short images, Reflect and Mirror.
func (pt *Partition) Copies(i int) []Copy {
	s := pt.Slabs[i]
	var cs []Copy
	for r := range s.InputRows() {
		y := pt.Source(s, r)
		from := pt.Owner(y)
		if n := len(cs); n > 0 {
			c := &cs[n-1]
			if c.From == from && c.Src+c.Rows == y {
				c.Rows++
				continue
			}
		}
		cs = append(cs, Copy{From: from, Src: y, Dst: r, Rows: 1})
	}
	return cs
}

// FormatBytes writes a byte count as the streamed variants' names carry
// it: "1GiB", "3MiB", "64KiB", or "1000B" where no larger unit divides it.
func FormatBytes(n int64) string {
	switch {
	case n%(1<<30) == 0:
		return fmt.Sprintf("%dGiB", n>>30)
	case n%(1<<20) == 0:
		return fmt.Sprintf("%dMiB", n>>20)
	case n%(1<<10) == 0:
		return fmt.Sprintf("%dKiB", n>>10)
	}
	return fmt.Sprintf("%dB", n)
}
