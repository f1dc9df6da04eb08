package main

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// fakeSanitizer stands in for compute-sanitizer. It appends
// "CUDA_VISIBLE_DEVICES|its arguments" to $SANLOG; holds a folder
// $LOCKS/G for each GPU G it was given while it runs, noting in
// $OVERLAPS a GPU whose folder another process holds; runs the program
// after its options with FAKE_TOOL set to its tool; and ends as the real
// tool does. Its summary is clean, with 100 bytes leaked (memcheck) and 3
// hazards, all warnings (racecheck), except where FAKE_SAN is "dirty" and
// the program ran gpu-tiled or auto: then memcheck reports 1460 errors
// (one printed, a CUDA API error), racecheck 1 error and 4 warnings in 5
// hazards (exit 3 for both), synccheck is clean, and initcheck, where it
// ran gpu-tiled, prints no summary.
const fakeSanitizer = `#!/bin/bash
echo "${CUDA_VISIBLE_DEVICES:-}|$*" >>"$SANLOG"
tool=
while [ $# -gt 0 ]; do
  case $1 in
  --tool) tool=$2; shift 2 ;;
  --leak-check|--error-exitcode) shift 2 ;;
  --*) shift ;;
  *) break ;;
  esac
done
gpus=${CUDA_VISIBLE_DEVICES//,/ }
for g in $gpus; do mkdir "$LOCKS/$g" 2>/dev/null || echo "GPU $g" >>"$OVERLAPS"; done
echo "========= COMPUTE-SANITIZER"
ran=$(FAKE_TOOL=$tool "$@")
echo "$ran"
sleep 0.1
for g in $gpus; do rmdir "$LOCKS/$g"; done
mode=clean
case $ran in
*"TestProperties/gpu-tiled "*) mode=$FAKE_SAN ;;
*"TestProperties/auto "*) [ "$tool" = initcheck ] || mode=$FAKE_SAN ;;
esac
case $tool in memcheck) echo "========= LEAK SUMMARY: 100 bytes leaked in 1 allocations" ;; esac
case $mode:$tool in
clean:racecheck) echo "========= RACECHECK SUMMARY: 3 hazards displayed (0 errors, 3 warnings)" ;;
clean:*|dirty:synccheck) echo "========= ERROR SUMMARY: 0 errors" ;;
dirty:memcheck)
  echo '========= Program hit CUDA_ERROR_INVALID_VALUE (error 1) due to "invalid argument" on CUDA API call to cuFuncGetParamInfo.'
  echo "========= ERROR SUMMARY: 1460 errors"
  echo "========= ERROR SUMMARY: 1459 errors were not printed. Use --print-limit option to adjust the number of printed errors"
  exit 3 ;;
dirty:racecheck) echo "========= RACECHECK SUMMARY: 5 hazards displayed (1 error, 4 warnings)"; exit 3 ;;
esac
`

// fakeVariants are the variants fakeSanProperties knows: gpu-v1.5's dot
// must be quoted, or a shard's pattern also selects gpu-v1x5.
var fakeVariants = []string{"auto", "auto-bf16", "cpu-fast", "cudnn", "gpu-naive", "gpu-slab2", "gpu-slab4",
	"gpu-stream", "gpu-tiled", "gpu-v1.5", "gpu-v1x5", "npp", "npp-interior"}

// fakeSanProperties stands in for the properties test binary over
// fakeVariants: with -props.list it prints those -props.variant selects,
// one a line (exit status 1 when none), else a passing subtest of
// TestProperties for each, noting "$FAKE_TOOL $CUDA_VISIBLE_DEVICES
// VARIANT" in $COVER.
var fakeSanProperties = `#!/bin/bash
list=; re=
for a; do case $a in -props.list) list=1 ;; -props.variant=*) re=${a#*=} ;; esac; done
sel=$(printf '%s\n' ` + strings.Join(fakeVariants, " ") + ` | grep -E -- "$re")
if [ -n "$list" ]; then
  [ -n "$sel" ] || { echo "-props.variant=\"$re\" matches none of the registered variants" >&2; exit 1; }
  echo "$sel"; exit 0
fi
echo "=== RUN   TestProperties"
for n in $sel; do echo "    --- PASS: TestProperties/$n (0.00s)"; echo "$FAKE_TOOL ${CUDA_VISIBLE_DEVICES:-} $n" >>"$COVER"; done
echo "--- PASS: TestProperties (0.00s)"
echo PASS
`

