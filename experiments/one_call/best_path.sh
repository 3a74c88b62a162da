#!/usr/bin/env bash
# Is the one call (rung 18) ever slower than its own best path? On every input distribution the
# generator makes, at 4096^3 and 8192^3: rungs 15, 16 and 18 measured by the bench, each timed
# in turn with cuBLAS SGEMM, one sgemm_bench run per distribution; then best_path.py prints
# rung 18's time over the faster of rungs 15 and 16 (the bar: >= 0.95x their speed). JSON per
# distribution under $OUT/best_path/ (packed into best_path.tar.gz), the summary in
# $OUT/best_path.txt. Assumes build-gpu/ (scripts/gpu-session builds it). BLOCK_MS: the bench's
# --block-ms (default 100; longer blocks average more of the power cap's swings). INPUTS: the
# distributions to run (default all); SUMMARY=0 leaves the summary out (a call that runs part).
#   experiments/one_call/best_path.sh
#   BLOCK_MS=300 experiments/one_call/best_path.sh
#   INPUTS="uniform normal" SUMMARY=0 experiments/one_call/best_path.sh
set -uo pipefail
cd "$(dirname "$0")/../.."
OUT=${OUT:-$PWD/gpu-out}
mkdir -p "$OUT/best_path"
all="uniform normal phi=0.5 phi=1 phi=2 phi=4 exponents=16 exponents=40 span=16 big-column big-rows
  k-scales=10 k-scales=20"
inputs=${INPUTS:-$all}
for in in $inputs; do
  build-gpu/sgemm_bench --rungs 15,16,18 --sizes 4096,8192 --inputs "$in" --block-ms "${BLOCK_MS:-100}" \
    --check random --benchmark_format=console --benchmark_out="$OUT/best_path/$in.json" \
    --benchmark_out_format=json > /dev/null 2>&1 || echo "$in: sgemm_bench failed"
done
if [ "${SUMMARY:-1}" = 1 ]; then
  python3 experiments/one_call/best_path.py $(for in in $inputs; do echo "$OUT/best_path/$in.json"; done) |
    tee "$OUT/best_path.txt"
fi
cd "$OUT" && tar czf best_path.tar.gz best_path && rm -rf best_path
