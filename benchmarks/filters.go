package benchmarks

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/convbench/convbench/convolve"
)

// FilterChoice is one value of the filter axis: an operation, and for
// Filter2D the filter. Spec is the value of the case name's filter key:
// the filter's canonical name (convolve.FilterSpec), or for a weights
// file its stable name (nameValue of its base name).
type FilterChoice struct {
	Op   convolve.Operation
	Spec string
	// Weights is the filter of a weights file; nil for library filters,
	// which Spec names.
	Weights *convolve.Filter
}

// String is the choice's flag value as -list shows it.
func (f FilterChoice) String() string {
	if f.Op != convolve.Filter2D {
		return f.Op.String()
	}
	return f.Spec
}

// ParseFilters parses the value of -filters: a comma list of library
// filter specs (convolve.ParseFilter: gauss7, sobel-x, dense9, ...),
// "sobel" or "sobel-mag" (the Sobel magnitude operation), "rgb2yuv" (the
// RGB->YUV operation), or paths of weights files (readWeights): an item
// that names an existing file, or holds a path separator, is read as one.
// A library filter's choice carries its canonical name, whatever the
// spelling given ("gauss:9" is gauss9).
func ParseFilters(s string) ([]FilterChoice, error) {
	return parseEach("filters", s, func(p string) (FilterChoice, error) {
		c, err := parseFilter(p)
		if err != nil {
			return c, fmt.Errorf("-filters %s: %w", p, err)
		}
		return c, nil
	})
}

func parseFilter(p string) (FilterChoice, error) {
	switch p {
	case "sobel", "sobel-mag":
		return FilterChoice{Op: convolve.SobelMagnitude}, nil
	case "rgb2yuv":
		return FilterChoice{Op: convolve.RGBToYUV}, nil
	}
	if st, err := os.Stat(p); (err == nil && st.Mode().IsRegular()) || strings.ContainsRune(p, os.PathSeparator) {
		f, err := readWeights(p)
		if err != nil {
			return FilterChoice{}, err
		}
		return FilterChoice{Op: convolve.Filter2D, Spec: f.Name, Weights: f}, nil
	}
	f, err := convolve.ParseFilter(p)
	if err != nil {
		return FilterChoice{}, fmt.Errorf("want a library filter, sobel, rgb2yuv or a weights file: %w", err)
	}
	return FilterChoice{Op: convolve.Filter2D, Spec: f.Name}, nil
}

// readWeights reads a filter from a text file: one row of weights a line,
// numbers separated by spaces, tabs or commas; blank lines and text after
// '#' are ignored. Every row must have the same odd number of weights and
// the rows must be odd in number; the filter's size is that shape. Its
// Name is nameValue of the file's base name.
func readWeights(path string) (*convolve.Filter, error) {
	fh, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("weights file: %w", err)
	}
	defer fh.Close()
	var w []float32
	width, rows := 0, 0
	sc := bufio.NewScanner(fh)
	sc.Buffer(make([]byte, 64<<10), 1<<24)
	for line := 1; sc.Scan(); line++ {
		text, _, _ := strings.Cut(sc.Text(), "#")
		fields := strings.FieldsFunc(text, func(r rune) bool { return r == ' ' || r == '\t' || r == ',' || r == '\r' })
		if len(fields) == 0 {
			continue
		}
		if rows == 0 {
			width = len(fields)
		} else if len(fields) != width {
			return nil, fmt.Errorf("weights file %s line %d: %d weights, want %d as in the first row", path, line, len(fields), width)
		}
		for _, f := range fields {
			v, err := strconv.ParseFloat(f, 32)
			if err != nil {
				return nil, fmt.Errorf("weights file %s line %d: %q is not a number", path, line, f)
			}
			w = append(w, float32(v))
		}
		rows++
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("weights file %s: %w", path, err)
	}
	if rows == 0 {
		return nil, fmt.Errorf("weights file %s: no weights", path)
	}
	if width%2 == 0 || rows%2 == 0 || width > convolve.MaxFilterSide || rows > convolve.MaxFilterSide {
		return nil, fmt.Errorf("weights file %s: %d rows of %d weights; want odd sides, at most %d", path, rows, width, convolve.MaxFilterSide)
	}
	return convolve.NewFilter(nameValue(filepath.Base(path)), width, rows, w)
}

// nameValue turns the base name of a user's file into a value of a case
// name's key that stays the same from run to run: characters other than
// letters, digits, '.', '_' and '-' become '_', and a trailing "-<digits>",
// which a benchmark name's GOMAXPROCS suffix would be taken for, gets '_'
// for its '-'.
func nameValue(base string) string {
	b := []byte(base)
	for i, c := range b {
		ok := c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '.' || c == '_' || c == '-'
		if !ok {
			b[i] = '_'
		}
	}
	s := string(b)
	if i := strings.LastIndexByte(s, '-'); i >= 0 && i < len(s)-1 {
		if _, err := strconv.Atoi(s[i+1:]); err == nil {
			s = s[:i] + "_" + s[i+1:]
		}
	}
	if s == "" {
		s = "_"
	}
	return s
}
