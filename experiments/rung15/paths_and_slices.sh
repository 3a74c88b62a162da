#!/usr/bin/env bash
# One GPU call for rung 15: build, its tests first, the choice measured on the 19 shapes
# (experiments/rung15/configs.cu), the speed before and after (experiments/timing/before_after.cu
# against .baseline/kernels), then every test. Short files to $OUT as each step ends.
#   OUT=<dir> experiments/rung15/paths_and_slices.sh
source "$(dirname "$0")/../session_common.sh"  # $OUT, $W, step, the clock log

cmake -B build-gpu -G Ninja -DCMAKE_BUILD_TYPE=Release > /dev/null &&
  cmake --build build-gpu -j 16 > "$W/build.log" 2>&1 || { tail -30 "$W/build.log"; exit 1; }
libs="build-gpu/libsgemm_harness.a build-gpu/libsgemm_ladder.a -lcublas -ldl"
flags="-O3 -std=c++17 -gencode=arch=compute_90a,code=sm_90a -Ilibrary -Irunner -I.deps/usr/include"
nvcc $flags -I.baseline/kernels experiments/timing/before_after.cu $libs -o build-gpu/before_after &
p1=$!
nvcc $flags -Ikernels experiments/rung15/configs.cu $libs -o build-gpu/configs15 &
p2=$!
wait $p1 $p2
echo "=== built after $SECONDS s"

step ctest15 150 ctest --test-dir build-gpu -j 6 --timeout 120 -R "1[2-5]_|every_shape_3xtf32|Runtime|Planted" \
  --output-on-failure
grep -E "tests passed|tests failed" "$W/ctest15.txt"; grep -E "^\s+[0-9]+ - " "$W/ctest15.txt" | head -20
step configs15 200 build-gpu/configs15 120
cat "$W/configs15.txt"
step before_after 80 build-gpu/before_after 4096 8192
cat "$W/before_after.txt"
left=$((580 - SECONDS))
[ "$left" -gt 60 ] && step ctest $left ctest --test-dir build-gpu -j 6 --timeout 200 -E '^style\.' \
  --output-on-failure --output-junit "$W/ctest.xml"
grep -E "tests passed|tests failed|Total Test" "$W/ctest.txt"; grep -E "^\s+[0-9]+ - " "$W/ctest.txt" | head -30
python3 scripts/test-outcomes build-gpu "$W/ctest.xml" --gpu "NVIDIA H200" > "$OUT/tests.txt" 2>&1
