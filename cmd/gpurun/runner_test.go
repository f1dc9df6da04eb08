package main

import (
	"slices"
	"testing"
)

func TestOptional(t *testing.T) {
	env := map[string]string{"NOISE": "2", "MAX_TIME": "", "CPU_CAP": "9"}
	r := &runner{getenv: func(k string) string { return env[k] }}
	for _, c := range []struct {
		name  string
		pairs []string
		want  []string
	}{
		{"none", nil, nil},
		{"set", []string{"NOISE", "-noise="}, []string{"-noise=2"}},
		{"empty and unset left out", []string{"MAX_TIME", "-max-time=", "SEED", "-seed="}, nil},
		{"in order", []string{"CPU_CAP", "-cpu-cap=", "MAX_TIME", "-max-time=", "NOISE", "-noise="}, []string{"-cpu-cap=9", "-noise=2"}},
		{"a name without its flag", []string{"NOISE"}, nil},
	} {
		if got := r.optional(c.pairs...); !slices.Equal(got, c.want) {
			t.Errorf("%s: optional(%q) = %q, want %q", c.name, c.pairs, got, c.want)
		}
	}
}
