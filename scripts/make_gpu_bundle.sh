#!/usr/bin/env bash
# The GUI bundle for the GPU machine (scripts/device_bundle.sh), small enough to travel
# with the working tree (64 MiB in all): ../shared/tools/gpu-gui-bundle, less what the GPU
# machine brings (NVRTC, CUPTI: 113 MB), and with ICU's 31 MB data file replaced by an
# empty one: Mesa's LLVM links libxml2, which links ICU, and nothing here converts text
# through it (the window was checked with the stub here and on the H100).
#
# Three files, so that a rebuilt binary travels without recompressing the libraries, and no
# call carries more than 64 MiB with the working tree (~27 MB):
#   .gpu-gui/libs.tar.xz         everything but the binaries and the window's own pieces
#                                (7.7 MB: what the command-line steps and the tests need)
#   .gpu-gui/libs-window.tar.xz  what only the window needs: Mesa's software GL (dri/), the
#                                LLVM it links, Xvfb's keyboard data (~35 MB); carried alone
#                                in a call before the window's (device_bundle.sh window-libs)
#   .gpu-gui/bin.tar.xz          bin/warpscope and its helper executables (seconds)
#
#   scripts/make_gpu_bundle.sh          both
#   scripts/make_gpu_bundle.sh --bin    the binaries only; refused when the binary now needs a
#                                       library that libs.tar.xz lacks (then run it without --bin)
#   scripts/make_gpu_bundle.sh --tests  the test binaries with `gpu` tests, stripped, into
#                                       .gpu-gui/tests.tar.xz (one xz stream with a dictionary
#                                       larger than a binary: they share most of their bytes,
#                                       5 binaries of 45 MB pack into 11 MB), for
#                                       `scripts/device_bundle.sh tests` (no build there)
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
tool=${WS_GPU_GUI_BUNDLE:-$root/../shared/tools/gpu-gui-bundle}
cd "$root"
mkdir -p .gpu-gui
t=$(mktemp -d)
trap 'rm -rf "$t"' EXIT

bins() {  # the stripped binaries of build/ into $1/bin
  mkdir -p "$1/bin"
  for h in build/warpscope build/warpscope-*; do
    [[ -x $h && -f $h ]] && cp "$h" "$1/bin/" && strip "$1/bin/$(basename "$h")" 2>/dev/null
  done
  return 0
}

if [[ ${1:-} == --tests ]]; then
  mkdir -p "$t/tests"
  for b in $(ctest --test-dir build -L gpu -N -V | sed -n 's/.*Test command: \([^ ]*\).*/\1/p' | sort -u); do
    strip -o "$t/tests/$(basename "$b")" "$b"
  done
  # The GPU trace fixtures' recorder (tests/fixtures/gpu_traces/; device_bundle.sh fixtures).
  [[ -x build/tests/record_traces ]] && strip -o "$t/tests/record_traces" build/tests/record_traces
  [[ -n $(ls "$t/tests") ]] || { echo "no gpu-labelled tests in build/" >&2; exit 2; }
  # Where the tests look for the sources (WS_SOURCE_DIR, compiled in): the GPU machine links it.
  sed -n 's/^CMAKE_HOME_DIRECTORY:INTERNAL=//p' build/CMakeCache.txt > "$t/tests/source_dir"
  tar cf - -C "$t" tests | xz -9e --lzma2=dict=256MiB -T1 > .gpu-gui/tests.tar.xz
  ls -l .gpu-gui/tests.tar.xz
  exit 0
fi

if [[ ${1:-} == --bin ]]; then
  [[ -f .gpu-gui/libs.txt ]] || { echo "no .gpu-gui/libs.txt: run $0 without --bin first" >&2; exit 2; }
  missing=$(ldd build/warpscope | awk '/=>/ {print $1}' | grep -vxFf .gpu-gui/libs.txt |
            grep -Ev '^(libc|libm|libdl|libpthread|librt|libresolv|libstdc\+\+|libgcc_s|libcudart|libcublas[^.]*|libcuda|libnvrtc|libcupti|libnvperf[^.]*|linux-vdso)\.so' || true)
  [[ -z $missing ]] || { echo "the binary needs libraries libs.tar.xz lacks: $missing; run $0 without --bin" >&2; exit 2; }
  bins "$t"
  tar cf - -C "$t" bin | xz -6 -T"$(nproc)" > .gpu-gui/bin.tar.xz
  ls -l .gpu-gui/bin.tar.xz
  exit 0
fi

"$tool" build .gpu-gui/bundle.tar.xz
tar xJf .gpu-gui/bundle.tar.xz -C "$t"
rm -f .gpu-gui/bundle.tar.xz
rm -f "$t"/lib/libnvrtc* "$t"/lib/libcupti* "$t"/lib/libnvperf*
icu=$(ls "$t"/lib/libicudata.so.* 2>/dev/null | head -1)
if [[ -n $icu ]]; then
  v=${icu##*.so.}
  echo "const char icudt${v}_dat[64] __attribute__((aligned(16))) = {0};" > "$t/icu.c"
  gcc -shared -fPIC -Wl,-soname,"libicudata.so.$v" -o "$icu" "$t/icu.c"
  rm "$t/icu.c"
fi
(cd "$t/lib" && ls) > .gpu-gui/libs.txt
mkdir -p "$t.bin"
mv "$t"/bin/warpscope* "$t.bin/" 2>/dev/null || true
win=$(cd "$t" && ls -d lib/libLLVM* lib/libz3* dri xkb 2>/dev/null)
tar cf - -C "$t" $win | xz -9 -T"$(nproc)" > .gpu-gui/libs-window.tar.xz
tar cf - -C "$t" $(printf -- '--exclude=./%s ' $win) . | xz -9 -T"$(nproc)" > .gpu-gui/libs.tar.xz
rm -rf "$t.bin"
bins "$t/b"
tar cf - -C "$t/b" bin | xz -6 -T"$(nproc)" > .gpu-gui/bin.tar.xz
ls -l .gpu-gui/libs.tar.xz .gpu-gui/libs-window.tar.xz .gpu-gui/bin.tar.xz
