#!/usr/bin/env bash
# Rung 16's bound plane over every other k-tile (plan->halfBound, where the sample certifies
# every pair with kHalfBoundMargin to spare): does the plane's time halve at 8192^3, and does
# rung 16 gain what it saves? One GPU call: build, rung 16's GPU tests, rungs 15, 16 and 18
# beside cuBLAS on uniform, normal and phi=1 inputs, then Nsight Compute's kernel times.
#   experiments/rung16/half_bound.sh
source "$(dirname "$0")/../session_common.sh"
configure_and_build
step tests 300 ctest --test-dir $B -j8 -L gpu -R "ozaki|Planted|Graph|graph" --output-on-failure
step times 400 bash -c "for in in uniform normal phi=1; do $B/sgemm 15 16 18 --sizes 4096,8192 \
  --inputs \$in; done; $B/sgemm 16 --sizes 16384 --inputs uniform --block-ms 300"
step ncu_times 120 ncu --clock-control none --metrics gpu__time_duration.sum --csv \
  $B/sgemm 16 --sizes 8192 --check none --warmup 1 --reps 2 --block-ms 0
