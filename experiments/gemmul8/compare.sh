#!/usr/bin/env bash
# Rung 16 beside GEMMul8 3.0.5 (experiments/gemmul8/compare.cu) at 4096^3, 8192^3 and 16384^3,
# then the error against FP64 at 2048^3. Needs .gemmul8-305/ carried (git-ignored: GEMMul8's
# headers and its static library for sm_90, as compare.cu's first lines and
# .gemmul8-305/BUILD.txt say). Builds $B's harness and ladder (default build-gpu; nothing to do
# after scripts/gpu-session), compiles compare.cu against them, runs it: the table in
# $OUT/compare.txt, the data in $OUT/gemmul8_compare.json.
#   experiments/gemmul8/compare.sh
source "$(dirname "$0")/../session_common.sh"
if [ ! -f .gemmul8-305/lib/libgemmul8.a ] || [ ! -f .gemmul8-305/include/gemmul8.hpp ]; then
  echo "compare.sh: .gemmul8-305/ lacks GEMMul8's headers or library (carry .gemmul8-305)" >&2
  exit 1
fi
configure_and_build sgemm_harness sgemm_ladder
step compare_build 180 nvcc -O3 -std=c++17 -gencode=arch=compute_90a,code=sm_90a -Ilibrary -Irunner \
  -I.gemmul8-305/include experiments/gemmul8/compare.cu "$B/libsgemm_harness.a" "$B/libsgemm_ladder.a" \
  .gemmul8-305/lib/libgemmul8.a -lcublas -lcublasLt -ldl -o .gemmul8-305/compare
step compare 420 .gemmul8-305/compare --json "$OUT/gemmul8_compare.json" 4096 8192 16384
cat "$W/compare.txt"
