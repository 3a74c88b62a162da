#!/usr/bin/env bash
# The pre-pass with more bytes a thread (B's transpose in 64 x 64 tiles, split_rows 8 a
# thread) and rung 17's loop: the GPU tests of the rungs that use them, each kernel's duration
# (ncu, clocks not locked) of rung 15 where the pre-pass weighs most, then rung 18's table
# measured again (scripts/autotune --best), which comes back under $OUT.
#   experiments/one_call/prepass_session.sh
source "$(dirname "$0")/../session_common.sh"
configure_and_build
step tests 150 bash -c "$B/tests/gpu_correctness_test --gtest_filter='*3xtf32*:Rung15Paths.*:*best*:*cluster_splitk*:ClusterSplitK.*' &&
  $B/tests/gpu_semantics_test --gtest_filter='*3xtf32*:*best*:*ozaki*'"
grep -E "^\[  (PASSED|FAILED) |FAILED  \]" "$W/tests.txt" | head -20
step ncu_prepass 150 ncu --clock-control none --metrics gpu__time_duration.sum --csv \
  $B/sgemm 15 --mnk 256,4096,4096 --mnk 4096,256,4096 --mnk 1000,1000,1000 \
  --mnk 1024,1024,65536 --check none --warmup 1 --reps 2 --block-ms 0
grep -E "split|sgemm_" "$W/ncu_prepass.txt" | awk -F'","' '{print $5, $(NF)}' | sort | uniq -c | head -20
step autotune 420 scripts/autotune --best --build $B
cp results/h200/best_rates.json kernels/18_best_table.inc "$OUT/"
