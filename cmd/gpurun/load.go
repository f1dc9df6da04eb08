package main

import (
	"bytes"
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"
)

// cpuTimes are the host's CPU times, in clock ticks summed over its CPUs,
// from the "cpu" line of /proc/stat.
type cpuTimes struct {
	total, idle, iowait, steal uint64
}

// parseCPUTimes reads the first line of /proc/stat: "cpu" and eight times
// (user, nice, system, idle, iowait, irq, softirq, steal), then guest
// times, which the first two already count.
func parseCPUTimes(stat []byte) (cpuTimes, error) {
	line, _, _ := bytes.Cut(stat, []byte("\n"))
	f := strings.Fields(string(line))
	if len(f) < 9 || f[0] != "cpu" {
		return cpuTimes{}, fmt.Errorf("/proc/stat: first line %q is not the cpu line with at least 8 times", line)
	}
	var v [8]uint64
	var t cpuTimes
	for i := range v {
		n, err := strconv.ParseUint(f[i+1], 10, 64)
		if err != nil {
			return cpuTimes{}, fmt.Errorf("/proc/stat: cpu time %d: %w", i+1, err)
		}
		v[i], t.total = n, t.total+n
	}
	t.idle, t.iowait, t.steal = v[3], v[4], v[7]
	return t, nil
}

// loadLine describes the host's CPU use between two readings, in percent
// of every CPU's time: busy (neither idle nor iowait), iowait and steal.
func loadLine(secs int, a, b cpuTimes) string {
	if b.total <= a.total {
		return fmt.Sprintf("t=%ds no cpu ticks between the readings", secs)
	}
	d := float64(b.total - a.total)
	pct := func(x uint64) float64 { return 100 * float64(x) / d }
	busy := (b.total - a.total) - (b.idle - a.idle) - (b.iowait - a.iowait)
	return fmt.Sprintf("t=%ds busy=%.0f%% iowait=%.0f%% steal=%.0f%%", secs, pct(busy), pct(b.iowait-a.iowait), pct(b.steal-a.steal))
}

// sampleLoad writes OUTDIR/name.log, a loadLine every period until stop
// is closed, or why /proc/stat cannot be read; it closes done on return.
func (r *runner) sampleLoad(name string, period time.Duration, stop <-chan struct{}, done chan<- struct{}) {
	defer close(done)
	f, err := os.Create(r.outPath(name + ".log"))
	if err != nil {
		return
	}
	defer f.Close()
	fmt.Fprintf(f, "%s\n# command: the host's CPU use read from /proc/stat every %v by gpurun (percent of all CPUs' time)\n", r.header(), period)
	start, tick := time.Now(), time.NewTicker(period)
	defer tick.Stop()
	var prev cpuTimes
	for n := 0; ; n++ {
		b, err := os.ReadFile("/proc/stat")
		var cur cpuTimes
		if err == nil {
			cur, err = parseCPUTimes(b)
		}
		if err != nil {
			fmt.Fprintln(f, "no reading:", err)
			return
		}
		if n > 0 {
			fmt.Fprintln(f, loadLine(int(time.Since(start).Seconds()), prev, cur))
		}
		prev = cur
		select {
		case <-stop:
			return
		case <-tick.C:
		}
	}
}
