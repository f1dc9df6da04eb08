package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/convbench/convbench/convolve"
	"github.com/convbench/convbench/tables"
	"github.com/convbench/convbench/tables/tuning"
)

// The tests run the command over stand-ins: the test binary is its own
// child (TestMain), with a stand-in GPU when standInEnv is set and
// stand-in variants whose settings crash, die or hang their process.

// standInEnv, set, makes the test binary use the stand-in GPU.
const standInEnv = "TUNE_TEST_STAND_IN"

// planLogEnv names a file each stand-in plan appends "<pid> <setting>"
// to, when set.
const planLogEnv = "TUNE_TEST_PLAN_LOG"

func TestMain(m *testing.M) {
	if os.Getenv(standInEnv) != "" {
		openGPU = standInGPU
	}
	if os.Getenv(childEnvVar) != "" {
		os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
	}
	os.Exit(m.Run())
}

// standInGPU is a GPU that compiles nothing; its warm hangs for variant
// stand-in-stuck, as a child whose start never ends.
func standInGPU() (gpuHost, error) {
	return gpuHost{
		info: deviceInfo{Name: "Stand-in GPU", Driver: "1.0", NVRTC: "2.0", Limits: convolve.DeviceLimits{Name: "Stand-in GPU"}},
		warm: func(v convolve.Variant, ps []convolve.Problem, _ []convolve.Config, progress func(done, total int)) {
			if v.Describe().Name == "stand-in-stuck" {
				time.Sleep(time.Hour)
			}
			for i := range ps {
				progress(i+1, len(ps))
			}
		},
	}, nil
}

// faultyVariant is a stand-in for a tunable GPU variant over tunable a
// (1 to 6, default 1): it computes with cpu-naive and takes a made-up
// kernel time, least at a=4. When faulty, a=2 fails with a sticky CUDA
// error, after which every plan in the process fails with it, as in a
// poisoned context; a=3 kills its process as a segmentation fault does;
// a=5 never returns.
type faultyVariant struct {
	name   string
	faulty bool
}

func init() {
	for _, v := range []faultyVariant{{"stand-in-faulty", true}, {"stand-in-good", false}, {"stand-in-stuck", false}} {
		convolve.Register(v)
	}
}

func (v faultyVariant) Describe() convolve.Description {
	return convolve.Description{Name: v.name, Caps: convolve.Capabilities{
		Ops: []convolve.Operation{convolve.Filter2D}, Types: []convolve.ElemType{convolve.Float32},
		Borders: []convolve.Border{convolve.Zero}, GPU: true, Tunables: []string{"a"},
		Space: &convolve.TuningSpace{
			Tunables: []convolve.Tunable{{Name: "a", Values: []int{1, 2, 3, 4, 5, 6}}},
			Default: func(convolve.Problem, convolve.Block, convolve.DeviceLimits) convolve.Setting {
				return convolve.Setting{Tunables: map[string]int{"a": 1}}
			},
		},
	}}
}

// poisoned is set by a sticky error: the process's plans fail after it.
var poisoned atomic.Bool

const stickyMessage = "cuLaunchKernel: CUDA_ERROR_ILLEGAL_ADDRESS (an illegal memory access was encountered)"

