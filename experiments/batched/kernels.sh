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
# TESTS=none: the benches alone (the tests ran in this machine's last call).
[ "${TESTS:-Batched}" = none ] || TESTS=Batched gpu_tests "$B" "${LIMIT:-300}" batched_tests_$tag.txt
for kernel in ${KERNELS:-automatic ffma_tiles rung15_batch rung15_split_a rung19_tiles rung17_ffma}; do
  step "bench_$kernel" 150 "$B/sgemm_batched_bench" --choice --kernel "$kernel"
  cat "$W/bench_$kernel.txt" >> "$W/kernels.txt"
done
cp "$W/kernels.txt" "$OUT/kernels_$tag.txt"
grep -v '^{' "$W/kernels.txt"
# PROFILE=1: where the FFMA tiles' time goes (ncu, clocks as the GPU sets them), on a short-K case
# and a long-K one.
if [ "${PROFILE:-0}" = 1 ]; then
  for c in '1024x64^3' '8x2048^3'; do
    step "ncu_${c//^/}" 200 ncu --clock-control none -k regex:ffma_batched -c 1 \
      --section SpeedOfLight --section Occupancy --section WarpStateStats \
      --section SchedulerStats --section LaunchStats --section MemoryWorkloadAnalysis \
      --metrics l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum,l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum,sm__pipe_fma_cycles_active.avg.pct_of_peak_sustained_active,smsp__inst_executed.sum,smsp__inst_executed_pipe_fma.sum \
      "$B/sgemm_batched_bench" --case "$c" --kernel ffma_tiles --rounds 1 --block-ms 0
  done
  cat "$W"/ncu_*.txt > "$OUT/ncu_ffma_tiles.txt"
fi
