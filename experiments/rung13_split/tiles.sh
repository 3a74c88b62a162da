#!/usr/bin/env bash
# Rung 13 off Hopper, after a change: a compute-8.0 build through the JIT, rung 13's GPU tests,
# pieces.cu (every tile forced) and the suite for rungs 13 and 18. Back in $OUT (TAG names the
# step, default tiles): tests_$TAG_sm80.txt (ctest's log), pieces_$TAG.txt,
# bench18_$TAG_sm80.json and logs.tar.gz.
FINAL_OUT=${OUT:-$PWD/gpu-out}
export OUT=$PWD/gpu-out-steps
source "$(dirname "$0")/../session_common.sh"
tag=${TAG:-tiles}
B=build-sm80
step configure 120 cmake -B "$B" -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=80
step build 400 cmake --build "$B" -j
TESTS="13_mma_3xtf32|Rung13" gpu_tests "$B" "${TEST_LIMIT:-330}" tests.txt
step build_pieces 200 nvcc -O3 -std=c++17 -gencode=arch=compute_80,code=compute_80 -Ikernels \
  -Irunner -Iinclude -I.deps/usr/include experiments/rung13_split/pieces.cu \
  "$B/libsgemm_harness.a" "$B/libsgemm_ladder.a" "$B/libsgemm_cublas_compat.a" -lcublas -ldl \
  -o "$W/pieces"
step pieces 120 "$W/pieces" 40
step bench_sm80 150 "$B/sgemm_bench" --benchmark_out="$W/bench.json" \
  --benchmark_out_format=json --rungs 13,18 --shapes all
mkdir -p "$FINAL_OUT"
{ echo "# ctest's log of rung 13's GPU tests (-R '13_mma_3xtf32|Rung13'), compute-8.0 build" \
       "through the JIT, $(nvidia-smi --query-gpu=name --format=csv,noheader | head -n 1)," \
       "$(date -u +%F)"; cat "$W/ctest.txt"; } > "$FINAL_OUT/tests_${tag}_sm80.txt"
cp "$W/pieces.txt" "$FINAL_OUT/pieces_$tag.txt"
cp "$W/bench.json" "$FINAL_OUT/bench18_${tag}_sm80.json"
save; cp "$OUT/logs.tar.gz" "$FINAL_OUT/"
cat "$W/pieces.txt"; grep -E "rung:18" "$W/bench_sm80.txt" | sed 's/ \{2,\}/ /g' | cut -c1-150
