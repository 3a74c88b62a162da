#!/usr/bin/env bash
# Does every GPU test pass on this GPU, and what does the whole ladder give on this code? One
# GPU call: `sgemm all` first (ladder.json, committed as results/<gpu>/ladder.json), then the GPU
# tests in the time left before LIMIT seconds (default 540), all of them or those matching TESTS
# (a ctest -R pattern); tests.txt as scripts/gpu-session writes it.
#   TESTS="Graph|Rung15" experiments/one_call/tests_and_ladder.sh
source "$(dirname "$0")/../session_common.sh"
configure_and_build
step ladder 150 "$B/sgemm" all --json "$OUT/ladder.json"
sed -n '/^summary/,$p' "$W/ladder.txt"
gpu_tests "$B" "${LIMIT:-540}" tests.txt
