#!/usr/bin/env bash
# gpu-run.sh: run the prebuilt test binaries (make gpu-bins) on a GPU host
# without Go, and collect raw logs. Usage, from the repository root:
#
#   scripts/gpu-run.sh OUTDIR STAGE...
#
# Stages:
#   tests           every package's tests at once (at most $TEST_JOBS binaries, default
#                   one per core, as go test ./... runs them), -test.v, time limit
#                   $TEST_TIMEOUT (default 10m), extra flags $TEST_FLAGS, only the tests
#                   -test.run=$TEST_RUN matches when TEST_RUN is set; writes
#                   OUTDIR/tests-summary.txt, one line a package
#                   ("<import path> pass=N fail=N skip=N secs=S") and last
#                   "total wall-s=S cache=cold|warm" (cold: the compile cache
#                   was empty), OUTDIR/compiles.log, a line per NVRTC compile,
#                   and OUTDIR/tests-report.txt, also printed: the slowest
#                   packages and top-level tests, and the kernels compiled, in
#                   all and for the packages that compiled longest
#   sanitizers      compute-sanitizer's memcheck (with --leak-check full), racecheck,
#                   synccheck and initcheck, with their default options otherwise,
#                   over the property suite of every GPU variant that $SAN_VARIANT
#                   matches (default ^(gpu-|npp|cudnn|auto$|auto-bf16$): every gpu-
#                   variant, the gpu-slab ones on one GPU, npp, npp-interior, cudnn,
#                   cudnn-tf32, auto and auto-bf16; cuDNN's peers skip where the library
#                   is absent), spread over the host's GPUs. The variants
#                   (properties.test -props.list) are dealt round-robin into
#                   $SAN_SHARDS shards (default one a GPU, at most one a variant), and
#                   each tool that $SAN_TOOLS names (default all four; a subset splits
#                   the stage over runs) over each shard is a job: one compute-sanitizer
#                   process running the suite with -props.variant the shard's names
#                   (quoted, anchored), -props.n=$SAN_N (default 5), -test.short,
#                   -test.parallel 1 and -test.timeout $SAN_TIMEOUT (default 10m).
#                   The GPUs are those $SAN_GPUS names (indices, comma-separated),
#                   else every one nvidia-smi -L lists; each runs one job at a time,
#                   CUDA_VISIBLE_DEVICES naming it, and takes the next job of the
#                   queue (the tools in order, each one's shards in order) when its
#                   job ends, so as many jobs run at once as there are GPUs ($SAN_JOBS
#                   is not read). With no GPU the stage does not run and fails.
#                   Each job's log is OUTDIR/sanitizers-TOOL-shardS.log, its command,
#                   CUDA_VISIBLE_DEVICES included, on its second line;
#                   OUTDIR/sanitizers-shards.txt has a line a job (its summary as
#                   below, then shard=S cuda-visible-devices=G variants=NAME,...);
#                   OUTDIR/sanitizers-summary.txt has one line a tool ("TOOL rc=N
#                   errors=N api-errors=N passed=N failed=N secs=S wall-s=S shards=N
#                   log=sanitizers-TOOL-shard*.log", racecheck adding hazards= and
#                   warnings=, memcheck leaked-bytes=): rc the first of its shards'
#                   that is not 0, the counts and secs its shards' summed, errors=missing
#                   where a shard's log has no summary, wall-s from its first job's
#                   start to its last one's end; then a last line, "sanitizers ok" or
#                   "sanitizers NOT OK: ...". The stage fails unless every tool exited
#                   0 with 0 errors and 0 failed tests in every shard.
#                   Why shards, one process a GPU: on a 4-GPU H200 host one tool over
#                   the suite's variants (about 36) on one GPU did not end in 520 s
#                   (memcheck got through about 21), and two sanitizer processes on
#                   one GPU slowed each other badly. Why -test.parallel 1: in trials
#                   on an H200 a tool over the suite's variants run in parallel
#                   stopped making progress.
#   sanitizers-slabs  the same over the multi-GPU variants, $SAN_SLAB_VARIANT (default
#                   ^gpu-(slab|stream)), each job on a pair of GPUs (the first two
#                   GPUs, the next two, ...: CUDA_VISIBLE_DEVICES=0,1 and 2,3 of 4,
#                   $SAN_SHARDS defaulting to the pairs); with fewer than 2 GPUs the
#                   stage does not run and fails; OUTDIR/sanitizers-slabs-TOOL-shardS.log,
#                   sanitizers-slabs-shards.txt and sanitizers-slabs-summary.txt
#   props-sanitizers  another name for sanitizers
#   memcheck        memcheck over cudabind's and gpu/variants' GPU tests (-test.short), then
#                   over the property suite as in sanitizers but in one process over
#                   every variant, on the GPUs it sees (OUTDIR/memcheck-props.log)
#   racecheck       racecheck over gpu/variants' tests (-test.short), then racecheck and
#                   synccheck over the property suite as memcheck runs it
#                   (racecheck-props.log, synccheck-props.log)
#   faults          one sweep (.gpu/sweep) that proves and times the deliberately broken
#                   user kernels of gpu/userkernel/testdata/broken (an out-of-bounds
#                   store, __trap(), a kernel that never ends, one asking for more
#                   shared memory than a block gets, one launched with more threads a
#                   block than its launch bounds, one that leaves an output unwritten)
#                   beside the correct examples/kernels/direct.cu: -variants 'user-.*' -sizes
#                   $FAULTS_SIZES (default 512x512) -filters gauss3,gauss5 -types f32
#                   -count $FAULTS_COUNT (default 2) -max-time 0.5s -case-timeout
#                   $FAULTS_CASE_TIMEOUT (default 20s) -prove-timeout $FAULTS_PROVE_TIMEOUT
#                   (default 2m: each kernel is proved in a run of the suite of its own,
#                   all at once, and the one that never ends is killed then; the stage
#                   takes about that and a minute). Its run goes under OUTDIR/faults/,
#                   its temporary files under OUTDIR/faults-tmp/ (the output and
#                   goroutine stacks of a shrinking child killed at its limit,
#                   convtest-child-*.txt, among them),
#                   its log to OUTDIR/faults.log, and OUTDIR/faults-summary.txt has a
#                   line a kernel: direct "ok: proven" with every case's -count result
#                   lines, each broken kernel "ok: refused" with a refusal that holds the
#                   texts of its "// expect refusal: " lines (crash and its CUDA error,
#                   hang, wrong results), else WRONG and why; then the sweep's "# fault"
#                   lines, and "faults ok" or "faults NOT OK: ...". The sweep itself exits
#                   1 (the broken kernels' cases fail, by design); the stage fails only
#                   when the summary is not ok.
#   props           the property suite over the GPU variants and the peers NPP and cuDNN
#                   (-props.n=$PROPS_N, default 30: every GPU variant at 30 cases a
#                   property took 160 s on an H100 at 6225cdc, with fewer variants
#                   than now, inside the stage's 9-minute limit; cuDNN from
#                   $CONVBENCH_CUDNN, a path, or libcudnn.so.9 on the loader's path,
#                   else its peers skip)
#   tune            the tuner (.gpu/tune) on $TUNE_VARIANTS (default gpu-regtile,gpu-tiled,gpu-sepfused),
#                   K in $TUNE_K (default 3,5,7,11,21), size classes $TUNE_SIZES (default
#                   large), -time $TUNE_TIME (default 165s) in all, -budget $TUNE_BUDGET
#                   (default 24) candidates per class, -case-timeout $TUNE_CASE_TIMEOUT
#                   (default 2m) a candidate; its table goes to
#                   OUTDIR/tuning/<gpu slug>.json, merged with the committed one
#                   (copy it into tables/tuning/ to commit it). Each class runs in a
#                   child process: a candidate that crashes (a sticky CUDA error, a
#                   dead process) or hangs is recorded as such, never chosen, named
#                   in tune.log ("# crash of ...", "# hang of ...") with the command
#                   that tries it alone, and the stage fails though the table is
#                   written
#   tune-props      the property suite on every setting of this GPU's tuning table
#                   (OUTDIR/tuning/ when the tune stage wrote it, else the embedded
#                   table; -convtest.n=$PROPS_N, default 60), and a short real tuning
#   gallery         the report's filter gallery rendered by this GPU's fastest
#                   variants (.gpu/gallery), as OUTDIR/gallery.tar of gallery/;
#                   unpack it into results/report/ where the tree lives
#   kernel:FILE     a user kernel (a .cu file with its description, path from the
#                   repository root) proved by the property suite and then timed
#                   beside $KERNEL_VARIANTS (default user-.*|gpu-naive|gpu-tiled) on
#                   $KERNEL_AXES (default -sizes 2048x2048 -filters gauss5,dense9
#                   -types u8,f32), through .gpu/sweep; the run's file goes under
#                   OUTDIR/data/<gpu>/ (-test.count=$COUNT, default 3)
#   crossover       preset crossover with auto reading this GPU's measured table:
#                   first the paths alone ($CROSS_PATHS, default the preset's
#                   gpu-* variants; one sample set, -max-time=$CROSS_PATHS_TIME,
#                   default 0.1s) under OUTDIR/crossover-paths/, their table
#                   written by .gpu/crossover to OUTDIR/crossover/<gpu slug>.json
#                   (copy it into tables/crossover/ to commit it), then the
#                   whole preset with CONVBENCH_CROSSOVER naming that table
#                   (-count=$COUNT, default 2) under OUTDIR/data/; with
#                   CROSS_TABLE=embedded only the whole preset, auto reading
#                   the tables the binaries embed (tables/crossover/)
#   sweep:NAME      the sweep command (.gpu/sweep with -bin .gpu/benchmarks.test)
#                   with the arguments in $SWEEP_ARGS (split at spaces), writing
#                   its run under OUTDIR/data/ and its summary table to the log
#   shards:PRESET   the sweep command over preset PRESET split over the GPUs that
#                   $SHARD_GPUS names (indices, comma-separated), else every one
#                   nvidia-smi -L lists: G GPUs run G sweeps at once, the ith with
#                   CUDA_VISIBLE_DEVICES its GPU and -shard K/N, K = $SHARD_FIRST
#                   (default 1) + i - 1, N = $SHARDS (default G): every Nth case of
#                   the preset from the Kth; -count $COUNT (default 5), $NOISE and
#                   $MAX_TIME as sweep:NAME takes them; each logged to
#                   OUTDIR/shards-PRESET-K-of-N.log and writing
#                   OUTDIR/data/<gpu>/PRESET.shard-K-of-N.txt. When the G GPUs ran
#                   all N shards, sweep -merge joins those into
#                   OUTDIR/data/<gpu>/PRESET.txt (log OUTDIR/shards-PRESET-merge.log),
#                   the run a single sweep would have written, each case's lines
#                   from one GPU; else (SHARDS=8 SHARD_FIRST=5 on 4 GPUs: the second
#                   half, in a second run) a summary line says to merge the N files
#                   once together. It is for presets whose
#                   lines take long, such as roofline and crossover at -count 6, where
#                   every GPU line meters its energy (over at least 1.05 s on an H200)
#   bench:PRESET    a benchmark preset (-test.count=$COUNT, default 5;
#                   each result line one sample set, -test.benchtime=1x, sampled until
#                   -noise=$NOISE percent or -max-time=$MAX_TIME when set, else the
#                   benchmarks' defaults, 1% and 2s; -cpu-cap=$CPU_CAP
#                   when set, else the package default)
#   ncu:NAME        Nsight Compute's Speed Of Light section over the benchmark cases
#                   that $NCU_BENCH names (a -test.bench regex, required, such as
#                   'BenchmarkConv/variant=gpu-regtile/size=4096x4096/filter=dense11/'),
#                   run from benchmarks/: ncu --clock-control none (the clocks are left
#                   as the host sets them) --section SpeedOfLight --csv --page details
#                   --launch-skip $NCU_SKIP (default 2) --launch-count $NCU_COUNT
#                   (default 3), -k regex:$NCU_KERNEL when that is set (the kernels
#                   profiled), --section S for each S of $NCU_SECTIONS (split at
#                   spaces, such as ComputeWorkloadAnalysis InstructionStats: kept in
#                   the CSV, which ncusum does not summarise; each costs more
#                   replays of every launch), --metrics $NCU_METRICS when that is set
#                   (a comma list, such as the warp stall reasons
#                   smsp__average_warps_issue_stalled_barrier_per_issue_active.ratio,
#                   also kept in the CSV), over .gpu/benchmarks.test with -test.benchtime 1x
#                   -test.count 1 -test.cpu 1 -test.timeout 0 -max-time=$NCU_MAX_TIME
#                   (default 20ms: each line's sampling is kept short, ncu replaying
#                   every launch it profiles) and the binary's flags in $NCU_ARGS
#                   (split at spaces: axis flags such as -variants gpu-regtile -sizes
#                   4096x4096 -filters dense11 -borders zero -timing kernel-graph that
#                   make the cases, or -sweep=PRESET; a preset plans all its cases
#                   first, and plans launch kernels, cuFFT's among them, that
#                   --launch-skip counts: name the case's axes, or set NCU_KERNEL).
#                   ncu's CSV, the benchmark's own output among it, goes to
#                   OUTDIR/ncu-NAME.csv, the command on its second line, and the table
#                   .gpu/ncusum makes of it, a row a kernel, block and grid: launches,
#                   median duration and throughput shares, the limiting roof and its
#                   share, to OUTDIR/ncu-NAME.md; summary.txt gets ncu's line as any
#                   stage's, then "ncu-NAME ok: K kernels, L launches profiled; table
#                   in ncu-NAME.md" or "ncu-NAME NOT OK: ..." (ncusum found no launch
#                   or could not read one). With NCU_BENCH empty or no ncu on PATH the
#                   stage does not run and fails.
#
# GPU_BIN names another folder of binaries than .gpu/; PROPS_SEED sets the
# props stage's -props.seed (0: a fresh seed from the clock, logged); PROPS_VARIANT
# replaces the props stage's variant pattern (default ^(gpu-|npp|cudnn): every
# gpu- variant, npp, npp-interior, cudnn and cudnn-tf32).
#
# Compiled kernels are cached in $CONVBENCH_CACHE_DIR, by default .gpu-cache/
# beside .gpu/, so that later calls on the same host, or a host given a copy
# of that folder, skip the NVRTC compiles already done.
# Each stage writes OUTDIR/<stage>.log with the exact command on its first
# line, and a summary line to OUTDIR/summary.txt (the command's exit status and
# its tests passed, failed and skipped, subtests included). The script exits
# 1 when any stage's command failed.
set -u
out=${1:?usage: gpu-run.sh OUTDIR STAGE...}; shift
mkdir -p "$out"
root=$(pwd)
bin=${GPU_BIN:-$root/.gpu}
commit=$(cat "$bin/COMMIT" 2>/dev/null || echo unknown)
gpu=$(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>/dev/null | head -1)
summary=$out/summary.txt
export CONVBENCH_CACHE_DIR=${CONVBENCH_CACHE_DIR:-$root/.gpu-cache}
cap=${CPU_CAP:+-cpu-cap=$CPU_CAP}
echo "# commit $commit gpu: $gpu date: $(date -u +%FT%TZ)" >>"$summary"

