package results

import (
	"fmt"
	"testing"
)

func measure(vs ...float64) Measure {
	return timeOf(&Sample{Keys: map[string]string{}, Values: map[string][]float64{"ns/op": vs}})
}

func TestMeasureCells(t *testing.T) {
	fast := measure(1e6, 1.02e6, 0.98e6, 1e6, 1.01e6)
	slow := measure(2e6, 2.1e6, 1.9e6, 2e6, 2.05e6)
	near := measure(1.01e6, 0.99e6, 1.03e6, 0.97e6, 1e6)
	tests := []struct {
		name string
		got  string
		want string
	}{
		{"five runs", msCI(fast), "1.00 ±2%"},
		{"one run", msCI(measure(3e6)), "3.00 ±∞"},
		{"no run", msCI(Measure{}), missing},
		{"apart", ratioCell(slow, fast), "2.00×"},
		{"overlapping", ratioCell(near, fast), "~"},
		{"too few runs", ratioCell(measure(2e6, 2e6), measure(1e6, 1e6)), "~"},
		{"one missing", ratioCell(slow, Measure{}), missing},
	}
	for _, tt := range tests {
		if tt.got != tt.want {
			t.Errorf("%s: %q, want %q", tt.name, tt.got, tt.want)
		}
	}
	if r, sig, ok := ratio(slow, fast); !ok || !sig || r != 2 {
		t.Errorf("ratio(slow, fast) = %g, %v, %v", r, sig, ok)
	}
}

func ExampleCompare() {
	before := measure(100, 102, 98, 101, 99)
	after := measure(80, 82, 79, 81, 80)
	c := Compare(before, after)
	fmt.Println(c, c.P <= c.Alpha)
	// Output: p=0.008 n=5 true
}
