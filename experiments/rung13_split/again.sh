#!/usr/bin/env bash
# After the flag pass's grid was bounded (a long K launched millions of idle blocks): rung 13's
# GPU tests on the Hopper build, then the suite for rung 13 (Hopper build, $OUT/bench13.json)
# and for the one call on the compute-8.0 build through the JIT ($OUT/bench18_sm80.json).
source "$(dirname "$0")/../session_common.sh"
configure_and_build
TESTS="13_mma_3xtf32|Rung13Split" gpu_tests "$B" 150 tests13.txt
step bench 150 "$B/sgemm_bench" --benchmark_out="$OUT/bench13.json" \
  --benchmark_out_format=json --rungs 13 --shapes all
step build_sm80 200 cmake --build build-sm80 -j
step bench_sm80 150 build-sm80/sgemm_bench --benchmark_out="$OUT/bench18_sm80.json" \
  --benchmark_out_format=json --rungs 18 --shapes all
