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
gpu_tests "$B" "${LIMIT:-560}" tests_sm80.txt " (compute-8.0 build, JIT)"
