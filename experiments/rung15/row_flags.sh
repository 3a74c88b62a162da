#!/usr/bin/env bash
# Rung 15's split of A, with A's row flags taken by the main kernel as it splits (RowsSeen): the
# pre-pass no longer reads A at all where the kernel splits it. Does it pay, and what does it
# cost the kernel? Prediction (H100, experiments/notebook/results/h100/notebook.txt): 4096x256x4096 +10-15% and
# 16384x512x4096 +5-10% (A's 64 and 256 MB read once less), the loop 48 instructions longer
# (394 -> 442 a stage); every other shape unchanged (the old path). One GPU call: the tests of
# rung 15 and of what runs it, then rung 15 before (.baseline/, carried) and after, cuBLAS in
# turn. SHAPES overrides the shapes; EXTRA adds ctest -R patterns.
#   rm -rf .baseline && mkdir .baseline && git archive <before> kernels | tar -x -C .baseline
#   experiments/rung15/row_flags.sh
source "$(dirname "$0")/../session_common.sh"
configure_and_build
libs="$B/libsgemm_harness.a $B/libsgemm_ladder.a -lcublas -ldl"
nvcc -O3 -std=c++17 -gencode=arch=compute_90a,code=sm_90a -Ilibrary -Irunner -I.deps/usr/include \
  -I.baseline/kernels experiments/timing/before_after.cu $libs -o $B/before_after > "$W/ba_build.txt" 2>&1 ||
  { tail -20 "$W/ba_build.txt"; exit 1; }
step ctest15 240 ctest --test-dir $B -j 8 --timeout 200 --output-on-failure \
  -R "15_every|16_ozaki|18_best|Rung15|Planted|Graph|Semantic|Precision|Capture|Wrapper${EXTRA:-}"
grep -E "tests passed|tests failed" "$W/ctest15.txt"; grep -E "^\s+[0-9]+ - " "$W/ctest15.txt" | head -20
shapes=${SHAPES:-"4096x256x4096 16384x512x4096 8192x512x8192 2048x512x2048 1000x512x1000
  256x4096x4096 512x16384x4096 4096"}
step before_after 200 $B/before_after --rung 15 $shapes
cat "$W/before_after.txt"
