#!/usr/bin/env bash
# Where does rung 15's split in the main kernel stop paying, on this GPU? One GPU call: rung 15
# as it is (after, kSplitAMaxN as committed) against two copies of its kernel files (before) at
# kSplitAMaxN 0 (never split in the kernel: the pre-pass path alone) and 2048, cuBLAS in turn, on
# shapes with N from 256 to 2048; then the GPU tests matching TESTS (a ctest -R pattern), where
# set. Reading it: with 0, after/before > 1 where the split pays at N <= kSplitAMaxN; with 2048,
# after/before < 1 where a higher limit would pay. Run at ce1b602 (limit 512) on both GPUs, it
# moved the limit to 1024 (experiments/rung15/results/*/rung15_limit_*.txt; experiments/notebook).
#   experiments/rung15/split_a_limit.sh
source "$(dirname "$0")/../session_common.sh"
configure_and_build
libs="$B/libsgemm_harness.a $B/libsgemm_ladder.a -lcublas -ldl"
for n in 0 2048; do
  alt=$B/alt$n
  rm -rf "$alt" && mkdir -p "$alt" && cp -r kernels "$alt/"
  sed -i "s/constexpr int kSplitAMaxN = [0-9]*;/constexpr int kSplitAMaxN = $n;/" \
    "$alt/kernels/15_every_shape_3xtf32.cu"
  grep -q "constexpr int kSplitAMaxN = $n;" "$alt/kernels/15_every_shape_3xtf32.cu" ||
    { echo "kSplitAMaxN not found in rung 15"; exit 1; }
  nvcc -O3 -std=c++17 -gencode=arch=compute_90a,code=sm_90a -Ilibrary -Irunner \
    -I.deps/usr/include -I"$alt/kernels" experiments/timing/before_after.cu $libs \
    -o "$B/before_after_$n" > "$W/build_$n.txt" 2>&1 || { tail -20 "$W/build_$n.txt"; exit 1; }
done
shapes="4096x256x4096 16384x512x4096 8192x512x8192 4096x1024x4096 1000 1024 1024x1024x65536
  2048 4096x2048x4096"
step limit_0 150 $B/before_after_0 --rung 15 $shapes
cat "$W/limit_0.txt"
step limit_2048 150 $B/before_after_2048 --rung 15 $shapes
cat "$W/limit_2048.txt"
[ -z "${TESTS:-}" ] || gpu_tests "$B" "${LIMIT:-540}" tests.txt
