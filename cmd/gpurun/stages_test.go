package main

import (
	"archive/tar"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestCommandStages runs each stage that is one command or a few over
// stand-ins that print their folder, environment and arguments, and
// checks each command's log: where it ran, what it was given, and that
// its second line names it.
func TestCommandStages(t *testing.T) {
	type logWant struct {
		log, dir, env string
		args          []string
	}
	for _, tt := range []struct {
		stage string
		env   []string
		code  int
		logs  func(h *host) []logWant
		note  string // a line of summary.txt
	}{
		{stage: "sweep:mine", env: []string{"COUNT=2", "SWEEP_ARGS=-variants gpu-tiled|npp  -sizes 6000x4000", "MAX_TIME=3s"},
			logs: func(h *host) []logWant {
				return []logWant{{log: "sweep-mine.log", dir: h.root, args: []string{"-bin", filepath.Join(h.bin, "benchmarks.test"), "-data", filepath.Join(h.out, "data"),
					"-count", "2", "-max-time=3s", "-variants", "gpu-tiled|npp", "-sizes", "6000x4000"}}}
			}},
		{stage: "bench:default", env: []string{"CPU_CAP=99", "NOISE=2"},
			logs: func(h *host) []logWant {
				return []logWant{{log: "bench-default.log", dir: filepath.Join(h.root, "benchmarks"), args: []string{"-test.run", "^$", "-test.bench", ".", "-test.cpu", "1",
					"-test.count", "5", "-test.benchtime", "1x", "-test.timeout", "0", "-sweep=default", "-cpu-cap=99", "-noise=2"}}}
			}},
		{stage: "kernel:examples/kernels/direct.cu",
			logs: func(h *host) []logWant {
				return []logWant{{log: "kernel-direct.log", dir: h.root, args: []string{"-bin", filepath.Join(h.bin, "benchmarks.test"),
					"-kernel", filepath.Join(h.root, "examples/kernels/direct.cu"), "-variants", "user-.*|gpu-naive|gpu-tiled",
					"-sizes", "2048x2048", "-filters", "gauss5,dense9", "-types", "u8,f32", "-count", "3", "-data", filepath.Join(h.out, "data")}}}
			}},
		{stage: "props", env: []string{"PROPS_SEED=0", "PROPS_N=7"},
			logs: func(h *host) []logWant {
				return []logWant{{log: "props-gpu.log", dir: filepath.Join(h.root, "properties"), args: []string{"-test.v", "-test.timeout", "9m",
					"-props.variant=^(gpu-|npp|cudnn)", "-props.n=7", "-props.time=0", "-props.seed=0"}}}
			}},
		{stage: "tune", env: []string{"TUNE_K=3,21", "TUNE_TIME=100s"},
			logs: func(h *host) []logWant {
				return []logWant{{log: "tune.log", dir: h.root, args: []string{"-variants", "gpu-regtile,gpu-tiled,gpu-sepfused", "-k", "3,21", "-sizes", "large",
					"-time", "100s", "-budget", "24", "-case-timeout", "2m", "-commit", "unknown", "-out", filepath.Join(h.out, "tuning")}}}
			}},
		{stage: "tune-props", env: []string{"PROPS_N=7"},
			logs: func(h *host) []logWant {
				return []logWant{{log: "tune-props.log", dir: filepath.Join(h.root, "tune"), args: []string{"-test.v", "-test.timeout", "9m",
					"-test.run", "TestTunedProperties|TestTuneGPU", "-tune.props", "-convtest.time=0", "-convtest.n=7"}}}
			}},
		{stage: "crossover",
			logs: func(h *host) []logWant {
				table := filepath.Join(h.out, "crossover")
				return []logWant{
					{log: "crossover-paths.log", dir: h.root, args: []string{"-bin", filepath.Join(h.bin, "benchmarks.test"), "-data", filepath.Join(h.out, "crossover-paths"),
						"-count", "1", "-max-time=0.1s", "-sweep=crossover", "-variants", "gpu-regtile|gpu-tiled|gpu-sepfused|gpu-separable|gpu-fft|gpu-tc-.*"}},
					{log: "crossover-table.log", dir: h.root, args: []string{"-out", table}},
					{log: "sweep-crossover.log", dir: h.root, env: "CONVBENCH_CROSSOVER=" + table, args: []string{"-bin", filepath.Join(h.bin, "benchmarks.test"),
						"-data", filepath.Join(h.out, "data"), "-count", "2", "-sweep=crossover"}},
				}
			}},
		{stage: "crossover", env: []string{"CROSS_TABLE=embedded"},
			logs: func(h *host) []logWant {
				return []logWant{{log: "sweep-crossover.log", dir: h.root, args: []string{"-bin", filepath.Join(h.bin, "benchmarks.test"),
					"-data", filepath.Join(h.out, "data"), "-count", "2", "-sweep=crossover"}}}
			}},
		{stage: "shards:roofline", env: []string{"SHARD_GPUS=2,5,7", "COUNT=6"},
			logs: func(h *host) []logWant {
				return []logWant{{log: "shards-roofline.log", dir: h.root, args: []string{"-bin", filepath.Join(h.bin, "benchmarks.test"),
					"-data", filepath.Join(h.out, "data"), "-count", "6", "-sweep=roofline", "-devices", "2,5,7"}}}
			}},
		{stage: "shards:roofline", env: []string{"FAKE_GPUS=4"},
			logs: func(h *host) []logWant {
				return []logWant{{log: "shards-roofline.log", dir: h.root, args: []string{"-bin", filepath.Join(h.bin, "benchmarks.test"),
					"-data", filepath.Join(h.out, "data"), "-count", "5", "-sweep=roofline", "-devices", "0,1,2,3"}}}
			}},
		{stage: "shards:roofline", env: []string{"FAKE_GPUS=0"}, code: 1,
			note: "shards-roofline NOT OK: needs a GPU: SHARD_GPUS is empty and nvidia-smi -L lists none; not run"},
		{stage: "shards:roofline", env: []string{"SHARDS=8", "SHARD_FIRST=5"}, code: 1,
			note: "shards-roofline NOT OK: SHARDS and SHARD_FIRST are not read"},
		{stage: "sweep:mine", env: []string{"FAKE_RC=1"}, code: 1,
			note: "sweep-mine                   rc=1 passed=0 failed=0 skipped=0 0s "},
	} {
		t.Run(tt.stage+" "+strings.Join(tt.env, " "), func(t *testing.T) {
			h := newHost(t)
			for _, name := range []string{"sweep", "benchmarks.test", "properties.test", "tune", "tune.test", "crossover"} {
				h.exe(h.bin, name, printArgs)
			}
			for _, d := range []string{"benchmarks", "properties", "tune"} {
				if err := os.MkdirAll(filepath.Join(h.root, d), 0o755); err != nil {
					t.Fatal(err)
				}
			}
			t.Setenv("FAKE_GPUS", "")
			t.Setenv("FAKE_RC", "")
			for _, e := range tt.env {
				k, v, _ := strings.Cut(e, "=")
				t.Setenv(k, v)
			}
			stdout, code := h.run(tt.stage)
			if code != tt.code {
				t.Errorf("exit status %d, want %d\n%s", code, tt.code, stdout)
			}
			if tt.note != "" && !strings.Contains(zeroSecs(h.read("summary.txt")), "\n"+tt.note) {
				t.Errorf("summary.txt lacks %q:\n%s", tt.note, h.read("summary.txt"))
			}
			if tt.logs == nil {
				return
			}
			for _, w := range tt.logs(h) {
				log := h.read(w.log)
				if got := args(log); !slices.Equal(got, w.args) {
					t.Errorf("%s: arguments\n%q\nwant\n%q", w.log, got, w.args)
				}
				if !strings.Contains(log, "pwd["+w.dir+"]\n") {
					t.Errorf("%s: did not run in %s:\n%s", w.log, w.dir, log)
				}
				if w.env != "" && !strings.Contains(log, w.env+" ") {
					t.Errorf("%s: environment lacks %s:\n%s", w.log, w.env, log)
				}
				if l := strings.Split(log, "\n"); l[0] != "# commit unknown, gpu: Test GPU, 1.0" || !strings.HasPrefix(l[1], "# command: (cd ") {
					t.Errorf("%s does not start with the commit and the command:\n%s", w.log, log)
				}
			}
		})
	}
}

// TestTuneStages: the tune stage copies the committed tables into
// OUTDIR/tuning, where the tuner writes, and tune-props then reads them.
func TestTuneStages(t *testing.T) {
	h := newHost(t)
	h.write(filepath.Join(h.root, "tables", "tuning", "test-gpu.json"), "{}\n")
	h.exe(h.bin, "tune", printArgs)
	h.exe(h.bin, "tune.test", printArgs)
	if err := os.MkdirAll(filepath.Join(h.root, "tune"), 0o755); err != nil {
		t.Fatal(err)
	}
	if stdout, code := h.run("tune", "tune-props"); code != 0 {
		t.Fatalf("exit status %d\n%s", code, stdout)
	}
	if _, err := os.Stat(filepath.Join(h.out, "tuning", "test-gpu.json")); err != nil {
		t.Errorf("the committed table was not copied into OUTDIR/tuning: %v", err)
	}
	if log := h.read("tune-props.log"); !strings.Contains(log, "CONVBENCH_TUNING="+filepath.Join(h.out, "tuning")+" ") {
		t.Errorf("tune-props did not read OUTDIR/tuning:\n%s", log)
	}
}

// TestGalleryStage: the gallery command gets the committed runs and a
// folder named gallery, and OUTDIR/gallery.tar holds what it wrote there
// under gallery/.
func TestGalleryStage(t *testing.T) {
	h := newHost(t)
	h.exe(h.bin, "gallery", `#!/bin/sh
for a in "$@"; do echo "arg[$a]"; done
while [ $# -gt 0 ]; do [ "$1" = -out ] && dir=$2; shift; done
mkdir -p "$dir/img" && echo '# Filter gallery' >"$dir/README.md" && echo x >"$dir/img/a.png"
`)
	if stdout, code := h.run("gallery"); code != 0 {
		t.Fatalf("exit status %d\n%s", code, stdout)
	}
	a := args(h.read("gallery.log"))
	if len(a) != 4 || a[0] != "-data" || a[1] != filepath.Join(h.root, "results", "data") || a[2] != "-out" || filepath.Base(a[3]) != "gallery" {
		t.Errorf("gallery's arguments %q", a)
	}
	f, err := os.Open(filepath.Join(h.out, "gallery.tar"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var names []string
	tr := tar.NewReader(f)
	for {
		hd, err := tr.Next()
		if err != nil {
			break
		}
		names = append(names, hd.Name)
	}
	if want := []string{"gallery/", "gallery/README.md", "gallery/img/", "gallery/img/a.png"}; !slices.Equal(names, want) {
		t.Errorf("gallery.tar lists %q, want %q", names, want)
	}
	if _, err := os.Stat(a[3]); !os.IsNotExist(err) {
		t.Errorf("the gallery's temporary folder is left (%v)", err)
	}
}

// fakeNCU stands in for ncu: it prints its arguments, runs the program
// its options end at, then prints a CSV details page of two kernels,
// three launches, as ncu --csv --page details does, with a line of the
// program's among its rows. With FAKE_NCU=none it profiles no launch.
const fakeNCU = `#!/bin/bash
for a in "$@"; do echo "arg[$a]"; done
while [ $# -gt 0 ]; do
  case $1 in
  --clock-control|--section|--metrics|--page|--launch-skip|--launch-count|-k) shift 2 ;;
  -*) shift ;;
  *) break ;;
  esac
done
echo "==PROF== Connected to process 4242 ($1)"
"$@" | grep -v '^arg\['
rc=$?
if [ "$FAKE_NCU" = none ]; then echo "==WARNING== No kernels were profiled."; exit 0; fi
echo '"ID","Process ID","Process Name","Host Name","Kernel Name","Context","Stream","Block Size","Grid Size","Device","CC","Section Name","Metric Name","Metric Unit","Metric Value"'
row() { echo "\"$1\",\"4242\",\"benchmarks.test\",\"127.0.0.1\",\"$2\",\"1\",\"7\",\"(16, 16, 1)\",\"(256, 256, 1)\",\"0\",\"9.0\",\"GPU Speed Of Light Throughput\",\"$3\",\"$4\",\"$5\""; }
k='void conv<float, 11>(const float *, float *, int)'
for id in 0 1; do
  row $id "$k" Duration usecond 1,100.4
  row $id "$k" "Compute (SM) Throughput" % 71.5
  row $id "$k" "Memory Throughput" % 40.25
done
echo "[benchmarks] a line of the program's among the rows"
row 2 'flush_l2(int *)' Duration usecond 5.5
row 2 'flush_l2(int *)' "Compute (SM) Throughput" % 3.5
row 2 'flush_l2(int *)' "Memory Throughput" % 60
exit 0
`

// TestNCUStage runs the ncu stage over a stand-in ncu and benchmark
// binary, with the real ncusum built into the folder of binaries: ncu's
// arguments, the CSV with the commit and command first, ncusum's table
// and the stage's line; without NCU_BENCH, without ncu on PATH, or when
// ncu profiles no launch, the stage says NOT OK and fails.
func TestNCUStage(t *testing.T) {
	goCmd, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command to build ncusum")
	}
	ncusum := filepath.Join(t.TempDir(), "ncusum")
	build := exec.Command(goCmd, "build", "-o", ncusum, "../../results/cmd/ncusum")
	build.Env = append(os.Environ(), "CGO_ENABLED=0")
	if b, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build ncusum: %v\n%s", err, b)
	}
	const bench = "BenchmarkConv/variant=gpu-regtile/size=4096x4096/filter=dense11/"
	base := []string{"--clock-control", "none", "--section", "SpeedOfLight", "--csv", "--page", "details"}
	tail := func(h *host, maxTime string, extra ...string) []string {
		return append([]string{filepath.Join(h.bin, "benchmarks.test"), "-test.run", "^$", "-test.bench", bench, "-test.benchtime", "1x",
			"-test.count", "1", "-test.cpu", "1", "-test.timeout", "0", "-max-time=" + maxTime}, extra...)
	}
	for _, tt := range []struct {
		name  string
		env   []string
		noNCU bool
		code  int
		args  func(h *host) []string
		note  string
	}{
		{name: "defaults", env: []string{"NCU_BENCH=" + bench},
			args: func(h *host) []string {
				return slices.Concat(base, []string{"--launch-skip", "2", "--launch-count", "3"}, tail(h, "20ms"))
			},
			note: "ncu-a ok: 2 kernels, 3 launches profiled; table in ncu-a.md"},
		{name: "settings", env: []string{"NCU_BENCH=" + bench, "NCU_SKIP=0", "NCU_COUNT=10", "NCU_KERNEL=conv|regtile", "NCU_MAX_TIME=5ms",
			"NCU_ARGS=-variants gpu-regtile -sizes 4096x4096", "NCU_SECTIONS=ComputeWorkloadAnalysis InstructionStats", "NCU_METRICS=m.a,m.b"},
			args: func(h *host) []string {
				return slices.Concat(base, []string{"--launch-skip", "0", "--launch-count", "10", "-k", "regex:conv|regtile",
					"--section", "ComputeWorkloadAnalysis", "--section", "InstructionStats", "--metrics", "m.a,m.b"},
					tail(h, "5ms", "-variants", "gpu-regtile", "-sizes", "4096x4096"))
			},
			note: "ncu-a ok: 2 kernels, 3 launches profiled; table in ncu-a.md"},
		{name: "no launch profiled", env: []string{"NCU_BENCH=" + bench, "FAKE_NCU=none"}, code: 1,
			args: func(h *host) []string {
				return slices.Concat(base, []string{"--launch-skip", "2", "--launch-count", "3"}, tail(h, "20ms"))
			},
			note: "ncu-a NOT OK: ncusum: ncu-a.csv: no kernel launch found"},
		{name: "no NCU_BENCH", code: 1, note: "ncu-a NOT OK: NCU_BENCH is empty"},
		{name: "no ncu", env: []string{"NCU_BENCH=" + bench}, noNCU: true, code: 1, note: "ncu-a NOT OK: ncu is not on PATH; not run"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			h := newHost(t)
			if tt.noNCU {
				t.Setenv("PATH", h.path)
			} else {
				h.exe(h.path, "ncu", fakeNCU)
			}
			h.exe(h.bin, "benchmarks.test", strings.Replace(printArgs, "exit", "echo 'BenchmarkConv/variant=gpu-regtile/size=4096x4096 1 2200000 ns/op'\nexit", 1))
			if err := os.Link(ncusum, filepath.Join(h.bin, "ncusum")); err != nil {
				t.Fatal(err)
			}
			if err := os.MkdirAll(filepath.Join(h.root, "benchmarks"), 0o755); err != nil {
				t.Fatal(err)
			}
			t.Setenv("FAKE_NCU", "")
			for _, e := range tt.env {
				k, v, _ := strings.Cut(e, "=")
				t.Setenv(k, v)
			}
			stdout, code := h.run("ncu:a")
			if code != tt.code {
				t.Errorf("exit status %d, want %d\n%s", code, tt.code, stdout)
			}
			if !strings.Contains(h.read("summary.txt"), "\n"+tt.note) {
				t.Errorf("summary.txt lacks %q:\n%s", tt.note, h.read("summary.txt"))
			}
			csv, err := os.ReadFile(filepath.Join(h.out, "ncu-a.csv"))
			if tt.args == nil {
				if err == nil {
					t.Errorf("the stage ran ncu:\n%s", csv)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			l := strings.Split(string(csv), "\n")
			if l[0] != "# commit unknown, gpu: Test GPU, 1.0" || !strings.HasPrefix(l[1], "# command: (cd benchmarks && ncu --clock-control none ") ||
				!strings.Contains(l[1], " -test.run '^$' -test.bench "+bench+" ") {
				t.Errorf("ncu-a.csv does not start with the commit and the command, quoted:\n%s\n%s", l[0], l[1])
			}
			if got, want := args(string(csv)), tt.args(h); !slices.Equal(got, want) {
				t.Errorf("ncu's arguments\n%q\nwant\n%q", got, want)
			}
			if !strings.Contains(string(csv), "pwd["+filepath.Join(h.root, "benchmarks")+"]") {
				t.Errorf("the benchmark binary did not run in benchmarks/:\n%s", csv)
			}
			md, err := os.ReadFile(filepath.Join(h.out, "ncu-a.md"))
			if tt.code != 0 {
				if err == nil {
					t.Error("a failed stage left ncu-a.md")
				}
				return
			}
			if err != nil || !strings.Contains(string(md), "\nncu-a.csv: 3 launches of 2 kernels.\n") {
				t.Errorf("ncu-a.md (%v):\n%s", err, md)
			}
		})
	}
}

// TestKilledCommand: a command killed by a signal reports 128 and the
// signal's number, as a shell does, and its log says so.
func TestKilledCommand(t *testing.T) {
	h := newHost(t)
	h.exe(h.bin, "sweep", "#!/bin/sh\necho started\nkill -TERM $$\n")
	if stdout, code := h.run("sweep:a"); code != 1 || !strings.Contains(zeroSecs(stdout), "sweep-a                      rc=143 passed=0 failed=0 skipped=0 0s cpu=0s \n") {
		t.Errorf("exit status %d\n%s", code, stdout)
	}
	if log := h.read("sweep-a.log"); !strings.HasSuffix(log, "started\ngpurun: signal: terminated\n") {
		t.Errorf("sweep-a.log:\n%s", log)
	}
}
