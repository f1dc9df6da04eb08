#!/usr/bin/env bash
# gpu-run.sh OUTDIR STAGE...: the GPU-host runner, cmd/gpurun, which runs
# the prebuilt binaries of make gpu-bins stage by stage on a GPU host
# without Go and keeps their raw logs. Run it from the repository root:
#
#   scripts/gpu-run.sh /tmp/out release     # the release check
#   scripts/gpu-run.sh /tmp/out tests faults
#
# It runs $GPU_BIN/gpurun (GPU_BIN defaults to .gpu, where make gpu-bins
# builds it), or on a host with Go and no such binary, ./cmd/gpurun built
# into a temporary folder.
# The stages and the variables they read are in docs/gpu-hosts.md,
# "Stages and their variables".
set -eu
bin=${GPU_BIN:-.gpu}
if [ -x "$bin/gpurun" ]; then
  exec "$bin/gpurun" "$@"
fi
if command -v go >/dev/null 2>&1; then
  tmp=$(mktemp -d)
  trap 'rm -rf "$tmp"' EXIT
  CGO_ENABLED=0 go build -o "$tmp/gpurun" ./cmd/gpurun
  "$tmp/gpurun" "$@" # its exit status is the script's
  exit 0
fi
echo "gpu-run.sh: no $bin/gpurun (make gpu-bins builds it) and no go command to run ./cmd/gpurun" >&2
exit 2
