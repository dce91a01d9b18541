#!/usr/bin/env bash
# The GPU machine's checks that need the full build (GUI, lessons): run from the repository
# root there, with the GUI bundle carried in .gpu-gui/ (../shared/tools/gpu-gui-bundle
# build; the GPU machine brings cudart, cuBLAS, NVRTC and CUPTI, so keep those out of it).
# Its warpscope is the one built here, so it needs no build there (scripts/make_gpu_bundle.sh
# packs .gpu-gui/libs.tar.xz and bin.tar.xz; `--bin` repacks only the binaries). Writes to $OUT:
#   recording.json   `record` with the lessons' configurations (the device build has no
#                    md4c, so its `record` cannot read lessons)
#   latency.json     `latency --backend cuda`: the window's worker, p50 / p95
#   shots.tar.gz     the window on the GPU (PNG and the frame text beside each)
#   summary.txt      one line a step, with its time
#   logs.tar.gz      each step's log, lessons' checks, and ncu/ (Nsight Compute's counters
#                    against the model; WS_NCU_ONLY narrows it), re-packed after every step
#   tests.txt        `tests`: the gpu-labelled test binaries built here
#                    (scripts/make_gpu_bundle.sh --tests), one line each
#   gpu_traces/      `fixtures`: GPU trace fixtures (record_traces, packed with the tests)
# Steps: record lessons window latency ncu (all by default; name some to run those), tests,
# fixtures, window-libs. The window needs .gpu-gui/libs-window.tar.xz (Mesa, LLVM, keyboard
# data), too large to travel with the rest: carry it alone in a call running
# `scripts/device_bundle.sh window-libs`, then, within the machine's idle time (30 s), the
# call with libs.tar.xz and bin.tar.xz that runs `window`.
set -uo pipefail
cd "$(dirname "$0")/.."
OUT=${OUT:-$PWD/device-out}
L=/tmp/warpscope-bundle-logs
mkdir -p "$OUT" "$L"
G=/tmp/warpscope-gui
mkdir -p "$G"
if [[ "$*" != window-libs ]]; then  # that call carries nothing else
  if [[ ! -x $G/run.sh ]]; then
    if [[ -f .gpu-gui/libs.tar.xz ]]; then  # scripts/make_gpu_bundle.sh: libraries, then binaries
      tar xJf .gpu-gui/libs.tar.xz -C "$G" || { echo "cannot unpack .gpu-gui/libs.tar.xz" >&2; exit 2; }
    else
      tar xJf .gpu-gui/bundle.tar.xz -C "$G" || { echo "no .gpu-gui/bundle.tar.xz" >&2; exit 2; }
    fi
  fi
  # This call's binaries, over those an earlier call on this warm machine left.
  if [[ -f .gpu-gui/bin.tar.xz ]]; then
    tar xJf .gpu-gui/bin.tar.xz -C "$G" || { echo "cannot unpack .gpu-gui/bin.tar.xz" >&2; exit 2; }
  fi
