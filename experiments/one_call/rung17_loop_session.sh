#!/usr/bin/env bash
# Rung 17's loop reworked (copies of an inside k-tile untested, warps of 4 x 8 micro-tiles,
# A's copies on 32 banks, rung 10's FFMA order; then C asked into L2 at the start): its GPU tests
# and rung 18's that run it, then every tile and cluster size checked and timed on the few-tile
# shapes (configs17). Ran as rung17_configs_v4 (the loop), v5 (with the prefetch), v6, v7.
#   experiments/one_call/rung17_loop_session.sh
source "$(dirname "$0")/../session_common.sh"
B=build-gpu
step configure 120 cmake -B $B -G Ninja -DCMAKE_BUILD_TYPE=Release
step build 300 bash -c "cmake --build $B -j --target sgemm gpu_correctness_test gpu_semantics_test \
  gpu_inputs_test && nvcc -O3 -std=c++17 -gencode=arch=compute_90a,code=sm_90a -Ilibrary -Ikernels -Irunner \
  -I.deps/usr/include experiments/rung17/configs.cu $B/libsgemm_harness.a $B/libsgemm_ladder.a \
  -lcublas -ldl -o $B/configs17"
step tests 240 bash -c "$B/tests/gpu_correctness_test --gtest_filter='*cluster_splitk*:ClusterSplitK.*:*best*' &&
  $B/tests/gpu_semantics_test --gtest_filter='*cluster_splitk*:*best*' &&
  $B/tests/gpu_inputs_test --gtest_filter='*cluster_splitk*:*best*'"
grep -E "^\[  (PASSED|FAILED) |FAILED  \]" "$W/tests.txt" | head -20
step configs17 200 $B/configs17 40
cat "$W/configs17.txt" | head -40
