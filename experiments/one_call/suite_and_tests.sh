#!/usr/bin/env bash
# Does the one call reach its bar on this GPU (the bench suite's geometric mean of % of cuBLAS
# SGEMM, every shape above 100%), and do the GPU tests pass? One GPU call, the bench first (so
# that a call cut off at its limit still brings it back): rungs 15 and 18 on the 19 shapes
# (bench.json, merged into results/<gpu>/bench.json by hand), then the GPU tests in the time
# left before LIMIT seconds (default 520), all of them or those matching TESTS (a ctest -R
# pattern); tests.txt as scripts/gpu-session writes it.
#   TESTS="Rung15|Semantic" experiments/one_call/suite_and_tests.sh
source "$(dirname "$0")/../session_common.sh"
configure_and_build
step bench 240 "$B/sgemm_bench" --benchmark_out="$OUT/bench.json" --benchmark_out_format=json \
  --rungs 15,18 --shapes all
python3 - "$OUT/bench.json" <<'PY'
import json, math, re, sys
pct = {}
for b in json.load(open(sys.argv[1]))["benchmarks"]:
    m = re.match(r"sgemm/([^/]+)/(\d+x\d+x\d+)", b["name"])
    if m and "pct_of_reference" in b:
        pct.setdefault(m.group(2), {})[m.group(1)] = b["pct_of_reference"]
logs = []
for shape, p in pct.items():
    print(f"{shape:>18}", " ".join(f"{k}={v:.1f}%" for k, v in sorted(p.items())))
    logs += [math.log(v / 100) for k, v in p.items() if "18_best" in k]
print(f"rung 18 geometric mean over {len(logs)} shapes: {100 * math.exp(sum(logs) / len(logs)):.1f}%")
PY
gpu_tests "$B" "${LIMIT:-520}" tests.txt