// TestSanitizers runs the sanitizer stages over a stand-in
// compute-sanitizer, properties test binary and nvidia-smi. Each stage
// lists its variants, deals them into shards and runs each tool over
// each shard as one process from properties/, one variant at a time, on
// one GPU (sanitizers-slabs: a pair) named by CUDA_VISIBLE_DEVICES: no
// GPU runs two at once, and every variant is in one shard of each tool.
// OUTDIR/NAME-shards.txt has a line a job and OUTDIR/NAME-summary.txt a
// line a tool, summing its jobs, and the verdict, NOT OK where a shard
// had errors or no summary. A stage that cannot run says why.
func TestSanitizers(t *testing.T) {
	const gpuRE, slabRE = sanitizerVariants, "^gpu-(slab|stream)"
	for _, tt := range []struct {
		name, stage, san string
		gpus             string
		env              []string
		code             int
		re               string   // the variants the stage covers
		tools            []string // the tools it runs
		slots            []string // the CUDA_VISIBLE_DEVICES values of its jobs
		want             []string // the summary after its header, seconds 0
		refusal          string   // the line of summary.txt of a stage that did not run
	}{
		{
			name: "two tools on 4 GPUs", stage: "sanitizers", san: "clean", gpus: "4",
			env: []string{"SAN_TOOLS=memcheck racecheck"}, re: gpuRE, tools: []string{"memcheck", "racecheck"},
			slots: []string{"0", "1", "2", "3"}, want: []string{
				"memcheck  rc=0 errors=0 api-errors=0 passed=16 failed=0 secs=0 wall-s=0 shards=4 log=sanitizers-memcheck-shard*.log leaked-bytes=400",
				"racecheck rc=0 errors=0 api-errors=0 passed=16 failed=0 secs=0 wall-s=0 shards=4 log=sanitizers-racecheck-shard*.log hazards=12 warnings=12",
				"sanitizers ok: 2 tools, 0 errors",
			},
		},
		{
			name: "a dirty shard a tool", stage: "sanitizers", san: "dirty", gpus: "4", code: 1,
			re: gpuRE, tools: sanitizerTools, slots: []string{"0", "1", "2", "3"}, want: []string{
				"memcheck  rc=3 errors=2920 api-errors=2 passed=16 failed=0 secs=0 wall-s=0 shards=4 log=sanitizers-memcheck-shard*.log leaked-bytes=400",
				"racecheck rc=3 errors=2 api-errors=0 passed=16 failed=0 secs=0 wall-s=0 shards=4 log=sanitizers-racecheck-shard*.log hazards=16 warnings=14",
				"synccheck rc=0 errors=0 api-errors=0 passed=16 failed=0 secs=0 wall-s=0 shards=4 log=sanitizers-synccheck-shard*.log",
				"initcheck rc=0 errors=missing api-errors=0 passed=16 failed=0 secs=0 wall-s=0 shards=4 log=sanitizers-initcheck-shard*.log",
				"sanitizers NOT OK: memcheck (rc=3 errors=2920 failed=0), racecheck (rc=3 errors=2 failed=0), initcheck (rc=0 errors=missing failed=0)",
			},
		},
		{
			name: "3 shards on GPUs 1 and 3", stage: "sanitizers", san: "clean", gpus: "4",
			env: []string{"SAN_GPUS=3,1", "SAN_SHARDS=3", "SAN_TOOLS=initcheck"}, re: gpuRE, tools: []string{"initcheck"},
			slots: []string{"3", "1"}, want: []string{
				"initcheck rc=0 errors=0 api-errors=0 passed=15 failed=0 secs=0 wall-s=0 shards=3 log=sanitizers-initcheck-shard*.log",
				"sanitizers ok: 1 tools, 0 errors",
			},
		},
		{
			name: "the former name on one GPU", stage: "props-sanitizers", san: "clean", gpus: "1",
			env: []string{"SAN_TOOLS=synccheck"}, re: gpuRE, tools: []string{"synccheck"},
			slots: []string{"0"}, want: []string{
				"synccheck rc=0 errors=0 api-errors=0 passed=13 failed=0 secs=0 wall-s=0 shards=1 log=sanitizers-synccheck-shard*.log",
				"sanitizers ok: 1 tools, 0 errors",
			},
		},
		{
			name: "slabs on pairs", stage: "sanitizers-slabs", san: "clean", gpus: "5",
			env: []string{"SAN_TOOLS=memcheck"}, re: slabRE, tools: []string{"memcheck"},
			slots: []string{"0,1", "2,3"}, want: []string{
				"memcheck  rc=0 errors=0 api-errors=0 passed=5 failed=0 secs=0 wall-s=0 shards=2 log=sanitizers-slabs-memcheck-shard*.log leaked-bytes=200",
				"sanitizers-slabs ok: 1 tools, 0 errors",
			},
		},
		{name: "no GPU", stage: "sanitizers", gpus: "0", code: 1, refusal: "sanitizers NOT OK: needs a GPU, nvidia-smi -L lists 0: not run"},
		{name: "slabs on one GPU", stage: "sanitizers-slabs", gpus: "1", code: 1, refusal: "sanitizers-slabs NOT OK: needs 2 GPUs or more, nvidia-smi -L lists 1: not run"},
		{name: "a bad tool", stage: "sanitizers", gpus: "1", env: []string{"SAN_TOOLS=memcheck leakcheck"}, code: 1,
			refusal: "sanitizers NOT OK: SAN_TOOLS names leakcheck: want memcheck, racecheck, synccheck or initcheck"},
		{name: "a GPU twice", stage: "sanitizers", gpus: "4", env: []string{"SAN_GPUS=1,1"}, code: 1, refusal: "sanitizers NOT OK: SAN_GPUS=1,1 names a GPU twice"},
		{name: "no variant", stage: "sanitizers", gpus: "1", env: []string{"SAN_VARIANT=^none$"}, code: 1,
			refusal: `sanitizers NOT OK: (cd properties && `},
	} {
		t.Run(tt.name, func(t *testing.T) {
			h := newHost(t)
			h.exe(h.path, "compute-sanitizer", fakeSanitizer)
			h.exe(h.bin, "properties.test", fakeSanProperties)
			if err := os.MkdirAll(filepath.Join(h.root, "properties"), 0o755); err != nil {
				t.Fatal(err)
			}
			dir := t.TempDir()
			locks := filepath.Join(dir, "locks")
			if err := os.Mkdir(locks, 0o755); err != nil {
				t.Fatal(err)
			}
			sanlog, overlaps, cover := filepath.Join(dir, "san.log"), filepath.Join(dir, "overlaps"), filepath.Join(dir, "cover")
			for k, v := range map[string]string{"FAKE_GPUS": tt.gpus, "FAKE_SAN": tt.san, "LOCKS": locks, "SANLOG": sanlog, "OVERLAPS": overlaps, "COVER": cover} {
				t.Setenv(k, v)
			}
			for _, e := range tt.env {
				k, v, _ := strings.Cut(e, "=")
				t.Setenv(k, v)
			}
			stdout, code := h.run(tt.stage)
			if code != tt.code {
				t.Errorf("exit status %d, want %d\n%s", code, tt.code, stdout)
			}
			summary := h.read("summary.txt")
			name := strings.TrimPrefix(tt.stage, "props-")
			if tt.refusal != "" {
				if !strings.Contains(summary, "\n"+tt.refusal) {
					t.Errorf("summary.txt lacks %q:\n%s", tt.refusal, summary)
				}
				if _, err := os.Stat(sanlog); err == nil {
					t.Error("compute-sanitizer ran")
				}
				return
			}
			got := strings.Split(strings.TrimSuffix(zeroSecs(h.read(name+"-summary.txt")), "\n"), "\n")
			if !strings.HasPrefix(got[0], "# commit unknown, gpu: Test GPU, 1.0; "+name+": compute-sanitizer over the property suite of "+tt.re+" ") {
				t.Errorf("%s-summary.txt's header: %s", name, got[0])
			}
			if !slices.Equal(got[1:], tt.want) {
				t.Errorf("%s-summary.txt:\n%s\nwant\n%s", name, strings.Join(got[1:], "\n"), strings.Join(tt.want, "\n"))
			}
			if !strings.Contains(zeroSecs(summary), "\n"+name+": "+tt.want[0]+"\n") || !strings.Contains(summary, "\n"+tt.want[len(tt.want)-1]+"\n") {
				t.Errorf("summary.txt lacks the tools' lines:\n%s", summary)
			}
			if b, err := os.ReadFile(overlaps); err == nil {
				t.Errorf("two jobs at once on a GPU:\n%s", b)
			}
			calls, _ := os.ReadFile(sanlog)
			used := map[string]bool{}
			for _, c := range strings.Split(strings.TrimSpace(string(calls)), "\n") {
				dev, _, _ := strings.Cut(c, "|")
				used[dev] = true
				if !strings.Contains(c, " -test.short -test.parallel 1 ") {
					t.Errorf("a job without -test.short -test.parallel 1: %s", c)
				}
			}
			for _, s := range tt.slots {
				if !used[s] {
					t.Errorf("no job on CUDA_VISIBLE_DEVICES=%s: %v", s, used)
				}
			}
			covered, _ := os.ReadFile(cover)
			re := regexp.MustCompile(tt.re)
			for _, tool := range tt.tools {
				for _, v := range fakeVariants {
					n := 0
					for _, l := range strings.Split(string(covered), "\n") {
						if f := strings.Fields(l); len(f) == 3 && f[0] == tool && f[2] == v {
							n++
						}
					}
					if want := map[bool]int{true: 1, false: 0}[re.MatchString(v)]; n != want {
						t.Errorf("%s ran %s %d times, want %d", tool, v, n, want)
					}
				}
			}
			shards := strings.Split(strings.TrimSpace(h.read(name+"-shards.txt")), "\n")
			k, _ := strconv.Atoi(regexp.MustCompile(`shards=([0-9]+)`).FindStringSubmatch(tt.want[0])[1])
			if len(shards) != 1+len(tt.tools)*k {
				t.Errorf("%s-shards.txt has %d lines, want a header and one for each of %d tools over %d shards:\n%s", name, len(shards), len(tt.tools), k, strings.Join(shards, "\n"))
			}
			for _, l := range shards[1:] {
				if !strings.Contains(l, " shard=") || !strings.Contains(l, " cuda-visible-devices=") || !strings.Contains(l, " variants=") {
					t.Errorf("%s-shards.txt line %q lacks its shard, devices or variants", name, l)
				}
			}
		})
	}
}

