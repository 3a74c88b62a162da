#!/usr/bin/env bash
# Does a build for compute capability 8.0 alone (as on an A100, an RTX card: no sm_90a code),
# run on this Hopper GPU through the driver's JIT, pass every GPU test? The Hopper-only rungs'
# tests expect "unsupported GPU"; the one call and the cuBLAS-compatible wrapper must succeed
# through the rungs such a GPU has (kernels/fallbacks.inc). The JIT compiles every module at its
# first load, so a whole run takes more than one call: TESTS (a ctest -R pattern) picks a part,
# LIMIT (default 560 s) stops the tests in time for the call's limit.
#   TESTS="Semantic|Graph|Rung15" experiments/portability/jit_sm80.sh
source "$(dirname "$0")/../session_common.sh"
B=build-sm80
step configure 120 cmake -B "$B" -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=80
step build 300 cmake --build "$B" -j
left=$(( ${LIMIT:-560} - SECONDS ))
step ctest "$left" ctest --test-dir "$B" -j 8 --timeout 300 -L gpu ${TESTS:+-R "$TESTS"} \
  --output-junit "$W/ctest.xml"
grep -E "tests passed|tests failed" "$W/ctest.txt"; grep -E "^\s+[0-9]+ - " "$W/ctest.txt" | head -40
gpu=$(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -n 1)
scripts/test-outcomes "$B" "$W/ctest.xml" --gpu "$gpu (compute-8.0 build, JIT)" > "$OUT/tests_sm80.txt"
head -2 "$OUT/tests_sm80.txt"
