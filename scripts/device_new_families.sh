#!/usr/bin/env bash
# On the GPU machine, after scripts/device_run.sh build: what a new family needs before it
# lands, for the families named in WS_FAMILIES (default: the second semester's and the
# puzzles' new ones): trace fixtures of every variant (tests/fixtures/gpu_traces/), the
# benchmark side by side with its peers (p50 of 20), Nsight Compute's counters against the
# model at the defaults and at the second parameter set (scripts/ncu_second_set.txt), and a partial
# recording to merge into the shipped one (scripts/recording_merge.py). Everything to $OUT.
set -uo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"
OUT=${OUT:-$root/device-out}
B=${WS_DEVICE_BUILD:-$root/build-device}
fams=${WS_FAMILIES:-"tensor async_copy scan stencil partial_histogram"}
mkdir -p "$OUT"
status=0
# WS_DEADLINE: seconds this script may take; each step gets at most what is left.
deadline=${WS_DEADLINE:-900}
left() { local l=$((deadline - SECONDS)); (( l > $1 )) && l=$1; (( l < 1 )) && l=1; echo $l; }
vars=$("$B/warpscope" list --json | python3 -c '
import json, sys
want = set(sys.argv[1].split())
for f in json.load(sys.stdin)["families"]:
    if f["family"] in want:
        for v in f["variants"]: print(f["family"] + "/" + v["name"])' "$fams")
echo "variants: $vars" | tee "$OUT/new_families.txt"
rm -rf "$OUT/gpu_traces"
timeout "$(left 120)" "$B/tests/record_traces" "$OUT/gpu_traces" $vars > "$OUT/fixtures.log" 2>&1 || status=1
tar czf "$OUT/gpu_traces.tar.gz" -C "$OUT" gpu_traces && rm -rf "$OUT/gpu_traces"
grep -iE "agree|differ|equal" "$OUT/fixtures.log" | tail -20 | tee -a "$OUT/new_families.txt"
for f in $fams; do
  (( SECONDS < deadline )) || break
  timeout "$(left 60)" "$B/warpscope" bench --kernel "$f" --all --peers --backend cuda --repeats 20 \
    > "$OUT/bench_$f.txt" 2>&1 || status=1
done
rec=(); for f in $fams; do rec+=(--kernel "$f"); done
timeout "$(left 150)" "$B/warpscope" record --backend cuda --lessons none "${rec[@]}" --force \
  --out "$OUT/part.json" > "$OUT/record.log" 2>&1 || status=1
only=$(echo "$vars" | tr '\n' ' ')
timeout "$(left 150)" python3 scripts/ncu_compare.py --warpscope "$B/warpscope" --out "$OUT/ncu_new" --only $only \
  > "$OUT/ncu_new.log" 2>&1 || status=1
# The second parameter set, one table (the same as scripts/device_run.sh ncu_second).
timeout "$(left 240)" python3 scripts/ncu_compare.py --warpscope "$B/warpscope" --out "$OUT/ncu_second" \
  --cases scripts/ncu_second_set.txt --timeout 120 > "$OUT/ncu_second.log" 2>&1 || status=1
cp "$OUT/ncu_second/ncu_summary.md" "$OUT/ncu_second.md" 2>/dev/null
echo "status $status" | tee -a "$OUT/new_families.txt"
exit $status