run() { # name dir command...
  runto "$out/$1.log" "$@"
}

# runto is run with the command's output in log instead of OUTDIR/NAME.log.
runto() { # log name dir command...
  local log=$1 name=$2 dir=$3; shift 3
  local t0=$(date +%s)
  { echo "# commit $commit, gpu: $gpu"; echo "# command: (cd $dir && $(shellwords "$@"))"; } >"$log"
  (cd "$root/$dir" && "$@") >>"$log" 2>&1
  local rc=$?
  [ $rc = 0 ] || failed=$((failed+1))
  local t1=$(date +%s)
  # Subtests report indented: count every level.
  local pass=$(grep -cE '^[[:space:]]*--- PASS' "$log"); local fail=$(grep -cE '^[[:space:]]*--- FAIL' "$log"); local skip=$(grep -cE '^[[:space:]]*--- SKIP' "$log")
  local san=$(grep -E '^========= (ERROR SUMMARY|LEAK SUMMARY|RACECHECK SUMMARY)' "$log" | tr '\n' ' ')
  printf '%-28s rc=%d passed=%d failed=%d skipped=%d %ds %s\n' "$name" "$rc" "$pass" "$fail" "$skip" $((t1-t0)) "$san" | tee -a "$summary"
}

# The packages with tests, NAME:DIR, in the order go test lists them.
TESTPKGS="convolve:convolve testimage:convolve/testimage refimpl:refimpl cudabind:cudabind nvrtc:cudabind/nvrtc devfacts:cudabind/devfacts kernels:gpu/kernels variants:gpu/variants cufft:cudabind/cufft cudnn:cudabind/cudnn autovariant:gpu/auto gpuslab:gpu/gpuslab userkernel:gpu/userkernel examplekernels:examples/kernels properties:properties benchmarks:benchmarks results:results tune:tune"

