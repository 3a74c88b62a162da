#!/usr/bin/env bash
# The one call beside every rung it chooses from, in one bench run (issue 52's "every shape at
# least 0.97x the best single rung" compares rows of one run, not of runs days apart), then
# the Python bench, its methods timed in turn. One GPU call (carry .deps):
#   $OUT/bench_same_run.json   sgemm_bench --rungs 15,16,17,18,19 --shapes all
#   $OUT/python_bench.json     python/bench.py
source "$(dirname "$0")/../session_common.sh"
configure_and_build sgemm_bench sgemm_ladder_shared sgemm_jax_ffi
step bench 400 "$B/sgemm_bench" --benchmark_out="$OUT/bench_same_run.json" \
  --benchmark_out_format=json --rungs 15,16,17,18,19 --shapes all
export SGEMM_LADDER_LIBRARY=$PWD/$B/libsgemm_ladder.so PYTHONPATH=$PWD/python
step python_bench $((590 - SECONDS)) python3 python/bench.py --out "$OUT/python_bench.json"
grep -E "^(1024|8192)" "$W/python_bench.txt" | grep -E "FP32|sgemm_ladder"
