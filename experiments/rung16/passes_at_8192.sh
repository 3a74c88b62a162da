#!/usr/bin/env bash
# Rung 16's pre-pass and reconstruction at 8192^3 (issue 27's margin), and rung 16 before and
# after issue 26's headers and before and after the leaner pre-pass
# (experiments/timing/before_after_rung16.cu; needs the carried .ba16/ folder its header
# describes). One GPU call: build, rung 16's GPU tests, before/after, rungs 15 and 16 beside
# cuBLAS on uniform and normal inputs, then Nsight Compute on rung 16's small kernels at 8192^3.
#   experiments/rung16/passes_at_8192.sh
source "$(dirname "$0")/../session_common.sh"
B=build-gpu
step configure 120 cmake -B $B -G Ninja -DCMAKE_BUILD_TYPE=Release
step build 300 cmake --build $B -j
step tests 300 ctest --test-dir $B -j8 -L gpu -R "ozaki_int8|Planted" --output-on-failure
if [ -d .ba16 ]; then
  step ba16_build 300 nvcc -O3 -std=c++17 -gencode=arch=compute_90a,code=sm_90a -Ilibrary -Irunner -I.ba16 \
    -I.deps/usr/include experiments/timing/before_after_rung16.cu $B/libsgemm_harness.a \
    $B/libsgemm_ladder.a -lcublas -ldl -o $B/before_after_rung16
  step before_after_rung16 120 $B/before_after_rung16 4096 8192
fi
for in in uniform normal; do
  step time_$in 120 $B/sgemm 15 16 --sizes 4096,8192 --inputs $in
done
step ncu_prepass 240 ncu --clock-control none --section SpeedOfLight \
  --section ComputeWorkloadAnalysis --section MemoryWorkloadAnalysis --section WarpStateStats \
  --section Occupancy --section LaunchStats -k regex:"ozaki_int8_(row|column|predict|reconstruct)" \
  $B/sgemm 16 --sizes 8192 --check none --warmup 0 --reps 2 --block-ms 0
step ncu_times 120 ncu --clock-control none --metrics gpu__time_duration.sum --csv \
  $B/sgemm 16 --sizes 8192 --check none --warmup 1 --reps 2 --block-ms 0
