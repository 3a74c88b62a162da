#!/usr/bin/env bash
# One GPU call: a compute-8.0 build of the library and harness, then pieces.cu (rung 13's
# launch and its pieces, timed in turn with cuBLAS SGEMM through the JIT). $OUT/pieces.txt.
source "$(dirname "$0")/../session_common.sh"
B=build-sm80
step configure 120 cmake -B "$B" -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=80
step build 300 cmake --build "$B" -j --target sgemm_harness sgemm_ladder sgemm_cublas_compat
step build_pieces 200 nvcc -O3 -std=c++17 -gencode=arch=compute_80,code=compute_80 -Ikernels \
  -Irunner -Iinclude -I.deps/usr/include experiments/rung13_split/pieces.cu \
  "$B/libsgemm_harness.a" "$B/libsgemm_ladder.a" \
  "$B/libsgemm_cublas_compat.a" -lcublas -ldl -o "$W/pieces"
step pieces "${LIMIT:-240}" "$W/pieces" 40
cp "$W/pieces.txt" "$OUT/pieces.txt"
cat "$OUT/pieces.txt"
