#!/usr/bin/env bash
# Rung 15's pre-pass path reworked (persistent blocks over tiles; slices of K summed in a
# cluster): its GPU tests, then rungs 15, 17 and 18 on the bench's 19 shapes (full-precision
# uniform inputs, cuBLAS in turn), and the per-kernel times (ncu) on the shapes it was built for.
#   experiments/one_call/rung15_session.sh
source "$(dirname "$0")/../session_common.sh"
B=build-gpu
step configure 120 cmake -B $B -G Ninja -DCMAKE_BUILD_TYPE=Release
step build 300 cmake --build $B -j
step tests 300 bash -c "$B/tests/gpu_correctness_test --gtest_filter='Rung15Paths.*:*every_shape_3xtf32*:ClusterSplitK.*' &&
  $B/tests/gpu_semantics_test --gtest_filter='*every_shape_3xtf32*:*cluster_splitk*:*best*' &&
  $B/tests/gpu_planted_test && $B/tests/gpu_errors_test && $B/tests/gpu_runtime_test"
step suite 300 $B/sgemm_bench --rungs 15,17,18 --shapes all \
  --benchmark_out="$OUT/suite.json" --benchmark_out_format=json
step ncu 200 ncu --clock-control none --metrics gpu__time_duration.sum --csv \
  -k regex:"every_shape_3xtf32" $B/sgemm 15 --mnk 1000,1000,1000 --mnk 8192,8192,128 \
  --mnk 4096,256,4096 --mnk 2048,2048,2048 --check none --warmup 1 --reps 2 --block-ms 0
