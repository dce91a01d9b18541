#!/usr/bin/env bash
# On the GPU machine, through the GUI bundle (scripts/device_bundle.sh unpacks it): student
# kernels on the CUDA backend. Every reference solution checked (its verdict and exit code),
# the shipped plain-CUDA puzzles' solutions and starters on the emulator there, puzzle 04's
# time target WS_TIME_CHECKS times (all must pass), `puzzle --check --backend cuda` end to end timed (p50/p95 of WS_PUZZLE_RUNS, default 10),
# and hostile kernels that must fail their own check and leave the app alive. Writes
# $OUT/puzzles.log and one summary line to $OUT/summary.txt. WS_WARPSCOPE names another
# binary (the device build's, without the bundle); WS_PUZZLE_DIR the dialect's copies;
# WS_PUZZLE_STAGES names the parts to run (default: solutions emu time e2e starters hostile).
set -uo pipefail
cd "$(dirname "$0")/.."
OUT=${OUT:-$PWD/device-out}
G=/tmp/warpscope-gui
W=${WS_WARPSCOPE:-"$G/run.sh warpscope"}
log=$OUT/puzzles.log
: > "$log"
status=0
stages=" ${WS_PUZZLE_STAGES:-solutions emu time e2e starters hostile} "
want() { [[ $stages == *" $1 "* ]]; }
# The puzzles' plain CUDA solutions, unchanged on the GPU (NVRTC, launched by name).
D=${WS_PUZZLE_DIR:-puzzles}
want solutions && for sol in "$D"/solutions/*; do
  id=$(basename "$sol"); id=${id%.*}
  p=$D/$id.md
  [[ -f $p ]] || continue
  $W puzzle --check "$p" --kernel "$sol" --backend cuda >> "$log" 2>&1
  rc=$?
  echo "solution $id ($sol): exit $rc" | tee -a "$log"
  [[ $rc -eq 0 ]] || status=1
done
# The shipped (plain CUDA) puzzles on the emulator there: every solution meets every target
# (exit 0), every starter runs, verifies and misses one (exit 1).
want emu && for p in puzzles/[0-9][0-9]-*.md; do
  id=$(basename "$p" .md)
  sol=$(ls puzzles/solutions/"$id".cu* 2>/dev/null | head -1)
  $W puzzle --check "$p" --kernel "$sol" --backend emu >> "$log" 2>&1
  rc=$?
  echo "plain CUDA solution $id on emu: exit $rc" | tee -a "$log"
  [[ $rc -eq 0 ]] || status=1
  $W puzzle --check "$p" --backend emu >> "$log" 2>&1
  rc=$?
  echo "plain CUDA starter $id on emu: exit $rc (1 expected)" | tee -a "$log"
  [[ $rc -eq 1 ]] || status=1
done
# Time targets at the family's timing size (transpose n=8192), 3 rounds of 20 launches in
# turn with the reference: the reference solution of puzzle 04 must pass WS_TIME_CHECKS
# (default 20) of 20.
met=0
n=${WS_TIME_CHECKS:-20}
want time || n=0
sol04=$(ls "$D"/solutions/04-transpose-shared.* | head -1)
for i in $(seq "$n"); do
  $W puzzle --check "$D"/04-transpose-shared.md --kernel "$sol04" --backend cuda --json > "$OUT/t04.json" 2>> "$log"
  python3 -c 'import json,sys; j=json.load(open(sys.argv[1])); t=[x for x in j.get("targets",[]) if x["name"]=="time"]; print("time target:", t[0]["got"] if t else None, t[0].get("note","") if t else j.get("failure",""))' "$OUT/t04.json" >> "$log" 2>&1
  grep -q '"verdict": "all targets met"' "$OUT/t04.json" && met=$((met + 1))
done
rm -f "$OUT/t04.json"
want time && echo "puzzle 04's solution on cuda, time target at the timing size: $met of $n checks met" | tee -a "$log"
[[ $met -eq $n ]] || status=1
# End to end, process start to verdict, of one puzzle-sized kernel (03: no time target,
# whose rounds at the timing size 04 now pays for).
p=$D/03-pad-a-tile.md
sol=$(ls "$D"/solutions/03-pad-a-tile.* | head -1)
times=()
want e2e || WS_PUZZLE_RUNS=0
for i in $(seq "${WS_PUZZLE_RUNS:-10}"); do
  t0=$EPOCHREALTIME
  $W puzzle --check "$p" --kernel "$sol" --backend cuda > /dev/null 2>&1
  times+=("$(awk -v a="$t0" -v b="$EPOCHREALTIME" 'BEGIN {printf "%.3f", b - a}')")
done
want e2e && printf '%s\n' "${times[@]}" | sort -n | awk '{a[NR]=$1} END {printf "puzzle --check --backend cuda, end to end: p50 %.2f s, p95 %.2f s (%d runs)\n", a[int((NR+1)/2)], a[int(NR*0.95+0.999)], NR}' | tee -a "$log"
# Every starter fails its own check on the GPU (exit 1), as on the emulator.
want starters && for p in "$D"/[0-9]*.md; do
  $W puzzle --check "$p" --backend cuda >> "$log" 2>&1
  rc=$?
  echo "starter $(basename "$p" .md): exit $rc" | tee -a "$log"
  [[ $rc -eq 1 ]] || status=1
done
# Hostile kernels: each fails its own check (exit 1), the app stays alive and says why.
want hostile && for k in tests/fixtures/grade/hostile_*; do
  [[ -f $k ]] || continue
  timeout 60 $W puzzle --check "$D"/01-strided-copy.md --kernel "$k" --backend cuda > "$OUT/hostile.txt" 2>&1
  rc=$?
  echo "hostile $(basename "$k") on cuda: exit $rc: $(grep -m1 -iE 'forbidden|failed|error|killed|limit' "$OUT/hostile.txt" | cut -c1-160)" | tee -a "$log"
  [[ $rc -eq 1 ]] || status=1
done
rm -f "$OUT/hostile.txt"
echo "[puzzles] rc=$status" >> "$OUT/summary.txt"
exit $status
