#!/usr/bin/env bash
# Rung 15's pre-pass in one launch: its GPU tests and the per-kernel times (ncu) on the shapes
# it was built for; then rung 18's table measured again on the finer grid (scripts/autotune
# --best). The table and its JSON come back under $OUT.
#   experiments/one_call/table_session.sh
source "$(dirname "$0")/../session_common.sh"
B=build-gpu
step configure 120 cmake -B $B -G Ninja -DCMAKE_BUILD_TYPE=Release
step build 300 cmake --build $B -j
step tests 300 bash -c "$B/tests/gpu_correctness_test --gtest_filter='Rung15Paths.*:*every_shape_3xtf32*' &&
  $B/tests/gpu_semantics_test --gtest_filter='*every_shape_3xtf32*:*best*' && $B/tests/gpu_planted_test"
step ncu 120 ncu --clock-control none --metrics gpu__time_duration.sum --csv \
  -k regex:"every_shape_3xtf32" $B/sgemm 15 --mnk 1000,1000,1000 --mnk 256,4096,4096 \
  --check none --warmup 1 --reps 2 --block-ms 0
step autotune 480 scripts/autotune --best --build $B
cp results/h200/best_rates.json kernels/18_best_table.inc "$OUT/"
