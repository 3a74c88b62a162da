# Sourced by the experiments' one-call GPU sessions (experiments/*/*.sh): the repository
# root as working folder, $OUT (files that come back) and $W (session-logs/, packed into
# $OUT/logs.tar.gz), SGEMM_REQUIRE_GPU=1, the carried .deps/, the clock log, and
#   step NAME SECONDS COMMAND...   run with a time limit, log to $W/NAME.txt, copy it to $OUT
# so that a call cut off at its limit still brings back what it finished.
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
OUT=${OUT:-$PWD/gpu-out}
W=$PWD/session-logs
mkdir -p "$OUT" "$W"
export SGEMM_REQUIRE_GPU=1 CMAKE_PREFIX_PATH=$PWD/.deps/usr
save() { tar -czf "$OUT/logs.tar.gz" -C "$W" . 2>/dev/null; }
step() {
  local name=$1 limit=$2; shift 2
  echo "=== $name ($limit s at most)"
  timeout "$limit" "$@" > "$W/$name.txt" 2>&1
  echo "=== $name: exit $? after $SECONDS s"
  cp "$W/$name.txt" "$OUT/" 2>/dev/null
  save
}
# Every session's first two steps: configure $B (default build-gpu) for Release and build the
# given targets (all when none are given).
B=${B:-build-gpu}
configure_and_build() {
  step configure 120 cmake -B "$B" -G Ninja -DCMAKE_BUILD_TYPE=Release
  if [ $# -gt 0 ]; then step build 300 cmake --build "$B" -j --target "$@"
  else step build 300 cmake --build "$B" -j; fi
}
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,driver_version,power.draw,power.limit \
  --format=csv > "$W/gpu.csv" 2>&1
nvidia-smi --query-gpu=timestamp,clocks.sm,power.draw,temperature.gpu,clocks_event_reasons.active \
  --format=csv,nounits -lms 500 > "$W/clocks.csv" 2>&1 &
clock_log=$!
trap 'kill $clock_log 2>/dev/null; save' EXIT
# gpu_tests BUILD LIMIT NAME [SUFFIX]: the GPU tests of BUILD (those matching $TESTS, a ctest -R
# pattern, where set) in the time left before LIMIT seconds of the session, then $OUT/NAME as
# scripts/gpu-session writes tests.txt, the GPU named as nvidia-smi names it, then SUFFIX.
gpu_tests() {
  local build=$1 limit=$2 name=$3 suffix=${4:-} gpu left=$(($2 - SECONDS))
  [ "$left" -gt 10 ] || { echo "gpu_tests: no time left before $limit s"; return 1; }
  step ctest "$left" ctest --test-dir "$build" -j 8 --timeout 300 -L gpu \
    ${TESTS:+-R "$TESTS"} --output-junit "$W/ctest.xml"
  grep -E "tests passed|tests failed" "$W/ctest.txt"; grep -E "^\s+[0-9]+ - " "$W/ctest.txt" | head -40
  gpu=$(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -n 1)
  scripts/test-outcomes "$build" "$W/ctest.xml" --gpu "$gpu$suffix" > "$OUT/$name"
  head -2 "$OUT/$name"
}
