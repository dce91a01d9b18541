#!/usr/bin/env bash
# The GUI bundle for the GPU machine (scripts/device_bundle.sh), small enough to travel
# with the working tree (64 MiB in all): ../shared/tools/gpu-gui-bundle, less what the GPU
# machine brings (NVRTC, CUPTI: 113 MB), and with ICU's 31 MB data file replaced by an
# empty one: Mesa's LLVM links libxml2, which links ICU, and nothing here converts text
# through it (the window was checked with the stub here and on the H100).
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
tool=${WS_GPU_GUI_BUNDLE:-$root/../shared/tools/gpu-gui-bundle}
cd "$root"
"$tool" build .gpu-gui/bundle.tar.xz
t=$(mktemp -d)
trap 'rm -rf "$t"' EXIT
tar xJf .gpu-gui/bundle.tar.xz -C "$t"
rm -f "$t"/lib/libnvrtc* "$t"/lib/libcupti* "$t"/lib/libnvperf*
icu=$(ls "$t"/lib/libicudata.so.* 2>/dev/null | head -1)
if [[ -n $icu ]]; then
  v=${icu##*.so.}
  echo "const char icudt${v}_dat[64] __attribute__((aligned(16))) = {0};" > "$t/icu.c"
  gcc -shared -fPIC -Wl,-soname,"libicudata.so.$v" -o "$icu" "$t/icu.c"
  rm "$t/icu.c"
fi
tar cf - -C "$t" . | xz -9 -T"$(nproc)" > .gpu-gui/bundle.tar.xz
ls -l .gpu-gui/bundle.tar.xz
