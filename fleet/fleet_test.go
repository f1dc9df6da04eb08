package fleet

import (
	"errors"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
)

func TestTargetsList(t *testing.T) {
	tests := []struct {
		name    string
		in      Targets
		want    []Target
		wantErr string
	}{
		{"partitions ask for a GPU", Targets{Partitions: []string{"h100", "l40s"}},
			[]Target{{Partition: "h100", Gres: "gpu:1"}, {Partition: "l40s", Gres: "gpu:1"}}, ""},
		{"gpu types in a partition", Targets{GPUTypes: []string{"a100"}, Partition: "mixed"},
			[]Target{{Partition: "mixed", GPUType: "a100", Gres: "gpu:a100:1"}}, ""},
		{"nodes without GRES", Targets{Nodes: []string{"n1"}, Gres: "none"},
			[]Target{{Node: "n1"}}, ""},
		{"cpu asks for nothing", Targets{Nodes: []string{"n1"}, Partitions: []string{"cpu"}, CPU: true},
			[]Target{{Partition: "cpu"}, {Node: "n1"}}, ""},
		{"none", Targets{}, nil, "no targets"},
		{"gpu types without GPUs", Targets{GPUTypes: []string{"a100"}, CPU: true}, nil, "GPU types a100 given for a run without GPUs"},
		{"bad name", Targets{Partitions: []string{"a b"}}, nil, `partition name "a b": character ' ' not allowed`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := tt.in.List()
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("error %v, want one with %q", err, tt.wantErr)
				}
				return
			}
			if err != nil || !reflect.DeepEqual(got, tt.want) {
				t.Fatalf("got %+v, %v; want %+v", got, err, tt.want)
			}
		})
	}
}

func TestTargetSbatchArgs(t *testing.T) {
	tests := []struct {
		in   Target
		want string
		str  string
	}{
		{Target{Partition: "p", Gres: "gpu:1"}, "--partition=p --gres=gpu:1", "partition=p"},
		{Target{Node: "n1"}, "--nodelist=n1", "node=n1"},
		{Target{Partition: "p", GPUType: "a100", Gres: "gpu:a100:1"}, "--partition=p --gres=gpu:a100:1", "gpu=a100 partition=p"},
		{Target{}, "", "default partition"},
	}
	for _, tt := range tests {
		if got := strings.Join(tt.in.sbatchArgs(), " "); got != tt.want {
			t.Errorf("%+v: sbatch args %q, want %q", tt.in, got, tt.want)
		}
		if got := tt.in.String(); got != tt.str {
			t.Errorf("%+v: String %q, want %q", tt.in, got, tt.str)
		}
	}
}

