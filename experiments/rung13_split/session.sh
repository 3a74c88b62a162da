#!/usr/bin/env bash
# Rung 13 splits K where its tiles fill fewer than half the SMs (issue 52: the path the one call
# takes off Hopper). Two GPU calls on one warm machine (carry .deps):
#   PART=1  the Hopper build: rung 13's GPU tests (every test naming it), then the bench suite
#           for rungs 13 and 18 ($OUT/bench13.json, merged into results/<gpu>/bench.json by
#           experiments/rung19/merge.py) and the runner's ladder row for rung 13 at 1024^3.
#   PART=2  a build for compute capability 8.0 alone, run through the driver's JIT: the one
#           call's and the C ABI's tests and rung 13's, then the bench suite for rungs 13 and 18
#           ($OUT/bench13_sm80.json): on this build the one call runs rung 13.
source "$(dirname "$0")/../session_common.sh"
if [ "${PART:-1}" = 1 ]; then
  configure_and_build
  TESTS="13_mma_3xtf32|Rung13Split|OneCall|Best" gpu_tests "$B" 330 tests13.txt
  step bench 200 "$B/sgemm_bench" --benchmark_out="$OUT/bench13.json" \
    --benchmark_out_format=json --rungs 13,18 --shapes all
  step ladder 60 "$B/sgemm" 13 --sizes 1024,4096
  tail -3 "$W/ladder.txt"
else
  B=build-sm80
  step configure 120 cmake -B "$B" -G Ninja -DCMAKE_BUILD_TYPE=Release \
    -DCMAKE_CUDA_ARCHITECTURES=80
  step build 300 cmake --build "$B" -j
  TESTS="13_mma_3xtf32|Rung13Split|OneCall|CApi|CublasWrapper" gpu_tests "$B" 420 tests13_sm80.txt \
    " (compute-8.0 build, JIT)"
  step bench 150 "$B/sgemm_bench" --benchmark_out="$OUT/bench13_sm80.json" \
    --benchmark_out_format=json --rungs 13,18 --shapes all
  grep -E "rung:1[38]" "$W/bench.txt" | awk '{print $1, $NF}' | head -60
fi
