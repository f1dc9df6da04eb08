package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/convbench/convbench/tables/crossover"
)

const stored = `# convbench sweep crossover, commit 89abcdef0123456789abcdef0123456789abcdef, command: test
gpu: NVIDIA Test GPU
BenchmarkConv/variant=gpu-regtile/size=4096x4096/filter=dense21/k=21/block=default/border=zero/type=f32/ch=1/layout=interleaved/cache=hot/timing=kernel-graph/mem=none/opts=default 	1	900000 ns/op	900000 gpu-ns/op
BenchmarkConv/variant=gpu-tc-3xtf32/size=4096x4096/filter=dense21/k=21/block=default/border=zero/type=f32/ch=1/layout=interleaved/cache=hot/timing=kernel-graph/mem=none/opts=default 	1	140000 ns/op	140000 gpu-ns/op
BenchmarkConv/variant=auto/size=4096x4096/filter=dense21/k=21/block=default/border=zero/type=f32/ch=1/layout=interleaved/cache=hot/timing=kernel-graph/mem=none/opts=default 	1	141000 ns/op	141000 gpu-ns/op
`

func TestRun(t *testing.T) {
	dir := t.TempDir()
	in := filepath.Join(dir, "crossover.txt")
	if err := os.WriteFile(in, []byte(stored), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "tables")
	var stdout, stderr strings.Builder
	if err := runCmd(t, []string{"-out", out, in}, &stdout, &stderr); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(filepath.Join(out, "nvidia-test-gpu.json"))
	if err != nil {
		t.Fatalf("%v (stdout %q)", err, stdout.String())
	}
	tab, err := crossover.Parse(data)
	if err != nil {
		t.Fatal(err)
	}
	if len(tab.Entries) != 1 || tab.Entries[0].Ranking[0].Variant != "gpu-tc-3xtf32" || len(tab.Entries[0].Ranking) != 2 {
		t.Errorf("table %+v: want one entry ranking gpu-tc-3xtf32 then gpu-regtile", tab)
	}
	if !strings.Contains(stdout.String(), "1 entries of NVIDIA Test GPU") || !strings.Contains(tab.Run, "at 89abcde") {
		t.Errorf("stdout %q, run %q", stdout.String(), tab.Run)
	}

	for _, bad := range []struct {
		args []string
		want string
	}{
		{nil, "name one stored run"},
		{[]string{"-out", out, filepath.Join(dir, "missing.txt")}, "missing.txt"},
		{[]string{"-out", out, in, in}, "are both runs of NVIDIA Test GPU"},
	} {
		if err := runCmd(t, bad.args, &stdout, &stderr); err == nil || !strings.Contains(err.Error(), bad.want) {
			t.Errorf("run %q: error %v, want one containing %q", bad.args, err, bad.want)
		}
	}
}

func runCmd(t *testing.T, args []string, stdout, stderr *strings.Builder) error {
	t.Helper()
	return run(args, stdout, stderr)
}
