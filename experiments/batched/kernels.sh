#!/usr/bin/env bash
# Which kernel should take a batch? One GPU call: build, the batched tests (each kernel named on
# odd shapes, Inf and NaN: ctest -R Batched, SGEMM_REQUIRE_GPU=1), then the batched suite and its
# --choice cases on every kernel in turn (sgemm_batched_bench --kernel), the call's own choice
# first. $OUT gets kernels_<gpu>.txt (the benches' tables and JSON lines), the tests' outcomes and
# the logs.
source "$(dirname "$0")/../session_common.sh"
gpu=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -n 1)
case "$gpu" in *H200*) tag=h200 ;; *H100*) tag=h100 ;; *) tag=other ;; esac
configure_and_build sgemm_batched_bench gpu_batched_test
TESTS=Batched gpu_tests "$B" "${LIMIT:-300}" batched_tests_$tag.txt
for kernel in ${KERNELS:-automatic ffma_tiles fused_3xtf32 cluster_3xtf32 ffma_cluster}; do
  step "bench_$kernel" 150 "$B/sgemm_batched_bench" --choice --kernel "$kernel"
  cat "$W/bench_$kernel.txt" >> "$W/kernels.txt"
done
cp "$W/kernels.txt" "$OUT/kernels_$tag.txt"
grep -v '^{' "$W/kernels.txt"
