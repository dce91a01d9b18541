#!/bin/sh
# Regenerates the screenshots in this folder with `warpscope gui --screenshot` on the
# emulator (no GPU needed). Needs a display: run under xvfb-run when there is none:
#   xvfb-run -a -s "-screen 0 1920x1200x24" docs/screenshots/make.sh [path/to/warpscope]
set -eu
here=$(cd "$(dirname "$0")" && pwd)
ws=${1:-$here/../../build/warpscope}
shot() { out=$1; shift; "$ws" gui --backend emu --force --screenshot "$here/$out" "$@"; }
# A fresh progress store and puzzle folder, the same path every time: the pictures show
# no one's progress and no random folder name.
export XDG_DATA_HOME=/tmp/warpscope-screenshots
rm -rf "$XDG_DATA_HOME"
mkdir -p "$XDG_DATA_HOME"

T="--kernel transpose --variant tiled --set n=64 --set tile=32 --set block_rows=8"
shot bank-map-pad0.png   --view bank-map   $T --set pad=0
shot bank-map-pad1.png   --view bank-map   $T --set pad=1
shot sector-map-naive.png --view sector-map --kernel transpose --variant naive --set n=64
shot divergence-odd-even.png --view divergence --kernel divergence --variant odd_even
shot stepper.png         --view stepper    $T --set pad=0
shot metrics.png         --view metrics    $T --set pad=0
shot compare.png         --view compare    $T --set pad=0
shot charts.png          --view charts     --kernel access --variant stride --set n=4194304
# The roofline over the H100's recorded matmul ladder (the recording's times and counts).
shot roofline.png        --view roofline   --kernel matmul --variant warptiled --set n=4096
shot roofline-1280x720.png --view roofline --kernel matmul --variant warptiled --set n=4096 --size 1280x720
# The recorded block sweep with registers and occupancy.
shot occupancy.png       --view occupancy  --kernel transpose --variant tiled --set n=8192 --set pad=1
shot occupancy-1280x720.png --view occupancy --kernel transpose --variant tiled --set n=8192 --set pad=1 --size 1280x720
# The fragments: an mma of the tensor family lane by lane, and the unswizzled ldmatrix's banks.
shot fragments-1280x720.png --view fragments --kernel tensor --variant mma_global --set n=128 --size 1280x720
shot fragments.png       --view fragments --kernel tensor --variant ldmatrix --set n=128
shot window.png          --view window     --kernel transpose --variant tiled --set n=1024 --set pad=0
shot presenter.png       --view window     $T --set pad=0 --presenter --size 1600x1000
# A projector's size: the window, presenter mode, and a lesson open in both.
shot window-1280x720.png --view window     --kernel transpose --variant tiled --set n=1024 --set pad=0 --size 1280x720
shot presenter-1280x720.png --view window  $T --set pad=0 --presenter --size 1280x720
# The start page: what the window opens on when nothing is named (before any lesson is
# opened, so no progress shows).
shot start.png           --view window --size 1600x1000
shot start-1280x720.png  --view window --size 1280x720
# The kernel editor: a puzzle's starter in the window, and a compile error on its line.
shot editor-window.png --view window --puzzle "$here/../../puzzles/03-pad-a-tile.md"
shot editor-window-1280x720.png --view window --puzzle "$here/../../puzzles/03-pad-a-tile.md" --size 1280x720
# A compile error on its line: the CUDA solution with an undefined name after the tile.
sed 's/^\(.*__shared__ float tile\[32\]\[33\];\)$/\1\n  int unused = undefined_name;/' \
    "$here/../../puzzles/solutions/03-pad-a-tile.cu" > /tmp/pad_err.cu
shot editor-error.png --view editor --puzzle "$here/../../puzzles/03-pad-a-tile.md" --edit /tmp/pad_err.cu --size 1280x720
# The hardware columns need counters from a GPU: these were recorded on the H100 with
# `warpscope metrics --hardware --runs 5 --json` (docs/HARDWARE.md, section 6).
shot metrics-hardware.png --view metrics --kernel transpose --variant tiled --set n=2048 \
  --set tile=16 --set block_rows=4 --set pad=0 --hardware-from "$here/h100-transpose-tiled-16x4.json"
shot source-sass.png     --view stepper    --kernel matmul --variant tiled --sass
# Lessons last: opening one writes its progress, which the lesson list above would show.
L=$here/../../lessons/03-shared-banks.md
shot lesson-player.png --view window --lesson "$L" --size 1600x1000
shot lesson-player-1280x720.png --view window --lesson "$L" --size 1280x720
shot lesson-presenter.png --view window --lesson "$L" --presenter --size 1600x1000
shot lesson-presenter-1280x720.png --view window --lesson "$L" --presenter --size 1280x720
