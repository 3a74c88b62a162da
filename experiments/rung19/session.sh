#!/usr/bin/env bash
# Rung 19 on a GPU, one call: build, rung 19's GPU tests and the batched ones
# (SGEMM_REQUIRE_GPU=1), every cluster size on the small shapes (clusters.cu), the small
# shapes through the runner (rungs 15, 17, 18, 19, each
# against cuBLAS SGEMM in turn), rung 19 checked on the hard input classes, then the batched
# suite. $OUT gets the tests' outcomes, small_<gpu>.json and the logs.
source "$(dirname "$0")/../session_common.sh"
gpu=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -n 1)
case "$gpu" in *H200*) tag=h200 ;; *H100*) tag=h100 ;; *) tag=other ;; esac
configure_and_build
TESTS="19_cluster|Cluster3xTf32|Batched" gpu_tests "$B" 240 tests_$tag.txt
step clusters_build 120 nvcc -O3 -std=c++17 -gencode=arch=compute_90a,code=sm_90a -Ilibrary \
  -Ikernels -Irunner -Iinclude -I.deps/usr/include experiments/rung19/clusters.cu \
  "$B/libsgemm_harness.a" "$B/libsgemm_ladder.a" -lcublas -ldl -o "$B/clusters19"
step clusters 150 "$B/clusters19"
shapes="--mnk 128,128,128 --mnk 256,256,256 --mnk 512,512,512 --mnk 1000,1000,1000"
shapes+=" --mnk 1024,1024,1024 --mnk 333,257,4099 --mnk 64,4096,4096"
step small 150 "$B/sgemm" 15 17 18 19 $shapes --block-ms 100 --json "$OUT/small_$tag.json"
step inputs 120 bash -c "for in in normal phi=2 exponents=40 k-scales=20 big-rows span=60; do
    echo \"--- \$in\"
    $B/sgemm 19 $shapes --inputs \$in --check both --block-ms 20 || echo \"FAILED on \$in\"
  done"
step batched 150 "$B/sgemm_batched_bench"
# Where the time goes: rungs 17 and 19 under ncu (base clock, caches flushed), one run each.
if [ "${PROFILE:-1}" = 1 ]; then
  step profile 150 bash -c "for n in 128 512 1024; do for r in 17 19; do
    ncu --section SpeedOfLight --section WarpStateStats --section Occupancy \
      -k regex:cluster --launch-count 1 $B/sgemm \$r --mnk \$n,\$n,\$n --check none \
      --warmup 0 --block-ms 0 --reps 2 2>&1 | grep -vE '^==PROF==|^ +-+$'
  done; done"
fi
cat "$W/clusters.txt"; grep -h -E "FAILED|geometric" "$W/inputs.txt" "$W/batched.txt"; grep -hE "^ +(Duration|Compute \(SM\) Throughput|Memory Throughput|Achieved Occupancy|Warp Cycles Per Issued|Registers)|sgemm_cluster|Stall" "$W/profile.txt" | head -60
