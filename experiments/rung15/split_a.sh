#!/usr/bin/env bash
# Rung 15 with A split in the main kernel (wgmma with A from registers): does it pay, shape by
# shape, on the H100? Where A's rows are 16-byte aligned the pre-pass now only flags A's rows,
# so A crosses memory once instead of three times (read; hi and lo written; both read again).
# Prediction (H100, experiments/notebook/results/h100/notebook.txt): 4096x256x4096 +40-60%, 16384x512x4096 ~+20%,
# 1024x1024x65536 ~+10%, the square shapes +2-5%, 512x16384x4096 and 256x4096x4096 (A small)
# and the shapes whose lda is odd (4097^3, 4095x4097x4093: the old path) unchanged. One GPU
# call: rung 15's tests and the tests of what runs it (16's slow path, 18, the planted kernels,
# graphs), then rung 15 before (the tree in .baseline/, carried) and after, cuBLAS in turn, on
# the bench's 19 shapes, then every GPU test in the time left.
# QUICK=1: the libraries and before_after alone (shapes: $SHAPES, default the 18 below).
#   git archive HEAD kernels | tar -x -C .baseline   # (mkdir .baseline first)
#   experiments/rung15/split_a.sh
source "$(dirname "$0")/../session_common.sh"
if [ -n "${QUICK:-}" ]; then configure_and_build sgemm_harness sgemm_ladder; else configure_and_build; fi
libs="$B/libsgemm_harness.a $B/libsgemm_ladder.a -lcublas -ldl"
nvcc -O3 -std=c++17 -gencode=arch=compute_90a,code=sm_90a -Ilibrary -Irunner -I.deps/usr/include \
  -I.baseline/kernels experiments/timing/before_after.cu $libs -o $B/before_after > "$W/ba_build.txt" 2>&1 ||
  { tail -20 "$W/ba_build.txt"; exit 1; }
[ -z "${QUICK:-}" ] && step ctest15 200 ctest --test-dir $B -j 8 --timeout 150 --output-on-failure \
  -R "15_every|16_ozaki|18_best|Rung15|Planted|Graph|Semantic|Precision|Capture|Wrapper"
grep -E "tests passed|tests failed" "$W/ctest15.txt"; grep -E "^\s+[0-9]+ - " "$W/ctest15.txt" | head -20
shapes=${SHAPES:-"128 256 512 1000 1024 2048 3000 4096 4097 6000 8192 256x4096x4096 4096x256x4096
  512x16384x4096 16384x512x4096 8192x8192x128 1024x1024x65536 4095x4097x4093"}
step before_after 200 $B/before_after --rung 15 $shapes
cat "$W/before_after.txt"
left=$((570 - SECONDS))
[ -z "${QUICK:-}" ] && [ "$left" -gt 60 ] && step ctest $left ctest --test-dir $B -j 8 --timeout 200 -L gpu \
  --output-on-failure --output-junit "$W/ctest.xml"
grep -E "tests passed|tests failed|Total Test" "$W/ctest.txt"; grep -E "^\s+[0-9]+ - " "$W/ctest.txt" | head -30
