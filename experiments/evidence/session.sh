#!/usr/bin/env bash
# The evidence docs 12, 14 and 16 say they lack, in one GPU call: Nsight Compute profiles of
# rungs 12 and 14 at 4096^3 (stall reasons, pipes, occupancy; scripts/profile, clocks never
# locked), and rungs 15, 16 and the one call on every input distribution the generator makes at
# 4096^3 and 8192^3 (experiments/one_call/best_path.sh, which times each in turn with cuBLAS
# SGEMM). Comes back under $OUT: profile_NN.txt and profiles.tar.gz (the JSON summaries and
# logs for results/<gpu>/profiles/), best_path.txt and best_path.tar.gz, logs.tar.gz.
# Two calls of under ten minutes each on an H200 (carry .deps): PART=1 builds, profiles and
# runs the first six distributions; PART=2 the other seven. best_path.py joins the JSON of both.
#   PART=1 experiments/evidence/session.sh
#   PART=2 experiments/evidence/session.sh
source "$(dirname "$0")/../session_common.sh"
configure_and_build sgemm sgemm_bench
if [ "${PART:-1}" = 1 ]; then
  mkdir -p "$W/profiles"
  for rung in 12 14; do
    step "profile_$rung" 200 scripts/profile "$rung" --binary "$B/sgemm" --out "$W/profiles"
  done
  tar -czf "$OUT/profiles.tar.gz" -C "$W/profiles" --exclude='*.ncu-rep' . 2>/dev/null
  INPUTS="uniform normal phi=0.5 phi=1 phi=2 phi=4" SUMMARY=0 \
    step best_path 400 experiments/one_call/best_path.sh
else
  INPUTS="exponents=16 exponents=40 span=16 big-column big-rows k-scales=10 k-scales=20" SUMMARY=0 \
    step best_path 500 experiments/one_call/best_path.sh
fi
save
