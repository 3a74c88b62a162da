#!/usr/bin/env bash
# The evidence docs 12, 14 and 16 say they lack, in one GPU call: Nsight Compute profiles of
# rungs 12 and 14 at 4096^3 (stall reasons, pipes, occupancy; scripts/profile, clocks never
# locked), and rungs 15, 16 and the one call on every input distribution the generator makes at
# 4096^3 and 8192^3 (experiments/one_call/best_path.sh, which times each in turn with cuBLAS
# SGEMM). Comes back under $OUT: profile_NN.txt and profiles.tar.gz (the JSON summaries and
# logs for results/<gpu>/profiles/), best_path.txt and best_path.tar.gz, logs.tar.gz.
#   experiments/evidence/session.sh          (run: carry .deps; about 12 minutes on an H200)
source "$(dirname "$0")/../session_common.sh"
configure_and_build sgemm sgemm_bench
mkdir -p "$W/profiles"
for rung in 12 14; do
  step "profile_$rung" 240 scripts/profile "$rung" --binary "$B/sgemm" --out "$W/profiles"
done
tar -czf "$OUT/profiles.tar.gz" -C "$W/profiles" --exclude='*.ncu-rep' . 2>/dev/null
step best_path 900 experiments/one_call/best_path.sh
save
