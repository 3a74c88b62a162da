#!/usr/bin/env bash
# How fast and how accurate is the one call against cuBLAS SGEMM? One GPU call: the bench's 19
# shapes (full-precision uniform inputs) for rungs 11, 15, 16, 17 and 18 (the one call), each
# timed in turn with cuBLAS SGEMM; then the one call at 4096^3 and 1000^3 in NT, TN and TT
# (row-major), and column-major NN; the error against FP64 of cuBLAS SGEMM and the one call at
# 4096^3 on uniform and wide-range inputs. JSON under $OUT (the smaller runs in logs.tar.gz).
# With --table, rung 18's table of this GPU is measured first (scripts/autotune --best; the
# table and best_rates.json come back under $OUT) and the bench runs with it built in.
#   experiments/one_call/vs_cublas.sh [--table]
source "$(dirname "$0")/../session_common.sh"
if [ "${1:-}" = --table ]; then
  configure_and_build
  # this GPU's results folder and table: h100 on an H100, h200 otherwise
  gpu=h200; nvidia-smi --query-gpu=name --format=csv,noheader | grep -q H100 && gpu=h100
  step autotune 330 scripts/autotune --best --build $B --results results/$gpu
  cp results/$gpu/best_rates.json kernels/best/table_$gpu.inc "$OUT/"
fi
configure_and_build sgemm sgemm_bench
step bench_suite 420 $B/sgemm_bench --rungs 11,15,16,17,18 --shapes all \
  --benchmark_out="$OUT/bench_suite.json" --benchmark_out_format=json
for ops in NT TN TT; do
  step bench_$ops 120 $B/sgemm_bench --rungs 18 --mnk 4096,4096,4096 --mnk 1000,1000,1000 \
    --ops $ops --benchmark_out="$W/bench_$ops.json" --benchmark_out_format=json
done
step bench_col 120 $B/sgemm_bench --rungs 18 --mnk 4096,4096,4096 --mnk 1000,1000,1000 \
  --layout col --benchmark_out="$W/bench_col.json" --benchmark_out_format=json
for in in uniform phi=1 exponents=16; do
  step "accuracy_${in//=/_}" 150 $B/sgemm 0 18 --sizes 4096 --accuracy --check none --warmup 1 --reps 2 \
    --block-ms 0 --inputs $in
done
