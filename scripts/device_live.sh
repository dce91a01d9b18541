#!/usr/bin/env bash
# Issue 8's device check, run from the repository root on a GPU machine (OUT set):
# builds (Release, no GUI), runs the gpu tests (batched and serial counting), re-records
# the trace fixtures and diffs them, `latency --json`, the bench ratios, ncu on three variants.
cd "$(dirname "$0")/.."
SRC=$PWD
R=/tmp/r; mkdir -p $R
ck() { tar czf $OUT/results.tgz -C /tmp r 2>/dev/null; cp $R/summary.txt $OUT/ 2>/dev/null; }
TB=$SECONDS
BD=/tmp/bd
cmake -S . -B $BD -G Ninja -DCMAKE_BUILD_TYPE=Release -DWS_ENABLE_GUI=OFF -DCMAKE_CUDA_ARCHITECTURES=90 -DWS_BUILD_BENCH=OFF > $R/build.log 2>&1
ninja -C $BD -j16 warpscope tests/test_cuda_backend tests/record_traces >> $R/build.log 2>&1
echo "build rc=$? $((SECONDS-TB)) s" | tee -a $R/summary.txt
ck
W=$BD/warpscope
cp $BD/tests/test_cuda_backend /tmp/tcb; cp $BD/tests/record_traces /tmp/rec
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv > $R/device.txt
T0=$SECONDS
cd /tmp
for i in 0 1 2 3 4 5 6 7; do
  GTEST_TOTAL_SHARDS=8 GTEST_SHARD_INDEX=$i timeout 120 /tmp/tcb --gtest_brief=1 > $R/tests_$i.log 2>&1 &
done
wait
echo "tests: $((SECONDS-T0)) s" | tee -a $R/summary.txt
ck
WS_CUDA_COUNT=serial timeout 100 /tmp/tcb --gtest_brief=1 --gtest_filter='*DeviceTotals*:*WholeGrid*' > $R/tests_serial.log 2>&1
echo "serial tests rc=$? $((SECONDS-T0)) s" | tee -a $R/summary.txt
grep -h -E "^\[  FAILED|PASSED  \]" $R/tests_*.log | sort | uniq -c | tee -a $R/summary.txt
timeout 60 /tmp/rec $R/gpu_traces > $R/record.log 2>&1; echo "record rc=$?" | tee -a $R/summary.txt
diff -r -q $R/gpu_traces $SRC/tests/fixtures/gpu_traces > $R/fixtures_diff.txt 2>&1; echo "fixtures diff rc=$? ($(wc -l < $R/fixtures_diff.txt) lines)" | tee -a $R/summary.txt
cd $SRC
timeout 100 $W latency --backend cuda --runs 5 --json > $R/latency.json 2> $R/latency.err; echo "latency rc=$? $((SECONDS-T0)) s" | tee -a $R/summary.txt
ck
WS_CUDA_COUNT=serial timeout 40 $W latency --backend cuda --runs 1 > $R/latency_serial.txt 2>&1
B=$R/bench; mkdir -p $B
timeout 60 $W bench --kernel transpose --set n=8192 --peers --repeats 20 --backend cuda --json $B/transpose.json > $B/transpose.txt 2>&1
timeout 30 $W bench --kernel transpose --variant tiled --set n=8192 --sweep pad=0,1 --repeats 20 --backend cuda --json $B/transpose_pad.json > /dev/null 2>&1
timeout 60 $W bench --kernel reduce --set n=268435456 --peers --repeats 20 --backend cuda --json $B/reduce.json > $B/reduce.txt 2>&1
timeout 60 $W bench --kernel matmul --set n=4096 --peers --repeats 10 --backend cuda --json $B/matmul.json > $B/matmul.txt 2>&1
echo "bench $((SECONDS-T0)) s" | tee -a $R/summary.txt
ck
python3 - $B <<'PY' | tee -a $R/summary.txt
import json, os, sys
d = sys.argv[1]
def load(n):
    p = os.path.join(d, n + '.json'); return json.load(open(p)) if os.path.exists(p) else None
def ok(r): return r.get('verified') and isinstance(r.get('throughput'), (int, float))
def peer(j, key):
    for p in j.get('peers', []):
        if key in p.get('peer', '').lower() and isinstance(p.get('throughput'), (int, float)): return p['throughput']
t, tp, r, m = load('transpose'), load('transpose_pad'), load('reduce'), load('matmul')
try:
    best = max([x for x in tp['rows'] if ok(x) and x['params'].get('pad') == 1], key=lambda x: x['throughput'])
    print('transpose tiled pad=1 / memcpy = %.3f (%.1f / %.1f GB/s)' % (best['throughput'] / peer(t, 'memcpy'), best['throughput'], peer(t, 'memcpy')))
except Exception as e: print('transpose ratio failed', e)
for name, j, v, key in (('reduce', r, 'vector_load', 'cub'), ('matmul', m, 'warptiled', 'cublas')):
    try:
        row = [x for x in j['rows'] if x['variant'] == v and ok(x)][0]
        print('%s %s / %s = %.3f (%.1f / %.1f %s)' % (name, v, key, row['throughput'] / peer(j, key), row['throughput'], peer(j, key), row['unit']))
    except Exception as e: print(name, 'ratio failed', e)
for j in (t, r, m):
    if j:
        for x in j['rows']: print('  ', x['variant'], x.get('status'), x.get('throughput'), x.get('unit'))
PY
timeout 100 python3 scripts/ncu_compare.py --warpscope $W --out $R/ncu --only transpose/tiled reduce/vector_load matmul/warptiled > $R/ncu.log 2>&1
echo "ncu rc=$? $((SECONDS-T0)) s" | tee -a $R/summary.txt
tail -12 $R/ncu.log | tee -a $R/summary.txt
ck
cat $R/summary.txt | tail -40
python3 -c "
import json; j=json.load(open('/tmp/r/latency.json'))
for c in j['cases']:
  for s,v in c['stages'].items(): print(c['kernel'], c['variant'], s, v['p50_s'], v['p95_s'], v['runs'])
"