testpkg() { # name dir module: one package's tests, -test.v, into OUTDIR/test-NAME.log and .line
  local name=$1 dir=$2 module=$3
  local log=$out/test-$name.log t0=$(date +%s)
  { echo "# commit $commit, gpu: $gpu"; echo "# command: (cd $dir && $bin/$name.test -test.v -test.timeout ${TEST_TIMEOUT:-10m} ${TEST_FLAGS:-})"; } >"$log"
  # shellcheck disable=SC2086
  (cd "$root/$dir" && "$bin/$name.test" -test.v -test.timeout "${TEST_TIMEOUT:-10m}" ${TEST_FLAGS:-} ${TEST_RUN:+-test.run="$TEST_RUN"}) >>"$log" 2>&1
  local rc=$? secs=$(( $(date +%s) - t0 ))
  local pass fail skip
  pass=$(grep -cE '^[[:space:]]*--- PASS' "$log"); fail=$(grep -cE '^[[:space:]]*--- FAIL' "$log"); skip=$(grep -cE '^[[:space:]]*--- SKIP' "$log")
  # A binary that failed outside a test (a panic, the time limit) counts one failure.
  [ $rc != 0 ] && [ "$fail" = 0 ] && fail=1
  echo "$module/$dir pass=$pass fail=$fail skip=$skip secs=$secs" >"$out/test-$name.line"
}

# testsreport: OUTDIR/tests-report.txt, what a person reads after the tests
# stage, also printed: the slowest packages and top-level tests, and the
# NVRTC compiles of OUTDIR/compiles.log.
testsreport() { # test-NAME.log...
  local report=$out/tests-report.txt
  {
    echo "# commit $commit, gpu: $gpu"
    echo "# command: the tests stage, (cd DIR && $bin/NAME.test -test.v -test.timeout ${TEST_TIMEOUT:-10m}${TEST_FLAGS:+ $TEST_FLAGS}${TEST_RUN:+ -test.run=$TEST_RUN}) for each package, $jobs at once; read from tests-summary.txt, test-*.log and compiles.log"
    listing "slowest packages" "$(slowestpackages "$out/tests-summary.txt")"
    listing "slowest tests" "$(slowesttests "$@")"
    kernelscompiled "$out/compiles.log"
  } >"$report"
  cat "$report"
}

listing() { # heading lines: the heading and its lines, or "heading: none"
  if [ -n "$2" ]; then echo "$1:"; echo "$2"; else echo "$1: none"; fi
}

# byfirst: tab-separated lines, the first field seconds, longest first
# (ties in the order of the other fields), the first N.
byfirst() { # N
  LC_ALL=C sort -t "$(printf '\t')" -k1,1nr -k2,2 -k3,3 | head -n "$1"
}

slowestpackages() { # tests-summary.txt: its 5 slowest packages, by their secs=
  awk '$NF ~ /^secs=[0-9]+$/ { s = $NF; sub(/^secs=/, "", s); printf "%s\t%s\n", s, $1 }' "$1" |
    byfirst 5 | awk -F '\t' '{ printf "  %6ds  %s\n", $1, $2 }'
}

