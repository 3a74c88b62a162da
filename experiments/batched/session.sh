#!/usr/bin/env bash
# Batched GEMM against cublasSgemmStridedBatched, one GPU call: build the library, the batched
# tests (ctest -R Batched, SGEMM_REQUIRE_GPU=1), then the batched suite (sgemm_batched_bench).
# $OUT gets batched_<gpu>.txt, the tests' outcomes and the logs.
source "$(dirname "$0")/../session_common.sh"
gpu=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -n 1)
case "$gpu" in *H200*) tag=h200 ;; *H100*) tag=h100 ;; *) tag=other ;; esac
configure_and_build sgemm_batched_bench gpu_batched_test
TESTS=Batched gpu_tests "$B" "${LIMIT:-300}" batched_tests_$tag.txt
step batched 240 "$B/sgemm_batched_bench"
cp "$W/batched.txt" "$OUT/batched_$tag.txt"
tail -20 "$W/batched.txt"
