package main

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"runtime"
	"sync"
	"time"

	"github.com/convbench/convbench/convolve"
	"github.com/convbench/convbench/cudabind"
	"github.com/convbench/convbench/gpu/variants"
	"github.com/convbench/convbench/tables/tuning"
	"github.com/convbench/convbench/tune"
)

// The child side of the command: a child runs with childEnvVar set to
// its mode and the flags of one job (jobArgs), and writes one JSON
// childEvent a line on its stdout, which the command watches (isolate.go).

const (
	childEnvVar = "CONVBENCH_TUNE_CHILD" // makes the command a child; its value is the mode
	exitSticky  = 3                      // exit status at a candidate's sticky CUDA error

	childDevice = "device" // mode: report the GPU and exit
	childJob    = "job"    // mode: read a childInput on stdin and tune the one job
)

// childInput is what the command gives a child tuning a job on its stdin.
type childInput struct {
	Time   time.Duration      `json:"time,omitempty"`   // tune.Options.Time
	Seeds  []convolve.Setting `json:"seeds,omitempty"`  // tune.Options.Seeds
	Resume []tuning.Candidate `json:"resume,omitempty"` // tune.Options.Resume
}

// childEvent is one line of a child's stdout: one field is set.
type childEvent struct {
	Device    *deviceInfo       `json:"device,omitempty"`    // the GPU, the first line
	Compiling int               `json:"compiling,omitempty"` // plans about to be compiled ahead (tune.Options.Warm)
	Compiled  int               `json:"compiled,omitempty"`  // of those, the ones done so far
	Trying    *tuning.Candidate `json:"trying,omitempty"`    // the setting about to be tried, without a status
	Tried     *tuning.Candidate `json:"tried,omitempty"`     // a candidate tried, with its status
	End       *childEnd         `json:"end,omitempty"`       // the search's end, the last line
}

// childEnd is how a child's search ended: its entry (when it tried a
// candidate at least) and tune.Tune's error.
type childEnd struct {
	Entry *tuning.Entry `json:"entry,omitempty"`
	Error string        `json:"error,omitempty"`
}

// deviceInfo describes the GPU the jobs run on.
type deviceInfo struct {
	Name   string                `json:"name"`
	Driver string                `json:"driver"`
	NVRTC  string                `json:"nvrtc"`
	Limits convolve.DeviceLimits `json:"limits"`
}

// gpuHost is what a child, or a run with -setting, uses of this host's
// GPU: its description and warm, which compiles the kernels of v's plans
// of the problems under the configurations, calling progress after each.
type gpuHost struct {
	info deviceInfo
	warm func(v convolve.Variant, ps []convolve.Problem, cfgs []convolve.Config, progress func(done, total int))
}

// openGPU opens this host's GPU; the tests put a stand-in in its place.
var openGPU = openCUDA

// openCUDA opens device 0; kernels are compiled ahead on all cores.
func openCUDA() (gpuHost, error) {
	dev, err := cudabind.Default()
	if err != nil {
		return gpuHost{}, err
	}
	info := dev.Info()
	return gpuHost{
		info: deviceInfo{Name: info.Name, Driver: info.Driver(), NVRTC: info.NVRTC(), Limits: variants.Limits(info)},
		warm: func(v convolve.Variant, ps []convolve.Problem, cfgs []convolve.Config, progress func(done, total int)) {
			specs := make([]variants.WarmSpec, len(ps))
			for i := range ps {
				specs[i] = variants.WarmSpec{Variant: v, Problem: ps[i], Config: cfgs[i]}
			}
			variants.Warm(specs, runtime.NumCPU(), progress)
		},
	}, nil
}

// tuneOptions are the options of tune.Tune and tune.Try that the flags
// set, for a GPU of limits lim.
func tuneOptions(o options, lim convolve.DeviceLimits, stderr io.Writer) tune.Options {
	opts := tune.Options{Budget: o.budget, Seed: o.seed, Verify: o.verify, Samples: o.samples, Limits: lim}
	if o.verbose {
		opts.Log = func(format string, args ...any) { fmt.Fprintf(stderr, format+"\n", args...) }
	}
	return opts
}

// runChild is the command as a child in mode: it opens the GPU and
// reports it and, in mode childJob, tunes its one job, reporting its
// progress as events. It exits with exitSticky right after reporting a
// candidate whose error names a sticky CUDA error.
func runChild(mode string, o options, jobs []job, stdin io.Reader, stdout, stderr io.Writer) int {
	if mode != childDevice && mode != childJob {
		fmt.Fprintf(stderr, "tune: %s=%q: want %s or %s\n", childEnvVar, mode, childDevice, childJob)
		return 2
	}
	var in childInput
	if mode == childJob {
		if len(jobs) != 1 {
			fmt.Fprintf(stderr, "tune: a child tunes one job, its flags select %d\n", len(jobs))
			return 2
		}
		if err := json.NewDecoder(stdin).Decode(&in); err != nil {
			fmt.Fprintln(stderr, "tune: child input:", err)
			return 2
		}
	}
	g, err := openGPU()
	if err != nil {
		fmt.Fprintln(stderr, "tune: needs a GPU:", err)
		return 1
	}
	var mu sync.Mutex
	write := func(ev childEvent) { // one whole JSON line each
		b, err := json.Marshal(ev)
		if err != nil {
			panic(err) // the events hold nothing json cannot write
		}
		mu.Lock()
		defer mu.Unlock()
		stdout.Write(append(b, '\n'))
	}
	write(childEvent{Device: &g.info})
	if mode == childDevice {
		return 0
	}
	opts := tuneOptions(o, g.info.Limits, stderr)
	opts.Time, opts.Seeds, opts.Resume = in.Time, in.Seeds, in.Resume
	opts.Warm = func(v convolve.Variant, ps []convolve.Problem, cfgs []convolve.Config) {
		write(childEvent{Compiling: len(ps)})
		g.warm(v, ps, cfgs, func(done, _ int) { write(childEvent{Compiled: done}) })
	}
	opts.Trying = func(pt convolve.Setting) {
		c := tuning.CandidateOf(pt)
		write(childEvent{Trying: &c})
	}
	opts.Tried = func(c tuning.Candidate) {
		write(childEvent{Tried: &c})
		if cudabind.MentionsSticky(c.Error) {
			os.Exit(exitSticky) // the device is unusable in this process
		}
	}
	e, err := tune.Tune(jobs[0].v, jobs[0].class, opts)
	end := &childEnd{}
	if len(e.Candidates) > 0 {
		end.Entry = &e
	}
	if err != nil {
		end.Error = err.Error()
	}
	write(childEvent{End: end})
	return 0
}
