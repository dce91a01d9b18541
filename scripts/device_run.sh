#!/usr/bin/env bash
# The one script for the GPU machine: builds warpscope (Release, native arch, no GUI),
# runs the GPU tests, records the trace fixtures, runs the benchmarks with their peers,
# holds Nsight Compute's counters against the model, runs compute-sanitizer, and dumps
# the SASS of one kernel. Everything lands under $OUT (default ./device-out), packed
# into a few files.
#
#   scripts/device_run.sh                 every stage
#   scripts/device_run.sh build tests     only those stages (the build is incremental)
#
#   WS_BENCH_ONLY=transpose scripts/device_run.sh bench   benchmarks of one family only
#   WS_BENCH_ONLY=matmul,transpose ...                     issue 26: every shape of matmul/tuned and transpose/vec4 (tiles 1, 2, 4 too) beside cuBLAS / memcpy (speed.md)
#   WS_BENCH_ONLY=new ...                                  the instr, histogram and 2^26 reduce benchmarks only
#   WS_BENCH_ONLY=tensor ...                               the transposes and the tensor family (against GemmEx)
#   WS_NCU_ONLY="transpose/tiled transpose/naive" ...       counters of those variants only
#   WS_TEST_FILTER=Cupti ... tests                          only the gpu tests matching it
#
#   WS_DEADLINE=<seconds of $SECONDS> stops starting new runs (sanitizer, hardware) after it.
#
# Stages: toolchain build tests fixtures calibrate probes sass record lessons bench ncu ncu_second ncu_noise
# sanitizer, and sass_record (assets/sass/ for the app: $OUT/sass.tar.gz) and hardware
# (CUPTI's counters against the model for every variant, two parameter sets, plus the
# concurrency probes); calibrate: the model's time against the measured one
# (docs/CALIBRATION.md). Each stage writes its log under $OUT/logs/ and one line to
# $OUT/summary.txt; a failing stage does not stop the next one. The exit code is 1 when any stage failed.
set -uo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"
OUT=${OUT:-$root/device-out}
B=${WS_DEVICE_BUILD:-$root/build-device}
# Logs collect outside $OUT and are re-packed into $OUT/logs.tar.gz after every stage,
# so a run cut short still brings back what it did, in few files.
LOGS=${WS_DEVICE_LOGS:-/tmp/warpscope-device/logs}
mkdir -p "$LOGS" "$OUT"
JOBS=$(nproc)
stages=("$@")
[[ ${#stages[@]} -eq 0 ]] && stages=(toolchain build tests fixtures sass record lessons bench ncu sanitizer)
status=0

note() { echo "$*" | tee -a "$OUT/summary.txt"; }
want() { local s; for s in "${stages[@]}"; do [[ $s == "$1" ]] && return 0; done; return 1; }
# run_stage NAME CMD...: runs CMD with its output in logs/NAME.log; notes pass/fail.
run_stage() {
  local name=$1; shift
  local t0=$SECONDS
  "$@" >"$LOGS/$name.log" 2>&1
  local rc=$?
  if [[ $rc -eq 0 ]]; then note "[$name] ok ($((SECONDS - t0)) s)"
  else note "[$name] FAILED rc=$rc ($((SECONDS - t0)) s): see logs/$name.log"; status=1; fi
  cp "$OUT/summary.txt" "$LOGS/" 2>/dev/null
  tar czf "$OUT/logs.tar.gz" -C "$(dirname "$LOGS")" "$(basename "$LOGS")"
  return $rc
}

# The variants of the catalogue, one "family variant" per line.
variants() {
  "$B/warpscope" list --json | python3 -c '
import json, sys
d = json.load(sys.stdin)
for f in d["families"]:
    for v in f["variants"]:
        print(f["family"], v["name"])'
}

toolchain() {
  nvidia-smi
  nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,clocks.max.sm,clocks.max.mem,power.draw,temperature.gpu --format=csv
  nvcc --version
  cmake --version | head -1
  g++ --version | head -1
  for t in ncu compute-sanitizer cuobjdump nvdisasm; do echo "$t: $(command -v $t || echo MISSING)"; done
  ncu --version | tail -1
  compute-sanitizer --version | tail -1
  python3 --version
}

build() {
  # The GPU machine has no libclang-14-dev or libseccomp-dev: .dev/ carries their headers
  # (and libseccomp.a) from here when present (WS_DEVICE_CMAKE_ARGS adds more).
  local extra=()
  [[ -d $root/.dev/clang-include/clang-c ]] && extra+=(-DWS_LIBCLANG_INCLUDE="$root/.dev/clang-include")
  [[ -f $root/.dev/seccomp/lib/libseccomp.a ]] &&
    extra+=(-DWS_SECCOMP_INCLUDE="$root/.dev/seccomp/include" -DWS_SECCOMP_LIB="$root/.dev/seccomp/lib/libseccomp.a")
  cmake -S "$root" -B "$B" -G Ninja -DCMAKE_BUILD_TYPE=Release -DWS_ENABLE_GUI=OFF \
    -DCMAKE_CUDA_ARCHITECTURES=native -DWS_BUILD_BENCH=OFF "${extra[@]}" ${WS_DEVICE_CMAKE_ARGS:-} || return 1
  # Only what the device needs: the CLI, the GPU tests, the fixture recorder.
  # test_user_nvrtc: student kernels through NVRTC and the GPU runner (warpscope-gpu-run);
  # the sandbox's and the grader's tests, and the CUDA front end's NVRTC tests.
  # test_gpu_timing: a time target's runs (inputs made and the output checked on the device).
  ninja -C "$B" -j"$JOBS" warpscope tests/test_cuda_backend tests/test_cuda_dialect \
    tests/record_traces tests/test_gpu_fixtures tests/test_cupti tests/test_user_nvrtc tests/test_gpu_timing warpscope-gpu-run \
    ${WS_DEVICE_TARGETS:-}
}

tests() {
  # Several at once: the emulator side is CPU-bound and the GPU has room to spare.
  (cd "$B" && ctest -L gpu ${WS_TEST_FILTER:+-R "$WS_TEST_FILTER"} --output-on-failure -j"${WS_TEST_JOBS:-8}" --timeout 400)
}

fixtures() {
  rm -rf "$OUT/gpu_traces"
  "$B/tests/record_traces" "$OUT/gpu_traces"
  local rc=$?
  tar czf "$OUT/gpu_traces.tar.gz" -C "$OUT" gpu_traces && rm -rf "$OUT/gpu_traces"
  return $rc
}

# The fast build's SASS of the tiled transpose (tile 32, block_rows 8: its defaults): plain
# LDG/STS/LDS/STG, nothing else, the loads unrolled ahead of the BAR.
sass() {
  local obj
  obj=$(find "$B" -name 'fast_transpose.cu.o' | head -1)
  cuobjdump -sass "$obj" > "$LOGS/sass_fast_all.txt" || return 1
  python3 - "$LOGS/sass_fast_all.txt" <<'EOF'
import re, sys
text = open(sys.argv[1]).read()
funcs = re.split(r'\n(?=\s*Function : )', text)
for f in funcs:
    if f.strip() and '14TransposeTiledILi32ELi8EE' in f.strip().splitlines()[0]:
        print(f)
        ops = re.findall(r'/\*[0-9a-f]{4}\*/\s+(?:@!?U?P\d\s+)?([A-Z][A-Z0-9._]+)', f)
        mem = [o for o in ops if o.split('.')[0] in ('LDG', 'STG', 'LDS', 'STS', 'BAR', 'ATOM', 'ATOMS', 'RED', 'LDL', 'STL')]
        print('memory/barrier instructions:', ' '.join(mem))
        print('instructions in all:', len(ops))
EOF
  # The traced build of the same kernel, for comparison (size only).
  obj=$(find "$B" -name 'traced_transpose.cu.o' | head -1)
  cuobjdump -res-usage "$obj" 2>/dev/null | grep -A1 14TransposeTiledILi32ELi8EE | head -4
  obj=$(find "$B" -name 'fast_transpose.cu.o' | head -1)
  cuobjdump -res-usage "$obj" 2>/dev/null | grep -A1 14TransposeTiledILi32ELi8EE | head -4
}

# The fast build's SASS with line information, for the app (assets/sass/<family>.sass).
sass_record() {
  local obj work=/tmp/warpscope-device/sass_work cubin fams
  rm -rf "$work" && mkdir -p "$work"
  : > "$work/fast.nvdisasm"
  : > "$work/res_usage.txt"
  # One object per family (kernels/catalogue/family_unit.in): every one's cubin, in turn.
  for obj in $(find "$B" -name 'fast_*.cu.o' -path '*units*' | sort); do
    rm -f "$work"/*.cubin
    (cd "$work" && cuobjdump -xelf all "$obj") || return 1
    cubin=$(ls "$work"/*.cubin | head -1)
    echo "cubin: $obj -> $cubin"
    { nvdisasm -c -gi "$cubin" 2> "$work/nvdisasm.err" || nvdisasm -c -g "$cubin"; } >> "$work/fast.nvdisasm" || return 1
    cuobjdump -res-usage "$obj" >> "$work/res_usage.txt" || return 1
  done
  head -c 3000 "$work/fast.nvdisasm"
  fams=$("$B/warpscope" list --json | python3 -c '
import json, sys
d = json.load(sys.stdin)
print(json.dumps({f["family"]: f["variants"][0]["source_file"] for f in d["families"]}))')
  echo "families: $fams"
  rm -rf "$OUT/sass"
  python3 "$root/scripts/sass_record.py" --root "$root" --nvdisasm "$work/fast.nvdisasm" \
    --res-usage "$work/res_usage.txt" --arch "$(basename "$cubin" | grep -o 'sm_[0-9a-z]*')" \
    --compiler "$(nvcc --version | grep -o 'V[0-9][0-9.]*' | tr -d V)" --families "$fams" \
    --out "$OUT/sass" || return 1
  gzip -c "$work/fast.nvdisasm" > "$LOGS/fast.nvdisasm.gz"
  tar czf "$OUT/sass.tar.gz" -C "$OUT" sass && rm -rf "$OUT/sass"
}

hardware() {
  local dl=0
  [[ -n ${WS_DEADLINE:-} ]] && dl=$(( $(date +%s) + WS_DEADLINE - SECONDS ))
  python3 "$root/scripts/hardware_table.py" --warpscope "$B/warpscope" --out "$LOGS/hardware" \
    --runs "${WS_HW_RUNS:-5}" --deadline "$dl" ${WS_HW_ONLY:+--only $WS_HW_ONLY}
}

bench() {
  local w="$B/warpscope" o="$LOGS/bench" rc=0
  mkdir -p "$o"
  "$w" info --backend cuda || return 1
  "$w" bench --kernel transpose --set n=8192 --peers --repeats 20 --backend cuda --json "$o/transpose.json" || rc=1
  "$w" bench --kernel transpose --variant tiled --set n=8192 --sweep pad=0,1 --repeats 20 --backend cuda --json "$o/transpose_pad.json" || rc=1
  "$w" bench --kernel transpose --variant naive --set n=8192 --sweep block_rows=8,16,32 --repeats 20 --backend cuda --json "$o/transpose_naive.json" || rc=1
  "$w" bench --kernel transpose --variant tiled --set n=8192 --set pad=1 --sweep block_rows=2,4,8,16 --repeats 20 --backend cuda --json "$o/transpose_rows.json" || rc=1
  # Issue 26's rungs, side by side with their peers in one run (p50 of 20): every variant,
  # transpose/vec4's shapes and every compiled shape of matmul/tuned (one bench each, so
  # cuBLAS is timed beside each); summary in speed.md.
  if [[ -z ${WS_BENCH_ONLY:-} || ,${WS_BENCH_ONLY}, == *,transpose,* ]]; then
  "$w" bench --kernel transpose --variant vec4 --set n=8192 --set tile=64 --sweep block_rows=4,8,16 --peers --repeats 20 --backend cuda --json "$o/speed_vec4_64.json" || rc=1
  "$w" bench --kernel transpose --variant vec4 --set n=8192 --set tile=32 --sweep block_rows=2,4,8 --peers --repeats 20 --backend cuda --json "$o/speed_vec4_32.json" || rc=1
  "$w" bench --kernel transpose --variant vec4 --set n=8192 --set tile=64 --set block_rows=8 --sweep tiles=1,2,4 --peers --repeats 20 --backend cuda --json "$o/speed_vec4_64_8_tiles.json" || rc=1
  "$w" bench --kernel transpose --variant vec4 --set n=8192 --set tile=64 --set block_rows=16 --sweep tiles=1,2,4 --peers --repeats 20 --backend cuda --json "$o/speed_vec4_64_16_tiles.json" || rc=1
  fi
  if [[ -z ${WS_BENCH_ONLY:-} || ,${WS_BENCH_ONLY}, == *,matmul,* ]]; then
  "$w" bench --kernel matmul --set n=4096 --peers --repeats 20 --backend cuda --json "$o/matmul.json" || rc=1
  local shape k
  # bm bn bk wm wn tm tn: MatmulTuned's compiled shapes (kernels/families/matmul.cuh TunedShapes)
  for shape in 128,128,16,64,32,8,8 128,128,8,64,32,8,8 128,128,16,32,64,8,8 128,128,16,64,64,8,16 \
               128,256,8,64,64,8,16 256,128,8,64,64,16,8; do
    IFS=, read -r -a k <<<"$shape"
    "$w" bench --kernel matmul --variant tuned --set n=4096 --set bm="${k[0]}" --set bn="${k[1]}" --set bk="${k[2]}" \
      --set wm="${k[3]}" --set wn="${k[4]}" --set tm="${k[5]}" --set tn="${k[6]}" --peers --repeats 20 --backend cuda \
      --json "$o/speed_tuned_${shape//,/_}.json" || rc=1
  done
  fi
  [[ ${WS_BENCH_ONLY:-} == transpose || ${WS_BENCH_ONLY:-} == new || ${WS_BENCH_ONLY:-} == tensor || ${WS_BENCH_ONLY:-} == *matmul* ]] || {
  "$w" bench --kernel reduce --set n=268435456 --peers --repeats 20 --backend cuda --json "$o/reduce.json" || rc=1
  [[ -z ${WS_BENCH_ONLY:-} ]] || "$w" bench --kernel matmul --set n=4096 --peers --repeats 10 --backend cuda --json "$o/matmul.json" || rc=1
  "$w" bench --kernel access --set n=67108864 --peers --repeats 20 --backend cuda --json "$o/access.json" || rc=1
  "$w" bench --kernel access --variant stride --set n=16777216 --sweep stride=1,2,4,8,16,32 --repeats 20 --backend cuda --json "$o/access_stride.json" || rc=1
  "$w" bench --kernel access --variant offset --set n=67108864 --sweep offset=0,1,8,16,32 --repeats 20 --backend cuda --json "$o/access_offset.json" || rc=1
  "$w" bench --kernel divergence --peers --repeats 20 --backend cuda --json "$o/divergence.json" || rc=1
  }
  [[ ${WS_BENCH_ONLY:-} == new || -z ${WS_BENCH_ONLY:-} ]] && {
  "$w" bench --kernel instr --set n=4194304 --set iters=256 --repeats 20 --backend cuda --json "$o/instr.json" || rc=1
  "$w" bench --kernel histogram --set n=67108864 --sweep skew=0,50,100 --repeats 20 --backend cuda --json "$o/histogram.json" || rc=1
  "$w" bench --kernel reduce --set n=67108864 --peers --repeats 20 --backend cuda --json "$o/reduce_26.json" || rc=1
  }
  [[ ${WS_BENCH_ONLY:-} == tensor || -z ${WS_BENCH_ONLY:-} ]] && {
  "$w" bench --kernel tensor --set n=4096 --peers --repeats 20 --backend cuda --json "$o/tensor.json" || rc=1
  "$w" bench --kernel tensor --variant pipelined --set n=4096 --sweep stages=2,3 --repeats 20 --backend cuda --json "$o/tensor_stages.json" || rc=1
  "$w" bench --kernel async_copy --set n=67108864 --peers --repeats 20 --backend cuda --json "$o/async_copy.json" || rc=1
  "$w" bench --kernel async_copy --variant pipeline --set n=67108864 --sweep stages=3,4,6,8 --repeats 20 --backend cuda --json "$o/async_stages.json" || rc=1
  "$w" bench --kernel async_copy --variant sync --set n=67108864 --sweep work=0,4,16,64 --repeats 20 --backend cuda --json "$o/async_work_sync.json" || rc=1
  "$w" bench --kernel async_copy --variant pipeline --set n=67108864 --sweep work=0,4,16,64 --repeats 20 --backend cuda --json "$o/async_work_pipe.json" || rc=1
  }
  python3 - "$o" <<'EOF'
import json, os, sys
d = sys.argv[1]
def load(n):
    p = os.path.join(d, n + '.json')
    return json.load(open(p)) if os.path.exists(p) else None
def best(j):
    rows = [r for r in j['rows'] if r.get('verified') and isinstance(r.get('throughput'), (int, float))]
    return max(rows, key=lambda r: r['throughput']) if rows else None
def peer(j, name):
    for p in j.get('peers', []):
        if p.get('peer') == name and isinstance(p.get('throughput'), (int, float)):
            return p['throughput']
    return None
ratios = open(os.path.join(d, 'ratios.md'), 'w')
def out(line):
    print(line)
    ratios.write(line + '\n')
out('| family | best variant | throughput | peer | peer throughput | ratio | target |')
out('| --- | --- | --- | --- | --- | --- | --- |')
for fam, pname, target in (('transpose', 'memcpy', 0.97), ('reduce', 'cub', 0.98), ('matmul', 'cublas', 0.95), ('tensor', 'gemmex', 0.50)):
    j = load(fam)
    if not j: out(f'| {fam} | (no data) | | | | | |'); continue
    b = best(j)
    # The copies are not transposes (they are the ceiling); the padded tiled transpose
    # comes from the pad sweep.
    if fam == 'transpose':
        rows = [r for r in j['rows'] if r.get('verified') and r['variant'] not in ('copy', 'tiled_copy') and isinstance(r.get('throughput'), (int, float))]
        jp = load('transpose_pad')
        rows += [dict(r, variant=r['variant'] + ' pad=' + str(r['params'].get('pad'))) for r in (jp['rows'] if jp else []) if r.get('verified') and isinstance(r.get('throughput'), (int, float))]
        jr = load('transpose_rows')
        rows += [dict(r, variant=r['variant'] + ' pad=1 block_rows=' + str(r['params'].get('block_rows'))) for r in (jr['rows'] if jr else []) if r.get('verified') and isinstance(r.get('throughput'), (int, float))]
        b = max(rows, key=lambda r: r['throughput']) if rows else None
    names = [p.get('peer') for p in j.get('peers', [])]
    pn = next((n for n in names if pname in n.lower()), None)
    pt = peer(j, pn) if pn else None
    if b and pt:
        r = b['throughput'] / pt
        out(f"| {fam} | {b['variant']} | {b['throughput']:.1f} {b['unit']} | {pn} | {pt:.1f} | {r:.3f} | {target} {'met' if r >= target else 'MISSED'} |")
    else:
        out(f'| {fam} | {b and b["variant"]} | | {pn} | {pt} | | |')
ratios.close()
# Issue 26: each configuration of the new rungs against the peer timed in the same bench.
import glob
with open(os.path.join(d, 'speed.md'), 'w') as sp:
    sp.write('| configuration | throughput | peer | peer throughput | ratio |\n| --- | --- | --- | --- | --- |\n')
    for path in sorted(glob.glob(os.path.join(d, 'speed_*.json'))) + [os.path.join(d, n + '.json') for n in ('transpose', 'matmul')]:
        if not os.path.exists(path): continue
        j = json.load(open(path))
        pk = next((p for p in j.get('peers', []) if isinstance(p.get('throughput'), (int, float))), None)
        for r in j['rows']:
            if not (r.get('verified') and isinstance(r.get('throughput'), (int, float))): continue
            ratio = f"{r['throughput'] / pk['throughput']:.3f}" if pk else ''
            sp.write(f"| {j.get('family', os.path.basename(path))}/{r['variant']} {json.dumps(r.get('params'))} | {r['throughput']:.1f} {r.get('unit')} | "
                     f"{pk and pk['peer']} | {pk and pk['throughput']} | {ratio} |\n")
print(open(os.path.join(d, 'speed.md')).read())
print()
for fam in ('transpose', 'transpose_pad', 'transpose_naive', 'transpose_rows', 'reduce', 'matmul', 'access', 'divergence', 'access_stride', 'access_offset', 'instr', 'histogram', 'reduce_26', 'tensor', 'tensor_stages', 'async_copy', 'async_stages', 'async_work_sync', 'async_work_pipe'):
    j = load(fam)
    if not j: continue
    print(f"## {fam} ({j.get('device', {}).get('name', '')})")
    for r in j['rows']:
        t = r.get('timing', {})
        print(f"  {r['variant']:<24} {json.dumps(r.get('params'))[:60]:<60} {r.get('status'):<8} "
              f"{t.get('median_ms', float('nan')):>9.4f} ms  {r.get('throughput')} {r.get('unit')}  "
              f"speedup {r.get('speedup')}  frac_copy {r.get('frac_copy')}")
    for p in j.get('peers', []):
        print(f"  peer {p['peer']:<20} {p.get('throughput')} {p.get('unit')} {p.get('error', '')}")
EOF
  cp "$o/speed.md" "$OUT/speed.md" 2>/dev/null
  return $rc
}

# The recording machines without a GPU show as measured (assets/recordings/<gpu>.json):
# the variant bars and the standard sweeps. This build has no md4c, so it cannot read the
# lessons; the committed recording comes from the GUI bundle (scripts/device_bundle.sh
# record), which records every lesson's timed configurations too.
record() {
  "$B/warpscope" record --backend cuda --repeats "${WS_RECORD_REPEATS:-10}" \
    --lessons none --out "$OUT/recording.json" --force
}

# Every lesson checked live on the GPU (a build with lessons needs libmd4c-dev).
lessons() {
  local f rc=0
  for f in "$root"/lessons/[0-9]*.md; do
    if (( SECONDS > ${WS_DEADLINE:-100000} )); then echo "$f: not run (the call's time is running out)"; rc=1; continue; fi
    "$B/warpscope" lesson --check "$f" --backend cuda > "$LOGS/lesson_$(basename "$f" .md).log" 2>&1 || rc=1
    grep -E 'FAILED|^check:' "$LOGS/lesson_$(basename "$f" .md).log"
    # Straight into $OUT as well: a call cut short still brings back the lessons it checked.
    cat "$LOGS/lesson_$(basename "$f" .md).log" >> "$OUT/lessons_check.txt"
  done
  return $rc
}

# The model's time against the measured one, variant by variant: bench (the fast build,
# measured) and metrics (the traced build's whole-grid counts, and the time the model
# makes of them) at the same sizes; scripts/calibrate.py pairs them into calibration.md.
calibrate() {
  local w="$B/warpscope" o="$LOGS/calibrate" rc=0
  mkdir -p "$o"
  # family|sets|sweeps: sizes past the 50 MB L2 where the traced whole grid stays quick
  local runs=(
    "transpose|--set n=8192|"
    "transpose|--set n=8192 --variant tiled|--sweep pad=0,1,2 --sweep tile=16,32"
    "reduce|--set n=33554432|"
    "matmul|--set n=1024|"
    "access|--set n=16777216 --variant stride|--sweep stride=1,2,4,8,16,32"
    "access|--set n=67108864 --variant offset|--sweep offset=0,1,32"
    "divergence|--set n=4194304 --set work=1024 --variant odd_even|"
    "divergence|--set n=4194304 --set work=1024 --variant less_than|"
    "divergence|--set n=4194304 --set work=1024 --variant warp_aligned|"
    "divergence|--set n=4194304 --set work=64 --variant odd_even|"
    "divergence|--set n=4194304 --set work=64 --variant warp_aligned|"
  )
  local i=0 spec fam sets sweeps
  for spec in "${runs[@]}"; do
    IFS='|' read -r fam sets sweeps <<<"$spec"
    i=$((i + 1))
    # shellcheck disable=SC2086
    "$w" bench --kernel "$fam" $sets $sweeps --repeats 10 --backend cuda --json "$o/bench_$i.json" \
      >/dev/null || rc=1
  done
  # The bench files and ncu's DRAM bytes come back too: committed in docs/calibration/,
  # they let a machine with no GPU remake the table (docs/CALIBRATION.md says how).
  python3 "$root/scripts/calibrate.py" --warpscope "$w" --backend cuda --ncu ncu \
    --ncu-cache "$o/ncu_dram.json" "$o"/bench_*.json > "$o/calibration.md" || rc=1
  cp "$o/calibration.md" "$OUT/calibration.md"
  mkdir -p "$OUT/calibration" && cp "$o"/bench_*.json "$o/ncu_dram.json" "$OUT/calibration/" 2>/dev/null
  return $rc
}

# The stand-alone probes behind the model's constants (docs/CALIBRATION.md), each compiled
# on its own and run once; the SASS of the in-flight probe shows its loads stay batched.
probes() {
  local f work=/tmp/warpscope-device/probes rc=0
  mkdir -p "$work"
  for f in ${WS_PROBES:-probe_inflight probe_atomics}; do
    nvcc -arch=native -O3 -o "$work/$f" "$root/tests/kernels/backends/cuda/$f.cu" || { rc=1; continue; }
    echo "== $f"
    "$work/$f" || rc=1
  done
  if [[ -x $work/probe_inflight ]]; then
    cuobjdump -sass "$work/probe_inflight" | grep -E 'Function|LDG|IADD3|BRA' | grep -B1 -A8 'stream_sum' | head -80
  fi
  return $rc
}

# The same counters several times, and at a second size: is a difference noise?
ncu_noise() {
  python3 "$root/scripts/ncu_compare.py" --warpscope "$B/warpscope" --out "$LOGS/ncu_noise" \
    --repeat 3 --only reduce/interleaved_modulo reduce/interleaved_strided reduce/sequential \
    reduce/warp_shuffle matmul/vectorized
  python3 "$root/scripts/ncu_compare.py" --warpscope "$B/warpscope" --out "$LOGS/ncu_noise_big" \
    --repeat 2 --set n=4194304 --only reduce/interleaved_modulo reduce/sequential
}

ncu_stage() {
  python3 "$root/scripts/ncu_compare.py" --warpscope "$B/warpscope" --out "$LOGS/ncu" \
    ${WS_NCU_ONLY:+--only $WS_NCU_ONLY}
}

# The second parameter set (the ncu stage has every variant at its defaults): every variant
# of tensor, async_copy, scan, stencil and partial_histogram, and transpose/vec4,
# matmul/tuned and histogram/shared_weighted, each at the parameters of
# scripts/ncu_second_set.txt (small sizes: a few minutes). One table to paste into
# docs/HARDWARE.md: $OUT/ncu_second.md (the full one, every counter: logs/ncu_second/).
# `ncu_tensor`, its older name, runs it too.
ncu_second() {
  local rc=0
  python3 "$root/scripts/ncu_compare.py" --warpscope "$B/warpscope" --out "$LOGS/ncu_second" \
    --cases "$root/scripts/ncu_second_set.txt" --timeout 120 || rc=1
  cp "$LOGS/ncu_second/ncu_summary.md" "$OUT/ncu_second.md" 2>/dev/null
  return $rc
}

sanitizer() {
  local rc=0 fam var
  while read -r fam var; do
    for tool in memcheck racecheck; do
      if (( SECONDS > ${WS_DEADLINE:-100000} )); then
        echo "$tool $fam/$var: not run (the call's time is running out)"; rc=1; continue
      fi
      # The fast build is what gets timed; memcheck also runs the traced build.
      local extra=(--fast-only)
      [[ $tool == memcheck ]] && extra=()
      if timeout 120 compute-sanitizer --tool "$tool" --error-exitcode 9 --print-limit 20 \
          "$B/warpscope" metrics --kernel "$fam" --variant "$var" --backend cuda "${extra[@]}" \
          > "$LOGS/sanitizer_${tool}_${fam}_${var}.log" 2>&1; then
        echo "$tool $fam/$var: clean ($(grep -h 'ERROR SUMMARY\|RACECHECK SUMMARY' "$LOGS/sanitizer_${tool}_${fam}_${var}.log" | tr '\n' ' '))"
      else
        echo "$tool $fam/$var: FAILED ($(grep -h 'ERROR SUMMARY\|RACECHECK SUMMARY' "$LOGS/sanitizer_${tool}_${fam}_${var}.log" | tr '\n' ' '))"
        rc=1
      fi
    done
  done < <(variants)
  return $rc
}

want toolchain && run_stage toolchain toolchain
want build && run_stage build build
want tests && run_stage tests tests
want fixtures && run_stage fixtures fixtures
want calibrate && run_stage calibrate calibrate
want probes && run_stage probes probes
want sass && run_stage sass sass
want sass_record && run_stage sass_record sass_record
want hardware && run_stage hardware hardware
want record && run_stage record record
want lessons && run_stage lessons lessons
want bench && run_stage bench bench
[[ -f $LOGS/bench/ratios.md ]] && cat "$LOGS/bench/ratios.md" >> "$OUT/summary.txt"
want ncu && run_stage ncu ncu_stage
[[ -f $LOGS/ncu.log ]] && grep -E '^[a-z_]+/[a-z_0-9]+: ' "$LOGS/ncu.log" >> "$OUT/summary.txt"
{ want ncu_second || want ncu_tensor; } && run_stage ncu_second ncu_second
[[ -f $LOGS/ncu_second.log ]] && grep -E '^[a-z_]+/[a-z_0-9]+: ' "$LOGS/ncu_second.log" >> "$OUT/summary.txt"
want ncu_noise && run_stage ncu_noise ncu_noise
want sanitizer && run_stage sanitizer sanitizer
[[ -f $LOGS/sanitizer.log ]] && note "sanitizer: $(grep -c ': clean' "$LOGS/sanitizer.log") clean, $(grep -vc ': clean' "$LOGS/sanitizer.log") not clean"

note "done: status $status"
cp "$OUT/summary.txt" "$LOGS/"
tar czf "$OUT/logs.tar.gz" -C "$(dirname "$LOGS")" "$(basename "$LOGS")"
exit $status