# slowesttests: the 10 slowest top-level tests ("--- PASS:" or "--- FAIL:"
# unindented) of the test-NAME.log files, with NAME. A test counts as long
# as its longest subtest: one whose subtests run in parallel reports only
# its own time, and go test prints its result before theirs.
slowesttests() { # test-NAME.log...
  [ $# -gt 0 ] || return 0
  awk '
    FNR == 1 { name = FILENAME; sub(/.*\/test-/, "", name); sub(/\.log$/, "", name) }
    /^[ \t]*--- (PASS|FAIL): [^ ]+ \([0-9.]+s\)$/ {
      secs = $4; gsub(/[()s]/, "", secs)
      top = $3; sub(/\/.*/, "", top)
      k = name "\t" top
      if (secs + 0 > longest[k] + 0) longest[k] = secs
      if ($0 !~ /^[ \t]/) ended[k] = 1
    }
    END { for (k in ended) printf "%s\t%s\n", longest[k] + 0, k }' "$@" | byfirst 10 | awk -F '\t' '
    { secs[NR] = $1; name[NR] = $2; test[NR] = $3; if (length($2) > w) w = length($2) }
    END { for (i = 1; i <= NR; i++) printf "  %7.2fs  %-" w "s  %s\n", secs[i], name[i], test[i] }'
}

# kernelscompiled: how many kernels the compile log's lines ("nvrtc-compile
# <seconds> <source> ok|error <program>") compiled and in how long, then the
# same for the 5 programs (test binaries, named after their packages) that
# compiled longest.
kernelscompiled() { # compiles.log
  local log=$1 compile='$1 == "nvrtc-compile" && NF == 5 && ($4 == "ok" || $4 == "error") && $2 ~ /^[0-9]+(\.[0-9]*)?$/'
  [ -f "$log" ] || log=/dev/null
  awk "$compile"' { n++; s += $2; f += ($4 == "error") }
    END { if (n == 0) print "kernels compiled: none (no NVRTC on this host, or every kernel came from the cache)"
          else printf "kernels compiled: %d in %.2fs%s\n", n, s, (f ? " (" f " failed)" : "") }' "$log"
  awk "$compile"' { n[$5]++; s[$5] += $2; f[$5] += ($4 == "error") }
    END { for (p in n) printf "%.3f\t%s\t%d\t%d\n", s[p], p, n[p], f[p] }' "$log" | byfirst 5 | awk -F '\t' '
    { secs[NR] = $1; prog[NR] = $2; n[NR] = $3; f[NR] = $4; if (length($2) > w) w = length($2) }
    END { for (i = 1; i <= NR; i++) printf "  %-" w "s  %d in %.2fs%s\n", prog[i], n[i], secs[i], (f[i] ? " (" f[i] " failed)" : "") }'
}

# sanflags sets sflags to the properties test binary's flags under a
# sanitizer: the short suite, one variant at a time (see the sanitizers
# stage), with a time limit.
sanflags() { # regex
  sflags=(-test.v -test.short -test.parallel 1 -test.timeout "${SAN_TIMEOUT:-10m}" -props.variant="$1" -props.n="${SAN_N:-5}")
}

# shellwords prints its arguments as a shell reads them back: those with
# other characters than letters, digits and ._/=,:+@%- in single quotes.
shellwords() { # arg...
  local a s=
  for a; do
    [[ $a =~ ^[A-Za-z0-9._/=,:+@%-]+$ ]] || a="'${a//\'/\'\\\'\'}'"
    s+="${s:+ }$a"
  done
  printf '%s\n' "$s"
}

# santool runs the property suite of the variants regex matches under one
# compute-sanitizer tool, with CUDA_VISIBLE_DEVICES=devices when devices
# is given, its output in OUTDIR/NAME.log; it writes its summary line
# (sanline) to OUTDIR/NAME.line and its start and end (seconds since the
# epoch) and devices to OUTDIR/NAME.span.
santool() { # name tool regex [devices]
  local name=$1 tool=$2 re=$3 dev=${4:-} log=$out/$1.log t0 rc cmd extra=
  [ "$tool" = memcheck ] && extra="--leak-check full"
  sanflags "$re"
  # shellcheck disable=SC2206
  cmd=(compute-sanitizer --tool "$tool" $extra --error-exitcode 3 "$bin/properties.test" "${sflags[@]}")
  { echo "# commit $commit, gpu: $gpu"; echo "# command: (cd properties && ${dev:+CUDA_VISIBLE_DEVICES=$dev }$(shellwords "${cmd[@]}"))"; } >"$log"
  t0=$(date +%s)
  if [ -n "$dev" ]; then
    (cd "$root/properties" && CUDA_VISIBLE_DEVICES=$dev "${cmd[@]}") >>"$log" 2>&1
  else
    (cd "$root/properties" && "${cmd[@]}") >>"$log" 2>&1
  fi
  rc=$?
  echo "$t0 $(date +%s) ${dev:--}" >"$out/$name.span"
  sanline "$tool" "$rc" $(( $(date +%s) - t0 )) "$log" >"$out/$name.line"
}

# sanone runs santool alone, as the memcheck and racecheck stages do: its
# line goes to OUTDIR/summary.txt, and a line that is not rc=0 errors=0
# failed=0 fails the stage.
sanone() { # name tool regex
  santool "$@"
  sed "s|^|$1: |" "$out/$1.line" | tee -a "$summary"
  sanverdict "$1" "$out/$1.line" | grep -q " NOT OK" && failed=$((failed+1))
  rm "$out/$1.line" "$out/$1.span"
}

# sanline: the summary line of one tool's log: the exit status, the count
# of its ERROR SUMMARY line (racecheck's: the errors of its RACECHECK
# SUMMARY line, where it prints no ERROR SUMMARY), the errors that are
# CUDA API errors ("Program hit ... on CUDA API call"), the tests passed
# and failed (subtests included), seconds, and racecheck's hazards and
# warnings, memcheck's bytes leaked; errors=missing where no summary
# line was printed (the run was killed or crashed).
sanline() { # tool rc secs log
  awk -v tool="$1" -v rc="$2" -v secs="$3" -v file="$(basename "$4")" '
    /^========= ERROR SUMMARY: [0-9]+ errors?$/ && err == "" { err = $4 }
    /^========= RACECHECK SUMMARY: / { s = $0; sub(/.*SUMMARY: /, "", s); split(s, a, /[^0-9]+/); hazards = a[1]; rerr = a[2]; warn = a[3] }
    /^========= LEAK SUMMARY: [0-9]+ bytes/ { leak = $4 }
    /^========= Program hit .* on CUDA API call to / { api++ }
    /^[ \t]*--- PASS/ { pass++ }
    /^[ \t]*--- FAIL/ { fail++ }
    END {
      e = err; if (e == "") e = rerr; if (e == "") e = "missing"
      printf "%-9s rc=%d errors=%s api-errors=%d passed=%d failed=%d secs=%d log=%s", tool, rc, e, api, pass, fail, secs, file
      if (hazards != "") printf " hazards=%s warnings=%s", hazards, warn
      if (leak != "") printf " leaked-bytes=%s", leak
      printf "\n"
    }' "$4"
}

# sanmerge: one tool's summary line from its shards' sanline lines, in
# shard order: rc the first that is not 0, errors, api-errors, passed,
# failed, secs, hazards, warnings and leaked-bytes summed (errors=missing
# where a shard's is missing, or fewer than want shards have a line),
# then wall-s, shards and log as given.
sanmerge() { # tool want wall log shard-lines
  awk -v tool="$1" -v want="$2" -v wall="$3" -v file="$4" '
    {
      n++
      for (i = 2; i <= NF; i++) { k = $i; sub(/=.*/, "", k); v = $i; sub(/^[^=]*=/, "", v); f[k] = v }
      if (rc == 0) rc = f["rc"] + 0
      if (f["errors"] == "missing") missing = 1; else errors += f["errors"]
      api += f["api-errors"]; pass += f["passed"]; fail += f["failed"]; secs += f["secs"]
      if ("hazards" in f) { hz = 1; hazards += f["hazards"]; warn += f["warnings"] }
      if ("leaked-bytes" in f) { lk = 1; leak += f["leaked-bytes"] }
      delete f
    }
    END {
      if (missing || n < want) errors = "missing"
      printf "%-9s rc=%d errors=%s api-errors=%d passed=%d failed=%d secs=%d wall-s=%d shards=%d log=%s", tool, rc, errors, api, pass, fail, secs, wall, want, file
      if (hz) printf " hazards=%d warnings=%d", hazards, warn
      if (lk) printf " leaked-bytes=%d", leak
      printf "\n"
    }' "$5"
}

# sanverdict: the summary's last line, "NAME ok" or "NAME NOT OK: ..."
# naming the tools whose line is not rc=0 errors=0 failed=0.
sanverdict() { # name summary-lines
  awk -v name="$1" '
    { n++ }
    !($2 == "rc=0" && $3 == "errors=0" && $6 == "failed=0") { bad = bad (bad == "" ? "" : ", ") $1 " (" $2 " " $3 " " $6 ")" }
    END { if (n == 0) print name " NOT OK: no tool ran"; else if (bad == "") print name " ok: " n " tools, 0 errors"; else print name " NOT OK: " bad }' "$2"
}

# regexquote prints s with the characters of Go's regular expressions
# escaped.
regexquote() { # s
  # shellcheck disable=SC2016
  printf '%s\n' "$1" | sed 's/[][\\.*+?^$(){}|]/\\&/g'
}

# refuse adds "NAME NOT OK: why" to OUTDIR/summary.txt and fails the
# stage.
refuse() { # name why
  echo "$1 NOT OK: $2" | tee -a "$summary"
  failed=$((failed+1))
}

# sanworker runs, one after another on the GPUs devices names, each job
# of the sanitizers stage that no other worker has taken; it takes job J
# by creating the folder queue/J. Job J is tool ${jtool[J]} over shard
# ${jshard[J]}, whose pattern is ${shardre[S]} (arrays of sanitizers).
sanworker() { # name queue devices
  local j
  for j in "${!jtool[@]}"; do
    mkdir "$2/$j" 2>/dev/null || continue
    santool "$1-${jtool[j]}-shard${jshard[j]}" "${jtool[j]}" "${shardre[${jshard[j]}]}" "$3"
  done
}

# sanitizers: the tools over the property suite of the variants regex
# matches, spread over the host's GPUs. The variants (properties.test
# -props.list) are dealt round-robin into shards, and each pair of a tool
# and a shard is a job: one compute-sanitizer process (santool) whose
# -props.variant is the shard's names, quoted and anchored. The GPUs
# ($SAN_GPUS, else nvidia-smi -L's) are taken per at a time, in order,
# into slots, each with a worker (sanworker) that runs the jobs no other
# has taken, one after another, CUDA_VISIBLE_DEVICES naming its GPUs, so
# no GPU runs two at once. Then OUTDIR/NAME-shards.txt, a line a job, and
# OUTDIR/NAME-summary.txt, a line a tool (sanmerge) and the verdict, its
# lines added to OUTDIR/summary.txt.
sanitizers() { # name regex per
  local name=$1 re=$2 per=$3 tools=${SAN_TOOLS:-memcheck racecheck synccheck initcheck} tool
  local gpus=() slots=() variants=() shardre=() shardnames=() jtool=() jshard=()
  local g i k s from list err queue lines t0 t1 wall pids=()
  for tool in $tools; do
    case $tool in
    memcheck|racecheck|synccheck|initcheck) ;;
    *) refuse "$name" "SAN_TOOLS names $tool: want memcheck, racecheck, synccheck or initcheck"; return ;;
    esac
  done
  [[ $tools =~ [^[:space:]] ]] || { refuse "$name" "SAN_TOOLS names no tool"; return; }
  if [ -n "${SAN_GPUS:-}" ]; then
    IFS=, read -ra gpus <<<"$SAN_GPUS"
    for g in "${gpus[@]}"; do
      [[ $g =~ ^[0-9]+$ ]] || { refuse "$name" "SAN_GPUS=$SAN_GPUS: $g is not a GPU index"; return; }
    done
    if [ "$(printf '%s\n' "${gpus[@]}" | sort | uniq -d)" != "" ]; then
      refuse "$name" "SAN_GPUS=$SAN_GPUS names a GPU twice"; return
    fi
    from="SAN_GPUS=$SAN_GPUS names ${#gpus[@]}"
  else
    mapfile -t gpus < <(nvidia-smi -L 2>/dev/null | sed -n 's/^GPU \([0-9][0-9]*\):.*/\1/p')
    from="nvidia-smi -L lists ${#gpus[@]}"
  fi
  if [ "${#gpus[@]}" -lt "$per" ]; then
    if [ "$per" = 1 ]; then refuse "$name" "needs a GPU, $from: not run"
    else refuse "$name" "needs $per GPUs or more, $from: not run"; fi
    return
  fi
  for ((i = 0; i + per <= ${#gpus[@]}; i += per)); do
    slots+=("$(IFS=,; echo "${gpus[*]:i:per}")")
  done
  err=$(mktemp)
  list=$(cd "$root/properties" && "$bin/properties.test" -props.list -props.variant="$re" 2>"$err")
  s=$?
  if [ $s != 0 ] || [ -z "$list" ]; then
    refuse "$name" "(cd properties && $(shellwords "$bin/properties.test" -props.list -props.variant="$re")) exited $s, listing no variant: $(head -c 300 "$err")"
    rm "$err"; return
  fi
  rm "$err"
  mapfile -t variants <<<"$list"
  k=${SAN_SHARDS:-${#slots[@]}}
  [[ $k =~ ^[1-9][0-9]*$ ]] || { refuse "$name" "SAN_SHARDS=$k: want a count of shards, 1 or more"; return; }
  [ "$k" -le "${#variants[@]}" ] || k=${#variants[@]}
  for i in "${!variants[@]}"; do
    s=$((i % k))
    shardre[s]+="${shardre[s]:+|}$(regexquote "${variants[i]}")"
    shardnames[s]+="${shardnames[s]:+,}${variants[i]}"
  done
  for ((s = 0; s < k; s++)); do shardre[s]="^(${shardre[s]})\$"; done
  for tool in $tools; do
    for ((s = 0; s < k; s++)); do jtool+=("$tool"); jshard+=("$s"); done
  done
  rm -f "$out/$name"-*-shard*.line "$out/$name"-*-shard*.span
  queue=$(mktemp -d)
  for g in "${slots[@]}"; do
    sanworker "$name" "$queue" "$g" &
    pids+=($!)
  done
  wait "${pids[@]}"
  rm -rf "$queue"
  lines=$out/$name-summary.lines
  {
    echo "# commit $commit, gpu: $gpu; $name: a line a job, a tool over a shard of the variants: its summary, the shard, its CUDA_VISIBLE_DEVICES and its variants"
    for tool in $tools; do
      for ((s = 0; s < k; s++)); do
        read -r _ _ g <"$out/$name-$tool-shard$s.span" 2>/dev/null || g=-
        echo "$(cat "$out/$name-$tool-shard$s.line" 2>/dev/null || printf '%-9s errors=missing' "$tool") shard=$s cuda-visible-devices=$g variants=${shardnames[s]}"
      done
    done
  } >"$out/$name-shards.txt"
  for tool in $tools; do
    # The tool's wall time: from its first job's start to its last one's end.
    wall=0
    if read -r t0 t1 < <(cat "$out/$name-$tool"-shard*.span 2>/dev/null | awk 'NR == 1 || $1 < a { a = $1 } NR == 1 || $2 > b { b = $2 } END { if (NR) print a, b }'); then
      wall=$((t1 - t0))
    fi
    for ((s = 0; s < k; s++)); do cat "$out/$name-$tool-shard$s.line" 2>/dev/null; done |
      sanmerge "$tool" "$k" "$wall" "$name-$tool-shard*.log" /dev/stdin
    rm -f "$out/$name-$tool"-shard*.line "$out/$name-$tool"-shard*.span
  done >"$lines"
  { echo "# commit $commit, gpu: $gpu; $name: compute-sanitizer over the property suite of $re (-props.n=${SAN_N:-5}): ${#variants[@]} variants in $k shards a tool, one process at a time on each of CUDA_VISIBLE_DEVICES=${slots[*]}"
    cat "$lines"; sanverdict "$name" "$lines"; } >"$out/$name-summary.txt"
  rm "$lines"
  tail -n +2 "$out/$name-summary.txt" | sed "/^$name /!s|^|$name: |" | tee -a "$summary"
  grep -q " NOT OK" "$out/$name-summary.txt" && failed=$((failed+1))
}

# ncusummary writes OUTDIR/NAME.md, ncusum's table of OUTDIR/NAME.csv,
# and adds "NAME ok: K kernels, L launches profiled; table in NAME.md" to
# OUTDIR/summary.txt, or "NAME NOT OK: " and why (no table written),
# failing the stage.
ncusummary() { # name
  local name=$1 err k l
  if [ ! -x "$bin/ncusum" ]; then
    refuse "$name" "no $bin/ncusum (make gpu-bins builds it); ncu's CSV is in $name.csv"
    return
  fi
  if ! err=$(cd "$out" && "$bin/ncusum" "$name.csv" 2>&1 >"$name.md"); then
    rm -f "$out/$name.md"
    refuse "$name" "$(printf '%s' "$err" | head -c 600 | tr '\n' ' ')"
    return
  fi
  read -r k l < <(cd "$out" && "$bin/ncusum" -tsv "$name.csv" | awk -F '\t' 'NR > 1 { k++; l += $4 } END { print k + 0, l + 0 }')
  echo "$name ok: $k kernels, $l launches profiled; table in $name.md" | tee -a "$summary"
}

# The faults stage's kernels: the correct example first, then every
# deliberately broken kernel.
faultkernels() {
  echo "$root/examples/kernels/direct.cu"
  ls "$root"/gpu/userkernel/testdata/broken/*.cu
}

# faultsummary: OUTDIR/faults-summary.txt from the faults stage's run
# file: a line a kernel, then the sweep's "# fault" lines, then the
# verdict; its lines are added to OUTDIR/summary.txt. It returns 1 unless
# every kernel is as expected: the correct one (no "// expect refusal: "
# line) proven, with no failed case and $count result lines for each of
# its cases; each broken one refused with every text its expect lines
# name, and not timed.
faultsummary() { # count kernel...
  local count=$1 file k name verdict e bad=0 n=0 why lines fails cases full
  shift
  file=$(ls -t "$out"/faults/*/*.txt 2>/dev/null | head -1)
  {
    echo "# commit $commit, gpu: $gpu; faults: the sweep's verdict on each user kernel, from ${file:-no run file}"
    for k in "$@"; do
      n=$((n+1))
      name=$(sed -n 's|^// name: *||p' "$k" | head -1)
      [ -n "$name" ] || name=user-$(basename "$k" .cu)
      verdict=
      # The verdict, not the line before it naming the kernel's file.
      [ -n "$file" ] && verdict=$(grep -m1 -E "^# user kernel $name: (passed the property suite|refused: )" "$file" | sed "s|^# user kernel $name: ||")
      lines=0; fails=0; cases=0; full=0
      if [ -n "$file" ]; then
        lines=$(grep -c "^BenchmarkConv/variant=$name/.* ns/op" "$file")
        fails=$(grep -c "^--- FAIL: BenchmarkConv/variant=$name/" "$file")
        # The cases, and those with $count result lines.
        read -r cases full < <(grep "^BenchmarkConv/variant=$name/.* ns/op" "$file" |
          awk -v count="$count" '{ n[$1]++ } END { for (c in n) { all++; if (n[c] == count) ok++ } print all + 0, ok + 0 }')
      fi
      why=
      if ! grep -q '^// expect refusal: ' "$k"; then
        case $verdict in
        "passed the property suite"*) ;;
        *) why="want it proven, got: ${verdict:-no verdict line}" ;;
        esac
        if [ -z "$why" ] && { [ "$fails" != 0 ] || [ "$cases" = 0 ] || [ "$cases" != "$full" ]; }; then
          why="want $count result lines for each case and no failed case: $fails failed, $cases cases, $full of them with $count lines"
        fi
        [ -n "$why" ] || echo "$name ok: proven; $cases cases, $count result lines each"
      else
        case $verdict in
        refused:*) ;;
        *) why="want it refused, got: ${verdict:-no verdict line}" ;;
        esac
        while IFS= read -r e; do
          [ -n "$why" ] && break
          [[ $verdict == *"$e"* ]] || why="want a refusal that says \"$e\", got: $verdict"
        done < <(sed -n 's|^// expect refusal: *||p' "$k")
        [ -z "$why" ] && [ "$lines" != 0 ] && why="refused, but $lines result lines were timed"
        [ -n "$why" ] || echo "$name ok: ${verdict:0:600}"
      fi
      if [ -n "$why" ]; then bad=$((bad+1)); echo "$name WRONG: ${why:0:600}"; fi
    done
    [ -n "$file" ] && grep '^# fault ' "$file"
    if [ -z "$file" ]; then echo "faults NOT OK: the sweep wrote no run file (see faults.log)"
    elif [ $bad = 0 ]; then echo "faults ok: $n kernels as expected"
    else echo "faults NOT OK: $bad of $n kernels not as expected"; fi
  } >"$out/faults-summary.txt"
  tail -n +2 "$out/faults-summary.txt" | tee -a "$summary"
  ! grep -q '^faults NOT OK' "$out/faults-summary.txt"
}

