#!/usr/bin/env bash
# One GPU call: build floors.cu and time its variants of the 64 tile at 1024 and 2048 x 64^3
# against cublasSgemmStridedBatched. $OUT/floors.txt.
source "$(dirname "$0")/../session_common.sh"
step build_floors 120 nvcc -O3 -std=c++17 -arch=sm_90a -Iinclude -Ikernels -Xptxas -v \
  experiments/batched/floors.cu -o "$W/floors" -lcublas
for batch in 1024 2048; do step "floors_$batch" 120 "$W/floors" "$batch"; done
cat "$W"/floors_*.txt > "$OUT/floors.txt"
cat "$OUT/floors.txt"