// TestMemcheckAndRacecheck runs the memcheck and racecheck stages over
// stand-ins: the package tests under the tool from their folders, then
// the property suite in one process, each line noted.
func TestMemcheckAndRacecheck(t *testing.T) {
	h := newHost(t)
	h.exe(h.path, "compute-sanitizer", fakeSanitizer)
	h.exe(h.bin, "properties.test", fakeSanProperties)
	for _, b := range []string{"cudabind.test", "variants.test"} {
		h.exe(h.bin, b, "#!/bin/sh\necho \"=== RUN   TestX\"\necho \"--- PASS: TestX (0.00s)\"\n")
	}
	for _, d := range []string{"properties", "cudabind", "gpu/variants"} {
		if err := os.MkdirAll(filepath.Join(h.root, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	dir := t.TempDir()
	if err := os.Mkdir(filepath.Join(dir, "locks"), 0o755); err != nil {
		t.Fatal(err)
	}
	for k, v := range map[string]string{"FAKE_SAN": "clean", "LOCKS": filepath.Join(dir, "locks"), "SANLOG": filepath.Join(dir, "san.log"),
		"OVERLAPS": filepath.Join(dir, "overlaps"), "COVER": filepath.Join(dir, "cover")} {
		t.Setenv(k, v)
	}
	stdout, code := h.run("memcheck", "racecheck")
	if code != 0 {
		t.Fatalf("exit status %d\n%s", code, stdout)
	}
	summary := zeroSecs(h.read("summary.txt"))
	for _, w := range []string{
		"memcheck-cudabind            rc=0 passed=1 failed=0 skipped=0 0s cpu=0s ========= LEAK SUMMARY: 100 bytes leaked in 1 allocations ========= ERROR SUMMARY: 0 errors \n",
		"memcheck-props: memcheck  rc=0 errors=0 api-errors=0 passed=13 failed=0 secs=0 log=memcheck-props.log leaked-bytes=100\n",
		"racecheck-variants           rc=0 passed=1 failed=0 skipped=0 0s cpu=0s ========= RACECHECK SUMMARY: 3 hazards displayed (0 errors, 3 warnings) \n",
		"synccheck-props: synccheck rc=0 errors=0 api-errors=0 passed=13 failed=0 secs=0 log=synccheck-props.log\n",
	} {
		if !strings.Contains(summary, w) {
			t.Errorf("summary.txt lacks %q:\n%s", w, summary)
		}
	}
	calls, _ := os.ReadFile(filepath.Join(dir, "san.log"))
	for _, w := range []string{"|--error-exitcode 3 --tool memcheck --leak-check full " + filepath.Join(h.bin, "cudabind.test") + " -test.v -test.run GPU\n",
		"|--tool racecheck --error-exitcode 3 " + filepath.Join(h.bin, "properties.test") + " -test.v -test.short -test.parallel 1 -test.timeout 10m -props.variant=" + sanitizerVariants + " -props.n=5\n"} {
		if !strings.Contains(string(calls), w) {
			t.Errorf("compute-sanitizer's calls lack %q:\n%s", w, calls)
		}
	}
}