func TestSplitList(t *testing.T) {
	tests := []struct {
		in   string
		want []string
	}{
		{"", nil},
		{"a,b", []string{"a", "b"}},
		{" a , ,b ", []string{"a", "b"}},
		{"n[1,3-4],m2", []string{"n[1,3-4]", "m2"}},
	}
	for _, tt := range tests {
		if got := SplitList(tt.in); !reflect.DeepEqual(got, tt.want) {
			t.Errorf("SplitList(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestParseSqueue(t *testing.T) {
	out := "12|0|RUNNING|n1|None\n13|N/A|CANCELLED||JobHeldUser\n14|3|PENDING||Resources\n"
	got, err := parseSqueue(out)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		job   string
		index int
		want  slurmTask
		ok    bool
	}{
		{"12", 0, slurmTask{State: "RUNNING", Node: "n1"}, true},
		{"13", 5, slurmTask{State: "CANCELLED", Reason: "JobHeldUser"}, true}, // the array's record
		{"14", 3, slurmTask{State: "PENDING", Reason: "Resources"}, true},
		{"14", 4, slurmTask{}, false},
	}
	for _, tt := range tests {
		if st, ok := lookup(got, tt.job, tt.index); st != tt.want || ok != tt.ok {
			t.Errorf("task %s_%d: %+v, %v; want %+v, %v", tt.job, tt.index, st, ok, tt.want, tt.ok)
		}
	}
	if _, err := parseSqueue("12|0|RUNNING\n"); err == nil || !strings.Contains(err.Error(), `"12|0|RUNNING"`) {
		t.Errorf("short line: error %v, want one naming the line", err)
	}
}

func TestParseSacct(t *testing.T) {
	got, err := parseSacct("7_1|CANCELLED by 0|0:15|n2\n7_0|COMPLETED|0:0|n1\n")
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]slurmTask{
		"7_1": {State: "CANCELLED", Exit: "signal 15", Node: "n2"},
		"7_0": {State: "COMPLETED", Exit: "0", Node: "n1"},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got %+v, want %+v", got, want)
	}
}

func TestParseScontrol(t *testing.T) {
	line := "JobId=3 ArrayJobId=3 ArrayTaskId=1 JobState=FAILED Reason=NonZeroExitCode ExitCode=42:0 NodeList=n2 BatchHost=n2"
	want := slurmTask{State: "FAILED", Node: "n2", Exit: "42", Reason: "NonZeroExitCode"}
	if got := parseScontrol(line); got != want {
		t.Errorf("got %+v, want %+v", got, want)
	}
}

func TestClassify(t *testing.T) {
	tests := map[string]State{
		"PENDING": Pending, "REQUEUED": Pending, "RUNNING": Running, "COMPLETING": Running,
		"COMPLETED": Done, "FAILED": Failed, "CANCELLED": Failed, "TIMEOUT": Failed,
		"NODE_FAIL": Failed, "OUT_OF_MEMORY": Failed,
	}
	for in, want := range tests {
		if got := classify(in); got != want {
			t.Errorf("classify(%s) = %s, want %s", in, got, want)
		}
	}
}

func TestSbatchJobID(t *testing.T) {
	tests := []struct {
		out, want string
		ok        bool
	}{
		{"123\n", "123", true},
		{"123;cluster\n", "123", true},
		{"Submitted batch job 123", "", false},
	}
	for _, tt := range tests {
		got, err := sbatchJobID(tt.out)
		if got != tt.want || (err == nil) != tt.ok {
			t.Errorf("sbatchJobID(%q) = %q, %v; want %q, ok %v", tt.out, got, err, tt.want, tt.ok)
		}
	}
}

func write(t *testing.T, path, data string) string {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestCheckClashes(t *testing.T) {
	dir := t.TempDir()
	a := write(t, filepath.Join(dir, "tasks/0/data/gpu-a/default.txt"), "run a\n")
	b := write(t, filepath.Join(dir, "tasks/1/data/gpu-a/default.txt"), "run b\n")
	c := write(t, filepath.Join(dir, "tasks/2/data/gpu-c/default.txt"), "run c\n")
	write(t, filepath.Join(dir, "data/gpu-c/default.txt"), "run c\n")
	other := write(t, filepath.Join(dir, "data/gpu-d/default.txt"), "older run\n")
	d := write(t, filepath.Join(dir, "tasks/3/data/gpu-d/default.txt"), "run d\n")
	dst := func(src string) string {
		return filepath.Join(dir, "data", filepath.Base(filepath.Dir(src)), "default.txt")
	}
	tests := []struct {
		name    string
		plan    []string
		todo    int
		clashes []Clash
	}{
		{"new file", []string{a}, 1, nil},
		{"the same bytes already there", []string{c}, 0, nil},
		{"two tasks, one place", []string{a, b}, 0, []Clash{{Src: b, Dst: a}}},
		{"other bytes already there", []string{d}, 0, []Clash{{Src: d, Dst: other}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var plan []Clash
			for _, src := range tt.plan {
				plan = append(plan, Clash{Src: src, Dst: dst(src)})
			}
			todo, err := checkClashes(plan)
			var ce *ClashError
			if tt.clashes == nil {
				if err != nil || len(todo) != tt.todo {
					t.Fatalf("got %d to copy, %v; want %d, no error", len(todo), err, tt.todo)
				}
				return
			}
			if !errors.As(err, &ce) || !reflect.DeepEqual(ce.Clashes, tt.clashes) {
				t.Fatalf("error %v, want clashes %v", err, tt.clashes)
			}
			for _, c := range tt.clashes {
				if !strings.Contains(err.Error(), c.Src) || !strings.Contains(err.Error(), c.Dst) {
					t.Errorf("error %q does not name both %s and %s", err, c.Src, c.Dst)
				}
			}
		})
	}
}

const benchHeader = "goos: linux\npkg: x\n"

func TestCompare(t *testing.T) {
	dir := t.TempDir()
	const rest = "/size=1024x1024/filter=box3/k=3/block=default/border=zero/type=f32/ch=1/layout=interleaved/cache=hot/timing=kernel/mem=none"
	line := func(variant string, ns string) string {
		return "BenchmarkConv/variant=" + variant + rest + "/opts=default 1 " + ns + " ns/op 1.0 MPix/s\n"
	}
	h100 := write(t, filepath.Join(dir, "nvidia-h100/default.txt"), benchHeader+
		line("gpu-tiled", "100")+
		line("gpu-tiled", "300")+
		line("gpu-tiled", "200")+
		line("npp", "2000")+
		line("gpu-only-here", "5"))
	// A run stored before the opts key names npp's case without it: it
	// pairs with the h100's all the same.
	l40s := write(t, filepath.Join(dir, "nvidia-l40s/default.txt"), benchHeader+
		line("gpu-tiled", "400")+
		"BenchmarkConv/variant=npp"+rest+" 1 1000 ns/op\n")
	// A GPU case's lines carry the kernel's time beside the host's: the
	// kernel's is compared.
	gpuLine := func(ns, gpuNS string) string {
		return "BenchmarkConv/variant=gpu-regtile" + rest + "/opts=default 1 " + ns + " ns/op " + gpuNS + " gpu-ns/op\n"
	}
	h200 := write(t, filepath.Join(dir, "nvidia-h200/default.txt"), benchHeader+gpuLine("900", "100")+
		"BenchmarkConv/variant=gpu-untimed"+rest+" 1 5 MPix/s\n")
	h100GPU := write(t, filepath.Join(dir, "nvidia-h100/gpu.txt"), benchHeader+gpuLine("150", "120")+
		"BenchmarkConv/variant=gpu-untimed"+rest+" 1 6 MPix/s\n")
	c, err := Compare([]string{h100, l40s, h200, h100GPU})
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"nvidia-h100", "nvidia-h200", "nvidia-l40s"}; !reflect.DeepEqual(c.Slugs, want) {
		t.Errorf("slugs %q, want %q", c.Slugs, want)
	}
	if want := strings.Split(rest[1:]+"/opts=default", "/"); !reflect.DeepEqual(c.Common, want) {
		t.Errorf("common parts %q, want %q", c.Common, want)
	}
	if c.Alone != 1 || len(c.Rows) != 3 {
		t.Fatalf("%d rows, %d alone; want 3 rows and 1 case alone", len(c.Rows), c.Alone)
	}
	tiled := c.Rows[1]
	if h := tiled.Times["nvidia-h100"]; tiled.Case != "variant=gpu-tiled" || h.Lines != 3 || math.Abs(h.Median-200e-9) > 1e-15 {
		t.Errorf("first row %+v, want gpu-tiled with the h100's median 200ns of 3 lines", tiled)
	}
	if _, err := Compare([]string{write(t, filepath.Join(dir, "x/bad.txt"), benchHeader+"BenchmarkConv/variant=npp 1 1 ns/op\n")}); err == nil || !strings.Contains(err.Error(), "bad.txt:3") {
		t.Errorf("a case without its keys: error %v, want one naming its line", err)
	}
	var b strings.Builder
	if err := c.WriteMarkdown(&b); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"| variant=gpu-regtile | GPU kernel | 120ns ×1.20 (1) | 100ns ×1.00 (1) | — | nvidia-h200 |",
		"| variant=gpu-tiled | host | 200ns ×1.00 (3) | — | 400ns ×2.00 (1) | nvidia-h100 |",
		"| variant=npp | host | 2µs ×2.00 (1) | — | 1µs ×1.00 (1) | nvidia-l40s |",
		"(1 cases measured on one slug only left out)",
	} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("table lacks %q:\n%s", want, b.String())
		}
	}
}

