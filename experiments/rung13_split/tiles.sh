#!/usr/bin/env bash
# After rung 13 picks its tile by shared memory and its flag pass packs unaligned operands: a
# compute-8.0 build through the JIT, rung 13's GPU tests ($OUT/tests_tiles_sm80.txt), pieces.cu
# with each tile forced ($OUT/pieces_tiles.txt) and the suite for the one call
# ($OUT/bench18_tiles_sm80.json).
source "$(dirname "$0")/../session_common.sh"
B=build-sm80
step configure 120 cmake -B "$B" -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=80
step build 400 cmake --build "$B" -j
TESTS="13_mma_3xtf32|Rung13" gpu_tests "$B" "${TEST_LIMIT:-330}" tests_tiles_sm80.txt \
  " (compute-8.0 build, JIT)"
step build_pieces 200 nvcc -O3 -std=c++17 -gencode=arch=compute_80,code=compute_80 -Ikernels \
  -Irunner -Iinclude -I.deps/usr/include experiments/rung13_split/pieces.cu \
  "$B/libsgemm_harness.a" "$B/libsgemm_ladder.a" "$B/libsgemm_cublas_compat.a" -lcublas -ldl \
  -o "$W/pieces"
step pieces 120 "$W/pieces" 40
cp "$W/pieces.txt" "$OUT/pieces_tiles.txt"
step bench_sm80 150 "$B/sgemm_bench" --benchmark_out="$OUT/bench18_tiles_sm80.json" \
  --benchmark_out_format=json --rungs 13,18 --shapes all
cat "$OUT/pieces_tiles.txt"; grep -E "rung:18" "$W/bench_sm80.txt" | head -30
