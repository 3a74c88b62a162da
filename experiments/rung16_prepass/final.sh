#!/usr/bin/env bash
# The bench of rung 16 per distribution after the leaner passes (experiments/rung16_inputs/
# bench.sh: rungs 15 and 16, each timed in turn with cuBLAS SGEMM), and rung 16 before and after
# (both orders; needs the carried .ba16/). One GPU call; results under $OUT.
#   experiments/rung16_prepass/final.sh
source "$(dirname "$0")/../session_common.sh"
B=build-gpu
step configure 120 cmake -B $B -G Ninja -DCMAKE_BUILD_TYPE=Release
step build 300 cmake --build $B -j
step bench_inputs 330 experiments/rung16_inputs/bench.sh
if [ -d .ba16 ]; then
  step ba16_build 300 nvcc -O3 -std=c++17 -gencode=arch=compute_90a,code=sm_90a -Ilibrary -Irunner -I.ba16 \
    -I.deps/usr/include experiments/timing/before_after_rung16.cu $B/libsgemm_harness.a \
    $B/libsgemm_ladder.a -lcublas -ldl -o $B/before_after_rung16
  step before_after_rung16 150 $B/before_after_rung16 4096 8192
fi
