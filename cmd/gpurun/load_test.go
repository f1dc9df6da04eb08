package main

import (
	"strings"
	"testing"
)

func TestParseCPUTimes(t *testing.T) {
	for _, tc := range []struct {
		name, stat string
		want       cpuTimes
		err        string
	}{
		{"with guest times", "cpu  100 5 50 800 20 3 2 20 7 0\ncpu0 1 2 3 4 5 6 7 8 9 10\n", cpuTimes{total: 1000, idle: 800, iowait: 20, steal: 20}, ""},
		{"eight times", "cpu 1 1 1 1 1 1 1 1\n", cpuTimes{total: 8, idle: 1, iowait: 1, steal: 1}, ""},
		{"per-cpu line first", "cpu0 1 2 3 4 5 6 7 8\n", cpuTimes{}, "not the cpu line"},
		{"too few times", "cpu 1 2 3\n", cpuTimes{}, "not the cpu line"},
		{"not a number", "cpu 1 2 x 4 5 6 7 8\n", cpuTimes{}, "cpu time 3"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := parseCPUTimes([]byte(tc.stat))
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("err = %v, want one containing %q", err, tc.err)
				}
				return
			}
			if err != nil || got != tc.want {
				t.Fatalf("= %+v, %v; want %+v", got, err, tc.want)
			}
		})
	}
}

func TestLoadLine(t *testing.T) {
	a := cpuTimes{total: 1000, idle: 500, iowait: 100, steal: 0}
	for _, tc := range []struct {
		b    cpuTimes
		want string
	}{
		{cpuTimes{total: 2000, idle: 700, iowait: 200, steal: 50}, "t=10s busy=70% iowait=10% steal=5%"},
		{cpuTimes{total: 2000, idle: 1500, iowait: 100}, "t=10s busy=0% iowait=0% steal=0%"},
		{a, "t=10s no cpu ticks between the readings"},
	} {
		if got := loadLine(10, a, tc.b); got != tc.want {
			t.Errorf("loadLine(%+v) = %q, want %q", tc.b, got, tc.want)
		}
	}
}