failed=0
san="compute-sanitizer --error-exitcode 3"
# The GPU variants of the sanitizer stages (see sanitizers above).
sanre='^(gpu-|npp|cudnn|auto$|auto-bf16$)'
[ -n "${SAN_VARIANT:-}" ] && sanre=$SAN_VARIANT
for stage in "$@"; do
  case $stage in
  tests)
    # Every package's test binary at once, at most one per core, as `go
    # test ./...` runs them; then OUTDIR/tests-summary.txt.
    cache=warm; [ -n "$(ls -A "$CONVBENCH_CACHE_DIR" 2>/dev/null)" ] || cache=cold
    export CONVBENCH_COMPILE_LOG=$out/compiles.log
    { echo "# commit $commit, gpu: $gpu"; echo "# command: the NVRTC compiles of the tests stage, one line each (CONVBENCH_COMPILE_LOG)"; } >"$CONVBENCH_COMPILE_LOG"
    module=$(awk '/^module /{print $2; exit}' "$root/go.mod")
    jobs=${TEST_JOBS:-$(nproc)}
    t0=$(date +%s)
    logs=()
    for p in $TESTPKGS; do
      n=${p%%:*}; d=${p#*:}
      [ -x "$bin/$n.test" ] || continue
      logs+=("$out/test-$n.log")
      while [ "$(jobs -rp | wc -l)" -ge "$jobs" ]; do wait -n; done
      testpkg "$n" "$d" "$module" &
    done
    wait
    wall=$(( $(date +%s) - t0 ))
    { for p in $TESTPKGS; do n=${p%%:*}; [ -f "$out/test-$n.line" ] && cat "$out/test-$n.line" && rm "$out/test-$n.line"; done
      echo "total wall-s=$wall cache=$cache"; } >"$out/tests-summary.txt"
    grep -q ' fail=[1-9]' "$out/tests-summary.txt" && failed=$((failed+1))
    tee -a "$summary" <"$out/tests-summary.txt"
    testsreport ${logs[@]+"${logs[@]}"}
    unset CONVBENCH_COMPILE_LOG ;;
  sanitizers|props-sanitizers)
    sanitizers sanitizers "$sanre" 1 ;;
  sanitizers-slabs)
    sanitizers sanitizers-slabs "${SAN_SLAB_VARIANT:-^gpu-(slab|stream)}" 2 ;;
  memcheck)
    run memcheck-cudabind cudabind $san --tool memcheck --leak-check full "$bin/cudabind.test" -test.v -test.run GPU
    run memcheck-variants gpu/variants $san --tool memcheck --leak-check full "$bin/variants.test" -test.v -test.short
    sanone memcheck-props memcheck "$sanre" ;;
  racecheck)
    run racecheck-variants gpu/variants $san --tool racecheck "$bin/variants.test" -test.v -test.short
    sanone racecheck-props racecheck "$sanre"
    sanone synccheck-props synccheck "$sanre" ;;
  faults)
    # One sweep over every kernel (see the stage's description above).
    mapfile -t kernels < <(faultkernels)
    kargs=()
    for k in "${kernels[@]}"; do kargs+=(-kernel "$k"); done
    before=$failed
    # Temporary files, the output of a shrinking child killed at its
    # limit among them (convtest-child-*.txt), stay with the stage's logs.
    mkdir -p "$out/faults-tmp"
    TMPDIR=$out/faults-tmp run faults . "$bin/sweep" -bin "$bin/benchmarks.test" -data "$out/faults" -variants 'user-.*' -sizes "${FAULTS_SIZES:-512x512}" -filters gauss3,gauss5 -types f32 -count "${FAULTS_COUNT:-2}" -max-time 0.5s -case-timeout "${FAULTS_CASE_TIMEOUT:-20s}" -prove-timeout "${FAULTS_PROVE_TIMEOUT:-2m}" "${kargs[@]}"
    failed=$before # the sweep fails the broken kernels' cases by design
    faultsummary "${FAULTS_COUNT:-2}" "${kernels[@]}" || failed=$((failed+1)) ;;
  props)
    run props-gpu properties "$bin/properties.test" -test.v -test.timeout 9m -props.variant="${PROPS_VARIANT:-^(gpu-|npp|cudnn)}" -props.n=${PROPS_N:-30} -props.time=${PROPS_TIME:-0} ${PROPS_SEED:+-props.seed=$PROPS_SEED} ;;
  tune)
    mkdir -p "$out/tuning"
    cp "$root"/tables/tuning/*.json "$out/tuning/" 2>/dev/null
    run tune . "$bin/tune" -variants "${TUNE_VARIANTS:-gpu-regtile,gpu-tiled,gpu-sepfused}" -k "${TUNE_K:-3,5,7,11,21}" -sizes "${TUNE_SIZES:-large}" -time "${TUNE_TIME:-165s}" -budget "${TUNE_BUDGET:-24}" -case-timeout "${TUNE_CASE_TIMEOUT:-2m}" -commit "$commit" -out "$out/tuning" ;;
  tune-props)
    tables=; [ -d "$out/tuning" ] && tables=$(cd "$out/tuning" && pwd)
    run tune-props tune env ${tables:+CONVBENCH_TUNING=$tables} "$bin/tune.test" -test.v -test.timeout 9m -test.run 'TestTunedProperties|TestTuneGPU' -tune.props -convtest.time=0 -convtest.n=${PROPS_N:-60} ;;
  gallery)
    tmp=$(mktemp -d)
    run gallery . "$bin/gallery" -data "$root/results/data" -out "$tmp/gallery"
    tar -C "$tmp" -cf "$out/gallery.tar" gallery && rm -rf "$tmp" ;;
  crossover)
    table=
    if [ "${CROSS_TABLE:-}" != embedded ]; then
      run crossover-paths . "$bin/sweep" -bin "$bin/benchmarks.test" -data "$out/crossover-paths" -count 1 -max-time=${CROSS_PATHS_TIME:-0.1s} -sweep=crossover -variants "${CROSS_PATHS:-gpu-regtile|gpu-tiled|gpu-sepfused|gpu-separable|gpu-fft|gpu-tc-.*}"
      run crossover-table . "$bin/crossover" -out "$out/crossover" $(ls "$out"/crossover-paths/*/crossover*.txt 2>/dev/null)
      table=$out/crossover
    fi
    run sweep-crossover . env ${table:+CONVBENCH_CROSSOVER=$table} "$bin/sweep" -bin "$bin/benchmarks.test" -data "$out/data" -count ${COUNT:-2} ${NOISE:+-noise=$NOISE} ${MAX_TIME:+-max-time=$MAX_TIME} -sweep=crossover ;;
  sweep:*)
    run "sweep-${stage#sweep:}" . "$bin/sweep" -bin "$bin/benchmarks.test" -data "$out/data" -count ${COUNT:-5} ${NOISE:+-noise=$NOISE} ${MAX_TIME:+-max-time=$MAX_TIME} ${SWEEP_ARGS:-} ;;
  ncu:*)
    # Nsight Compute over the cases NCU_BENCH names (see the stage's
    # description above).
    name=ncu-${stage#ncu:}
    if [ -z "${NCU_BENCH:-}" ]; then
      refuse "$name" "NCU_BENCH is empty: set it to a -test.bench regex naming the cases to profile, such as 'BenchmarkConv/variant=gpu-regtile/size=4096x4096/filter=dense11/'; not run"
      continue
    fi
    if ! command -v ncu >/dev/null 2>&1; then
      refuse "$name" "ncu is not on PATH; not run"
      continue
    fi
    nk=(); [ -n "${NCU_KERNEL:-}" ] && nk=(-k "regex:$NCU_KERNEL")
    for sec in ${NCU_SECTIONS:-}; do nk+=(--section "$sec"); done
    [ -n "${NCU_METRICS:-}" ] && nk+=(--metrics "$NCU_METRICS")
    # shellcheck disable=SC2086
    runto "$out/$name.csv" "$name" benchmarks ncu --clock-control none --section SpeedOfLight --csv --page details --launch-skip "${NCU_SKIP:-2}" --launch-count "${NCU_COUNT:-3}" ${nk[@]+"${nk[@]}"} "$bin/benchmarks.test" -test.run '^$' -test.bench "$NCU_BENCH" -test.benchtime 1x -test.count 1 -test.cpu 1 -test.timeout 0 -max-time="${NCU_MAX_TIME:-20ms}" ${NCU_ARGS:-}
    ncusummary "$name" ;;
  shards:*)
    # One sweep of the preset split over the GPUs (see the stage's
    # description above), then its shards merged.
    preset=${stage#shards:}
    if [ -n "${SHARD_GPUS:-}" ]; then
      IFS=, read -ra sg <<<"$SHARD_GPUS"
    else
      mapfile -t sg < <(nvidia-smi -L 2>/dev/null | sed -n 's/^GPU \([0-9][0-9]*\):.*/\1/p')
    fi
    if [ "${#sg[@]}" = 0 ]; then
      refuse "shards-$preset" "needs a GPU: SHARD_GPUS is empty and nvidia-smi -L lists none; not run"
      continue
    fi
    n=${SHARDS:-${#sg[@]}} first=${SHARD_FIRST:-1} pids=()
    if ! [[ $n =~ ^[1-9][0-9]*$ && $first =~ ^[1-9][0-9]*$ ]] || [ $((first + ${#sg[@]} - 1)) -gt "$n" ]; then
      refuse "shards-$preset" "SHARDS=$n SHARD_FIRST=$first with ${#sg[@]} GPUs: want shards $first to $((first + ${#sg[@]} - 1)) of $n to be shards; not run"
      continue
    fi
    for i in "${!sg[@]}"; do
      k=$((first + i))
      # shellcheck disable=SC2086
      ( export CUDA_VISIBLE_DEVICES=${sg[i]}
        run "shards-$preset-$k-of-$n" . "$bin/sweep" -bin "$bin/benchmarks.test" -data "$out/data" -count ${COUNT:-5} ${NOISE:+-noise=$NOISE} ${MAX_TIME:+-max-time=$MAX_TIME} -sweep="$preset" -shard $k/$n
        exit $failed ) &
      pids+=($!)
    done
    for p in "${pids[@]}"; do wait "$p" || failed=$((failed+1)); done
    shopt -s nullglob
    parts=("$out"/data/*/"$preset".shard-*-of-$n.txt)
    shopt -u nullglob
    if [ "${#parts[@]}" = 0 ]; then
      refuse "shards-$preset" "no shard wrote a run under $out/data; the shards' logs say why"
      continue
    fi
    if [ "$first" != 1 ] || [ "${#sg[@]}" != "$n" ]; then
      echo "shards-$preset: shards $first to $((first + ${#sg[@]} - 1)) of $n run here; join all $n with: sweep -merge DATA/<gpu>/$preset.shard-*-of-$n.txt" | tee -a "$summary"
      continue
    fi
    run "shards-$preset-merge" . "$bin/sweep" -merge "${parts[@]}" ;;
  bench:*)
    preset=${stage#bench:}
    run "bench-$preset" benchmarks "$bin/benchmarks.test" -test.run '^$' -test.bench . -test.cpu 1 -test.count ${COUNT:-5} -test.benchtime 1x -test.timeout 0 -sweep=$preset $cap ${NOISE:+-noise=$NOISE} ${MAX_TIME:+-max-time=$MAX_TIME} ;;
  kernel:*)
    file=${stage#kernel:}
    run "kernel-$(basename "$file" .cu)" . "$bin/sweep" -bin "$bin/benchmarks.test" -kernel "$root/$file" -variants "${KERNEL_VARIANTS:-user-.*|gpu-naive|gpu-tiled}" ${KERNEL_AXES:--sizes 2048x2048 -filters gauss5,dense9 -types u8,f32} -count ${COUNT:-3} -data "$out/data" ;;
  *) echo "unknown stage $stage" >&2; exit 2 ;;
  esac
done
[ $failed = 0 ] || echo "$failed stage command(s) failed" | tee -a "$summary"
exit $((failed > 0))
