#!/usr/bin/env bash
# The GPU machine's checks that need the full build (GUI, lessons): run from the repository
# root there, with the GUI bundle carried in .gpu-gui/ (../shared/tools/gpu-gui-bundle
# build; the GPU machine brings cudart, cuBLAS, NVRTC and CUPTI, so keep those out of it).
# Its warpscope is the one built here, so it needs no build there. Writes to $OUT:
#   recording.json   `record` with the lessons' configurations (the device build has no
#                    md4c, so its `record` cannot read lessons)
#   latency.json     `latency --backend cuda`: the window's worker, p50 / p95
#   *.png            the window on the GPU
#   summary.txt      one line a step, with its time
#   logs.tar.gz      each step's log, lessons' checks, and ncu/ (Nsight Compute's counters
#                    against the model; WS_NCU_ONLY narrows it), re-packed after every step
# Steps: record lessons window latency ncu (all by default; name some to run those).
set -uo pipefail
cd "$(dirname "$0")/.."
OUT=${OUT:-$PWD/device-out}
L=/tmp/warpscope-bundle-logs
mkdir -p "$OUT" "$L"
G=/tmp/warpscope-gui
if [[ ! -x $G/run.sh ]]; then
  mkdir -p "$G" && tar xJf .gpu-gui/bundle.tar.xz -C "$G" || { echo "no .gpu-gui/bundle.tar.xz" >&2; exit 2; }
fi
W="$G/run.sh warpscope"
steps=("$@")
[[ ${#steps[@]} -eq 0 ]] && steps=(record lessons window latency ncu)
want() { local s; for s in "${steps[@]}"; do [[ $s == "$1" ]] && return 0; done; return 1; }
status=0
step() {  # step NAME CMD...: output to $OUT/NAME.log, one line to summary.txt
  local name=$1 t0=$SECONDS rc; shift
  "$@" > "$L/$name.log" 2>&1; rc=$?
  echo "[$name] rc=$rc ($((SECONDS - t0)) s)" | tee -a "$OUT/summary.txt"
  [[ $rc -eq 0 ]] || status=1
  tar czf "$OUT/logs.tar.gz" -C "$L" .
}
lessons() {
  local f rc=0
  for f in lessons/[0-9]*.md; do
    timeout 120 $W lesson --check "$f" --backend cuda || rc=1
  done
  return $rc
}
window() {
  local rc=0 t0
  t0=$SECONDS
  $W gui --backend cuda --kernel reduce --variant interleaved_modulo --set n=33554432 \
    --hardware --sass --view window --size 1600x1000 --screenshot "$OUT/h100-reduce-modulo.png" || rc=1
  echo "reduce, n = 2^25, CUPTI counters and SASS: $((SECONDS - t0)) s"; t0=$SECONDS
  $W gui --backend cuda --lesson lessons/05-reduction.md --view window --size 1280x720 \
    --screenshot "$OUT/h100-lesson05-1280x720.png" || rc=1
  echo "lesson 05 at 1280x720: $((SECONDS - t0)) s"
  return $rc
}
want record && step record $W record --backend cuda --repeats "${WS_RECORD_REPEATS:-10}" --lessons lessons \
  --out "$OUT/recording.json" --force
want lessons && step lessons lessons
want window && step window window
want latency && step latency sh -c "timeout 150 $W latency --backend cuda --runs 5 --json > $OUT/latency.json"
want ncu && step ncu timeout "${WS_NCU_TIMEOUT:-240}" "$G/run.sh" python3 scripts/ncu_compare.py \
  --warpscope "$G/bin/warpscope" --out "$L/ncu" ${WS_NCU_ONLY:+--only $WS_NCU_ONLY}
exit $status
