#!/usr/bin/env bash
# Why does rung 16 run 10% below rung 15 at 16384^3 on phi=4 inputs on the H100 (4% on the
# H200; experiments/notebook/results/h100/notebook.txt), where it hands the whole problem to rung 15 after a
# prediction that costs about 50 us? One GPU call: rungs 15 and 16 timed on those inputs, then
# with a workspace limit large enough for both rungs' workspaces at once, then every kernel of
# one call of each under Nsight Compute (which path rung 15 takes inside rung 16, and how long
# each kernel runs, the gated-off ones included).
#   experiments/rung16/handoff_16384.sh
source "$(dirname "$0")/../session_common.sh"
configure_and_build sgemm
step times 200 $B/sgemm 15 16 --sizes 16384 --inputs phi=4 --block-ms 300
step times_big_pool 200 env SGEMM_WORKSPACE_LIMIT=40G $B/sgemm 15 16 --sizes 16384 \
  --inputs phi=4 --block-ms 300
step ncu_times 150 ncu --clock-control none --metrics gpu__time_duration.sum --csv \
  $B/sgemm 15 16 --sizes 16384 --inputs phi=4 --check none --warmup 0 --reps 2 --block-ms 0
