#!/usr/bin/env bash
# Rung 13's slices under test on both builds, one call: the tests that reach rung 13's slices
# (`13_mma_3xtf32|Rung13|Graphs|Runtime`) on the compute-8.0 build through the JIT, then on the
# Hopper build. Back in $OUT: tests_slices_sm80.txt, tests_slices.txt and logs.tar.gz.
FINAL_OUT=${OUT:-$PWD/gpu-out}
export OUT=$PWD/gpu-out-steps
source "$(dirname "$0")/../session_common.sh"
export TESTS="13_mma_3xtf32|Rung13|Graphs|Runtime"
mkdir -p "$FINAL_OUT"
S=build-sm80
step configure_sm80 120 cmake -B "$S" -G Ninja -DCMAKE_BUILD_TYPE=Release \
  -DCMAKE_CUDA_ARCHITECTURES=80
step build_sm80 300 cmake --build "$S" -j
gpu_tests "$S" 170 tests_slices_sm80.txt " (compute-8.0 build through the JIT)"
cp "$OUT/tests_slices_sm80.txt" "$FINAL_OUT/"
configure_and_build
gpu_tests "$B" 330 tests_slices.txt
cp "$OUT/tests_slices.txt" "$FINAL_OUT/"
save; cp "$OUT/logs.tar.gz" "$FINAL_OUT/"
