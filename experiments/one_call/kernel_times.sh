#!/usr/bin/env bash
# Where the time of the few-tile shapes goes: each kernel's duration (ncu, clocks not locked)
# of rungs 15 and 17 on the suite's shapes where the one call is weakest, next to the bench's
# event-timed total of the same call (sgemm CLI, cuBLAS in turn). Logs under $OUT.
#   experiments/one_call/kernel_times.sh
source "$(dirname "$0")/../session_common.sh"
B=build-gpu
step configure 120 cmake -B $B -G Ninja -DCMAKE_BUILD_TYPE=Release
step build 300 cmake --build $B -j --target sgemm
shapes=(--mnk 512,512,512 --mnk 1000,1000,1000 --mnk 4096,256,4096 --mnk 256,4096,4096
        --mnk 8192,8192,128 --mnk 1024,1024,65536)
step events 240 $B/sgemm 15 17 "${shapes[@]}" --check none
step ncu 300 ncu --clock-control none --metrics gpu__time_duration.sum --csv \
  $B/sgemm 15 17 "${shapes[@]}" --check none --warmup 1 --reps 2 --block-ms 0
