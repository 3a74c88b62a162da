#!/usr/bin/env bash
# The last GPU call: the bench (experiments/one_call/bench.sh), then every GPU test
# (scripts/gpu-session without the ladder). Back under $OUT: bench_suite.json, the bench's
# other logs in bench_logs.tar.gz, and gpu-session's data.tar.gz (tests.txt) and ctest.log.
#   experiments/one_call/last_session.sh
FINAL="${OUT:-$PWD/gpu-out}"
export OUT="$PWD/last-session-out"
mkdir -p "$OUT" "$FINAL"
experiments/one_call/bench.sh
BUILD=build-gpu timeout 420 scripts/gpu-session --skip-ladder > "$OUT/gpu_session.txt" 2>&1
tail -5 "$OUT/gpu_session.txt"
cp "$OUT/bench_suite.json" "$OUT/data.tar.gz" "$OUT/ctest.log" "$FINAL/" 2>/dev/null
tar -czf "$FINAL/bench_logs.tar.gz" -C "$OUT" $(cd "$OUT" && ls bench_*.txt accuracy_*.txt 2>/dev/null)
