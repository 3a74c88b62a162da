#!/usr/bin/env bash
# Rung 13 and the one call off Hopper on inputs users have, one GPU call: the compute-8.0 build
# through the JIT, `sgemm 13 18` on the shapes where the one call takes rung 13's slices or its
# packed copies, checked (exact and random) and timed against cuBLAS SGEMM on each input class
# of the generator. Back in $OUT: inputs_sm80.txt (the runner's tables, one per class, and any
# FAILED line) and logs.tar.gz.
source "$(dirname "$0")/../session_common.sh"
S=build-sm80
step configure_sm80 120 cmake -B "$S" -G Ninja -DCMAKE_BUILD_TYPE=Release \
  -DCMAKE_CUDA_ARCHITECTURES=80
step build_sm80 300 cmake --build "$S" -j --target sgemm
shapes="--mnk 1000,1000,1000 --mnk 1024,1024,1024 --mnk 2048,2048,2048 --mnk 4096,256,4096"
shapes+=" --mnk 256,4096,4096 --mnk 4097,4097,4097"
step inputs_sm80 240 bash -c "for in in uniform normal phi=2 exponents=40 k-scales=20 \
    big-rows span=60; do
    echo \"--- \$in\"
    $S/sgemm 13 18 $shapes --inputs \$in --check both --block-ms 20 || echo \"FAILED on \$in\"
  done"
grep -E "^---|FAILED|mma_3xtf32|best" "$W/inputs_sm80.txt" | cut -c1-150
