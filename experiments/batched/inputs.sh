#!/usr/bin/env bash
# The batched suite on the generator's other distributions, and where Q K^T's and P V's time goes.
# One GPU call: build, the suite (the call's own choice) once per distribution in $INPUTS, then,
# with PROFILE=1, ncu on the pre-pass and the main kernel of qk and pv: each kernel's time and
# memory rate, and the main kernel's executed instructions per SASS line for qk; with
# PROFILE=stalls, the two main kernels' pipes, memory units, warp states and schedulers. $OUT gets
# inputs_<gpu>.txt (the tables and JSON lines), the profiles and the logs.
source "$(dirname "$0")/../session_common.sh"
gpu=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -n 1)
case "$gpu" in *H200*) tag=h200 ;; *H100*) tag=h100 ;; *) tag=other ;; esac
configure_and_build sgemm_batched_bench
for inputs in ${INPUTS:-uniform normal phi=2 exponents=40 k-scales=20}; do
  step "bench_$inputs" 150 "$B/sgemm_batched_bench" --inputs "$inputs" --block-ms "${BLOCK_MS:-50}"
  cat "$W/bench_$inputs.txt" >> "$W/inputs.txt"
done
cp "$W/inputs.txt" "$OUT/inputs_$tag.txt"
grep -v '^{' "$W/inputs.txt"
if [ "${PROFILE:-0}" = 1 ]; then
  for c in qk_4096x1024x1024x64 pv_4096x1024x64x1024; do
    # The pre-pass and the main kernel of the call after the check's.
    step "ncu_kernels_$c" 200 ncu --clock-control none -k 'regex:split_batch|sgemm_every_shape' \
      --launch-skip 2 --launch-count 2 \
      --section SpeedOfLight --metrics gpu__time_duration.sum,dram__bytes_read.sum,dram__bytes_write.sum \
      "$B/sgemm_batched_bench" --case "$c" --rounds 1 --block-ms 0
  done
  step ncu_qk_source 300 ncu --clock-control none -k regex:sgemm_every_shape -c 1 \
    --section SourceCounters --section WarpStateStats -o "$W/qk_source" \
    "$B/sgemm_batched_bench" --case qk_4096x1024x1024x64 --rounds 1 --block-ms 0
  step qk_sass 120 ncu --import "$W/qk_source.ncu-rep" --page source --print-source sass --csv
  gzip -c "$W/qk_sass.txt" > "$OUT/qk_sass.csv.gz"
  cat "$W"/ncu_kernels_*.txt > "$OUT/ncu_kernels.txt"
fi
if [ "${PROFILE:-0}" = stalls ]; then
  for c in qk_4096x1024x1024x64 pv_4096x1024x64x1024; do
    step "ncu_stalls_$c" 200 ncu --clock-control none -k regex:sgemm_every_shape \
      --launch-skip 1 --launch-count 1 --section SpeedOfLight --section ComputeWorkloadAnalysis \
      --section MemoryWorkloadAnalysis --section WarpStateStats --section SchedulerStats \
      --print-details all "$B/sgemm_batched_bench" --case "$c" --rounds 1 --block-ms 0
  done
  cat "$W"/ncu_stalls_*.txt > "$OUT/ncu_main_stalls.txt"
fi
