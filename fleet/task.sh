#!/usr/bin/env bash
# task.sh JOBDIR: one task of a fleet job, as Slurm runs it (sbatch
# --array=INDEX, the task's number in the job), or as fleet submit -local
# runs it on the submitting host (SLURM_ARRAY_TASK_ID set the same way). fleet submit writes this
# script into JOBDIR with everything the task reads there, so that a node
# needs no Go and no checkout of its own:
#
#   JOBDIR/job          one setting a line: mode=sweep|tests, gpu=1|0 (1: a
#                       GPU was asked for, and a task that finds none fails),
#                       tree=DIR (the tree the tests run in)
#   JOBDIR/sweep.args   the sweep command's arguments, one a line
#   JOBDIR/bin/         the prebuilt binaries (make gpu-bins): sweep,
#                       benchmarks.test, the *.test of the tests run and
#                       gpurun, which runs them, COMMIT
#   JOBDIR/tree/        where the sweep runs: a go.mod, so that it finds its
#                       root without git, and benchmarks/
#
# The task writes under JOBDIR/tasks/INDEX/: its run (data/SLUG/ for a
# sweep, tests/ for the tests run, as scripts/gpu-run.sh writes it), and on
# exit its record, one key=value a line: node, exit, slug, reason, end. Its
# log (the Slurm output) is JOBDIR/tasks/INDEX/log. SLUG is the GPU's slug,
# or for a run without a GPU the host's: the CPU's slug and the node's name.
#
# FLEET_FAIL_TASKS, a comma list of task numbers in the environment of the
# submission, makes those tasks fail at once with exit code 42: the fault
# path, tried without breaking anything.
set -u
job=${1:?usage: task.sh JOBDIR}
i=${SLURM_ARRAY_TASK_ID:?task.sh runs as a Slurm array task}
dir=$job/tasks/$i
node=${SLURMD_NODENAME:-$(hostname)}
slug=

setting() { sed -n "s/^$1=//p" "$job/job" | head -n 1; }
slugify() { tr 'A-Z' 'a-z' | sed -E 's/[^a-z0-9]+/-/g; s/^-+//; s/-+$//'; }
cpuslug() { echo "cpu $(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -n 1) $node" | slugify; }

finish() { # EXIT REASON: write the record and end the task
  echo "# fleet task $i: exit $1${2:+ ($2)}, $(date -u +%FT%TZ)"
  printf 'node=%s\nexit=%s\nslug=%s\nreason=%s\nend=%s\n' "$node" "$1" "$slug" "$2" "$(date -u +%FT%TZ)" >"$dir/record.tmp" &&
    mv "$dir/record.tmp" "$dir/record"
  exit "$1"
}
trap 'finish 143 "terminated: cancelled, or past its time limit"' TERM

mode=$(setting mode)
gpu=$(setting gpu)
echo "# fleet task $i of $job on node $node ($(hostname)), mode $mode, gpu $gpu, $(date -u +%FT%TZ)"

case ",${FLEET_FAIL_TASKS:-}," in
*",$i,"*) finish 42 "failed on purpose: FLEET_FAIL_TASKS=$FLEET_FAIL_TASKS" ;;
esac

if [ "$gpu" = 1 ]; then
  command -v nvidia-smi >/dev/null || finish 3 "no GPU on $node: nvidia-smi not found"
  gpus=$(nvidia-smi -L 2>&1)
  echo "$gpus" | grep -q '^GPU ' || finish 3 "no GPU on $node: nvidia-smi -L: $(echo "$gpus" | head -n 1)"
  echo "$gpus"
  slug=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -n 1 | slugify)
fi

case $mode in
sweep)
  mapfile -t args <"$job/sweep.args"
  # GIT_CEILING_DIRECTORIES keeps the sweep from taking a checkout above
  # the job directory for its root: its root is JOBDIR/tree.
  (cd "$job/tree" && GIT_CEILING_DIRECTORIES=$job "$job/bin/sweep" -bin "$job/bin/benchmarks.test" -data "$dir/data" "${args[@]}")
  rc=$?
  ran=$(ls "$dir/data" 2>/dev/null | head -n 1)
  [ -n "$ran" ] || finish $((rc == 0 ? 5 : rc)) "the sweep wrote no run"
  if [ "$gpu" = 1 ]; then
    case $ran in cpu-*) slug=$ran; finish 4 "a GPU was asked for but the sweep ran without one (its run is $ran)" ;; esac
    slug=$ran
  else
    slug=$(cpuslug)
    mv "$dir/data/$ran" "$dir/data/$slug" || finish 5 "cannot name the run $slug"
  fi
  [ $rc = 0 ] || finish $rc "the sweep exited $rc"
  finish 0 ""
  ;;
tests)
  [ "$gpu" = 1 ] || slug=$(cpuslug)
  tree=$(setting tree)
  (cd "$tree" && GPU_BIN=$job/bin scripts/gpu-run.sh "$dir/tests" tests)
  rc=$?
  [ $rc = 0 ] || finish $rc "the tests run exited $rc"
  finish 0 ""
  ;;
*) finish 2 "unknown mode '$mode' in $job/job" ;;
esac
