#!/usr/bin/env bash
# The last GPU calls of a session on issues 26 and 27, each inside 10 minutes:
#   final.sh tests BASELINE_TREE   every test (scripts/gpu-session, tests.txt in data.tar.gz) and
#                                  rungs 10, 11, 14, 15 before and after against a baseline
#                                  tree's kernels (experiments/timing/before_after.cu)
#   final.sh speed                 the bench per distribution (bench.sh), then rung 16 beside
#                                  GEMMul8 (experiments/gemmul8, needs .gemmul8/ carried)
set -uo pipefail
cd "$(dirname "$0")/../.."
OUT=${OUT:-$PWD/gpu-out}
what=${1:-tests} baseline=${2:-.baseline}
export CMAKE_PREFIX_PATH=$PWD/.deps/usr SGEMM_REQUIRE_GPU=1
if [ "$what" = tests ]; then
  timeout 360 scripts/gpu-session --skip-ladder 2>&1 | tail -4
  nvcc -O3 -std=c++17 -gencode=arch=compute_90a,code=sm_90a -Ilibrary -Irunner -I"$baseline/kernels" \
    -I.deps/usr/include experiments/timing/before_after.cu build-gpu/libsgemm_harness.a \
    build-gpu/libsgemm_ladder.a -lcublas -ldl -o build-gpu/before_after &&
    timeout 100 build-gpu/before_after 4096 8192 2>&1 | tee "$OUT/before_after.txt" | tail -9
  exit 0
fi
cmake -B build-gpu -G Ninja >/dev/null && cmake --build build-gpu -j >"$OUT/build.log" 2>&1 ||
  { tail -30 "$OUT/build.log"; exit 1; }
timeout 240 experiments/rung16_inputs/bench.sh 2>&1 | grep -cE "rung:1[56]"
if [ -d .gemmul8 ]; then
  nvcc -O3 -std=c++17 -gencode=arch=compute_90a,code=sm_90a -Ilibrary -Irunner -I.gemmul8/include \
    experiments/gemmul8/compare.cu build-gpu/libsgemm_harness.a build-gpu/libsgemm_ladder.a \
    .gemmul8/lib/libgemmul8.a -lcublas -lcublasLt -ldl -o build-gpu/compare &&
    timeout 200 build-gpu/compare --json "$OUT/gemmul8.json" 4096 8192 2>&1 |
    tee "$OUT/gemmul8.txt" | tail -40
fi
