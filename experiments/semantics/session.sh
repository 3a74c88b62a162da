#!/usr/bin/env bash
# One GPU call: build this tree, run every test, time rungs 10, 11, 13 and 14 against their
# kernel files before the change (.baseline/kernels, experiments/timing/before_after.cu), the
# power-cap experiment with short blocks, and an sm_80 build on this GPU (its Hopper-only rungs
# must report unsupported and their tests skip). Short files go to $OUT as each step ends, the
# rest into $OUT/logs.tar.gz: a call cut off at its limit still brings back what it finished.
#   OUT=<dir> experiments/semantics/session.sh
source "$(dirname "$0")/../session_common.sh"  # $OUT, $W, step, the clock log

cmake -B build-gpu -G Ninja -DCMAKE_BUILD_TYPE=Release > /dev/null &&
  cmake --build build-gpu -j 16 > "$W/build.log" 2>&1 || { tail -30 "$W/build.log"; exit 1; }
nvcc -O3 -std=c++17 -gencode=arch=compute_90a,code=sm_90a -Ilibrary -Irunner -I.baseline/kernels \
  -I.deps/usr/include experiments/timing/before_after.cu build-gpu/libsgemm_harness.a \
  build-gpu/libsgemm_ladder.a -lcublas -ldl -o build-gpu/before_after &
tools=($!)
nvcc -O2 -std=c++17 -Ilibrary -Irunner -I.deps/usr/include experiments/timing/power_cap.cu \
  build-gpu/libsgemm_harness.a build-gpu/libsgemm_ladder.a -lcublas -ldl -o build-gpu/power_cap &
tools+=($!)
wait "${tools[@]}"
echo "=== built after $SECONDS s"

step ctest 280 ctest --test-dir build-gpu -j 6 --timeout 240 -E '^style\.' --output-on-failure \
  --output-junit "$W/ctest.xml"
grep -E "tests passed|tests failed|Total Test" "$W/ctest.txt"; grep -E "^\s+[0-9]+ - " "$W/ctest.txt" | head -30
python3 scripts/test-outcomes build-gpu "$W/ctest.xml" --gpu "$(sed -n 2p "$W/gpu.csv" | cut -d, -f1)" \
  > "$OUT/tests.txt" 2>&1
step before_after 60 build-gpu/before_after 4096 8192
cat "$W/before_after.txt"
step power_cap_100ms 70 build-gpu/power_cap 100
tail -7 "$W/power_cap_100ms.txt"
left=$((585 - SECONDS))
if [ "$left" -gt 100 ]; then
  cmake -B build-80 -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=80 > /dev/null &&
    timeout $((left - 60)) cmake --build build-80 -j 16 --target sgemm gpu_runtime_test \
      gpu_correctness_test > "$W/build-80.log" 2>&1 &&
    step unsupported 50 bash -c "build-80/sgemm 9 10 11 14 --sizes 256 --check exact; \
      ctest --test-dir build-80 -R 'Runtime.Every|PowersOfTwo/1[0-4]' -j 4"
  tail -25 "$W/unsupported.txt"
fi
