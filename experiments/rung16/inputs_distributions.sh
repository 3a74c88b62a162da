#!/usr/bin/env bash
# Rung 16 on real inputs (issue 27), one GPU call: build, the inputs and planted tests, then
# rungs 15 and 16 timed beside cuBLAS SGEMM on every distribution at 4096^3 and 8192^3, each
# with its checks, and the accuracy report at 2048^3. Logs and JSON under $OUT.
#   experiments/rung16/inputs_distributions.sh [--skip-tests] [--sizes "4096 8192"]
set -uo pipefail
cd "$(dirname "$0")/../.."
OUT=${OUT:-$PWD/gpu-out}
mkdir -p "$OUT"
export SGEMM_REQUIRE_GPU=1 CMAKE_PREFIX_PATH=$PWD/.deps/usr
tests=1 sizes="4096 8192" inputs="uniform normal phi=0.5 phi=1 phi=2 phi=4 big-column big-rows grid"
while [ $# -gt 0 ]; do
  case "$1" in
    --skip-tests) tests=0 ;;
    --sizes) sizes=$2; shift ;;
    --inputs) inputs=$2; shift ;;
    *) echo "inputs_distributions.sh: unknown option $1" >&2; exit 2 ;;
  esac
  shift
done
nvidia-smi --query-gpu=name,clocks.max.sm,driver_version --format=csv | tee "$OUT/gpu.txt"
cmake -B build-gpu -G Ninja -DCMAKE_BUILD_TYPE=Release >"$OUT/configure.log" 2>&1 &&
  cmake --build build-gpu -j >"$OUT/build.log" 2>&1 || { tail -40 "$OUT/build.log"; exit 1; }
if [ $tests = 1 ]; then
  (cd build-gpu && timeout 300 ctest -j6 -R "FiniteInputs|Planted|RungCorrectness.*1[3-6]_|RungSemantics.*1[3-6]_" --output-on-failure) \
    >"$OUT/tests.log" 2>&1
  grep -E "tests passed|Failed|FAILED|\*\*\*" "$OUT/tests.log" | head -40
fi
for n in $sizes; do
  for in in $inputs; do
    echo "== $n $in"
    build-gpu/sgemm 15 16 --sizes "$n" --inputs "$in" --json "$OUT/time_${n}_${in}.json" \
      2>&1 | grep -E "^ *1[56] |FAIL|error" | head -4
  done
done
for n in $sizes; do
  ncu --clock-control none --metrics gpu__time_duration.sum --csv -k regex:"ozaki|split|every|sum" \
    build-gpu/sgemm 16 --sizes "$n" --check none --warmup 0 --reps 2 --block-ms 0 \
    >"$OUT/ncu_16_$n.csv" 2>/dev/null
done
build-gpu/sgemm 15 16 --sizes 2048 --accuracy --check none --json "$OUT/accuracy_2048.json" \
  2>&1 | tail -30
cd "$OUT" && tar czf timings.tar.gz time_*.json ncu_*.csv && rm -f time_*.json ncu_*.csv
