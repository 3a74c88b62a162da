#!/usr/bin/env bash
# Rung 15 on few rows of C and many columns (M <= kSplitAMaxN < N): computed as C^T = B^T A^T, B
# is the operand the kernel splits in registers and A's split (no transpose) its other one; the
# pre-pass no longer transposes B. Does it pay? Prediction (H100, experiments/notebook/results/h100/notebook.txt,
# change 5): 256x4096x4096 103 -> 170-190%, 512x16384x4096 157 -> 190-210%; other shapes
# unchanged. One GPU call: rung 15 before (.baseline/, carried: the kernels before the change)
# and after, cuBLAS in turn; then the GPU tests matching TESTS (a ctest -R pattern), where set.
# (At ce1b602 this script also timed a copy at kSplitAMaxN = 1024, the limit since:
# experiments/rung15/results/h100/rung15_limit_1024.txt; experiments/rung15/split_a_limit.sh asks that.)
#   rm -rf .baseline && mkdir .baseline && git archive <before> kernels | tar -x -C .baseline
#   TESTS="Rung15|Graph" experiments/rung15/transposed.sh
source "$(dirname "$0")/../session_common.sh"
[ -d .baseline/kernels ] || { echo "transposed.sh: carry .baseline/kernels (see above)"; exit 2; }
configure_and_build
nvcc -O3 -std=c++17 -gencode=arch=compute_90a,code=sm_90a -Ilibrary -Irunner -I.deps/usr/include \
  -I.baseline/kernels experiments/timing/before_after.cu "$B/libsgemm_harness.a" \
  "$B/libsgemm_ladder.a" -lcublas -ldl -o "$B/ba_base" > "$W/ba_base_build.txt" 2>&1 ||
  { tail -20 "$W/ba_base_build.txt"; exit 1; }
step before_after 120 $B/ba_base --rung 15 256x4096x4096 512x16384x4096 1024x4096x4096 \
  4096x256x4096 16384x512x4096 4096 1000 1024x1024x65536
cat "$W/before_after.txt"
[ -z "${TESTS:-}" ] || gpu_tests "$B" "${LIMIT:-540}" tests.txt
