#!/usr/bin/env bash
# On the GPU machine, through the GUI bundle (scripts/device_bundle.sh unpacks it): student
# kernels on the CUDA backend. Every reference solution checked (its verdict and exit code),
# `puzzle --check --backend cuda` end to end timed (p50/p95 of WS_PUZZLE_RUNS, default 10),
# and hostile kernels that must fail their own check and leave the app alive. Writes
# $OUT/puzzles.log and one summary line to $OUT/summary.txt. WS_WARPSCOPE names another
# binary (the device build's, without the bundle); WS_PUZZLE_DIR the dialect's copies.
set -uo pipefail
cd "$(dirname "$0")/.."
OUT=${OUT:-$PWD/device-out}
G=/tmp/warpscope-gui
W=${WS_WARPSCOPE:-"$G/run.sh warpscope"}
log=$OUT/puzzles.log
: > "$log"
status=0
# The puzzles' plain CUDA solutions, unchanged on the GPU (NVRTC, launched by name).
D=${WS_PUZZLE_DIR:-puzzles}
for sol in "$D"/solutions/*; do
  id=$(basename "$sol"); id=${id%.*}
  p=$D/$id.md
  [[ -f $p ]] || continue
  $W puzzle --check "$p" --kernel "$sol" --backend cuda >> "$log" 2>&1
  rc=$?
  echo "solution $id ($sol): exit $rc" | tee -a "$log"
  [[ $rc -eq 0 ]] || status=1
done
# End to end, process start to verdict, of one puzzle-sized kernel.
p=$D/04-transpose-shared.md
sol=$(ls "$D"/solutions/04-transpose-shared.* | head -1)
times=()
for i in $(seq "${WS_PUZZLE_RUNS:-10}"); do
  t0=$EPOCHREALTIME
  $W puzzle --check "$p" --kernel "$sol" --backend cuda > /dev/null 2>&1
  times+=("$(awk -v a="$t0" -v b="$EPOCHREALTIME" 'BEGIN {printf "%.3f", b - a}')")
done
printf '%s\n' "${times[@]}" | sort -n | awk '{a[NR]=$1} END {printf "puzzle --check --backend cuda, end to end: p50 %.2f s, p95 %.2f s (%d runs)\n", a[int((NR+1)/2)], a[int(NR*0.95+0.999)], NR}' | tee -a "$log"
# Every starter fails its own check on the GPU (exit 1), as on the emulator.
for p in "$D"/[0-9]*.md; do
  $W puzzle --check "$p" --backend cuda >> "$log" 2>&1
  rc=$?
  echo "starter $(basename "$p" .md): exit $rc" | tee -a "$log"
  [[ $rc -eq 1 ]] || status=1
done
# Hostile kernels: each fails its own check (exit 1), the app stays alive and says why.
for k in tests/fixtures/grade/hostile_*; do
  [[ -f $k ]] || continue
  timeout 60 $W puzzle --check "$D"/01-strided-copy.md --kernel "$k" --backend cuda > "$OUT/hostile.txt" 2>&1
  rc=$?
  echo "hostile $(basename "$k") on cuda: exit $rc: $(grep -m1 -iE 'forbidden|failed|error|killed|limit' "$OUT/hostile.txt" | cut -c1-160)" | tee -a "$log"
  [[ $rc -eq 1 ]] || status=1
done
rm -f "$OUT/hostile.txt"
echo "[puzzles] rc=$status" >> "$OUT/summary.txt"
exit $status