func (v faultyVariant) Plan(p convolve.Problem, cfg convolve.Config) (convolve.Plan, error) {
	a := cfg.Tunables["a"]
	if path := os.Getenv(planLogEnv); path != "" {
		f, err := os.OpenFile(path, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
		if err != nil {
			return nil, err
		}
		fmt.Fprintf(f, "%d %s a=%d\n", os.Getpid(), v.name, a)
		f.Close()
	}
	if poisoned.Load() {
		return nil, errors.New("cuModuleLoadData: " + stickyMessage)
	}
	naive, err := convolve.Lookup("cpu-naive")
	if err != nil {
		return nil, err
	}
	inner, err := naive.Plan(p, convolve.Config{})
	if err != nil {
		return nil, err
	}
	return &faultyPlan{Plan: inner, prob: p, a: a, faulty: v.faulty, ns: 100 + 50*float64((a-4)*(a-4))}, nil
}

// faultyPlan is a DevicePlan: Upload keeps the input, the timing methods
// run cpu-naive on it and report the made-up time.
type faultyPlan struct {
	convolve.Plan
	prob   convolve.Problem
	in     *convolve.Image
	a      int
	faulty bool
	ns     float64
}

func (p *faultyPlan) Run(in, out *convolve.Image) error {
	if p.faulty {
		switch p.a {
		case 2:
			poisoned.Store(true)
			return errors.New(stickyMessage)
		case 3:
			fmt.Fprintln(os.Stderr, "SIGSEGV: segmentation violation")
			os.Exit(2)
		case 5:
			time.Sleep(time.Hour)
		}
	}
	return p.Plan.Run(in, out)
}

func (p *faultyPlan) Upload(in *convolve.Image) error {
	p.in = in.Clone()
	return nil
}

func (p *faultyPlan) Download(*convolve.Image) error { return errors.New("stand-in: no download") }

func (p *faultyPlan) TimeKernel(n int) (time.Duration, error) {
	out, err := p.prob.NewOutput()
	if err != nil {
		return 0, err
	}
	if err := p.Run(p.in, out); err != nil {
		return 0, err
	}
	return time.Duration(float64(n) * p.ns), nil
}

func (p *faultyPlan) TimeKernelGraph(n int) (time.Duration, error) { return p.TimeKernel(n) }

// The command tunes each class in children: in stand-in-faulty a sticky
// error, a dead process and a hang each end a child, are recorded with
// their errors and reproduce commands, and the class goes on in a new
// child without them, running no setting twice; stand-in-stuck, whose
// child hangs before its first candidate, fails alone; stand-in-good,
// after both, is tuned as usual in children of its own. The table holds
// the two tuned classes' verified, timed choices.
func TestIsolation(t *testing.T) {
	t.Setenv(standInEnv, "1")
	planLog := filepath.Join(t.TempDir(), "plans.log")
	t.Setenv(planLogEnv, planLog)
	out := t.TempDir()
	var stdout, stderr strings.Builder
	start := time.Now()
	code := run([]string{"-variants", "stand-in-faulty,stand-in-stuck,stand-in-good", "-k", "3", "-sizes", "small",
		"-verify", "1", "-samples", "1", "-case-timeout", "2s", "-out", out, "-commit", "test"}, strings.NewReader(""), &stdout, &stderr)
	took := time.Since(start)
	t.Logf("stdout:\n%s\nstderr:\n%s", stdout.String(), stderr.String())
	if took > 30*time.Second {
		t.Errorf("the run took %v: it waited for a hung child", took)
	}
	if code != 1 {
		t.Errorf("exit %d, want 1", code)
	}
	repro := "go run ./tune/cmd/tune -variants stand-in-faulty -types f32 -k 3 -sizes small -verify 1 -samples 1 -seed 1 -setting a="
	for _, want := range []string{
		"stand-in-faulty f32 k=3 small: chose a=4,",
		"6 of 6 tried (exhaustive), 0 wrong, 0 refused, 2 crashed, 1 hung",
		"stand-in-stuck f32 k=3 small: hang: the child process went 2s (-case-timeout) without a sign of progress, no candidate under way (compiling the kernels of the next candidates, 14 plans): killed it\n",
		"# hang of stand-in-stuck f32 k=3 small: the child process went 2s (-case-timeout) without a sign of progress, no candidate under way (compiling the kernels of the next candidates, 14 plans): killed it; reproduce alone: go run ./tune/cmd/tune -variants stand-in-stuck -types f32 -k 3 -sizes small -budget 24 -verify 1 -samples 1 -seed 1\n",
		"stand-in-good f32 k=3 small: chose a=4,",
		"# crash of stand-in-faulty f32 k=3 small, setting a=2: sticky CUDA error, the device cannot be used again in the process: run ",
		stickyMessage + "; reproduce alone: " + repro + "2\n",
		"# crash of stand-in-faulty f32 k=3 small, setting a=3: its process died (exit status 2: SIGSEGV: segmentation violation); reproduce alone: " + repro + "3\n",
		"# hang of stand-in-faulty f32 k=3 small, setting a=5: still running after 2s (-case-timeout): killed its process; reproduce alone: " + repro + "5\n",
		"# wrote 2 entries into ",
	} {
		if !strings.Contains(stdout.String(), want) {
			t.Errorf("stdout lacks %q", want)
		}
	}
	for _, want := range []string{
		"tune: stand-in-faulty f32 k=3 small: going on in a new process without it\n",
		"tune: 3 candidates and 1 class crashed or hung a process;",
	} {
		if !strings.Contains(stderr.String(), want) {
			t.Errorf("stderr lacks %q", want)
		}
	}

	b, err := os.ReadFile(tables.Path(out, "Stand-in GPU"))
	if err != nil {
		t.Fatal(err)
	}
	tab, err := tuning.Parse(b)
	if err != nil {
		t.Fatal(err)
	}
	var keys []string
	for _, e := range tab.Entries {
		keys = append(keys, e.Key())
		if e.Chosen.Status != tuning.OK || e.Chosen.MedianNS <= 0 || e.Chosen.Tunables["a"] != 4 {
			t.Errorf("%s: chose %+v, want a=4, verified and timed", e.Key(), e.Chosen)
		}
		if e.Driver != "1.0" || e.NVRTC != "2.0" || e.Commit != "test" {
			t.Errorf("%s: driver %q, NVRTC %q, commit %q", e.Key(), e.Driver, e.NVRTC, e.Commit)
		}
		want := map[int]string{1: tuning.OK, 2: tuning.OK, 3: tuning.OK, 4: tuning.OK, 5: tuning.OK, 6: tuning.OK}
		if e.Variant == "stand-in-faulty" {
			want[2], want[3], want[5] = tuning.Crash, tuning.Crash, tuning.Hang
		}
		got := map[int]string{}
		for _, c := range e.Candidates {
			got[c.Tunables["a"]] = c.Status
			if c.Status != tuning.OK && c.Error == "" {
				t.Errorf("%s: candidate %+v has no error", e.Key(), c)
			}
		}
		if len(e.Candidates) != 6 || fmt.Sprint(got) != fmt.Sprint(want) {
			t.Errorf("%s: candidates %+v, want statuses %v", e.Key(), e.Candidates, want)
		}
	}
	if want := []string{"stand-in-faulty f32 k=3 small", "stand-in-good f32 k=3 small"}; !slices.Equal(keys, want) {
		t.Errorf("entries %q, want %q", keys, want)
	}

	// No setting ran in two processes: each child took the candidates
	// before it as they were.
	logged, err := os.ReadFile(planLog)
	if err != nil {
		t.Fatal(err)
	}
	pids := map[string]map[string]bool{}  // variant and setting -> processes
	procs := map[string]map[string]bool{} // variant -> processes
	for _, l := range strings.Split(strings.TrimSpace(string(logged)), "\n") {
		pid, what, _ := strings.Cut(l, " ")
		v, _, _ := strings.Cut(what, " ")
		if pids[what] == nil {
			pids[what] = map[string]bool{}
		}
		if procs[v] == nil {
			procs[v] = map[string]bool{}
		}
		pids[what][pid], procs[v][pid] = true, true
	}
	for what, ps := range pids {
		if len(ps) != 1 {
			t.Errorf("%s planned in %d processes, want 1", what, len(ps))
		}
	}
	if n := len(procs["stand-in-faulty"]); n != 4 {
		t.Errorf("stand-in-faulty planned in %d processes, want 4 (a new one after each of 3 faults)", n)
	}
	if n := len(procs["stand-in-good"]); n != 1 {
		t.Errorf("stand-in-good planned in %d processes, want 1", n)
	}
}

// A search restarted from the candidates a child tried before it died
// goes on from there: the child reads them on its stdin and tries none
// of them again.
func TestChildResume(t *testing.T) {
	t.Setenv(standInEnv, "1")
	planLog := filepath.Join(t.TempDir(), "plans.log")
	t.Setenv(planLogEnv, planLog)
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	var stderr strings.Builder
	r := &childRunner{bin: exe, name: "tune", common: []string{"-budget", "24", "-verify", "1", "-samples", "1", "-seed", "1"}, limit: time.Minute, stderr: &stderr}
	_, jobs, err := parse([]string{"-variants", "stand-in-good", "-k", "3", "-sizes", "small"}, &stderr)
	if err != nil {
		t.Fatal(err)
	}
	before := []tuning.Candidate{
		{Tunables: map[string]int{"a": 1}, Status: tuning.OK, MedianNS: 999},
		{Tunables: map[string]int{"a": 2}, Status: tuning.Crash, Error: "sticky"},
		{Tunables: map[string]int{"a": 3}, Status: tuning.Hang, Error: "still running"},
	}
	input, _ := json.Marshal(childInput{Resume: before})
	a := r.runChild(childJob, jobs[0], input)
	if a.end == nil || a.end.Entry == nil || a.end.Error != "" {
		t.Fatalf("the child did not end its search: %+v; stderr:\n%s", a, stderr.String())
	}
	e := a.end.Entry
	var got []string
	for _, c := range e.Candidates {
		got = append(got, fmt.Sprintf("a=%d %s", c.Tunables["a"], c.Status))
	}
	if want := []string{"a=1 ok", "a=2 crash", "a=3 hang", "a=4 ok", "a=5 ok", "a=6 ok"}; !slices.Equal(got, want) {
		t.Errorf("candidates %q, want %q", got, want)
	}
	if e.Default.MedianNS != 999 || e.Chosen.Tunables["a"] != 4 {
		t.Errorf("default %+v, chosen %+v: want the resumed default and a=4", e.Default, e.Chosen)
	}
	if len(a.tried) != 3 {
		t.Errorf("the child reported %d candidates tried, want the 3 new ones", len(a.tried))
	}
	logged, _ := os.ReadFile(planLog)
	for _, old := range []string{" a=1\n", " a=2\n", " a=3\n"} {
		if strings.Contains(string(logged), old) {
			t.Errorf("the child planned resumed setting%s", strings.TrimSuffix(old, "\n"))
		}
	}
}

// -setting tries one setting in the command's own process and writes no
// table: what a fault's reproduce command runs.
func TestSetting(t *testing.T) {
	openGPU = standInGPU
	t.Cleanup(func() { openGPU = openCUDA; poisoned.Store(false) })
	out := t.TempDir()
	for _, tt := range []struct {
		variant, setting string
		code             int
		want             string
	}{
		{"stand-in-good", "a=4", 0, "stand-in-good f32 k=3 small, setting a=4: ok, 0.1 us\n"},
		{"stand-in-good", "default", 0, "stand-in-good f32 k=3 small, setting default: ok, 0.9 us\n"},
		{"stand-in-faulty", "a=2", 1, "stand-in-faulty f32 k=3 small, setting a=2: refused: run "},
	} {
		var stdout, stderr strings.Builder
		code := run([]string{"-variants", tt.variant, "-k", "3", "-sizes", "small", "-verify", "1", "-samples", "1", "-setting", tt.setting, "-out", out},
			strings.NewReader(""), &stdout, &stderr)
		if code != tt.code || !strings.Contains(stdout.String(), tt.want) {
			t.Errorf("%s -setting %s: exit %d, stdout:\n%s\nstderr:\n%s\nwant exit %d and %q", tt.variant, tt.setting, code, stdout.String(), stderr.String(), tt.code, tt.want)
		}
	}
	if files, _ := filepath.Glob(filepath.Join(out, "*")); len(files) > 0 {
		t.Errorf("-setting wrote %v", files)
	}
}

func TestParseSetting(t *testing.T) {
	v := faultyVariant{name: "stand-in-good"}
	for _, tt := range []struct {
		in, want, err string
	}{
		{"a=4", "a=4", ""},
		{"default", "default", ""},
		{"block=32x8 a=2", "block=32x8 a=2", ""},
		{"a=2 block=32x8", "block=32x8 a=2", ""},
		{"", "", `-setting "": want "block=WxH"`},
		{"block=32x8 block=16x8", "", `-setting "block=32x8 block=16x8": block given twice`},
		{"block=33", "", `-setting "block=33": convolve: block "33"`},
		{"a=1 a=2", "", `-setting "a=1 a=2": tunables given twice`},
		{"rx=4", "", `-setting "rx=4": stand-in-good has no tunable "rx" (its tunables: a)`},
		{"a=x", "", `-setting "a=x": convolve: tunables "a=x"`},
	} {
		st, err := parseSetting(tt.in, v)
		switch {
		case tt.err != "" && (err == nil || !strings.HasPrefix(err.Error(), tt.err)):
			t.Errorf("parseSetting(%q) = %v, want error %q", tt.in, err, tt.err)
		case tt.err == "" && (err != nil || st.String() != tt.want):
			t.Errorf("parseSetting(%q) = %v, %v, want %s", tt.in, st, err, tt.want)
		}
	}
}

func TestRepro(t *testing.T) {
	_, jobs, err := parse([]string{"-variants", "stand-in-good", "-k", "5", "-sizes", "large"}, &strings.Builder{})
	if err != nil {
		t.Fatal(err)
	}
	r := &childRunner{name: ".gpu/tune", common: []string{"-budget", "24", "-verify", "3", "-samples", "7", "-seed", "1", "-v"}}
	for _, tt := range []struct{ setting, want string }{
		{"block=32x8 a=2", ".gpu/tune -variants stand-in-good -types f32 -k 5 -sizes large -verify 3 -samples 7 -seed 1 -setting 'block=32x8 a=2'"},
		{"", ".gpu/tune -variants stand-in-good -types f32 -k 5 -sizes large -budget 24 -verify 3 -samples 7 -seed 1"},
	} {
		if got := r.repro(jobs[0], tt.setting); got != tt.want {
			t.Errorf("repro(%q) = %s, want %s", tt.setting, got, tt.want)
		}
	}
}

// A child's stdout lines are events, each a sign of progress; a
// candidate whose error names a sticky CUDA error stops the child, other
// lines go to stderr.
func TestChildWatch(t *testing.T) {
	var stderr strings.Builder
	killed, progress := 0, 0
	w := &childWatch{stderr: &stderr, stop: func() { killed++ }, progress: func() { progress++ }}
	lines := []string{
		`{"device":{"name":"G","driver":"1","nvrtc":"2","limits":{"Name":"G","SMs":0,"SharedPerBlock":0,"MaxThreadsPerBlock":0,"ConstantBytes":0}}}`,
		`not an event`,
		`{"trying":{"tunables":{"a":1},"status":""}}`,
		`{"tried":{"tunables":{"a":1},"status":"refused","error":"cuLaunchKernel: CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES"}}`,
		`{"trying":{"tunables":{"a":2},"status":""}}`,
		`{"tried":{"tunables":{"a":2},"status":"refused","error":"run: cuStreamSynchronize: CUDA_ERROR_LAUNCH_FAILED (unspecified launch failure)"}}`,
		`{"tried":{"tunables":{"a":3},"status":"ok","median_ns":1}}`,
	}
	for _, l := range lines[:6] { // the child is stopped at the sixth
		w.line([]byte(l + "\n"))
	}
	if progress != 4 {
		t.Errorf("%d signs of progress, want the 4 events before the sticky error", progress)
	}
	if w.device == nil || w.device.Name != "G" {
		t.Errorf("device %+v", w.device)
	}
	if stderr.String() != "not an event\n" {
		t.Errorf("stderr %q, want the line that is no event", stderr.String())
	}
	if len(w.tried) != 1 || w.tried[0].Tunables["a"] != 1 {
		t.Errorf("tried %+v, want a=1 alone (not sticky)", w.tried)
	}
	if killed != 1 || w.fault.Kind != tuning.Crash || w.trying == nil || w.trying.Tunables["a"] != 2 || !strings.Contains(w.fault.Err, "CUDA_ERROR_LAUNCH_FAILED") {
		t.Errorf("killed %d, fault %+v, trying %+v: want a crash of a=2", killed, w.fault, w.trying)
	}
}
