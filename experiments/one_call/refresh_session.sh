#!/usr/bin/env bash
# After the last kernel edit, in one GPU call: rung 18's table measured again (scripts/autotune
# --best), then with that table built in, the bench's 19 shapes for rungs 11, 15, 16, 17 and 18,
# the one call in NT, TN, TT and column-major NN at 4096^3 and 1000^3, and its error at 4096^3.
# Back under $OUT: best_rates.json, 18_best_table.inc, bench_suite.json; the rest in logs.tar.gz.
#   experiments/one_call/refresh_session.sh
source "$(dirname "$0")/../session_common.sh"
configure_and_build
step autotune 330 scripts/autotune --best --build $B
cp results/h200/best_rates.json kernels/18_best_table.inc "$OUT/"
step rebuild 120 cmake --build $B -j --target sgemm sgemm_bench
step bench_suite 200 $B/sgemm_bench --rungs 11,15,16,17,18 --shapes all \
  --benchmark_out="$OUT/bench_suite.json" --benchmark_out_format=json
for ops in NT TN TT; do
  step bench_$ops 60 $B/sgemm_bench --rungs 18 --mnk 4096,4096,4096 --mnk 1000,1000,1000 \
    --ops $ops --benchmark_out="$W/bench_$ops.json" --benchmark_out_format=json
done
step bench_col 60 $B/sgemm_bench --rungs 18 --mnk 4096,4096,4096 --mnk 1000,1000,1000 \
  --layout col --benchmark_out="$W/bench_col.json" --benchmark_out_format=json
step accuracy 90 $B/sgemm 0 18 --sizes 4096 --accuracy --check none --warmup 1 --reps 2 \
  --block-ms 0 --inputs uniform
rm -f "$OUT"/*.txt  # the logs travel in logs.tar.gz (at most 8 files come back)
