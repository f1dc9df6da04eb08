package main

import (
	"slices"
	"testing"

	"github.com/convbench/convbench/benchmarks"
)

func TestShardCases(t *testing.T) {
	var cases []benchmarks.Case
	for _, w := range []int{16, 32, 48, 64, 80} {
		cases = append(cases, benchmarks.Case{Variant: "cpu-fast", Width: w, Height: 16, Filter: "gauss3", Channels: 1, Timing: benchmarks.CPUTiming})
	}
	for _, tt := range []struct {
		s       shard
		cases   int
		mine    []int // the places of the shard's cases
		wantErr string
	}{
		{shard{}, 5, []int{0, 1, 2, 3, 4}, ""},
		{shard{1, 2}, 5, []int{0, 2, 4}, ""},
		{shard{2, 2}, 5, []int{1, 3}, ""},
		{shard{3, 3}, 5, []int{2}, ""},
		{shard{4, 4}, 3, nil, "-shard 4/4 holds no case: the sweep has 3, fewer than 4 shards"},
	} {
		mine, others, err := shardCases(tt.s, cases[:tt.cases])
		if tt.wantErr != "" {
			if err == nil || err.Error() != tt.wantErr {
				t.Errorf("shardCases(%v, %d cases) error = %v, want %q", tt.s, tt.cases, err, tt.wantErr)
			}
			continue
		}
		if err != nil {
			t.Errorf("shardCases(%v, %d cases): %v", tt.s, tt.cases, err)
			continue
		}
		if others == nil {
			t.Errorf("shardCases(%v, %d cases) gives nil for the others' cases, want a map runCases can add to", tt.s, tt.cases)
		}
		var got []int
		for _, c := range mine {
			got = append(got, slices.IndexFunc(cases, func(o benchmarks.Case) bool { return o.Name() == c.Name() }))
		}
		if !slices.Equal(got, tt.mine) {
			t.Errorf("shardCases(%v, %d cases) holds the cases at %v, want %v", tt.s, tt.cases, got, tt.mine)
		}
		for i, c := range cases[:tt.cases] {
			if others[c.Name()] == slices.Contains(tt.mine, i) {
				t.Errorf("shardCases(%v, %d cases): case %d among the others is %v", tt.s, tt.cases, i, others[c.Name()])
			}
		}
	}
}
