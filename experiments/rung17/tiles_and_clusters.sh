#!/usr/bin/env bash
# One GPU call for rung 17: its GPU tests (every test whose name holds cluster_splitk, and the
# suites that run every rung or the last one), every tile and cluster size checked and timed on
# the few-tile shapes (experiments/rung17/configs.cu), then the CLI's rungs 11 and 17 beside
# cuBLAS, checked and timed. Uses the binaries in build/ when they run (built on a CPU machine
# with -DCMAKE_BUILD_TYPE=Release), else builds them. Short files to $OUT as each step ends.
#   OUT=<dir> experiments/rung17/tiles_and_clusters.sh
source "$(dirname "$0")/../session_common.sh"  # $OUT, $W, step, the clock log
B=build
tests="gpu_correctness_test gpu_semantics_test gpu_inputs_test gpu_errors_test gpu_checker_test
       gpu_precision_test gpu_runtime_test"
if ! $B/sgemm --list > /dev/null 2>&1 || [ ! -x $B/configs17 ]; then
  B=build-gpu
  cmake -B $B -G Ninja -DCMAKE_BUILD_TYPE=Release > /dev/null &&
    cmake --build $B -j 16 --target sgemm $tests > "$W/build.log" 2>&1 ||
    { tail -30 "$W/build.log"; cp "$W/build.log" "$OUT/"; exit 1; }
  nvcc -O3 -std=c++17 -gencode=arch=compute_90a,code=sm_90a -Ilibrary -Ikernels -Irunner -I.deps/usr/include \
    experiments/rung17/configs.cu $B/libsgemm_harness.a $B/libsgemm_ladder.a -lcublas -ldl \
    -o $B/configs17
fi
echo "=== binaries in $B after $SECONDS s"

# The GPU tests: rung 17's own (the names that hold cluster_splitk, ClusterSplitK), then the
# suites that loop over every rung or test the last one (errors, checker, precision, runtime).
export B
step tests17 120 bash -c '
  $B/tests/gpu_correctness_test --gtest_filter="*cluster_splitk*:ClusterSplitK.*"
  for t in gpu_semantics_test gpu_inputs_test; do $B/tests/$t --gtest_filter="*cluster_splitk*"; done
  for t in gpu_errors_test gpu_checker_test gpu_precision_test gpu_runtime_test; do
    timeout 40 $B/tests/$t || echo "$t: exit $?"
  done'
grep -E "^\[  (PASSED|FAILED|SKIPPED) |^\[  FAILED  \]|: exit [0-9]" "$W/tests17.txt" | head -30
step configs17 120 $B/configs17 40
cat "$W/configs17.txt"
step cli17 70 $B/sgemm 11 17 --block-ms 100 --mnk 128,128,128 --mnk 256,256,256 \
  --mnk 512,512,512 --mnk 1000,1000,1000 --mnk 1024,1024,1024 --mnk 4096,256,4096 \
  --mnk 256,4096,4096 --mnk 1024,1024,65536 --json "$OUT/cli17.json"
tail -25 "$W/cli17.txt"
