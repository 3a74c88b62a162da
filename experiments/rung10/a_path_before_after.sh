#!/usr/bin/env bash
# One GPU call for rung 10's A path (issue 21): build, rung 10's tests, then rung 10 (and 11)
# before and after (experiments/timing/before_after.cu): the library's kernels as "after"
# against each tree of kernel files given, .baseline (the code before the change) and any
# .variants/NAME (variants of it); then Nsight Compute on rung 10 and on cuBLAS's own kernel at
# 4096^3. Short files to $OUT.
#   git archive <before> kernels | tar -x -C .baseline; OUT=<dir> experiments/rung10/a_path_before_after.sh
source "$(dirname "$0")/../session_common.sh"  # $OUT, $W, step, the clock log

cmake -B build-gpu -G Ninja -DCMAKE_BUILD_TYPE=Release > /dev/null &&
  cmake --build build-gpu -j 16 > "$W/build.log" 2>&1 || { tail -30 "$W/build.log"; exit 1; }
libs="build-gpu/libsgemm_harness.a build-gpu/libsgemm_ladder.a -lcublas -ldl"
flags="-O3 -std=c++17 -gencode=arch=compute_90a,code=sm_90a -Ilibrary -Irunner -I.deps/usr/include"
trees=$(ls -d .baseline .variants/* 2>/dev/null)
pids=""
for t in $trees; do
  nvcc $flags -I"$t/kernels" experiments/timing/before_after.cu $libs \
    -o "build-gpu/before_after_$(basename "$t")" &
  pids="$pids $!"
done
wait $pids  # not a bare wait: the clock log runs in the background until the end
echo "=== built after $SECONDS s"

step ctest10 150 ctest --test-dir build-gpu -j 8 --timeout 120 -R "${TESTS:-tma_specialized}" \
  --output-on-failure
grep -E "tests passed|tests failed" "$W/ctest10.txt"; grep -E "^\s+[0-9]+ - " "$W/ctest10.txt" | head -20
for t in $trees; do
  n=$(basename "$t")
  step "before_after_$n" 100 "build-gpu/before_after_$n" ${SIZES:-4096 8192}
  echo "--- before = $t"; grep -E "^[0-9]" "$W/before_after_$n.txt"
done
for r in ${PROFILE-10 cublas}; do
  step "profile$r" 120 scripts/profile "$r" 4096 --binary build-gpu/sgemm --out "$W/profiles"
  grep -E "issue|FMA pipe|dispatch|kernel time|registers|not selected|short|long|wait" "$W/profile$r.txt"
done
