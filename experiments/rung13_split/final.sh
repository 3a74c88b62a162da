#!/usr/bin/env bash
# The final code on this GPU, one call: the Hopper build, `sgemm all` (ladder.json), rung 13's
# suite on that build (bench13.json, for results/<gpu>/bench.json: its tiles changed), then
# every GPU test in the time left before LIMIT seconds (tests.txt). Those three and logs.tar.gz
# come back in $OUT; the steps' logs go to gpu-out-steps/ (a call brings back 8 files at most).
FINAL_OUT=${OUT:-$PWD/gpu-out}
export OUT=$PWD/gpu-out-steps
source "$(dirname "$0")/../session_common.sh"
configure_and_build
step ladder 150 "$B/sgemm" all --json "$OUT/ladder.json"
sed -n '/^summary/,$p' "$W/ladder.txt"
step bench13 120 "$B/sgemm_bench" --benchmark_out="$OUT/bench13.json" \
  --benchmark_out_format=json --rungs 13 --shapes all
gpu_tests "$B" "${LIMIT:-560}" tests.txt
mkdir -p "$FINAL_OUT"
save
cp "$OUT/ladder.json" "$OUT/bench13.json" "$OUT/tests.txt" "$OUT/logs.tar.gz" "$FINAL_OUT/"
