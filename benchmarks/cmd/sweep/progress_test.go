package main

import (
	"slices"
	"testing"
)

func TestLineBuffer(t *testing.T) {
	for _, tt := range []struct {
		writes []string
		want   []string // the lines passed on, the flushed one last
	}{
		{[]string{"a\nb\n"}, []string{"a", "b"}},
		{[]string{"a", "b\nc", "\n"}, []string{"ab", "c"}},
		{[]string{"a\n", "rest"}, []string{"a", "rest"}},
		{[]string{"\n\n"}, []string{"", ""}},
		{nil, nil},
	} {
		var lb lineBuffer
		var got []string
		line := func(s string) { got = append(got, s) }
		for _, w := range tt.writes {
			lb.write([]byte(w), line)
		}
		lb.flush(line)
		lb.flush(line) // a second flush has nothing left
		if !slices.Equal(got, tt.want) {
			t.Errorf("lines of %q = %q, want %q", tt.writes, got, tt.want)
		}
	}
}
