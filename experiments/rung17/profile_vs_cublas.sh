#!/usr/bin/env bash
# Where rung 17's time goes at 512^3 and 128^3: ncu's sections for one launch of its kernel
# (clocks not locked; caches flushed before it, as the bench flushes L2), and the durations of
# cuBLAS SGEMM's kernels on the same shapes. Logs under $OUT.
#   experiments/rung17/profile_vs_cublas.sh
source "$(dirname "$0")/../session_common.sh"
configure_and_build sgemm
run=(--check none --warmup 1 --reps 2 --block-ms 0)
sections=(--section SpeedOfLight --section LaunchStats --section Occupancy --section SchedulerStats
          --section WarpStateStats --section MemoryWorkloadAnalysis --section ComputeWorkloadAnalysis)
for s in 512 128; do
  step ncu17_$s 120 ncu --clock-control none -k regex:cluster_splitk --launch-skip 2 \
    --launch-count 1 "${sections[@]}" $B/sgemm 17 --mnk $s,$s,$s "${run[@]}"
done
step ncu_cublas 120 ncu --clock-control none --metrics gpu__time_duration.sum,launch__grid_size,launch__block_size,launch__registers_per_thread \
  $B/sgemm 0 17 --mnk 512,512,512 --mnk 128,128,128 "${run[@]}"
