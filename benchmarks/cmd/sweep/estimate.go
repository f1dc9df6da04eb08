package main

import (
	"errors"
	"fmt"
	"io"
	"runtime"
	"time"

	"github.com/convbench/convbench/benchmarks"
	"github.com/convbench/convbench/convolve"
)

// estimate estimates the sweep's cases: the CPU cases by probes in this
// process (benchmarks.Runner.Probe), the GPU cases at a nominal rate.
func estimate(cases []benchmarks.Case, noise benchmarks.Noise, count int, stderr io.Writer) benchmarks.SweepEstimate {
	shapes := map[string]bool{}
	for _, c := range cases {
		if !c.GPU {
			shapes[benchmarks.ProbeCase(c).Name()] = true
		}
	}
	if len(shapes) > 0 {
		fmt.Fprintf(stderr, "sweep: probing %d CPU case shapes (one run each, at most %d pixels) for an estimate\n", len(shapes), benchmarks.ProbePixels)
	}
	r := &benchmarks.Runner{CPUThreads: runtime.NumCPU(), Seed: 42}
	probe := func(c benchmarks.Case) (time.Duration, error) { return r.Probe(c, 200*time.Millisecond) }
	return benchmarks.EstimateSweep(cases, noise, count, probe)
}

// maxOverrunLines bounds the overrunning cases printEstimate names.
const maxOverrunLines = 8

// printEstimate writes the case count, the estimated duration of the
// sweep and the cases that will overrun -max-time.
func printEstimate(w io.Writer, name string, e benchmarks.SweepEstimate) {
	low, exp, _ := e.Total()
	gpu, phased := 0, 0
	for _, c := range e.Cases {
		if !c.Probed {
			gpu++
		}
		if c.LowPhase > 0 || c.HighPhase > 0 {
			phased++
		}
	}
	basis := "CPU cases probed, one run each scaled by pixels"
	if gpu > 0 {
		basis += fmt.Sprintf("; %d GPU cases at a nominal rate", gpu)
	}
	if phased > 0 {
		m := benchmarks.NominalEnergyMeter
		basis += fmt.Sprintf("; the lines of %d of them that span under %v add an energy phase of about %v, as on a GPU whose energy counter updates every %v", phased, m.MinSpan, round(m.PhaseEstimate(0, time.Microsecond)), m.Period)
	}
	line := fmt.Sprintf("sweep %s: %d cases, %d lines each; estimated duration about %v with -max-time %v ending the lines, down to %v where they meet -noise %g%% at once (an estimate: %s)",
		name, len(e.Cases), e.Count, round(exp), e.Noise.MaxTime, round(low), e.Noise.Target, basis)
	printWrapped(w, line)
	over := e.Overruns()
	if len(over) > 0 {
		fmt.Fprintf(w, "sweep: %d cases will overrun -max-time %v: a line takes at least %d samples\n", len(over), e.Noise.MaxTime, benchmarks.MinCISamples)
	}
	for i, c := range over {
		if i == maxOverrunLines {
			fmt.Fprintf(w, "  and %d more\n", len(over)-maxOverrunLines)
			break
		}
		fmt.Fprintf(w, "  %s: one sample ~%v, %d samples minimum = %v > -max-time %v\n",
			shortName(c.Case), round(c.Least/benchmarks.MinCISamples), benchmarks.MinCISamples, round(c.Least), e.Noise.MaxTime)
	}
	for _, c := range e.Cases {
		switch ce := new(convolve.CapabilityError); {
		case errors.As(c.Err, &ce):
			fmt.Fprintf(w, "sweep: %s refuses %s as unsupported, the run will skip it: %v\n", c.Case.Variant, shortName(c.Case), c.Err)
		case c.Err != nil:
			fmt.Fprintf(w, "sweep: the probe of %s failed, the run will fail it too: %v\n", shortName(c.Case), c.Err)
		}
	}
}

// shortName names a case by its variant, size, filter and type.
func shortName(c benchmarks.Case) string {
	return fmt.Sprintf("%s %dx%d %s %v", c.Variant, c.Width, c.Height, c.Filter, c.Type)
}

// round rounds a duration for a person: to the second from a minute up,
// to the millisecond under a second, to a tenth of a second between.
func round(d time.Duration) time.Duration {
	switch {
	case d >= time.Minute:
		return d.Round(time.Second)
	case d >= time.Second:
		return d.Round(100 * time.Millisecond)
	}
	return d.Round(time.Millisecond)
}