fi
# Command-line steps run with the bundle's libraries but without run.sh, which waits 5 s
# for its Xvfb on every call where the display does not come up (measured on the H100
# machine, 2026-11-27: a 0.4 s `bench` took 5.5 s through run.sh). The window step keeps it.
CLI="env LD_LIBRARY_PATH=$G/lib:/usr/local/cuda/lib64 PATH=$G/bin:$PATH WARPSCOPE_SOURCE_DIR=$PWD"
CLI+=" WARPSCOPE_INCLUDE=$PWD WARPSCOPE_GPU_RUNNER=$G/bin/warpscope-gpu-run WARPSCOPE_FONT_DIR=$G/fonts"
W="$CLI $G/bin/warpscope"
GW="$G/run.sh warpscope"  # the window's
# The bundle's fonts: the GPU machine has no fontconfig configuration (older binaries do not
# read WARPSCOPE_FONT_DIR themselves).
F=(--font "$G/fonts/DejaVuSans.ttf")
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
window() {  # screenshots land in $L/shots and come back packed in $OUT/shots.tar.gz
  local rc=0 t0 id size S=$L/shots
  if [[ ! -e $G/dri/swrast_dri.so ]]; then
    echo "the window's libraries are not on this machine: run the step window-libs in a call" \
         "carrying .gpu-gui/libs-window.tar.xz first (scripts/make_gpu_bundle.sh makes it)" >&2
    return 2
  fi
  mkdir -p "$S"
  t0=$SECONDS
  $GW gui --backend cuda --kernel reduce --variant interleaved_modulo --set n=33554432 \
    --hardware --sass --view window --size 1600x1000 "${F[@]}" --screenshot "$S/h100-reduce-modulo.png" || rc=1
  echo "reduce, n = 2^25, CUPTI counters and SASS: $((SECONDS - t0)) s"
  for id in ${WS_SHOT_LESSONS:-03-shared-banks 04-transpose 08-latency-occupancy}; do
    for size in 1280x720 1600x1000; do
      t0=$SECONDS
      $GW gui --backend cuda --lesson "$id" --step 1 --size "$size" "${F[@]}" \
        --screenshot "$S/h100-${id%%-*}-$size.png" || rc=1
      echo "lesson $id step 1 at $size: $((SECONDS - t0)) s"
    done
  done
  $GW gui --backend cuda --presenter --size 1280x720 "${F[@]}" --screenshot "$S/h100-presenter-1280x720.png" || rc=1
  # A puzzle in the kernel editor (a plain-CUDA starter; the editor's view of the student's file).
  $GW gui --backend cuda --puzzle puzzles/03-pad-a-tile.md --edit /tmp/mine.cu --size 1280x720 "${F[@]}" \
    --screenshot "$S/h100-editor-1280x720.png" || rc=1
  tar czf "$OUT/shots.tar.gz" -C "$S" .
  return $rc
}
# A warm GPU first (clocks up, caches and the driver's lazy loading done), so the recording's
# microsecond-scale medians do not carry the cold start.
# The window's own libraries, unpacked for a later call on this machine (see the top).
window_libs() {
  tar xJf .gpu-gui/libs-window.tar.xz -C "$G" && ls "$G"/lib/libLLVM* "$G"/dri/swrast_dri.so
}
want window-libs && step window-libs window_libs
want record && step warmup $W bench --backend cuda --kernel transpose --set n=8192 --repeats 200
want record && step record $W record --backend cuda --repeats "${WS_RECORD_REPEATS:-10}" --lessons lessons \
  --out "$OUT/recording.json" --force
want lessons && step lessons lessons
want window && step window window
want latency && step latency sh -c "timeout 150 $W latency --backend cuda --runs 5 --json > $OUT/latency.json"
# The gpu tests without a build here. They find the sources at the path they were built
# in (WS_SOURCE_DIR, WS_BINARY_DIR = its build/), which is linked to this checkout.
unpack_tests() {
  local src
  [[ -f build/CMakeCache.txt ]] && { echo "build/ is a build here: run its tests with ctest" >&2; return 2; }
  rm -rf build/tests && mkdir -p build/tests && tar xJf .gpu-gui/tests.tar.xz -C build || return 2
  src=$(cat build/tests/source_dir)
  if [[ ! $src -ef $PWD ]]; then
    if [[ -L $src || ! -e $src ]]; then
      mkdir -p "$(dirname "$src")" && ln -sfn "$PWD" "$src" || { echo "cannot link $src to $PWD" >&2; return 2; }
    else
      echo "$src (where the tests were built) is another tree here: they would read its sources" >&2
      return 2
    fi
  fi
  cp "$G"/bin/warpscope* build/
}
gpu_tests() {  # WS_TESTS_FILTER: a --gtest_filter for every binary
  local rc=0 b
  unpack_tests || return 2
  for b in build/tests/test_*; do
    $CLI "$b" --gtest_brief=1 ${WS_TESTS_FILTER:+"--gtest_filter=$WS_TESTS_FILTER"} > "$L/$(basename "$b").log" 2>&1 || rc=1
    echo "$(basename "$b"): $(grep -E '^\[  (PASSED|FAILED|SKIPPED)' "$L/$(basename "$b").log" | tr '\n' ' ')" | tee -a "$OUT/tests.txt"
  done
  return $rc
}
# The GPU trace fixtures of WS_FIXTURES_ONLY (family/variant ..., default every variant)
# into $OUT/gpu_traces/ (copy them to tests/fixtures/gpu_traces/ here).
fixtures() {
  unpack_tests || return 2  # always: a warm machine may hold an older bundle's recorder
  $CLI build/tests/record_traces "$OUT/gpu_traces" ${WS_FIXTURES_ONLY:-}
}
want tests && step tests gpu_tests
want fixtures && step fixtures fixtures
want ncu && step ncu timeout "${WS_NCU_TIMEOUT:-240}" $CLI python3 scripts/ncu_compare.py \
  --warpscope "$G/bin/warpscope" --out "$L/ncu" ${WS_NCU_ONLY:+--only $WS_NCU_ONLY}
exit $status
