#!/usr/bin/env bash
# Rung 17's deeper k-tiles for long slices (kDeepSmallTile): its GPU tests, then rung 18's
# table measured again (scripts/autotune --best), which comes back under $OUT.
#   experiments/one_call/rung17_deep_session.sh
source "$(dirname "$0")/../session_common.sh"
configure_and_build
step tests 200 bash -c "$B/tests/gpu_correctness_test --gtest_filter='*cluster_splitk*:ClusterSplitK.*:*best*' &&
  $B/tests/gpu_semantics_test --gtest_filter='*cluster_splitk*:*best*'"
step autotune 420 scripts/autotune --best --build $B
cp results/h200/best_rates.json kernels/18_best_table.inc "$OUT/"
