#!/usr/bin/env bash
# One GPU call for rung 17: build, its GPU tests, every tile and cluster size checked and timed
# on the few-tile shapes (experiments/rung17/configs.cu), then the CLI's rungs 11 and 17 beside
# cuBLAS. Short files to $OUT as each step ends.
#   OUT=<dir> experiments/rung17/session.sh [tests-regex]
source "$(dirname "$0")/../session_common.sh"  # $OUT, $W, step, the clock log
tests=${1:-cluster_splitk|ClusterSplitK}

cmake -B build-gpu -G Ninja -DCMAKE_BUILD_TYPE=Release > /dev/null &&
  cmake --build build-gpu -j 16 --target sgemm gpu_correctness_test gpu_semantics_test \
    gpu_inputs_test gpu_precision_test gpu_errors_test > "$W/build.log" 2>&1 ||
  { tail -30 "$W/build.log"; cp "$W/build.log" "$OUT/"; exit 1; }
libs="build-gpu/libsgemm_harness.a build-gpu/libsgemm_ladder.a -lcublas -ldl"
flags="-O3 -std=c++17 -gencode=arch=compute_90a,code=sm_90a -Irunner -I.deps/usr/include"
nvcc $flags experiments/rung17/configs.cu $libs -o build-gpu/configs17 > "$W/nvcc.log" 2>&1 ||
  { cat "$W/nvcc.log"; cp "$W/nvcc.log" "$OUT/"; }
echo "=== built after $SECONDS s"

step tests17 120 ctest --test-dir build-gpu -j 8 --timeout 100 -R "$tests" --output-on-failure
grep -E "tests passed|tests failed" "$W/tests17.txt"; grep -E "^\s+[0-9]+ - " "$W/tests17.txt" | head -20
step configs17 150 build-gpu/configs17 40
cat "$W/configs17.txt"
step cli17 60 build-gpu/sgemm 11 17 --sizes 128,256,512,1000,1024 --check none
tail -30 "$W/cli17.txt"
