#!/usr/bin/env bash
# A change to rung 13, one call on both builds (first written for the flag pass beside the
# product, 5e3ed87; since used for its last-blocks version, e28f63d): the compute-8.0 build
# through the JIT (the tests that reach rung 13, graphs or the runtime, pieces.cu, the suite for
# rungs 13 and 18), then the Hopper build (the same tests, `sgemm all`, rung 13's suite). Back
# in $OUT (TAG names the step, default beside): tests_$TAG_sm80.txt, tests_$TAG.txt,
# pieces_$TAG.txt, bench18_$TAG_sm80.json, bench13_$TAG.json, ladder.json, logs.tar.gz.
# TESTS_ONLY=1: the tests alone, on both builds.
FINAL_OUT=${OUT:-$PWD/gpu-out}
export OUT=$PWD/gpu-out-steps
source "$(dirname "$0")/../session_common.sh"
export TESTS="13_mma_3xtf32|Rung13|Graphs|Runtime"
tag=${TAG:-beside}
limits=(300 470)  # the session's seconds by which each build's tests must end
[ -n "${TESTS_ONLY:-}" ] && limits=(170 330)
mkdir -p "$FINAL_OUT"
S=build-sm80
step configure_sm80 120 cmake -B "$S" -G Ninja -DCMAKE_BUILD_TYPE=Release \
  -DCMAKE_CUDA_ARCHITECTURES=80
step build_sm80 300 cmake --build "$S" -j
gpu_tests "$S" "${limits[0]}" "tests_${tag}_sm80.txt" " (compute-8.0 build through the JIT)"
cp "$OUT/tests_${tag}_sm80.txt" "$FINAL_OUT/"
if [ -z "${TESTS_ONLY:-}" ]; then
  step build_pieces 200 nvcc -O3 -std=c++17 -gencode=arch=compute_80,code=compute_80 -Ikernels \
    -Irunner -Iinclude -I.deps/usr/include experiments/rung13_split/pieces.cu \
    "$S/libsgemm_harness.a" "$S/libsgemm_ladder.a" "$S/libsgemm_cublas_compat.a" -lcublas -ldl \
    -o "$W/pieces"
  step pieces 120 "$W/pieces" 40
  cp "$W/pieces.txt" "$FINAL_OUT/pieces_$tag.txt"
  step bench_sm80 150 "$S/sgemm_bench" --benchmark_out="$FINAL_OUT/bench18_${tag}_sm80.json" \
    --benchmark_out_format=json --rungs 13,18 --shapes all
fi
configure_and_build
gpu_tests "$B" "${limits[1]}" "tests_$tag.txt"
cp "$OUT/tests_$tag.txt" "$FINAL_OUT/"
if [ -z "${TESTS_ONLY:-}" ]; then
  step ladder 150 "$B/sgemm" all --json "$FINAL_OUT/ladder.json"
  sed -n '/^summary/,$p' "$W/ladder.txt"
  step bench13 120 "$B/sgemm_bench" --benchmark_out="$FINAL_OUT/bench13_$tag.json" \
    --benchmark_out_format=json --rungs 13 --shapes all
  cat "$W/pieces.txt"
fi
save; cp "$OUT/logs.tar.gz" "$FINAL_OUT/"
