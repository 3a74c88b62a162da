#!/usr/bin/env bash
# The session's last GPU call: rung 15's paths and slices measured again on the 19 shapes
# (experiments/rung15/configs.cu, short blocks), then every test and the ladder
# (scripts/gpu-session: tests.txt and the ladder's table in data.tar.gz).
#   experiments/one_call/final_session.sh
source "$(dirname "$0")/../session_common.sh"
B=build-gpu
step configure 120 cmake -B $B -G Ninja -DCMAKE_BUILD_TYPE=Release
step build 300 cmake --build $B -j
libs="$B/libsgemm_harness.a $B/libsgemm_ladder.a -lcublas -ldl"
step configs15_build 120 nvcc -O3 -std=c++17 -gencode=arch=compute_90a,code=sm_90a -Ilibrary -Ikernels -Irunner \
  -I.deps/usr/include experiments/rung15/configs.cu $libs -o $B/configs15
step configs15 150 $B/configs15 40
OUT="$OUT" BUILD=$B timeout 400 scripts/gpu-session > "$W/gpu_session.txt" 2>&1
tail -40 "$W/gpu_session.txt"
