#!/usr/bin/env bash
# Rung 17 at 512^3 in full (ncu --set full: every section, the stall reasons and where in the
# SASS they fall), clocks not locked, caches flushed before the launch as the bench flushes L2.
#   experiments/rung17/stall_reasons.sh
source "$(dirname "$0")/../session_common.sh"
configure_and_build sgemm
step ncu17_full 200 ncu --clock-control none -k regex:cluster_splitk --launch-skip 2 --launch-count 1 \
  --set full --print-details all --page details $B/sgemm 17 --mnk 512,512,512 --check none \
  --warmup 1 --reps 2 --block-ms 0
step ncu17_source 200 ncu --clock-control none -k regex:cluster_splitk --launch-skip 2 \
  --launch-count 1 --section SourceCounters --section WarpStateStats --page source --csv \
  --print-source sass $B/sgemm 17 --mnk 512,512,512 --check none --warmup 1 --reps 2 --block-ms 0
