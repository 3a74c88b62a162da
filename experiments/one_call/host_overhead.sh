#!/usr/bin/env bash
# Host time against GPU time per call on small problems (experiments/one_call/host_overhead.cu).
#   experiments/one_call/host_overhead.sh
source "$(dirname "$0")/../session_common.sh"
B=build-gpu
step configure 120 cmake -B $B -G Ninja -DCMAKE_BUILD_TYPE=Release
step build 300 cmake --build $B -j --target sgemm_harness sgemm_ladder
step host_build 120 nvcc -O3 -std=c++17 -gencode=arch=compute_90a,code=sm_90a -Iinclude -Ilibrary -Ikernels -Irunner \
  -I.deps/usr/include experiments/one_call/host_overhead.cu $B/libsgemm_harness.a \
  $B/libsgemm_ladder.a -lcublas -ldl -o $B/host_overhead
step host_overhead 200 $B/host_overhead
cat "$W/host_overhead.txt"