func TestCompareTests(t *testing.T) {
	dir := t.TempDir()
	a := write(t, filepath.Join(dir, "nvidia-h100/job/tests-summary.txt"),
		"m/convolve pass=10 fail=0 skip=1 secs=3\nm/properties pass=50 fail=1 skip=0 secs=300\ntotal wall-s=310 cache=cold\n")
	b := write(t, filepath.Join(dir, "nvidia-h200/job/tests-summary.txt"),
		"m/convolve pass=10 fail=0 skip=1 secs=2 cpu-s=5\ntotal wall-s=200 cache=warm\n")
	c, err := compareTests([]string{b, a})
	if err != nil {
		t.Fatal(err)
	}
	var out strings.Builder
	if err := c.WriteMarkdown(&out); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"| package | nvidia-h100 | nvidia-h200 |",
		"| m/convolve | 10/0/1 3s | 10/0/1 2s |",
		"| m/properties | 50/1/0 300s | - |",
		"| total | wall-s=310 cache=cold | wall-s=200 cache=warm |",
	} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("table lacks %q:\n%s", want, out.String())
		}
	}
	for _, line := range []string{"m/convolve passed", "m/convolve pass=1 fail=0 skip=0 secs=2 wall=5"} {
		bad := write(t, filepath.Join(dir, "x/job/tests-summary.txt"), line+"\n")
		if _, err := compareTests([]string{bad}); err == nil || !strings.Contains(err.Error(), `"`+line+`"`) {
			t.Errorf("summary line %q: error %v, want one naming the line", line, err)
		}
	}
}

func TestSubmitRefusesTaskFlags(t *testing.T) {
	for _, arg := range []string{"-data=/tmp/x", "--publish", "-bin", "-list"} {
		_, err := Submit(Request{Dir: t.TempDir(), Mode: ModeSweep, SweepArgs: []string{"-count", "2", arg},
			Targets: []Target{{Node: "n1"}}})
		if err == nil || !strings.Contains(err.Error(), "sweep flag "+arg) {
			t.Errorf("sweep flag %s: error %v, want one naming it", arg, err)
		}
	}
}

func TestSetValues(t *testing.T) {
	for _, tt := range []struct {
		pairs []string
		want  []string
	}{
		{nil, nil},
		{[]string{"a=", "", "b=", ""}, nil},
		{[]string{"a=", "1", "b=", "", "c=", "3"}, []string{"a=1", "c=3"}},
		{[]string{"--gres=", "gpu:1"}, []string{"--gres=gpu:1"}},
	} {
		if got := setValues(tt.pairs...); !slices.Equal(got, tt.want) {
			t.Errorf("setValues(%q) = %q, want %q", tt.pairs, got, tt.want)
		}
	}
}
