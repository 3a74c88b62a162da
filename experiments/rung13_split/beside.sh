#!/usr/bin/env bash
# Rung 13's flag pass beside the product (5e3ed87, reverted: see the README), one call on both
# builds: the compute-8.0 build through the JIT (the tests that reach rung 13 or the side
# stream, pieces.cu, the suite for rungs 13 and 18), then the Hopper build (the same tests,
# `sgemm all`, rung 13's suite). Back in $OUT: tests_beside_sm80.txt, tests_beside.txt,
# pieces_beside.txt, bench18_beside_sm80.json, bench13_beside.json, ladder.json, logs.tar.gz.
FINAL_OUT=${OUT:-$PWD/gpu-out}
export OUT=$PWD/gpu-out-steps
source "$(dirname "$0")/../session_common.sh"
export TESTS="13_mma_3xtf32|Rung13|Graphs|Runtime"
mkdir -p "$FINAL_OUT"
S=build-sm80
step configure_sm80 120 cmake -B "$S" -G Ninja -DCMAKE_BUILD_TYPE=Release \
  -DCMAKE_CUDA_ARCHITECTURES=80
step build_sm80 300 cmake --build "$S" -j
gpu_tests "$S" 300 tests_beside_sm80.txt " (compute-8.0 build through the JIT)"
cp "$OUT/tests_beside_sm80.txt" "$FINAL_OUT/"
step build_pieces 200 nvcc -O3 -std=c++17 -gencode=arch=compute_80,code=compute_80 -Ikernels \
  -Irunner -Iinclude -I.deps/usr/include experiments/rung13_split/pieces.cu \
  "$S/libsgemm_harness.a" "$S/libsgemm_ladder.a" "$S/libsgemm_cublas_compat.a" -lcublas -ldl \
  -o "$W/pieces"
step pieces 120 "$W/pieces" 40
cp "$W/pieces.txt" "$FINAL_OUT/pieces_beside.txt"
step bench_sm80 150 "$S/sgemm_bench" --benchmark_out="$FINAL_OUT/bench18_beside_sm80.json" \
  --benchmark_out_format=json --rungs 13,18 --shapes all
configure_and_build
gpu_tests "$B" 470 tests_beside.txt
cp "$OUT/tests_beside.txt" "$FINAL_OUT/"
step ladder 150 "$B/sgemm" all --json "$FINAL_OUT/ladder.json"
sed -n '/^summary/,$p' "$W/ladder.txt"
step bench13 120 "$B/sgemm_bench" --benchmark_out="$FINAL_OUT/bench13_beside.json" \
  --benchmark_out_format=json --rungs 13 --shapes all
cat "$W/pieces.txt"
save; cp "$OUT/logs.tar.gz" "$FINAL_OUT/"
