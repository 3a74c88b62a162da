#!/usr/bin/env bash
# Rung 15 on few rows of C and many columns (M <= 512 < N): computed as C^T = B^T A^T, B is the
# operand the kernel splits in registers and A's split (no transpose) its other one; the pre-pass
# no longer transposes B. Does it pay, and does a higher kSplitAMaxN (1024) pay now that the
# kernel flags A's rows itself? Prediction (H100, results/h100/experiments.txt): 256x4096x4096
# 103 -> 170-190%, 512x16384x4096 157 -> 190-210%; other shapes unchanged. One GPU call: rung 15
# before (.baseline/, carried: the kernels before the change) and after, cuBLAS in turn; the same
# with copies of today's kernels at kSplitAMaxN = 1024 as "before" (after/before < 1 where 1024
# would pay); then the GPU tests matching TESTS (a ctest -R pattern), where set. Without
# .baseline/ only the kSplitAMaxN question runs.
#   rm -rf .baseline && mkdir .baseline && git archive <before> kernels | tar -x -C .baseline
#   TESTS="Rung15|Graph" experiments/rung15/transposed.sh
source "$(dirname "$0")/../session_common.sh"
configure_and_build
libs="$B/libsgemm_harness.a $B/libsgemm_ladder.a -lcublas -ldl"
build_ba() {  # build_ba NAME KERNELS_DIR
  nvcc -O3 -std=c++17 -gencode=arch=compute_90a,code=sm_90a -Ilibrary -Irunner -I.deps/usr/include \
    -I"$2" experiments/timing/before_after.cu $libs -o "$B/$1" > "$W/$1_build.txt" 2>&1 ||
    { tail -20 "$W/$1_build.txt"; exit 1; }
}
alt=$B/alt1024
rm -rf "$alt" && mkdir -p "$alt" && cp -r kernels "$alt/"
sed -i "s/constexpr int kSplitAMaxN = [0-9]*;/constexpr int kSplitAMaxN = 1024;/" \
  "$alt/kernels/15_every_shape_3xtf32.cu"
grep -q "kSplitAMaxN = 1024;" "$alt/kernels/15_every_shape_3xtf32.cu" || { echo "no kSplitAMaxN"; exit 1; }
# (wait on these two alone: a bare `wait` also waits for session_common.sh's clock logger, which
# never ends; the first run of this script hung there until its call's limit)
if [ -d .baseline/kernels ]; then
  build_ba ba_base .baseline/kernels & base=$!
else base=""; fi
build_ba ba_1024 "$alt/kernels" & limit=$!
{ [ -z "$base" ] || wait $base; } && wait $limit || exit 1
if [ -n "$base" ]; then
  step before_after 120 $B/ba_base --rung 15 256x4096x4096 512x16384x4096 1024x4096x4096 \
    4096x256x4096 16384x512x4096 4096 1000 1024x1024x65536
  cat "$W/before_after.txt"
fi
step limit_1024 120 $B/ba_1024 --rung 15 1000 1024 1024x1024x65536 2048x1024x2048 \
  4096x1024x4096 1024x4096x4096 768x4096x4096 4096x768x4096
cat "$W/limit_1024.txt"
[ -z "${TESTS:-}" ] || gpu_tests "$B" "${LIMIT:-540}" tests.txt
