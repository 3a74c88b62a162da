#!/usr/bin/env bash
# The batched calls off Hopper: a build for compute capability 8.0 alone, run through the
# driver's JIT (the project's stand-in for an A100 or an RTX card), where every batch that
# rule 4 takes runs the FFMA tiles (library/ffma_batched.cu, cp.async from 8.0 on). One GPU
# call: the batched tests (SGEMM_REQUIRE_GPU=1), then the batched suite and its --choice cases.
# $OUT gets tests_sm80_<gpu>.txt and batched_sm80_<gpu>.txt.
source "$(dirname "$0")/../session_common.sh"
gpu=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -n 1)
case "$gpu" in *H200*) tag=h200 ;; *H100*) tag=h100 ;; *) tag=other ;; esac
B=build-sm80
step configure 120 cmake -B "$B" -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=80
step build 300 cmake --build "$B" -j --target sgemm_batched_bench gpu_batched_test
TESTS=Batched gpu_tests "$B" "${LIMIT:-400}" tests_sm80_$tag.txt " (compute-8.0 build, JIT)"
step bench_sm80 150 "$B/sgemm_batched_bench" --choice
cp "$W/bench_sm80.txt" "$OUT/batched_sm80_$tag.txt"
grep -v '^{' "$W/bench_sm80.txt"
