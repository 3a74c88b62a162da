#!/usr/bin/env bash
# Rung 16 on real inputs (issue 27), measured by the bench: rungs 15 and 16, each timed in turn
# with cuBLAS SGEMM, one sgemm_bench run per distribution; 16384^3 for uniform and normal.
# JSON per distribution under $OUT (packed into bench_inputs.tar.gz), merged into
# $OUT/rung16_inputs.json (inputs_merge.py) for scripts/inputs-table. Assumes build-gpu/.
#   experiments/rung16/inputs_bench.sh
set -uo pipefail
cd "$(dirname "$0")/../.."
OUT=${OUT:-$PWD/gpu-out}
mkdir -p "$OUT/bench_inputs"
# Every distribution the generator makes (runner/inputs.h), k-scales and exponents=40 included.
order="uniform normal phi=0 phi=0.5 phi=1 phi=2 phi=4 big-column big-rows grid exponents=16
  exponents=40 span=16 span-b=16 k-scales=10 k-scales=20"
for in in $order; do
  sizes=4096,8192
  case $in in uniform | normal) sizes=4096,8192,16384 ;; esac
  build-gpu/sgemm_bench --rungs 15,16 --sizes $sizes --inputs "$in" --benchmark_format=console \
    --benchmark_out="$OUT/bench_inputs/$in.json" --benchmark_out_format=json 2>&1 |
    grep -E "rung:1[56]|error" | sed "s/^/$in /"
done
experiments/rung16/inputs_merge.py "$OUT/rung16_inputs.json" \
  $(for in in $order; do echo "$OUT/bench_inputs/$in.json"; done)
cd "$OUT" && tar czf bench_inputs.tar.gz bench_inputs && rm -rf bench_inputs
