#!/usr/bin/env bash
# Do the library's doors work on this GPU, and what do they give? One GPU call in two parts,
# each under the 10-minute limit, on one warm machine (PART=1, then PART=2):
#   PART=1  configure and build everything, then every GPU test (ctest -L gpu, one test per
#           GoogleTest test, SGEMM_REQUIRE_GPU=1: C++, C ABI, batched, Python, preload)
#   PART=2  the batched suite against cublasSgemmStridedBatched, the Python bench (torch,
#           JAX, the op), the preload library's timing on PyTorch and CuPy; each JSON to $OUT
# Logs in $OUT/logs.tar.gz, a test's outcome in $OUT/tests.txt.
source "$(dirname "$0")/../session_common.sh"
gpu=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -n 1)
case "$gpu" in *H200*) tag=h200 ;; *H100*) tag=h100 ;; *) tag=other ;; esac
if [ "${PART:-1}" = 1 ]; then
  configure_and_build
  TESTS=${TESTS:-} gpu_tests "$B" "${LIMIT:-560}" tests.txt
  grep -E "python|preload|Batched|CApi|Planted" "$W/ctest.txt" | grep -v "Start" | tail -60
else
  export SGEMM_LADDER_LIBRARY=$PWD/$B/libsgemm_ladder.so PYTHONPATH=$PWD/python
  step batched 150 "$B/sgemm_batched_bench"
  cp "$W/batched.txt" "$OUT/batched_$tag.txt"
  step python_bench 240 python3 python/bench.py --out "$OUT/python_bench_$tag.json"
  step preload_bench 150 python3 preload/bench_preload.py --lib "$B/preload/libsgemm_preload.so" \
    --out "$OUT/preload_$tag.json"
  tail -25 "$W/batched.txt"; tail -30 "$W/python_bench.txt"; tail -20 "$W/preload_bench.txt"
fi
