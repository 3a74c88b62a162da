#!/usr/bin/env bash
# The measurements rung 19's doc and the batched path cite, one GPU call: the bench suite for
# rungs 15, 18 and 19 (bench.json, merged into results/<gpu>/bench.json by
# experiments/rung19/merge.py), rung 19 in the runner at the ladder's sizes (ladder19.json,
# merged into results/<gpu>/ladder.json), every cluster size on the small shapes
# (clusters.json), then the batched suite (batched.json: its JSON lines as one array).
source "$(dirname "$0")/../session_common.sh"
configure_and_build
step bench 330 "$B/sgemm_bench" --benchmark_out="$OUT/bench.json" --benchmark_out_format=json \
  --rungs 15,18,19 --shapes all
step ladder 90 "$B/sgemm" 19 --json "$OUT/ladder19.json"
step clusters_build 120 nvcc -O3 -std=c++17 -gencode=arch=compute_90a,code=sm_90a -Ilibrary \
  -Ikernels -Irunner -Iinclude -I.deps/usr/include experiments/rung19/clusters.cu \
  "$B/libsgemm_harness.a" "$B/libsgemm_ladder.a" -lcublas -ldl -o "$B/clusters19"
step clusters 120 "$B/clusters19" 40 "$OUT/clusters.json"
step batched 150 "$B/sgemm_batched_bench"
python3 -c 'import json, sys
rows = [json.loads(l) for l in open(sys.argv[1]) if l.startswith("{")]
json.dump({"gpu": sys.argv[2], "results": rows}, open(sys.argv[3], "w"), indent=1)' \
  "$W/batched.txt" "$(nvidia-smi --query-gpu=name --format=csv,noheader | head -n 1)" \
  "$OUT/batched.json"
grep -E "geometric|^[a-z0-9_]+ +[0-9]" "$W/batched.txt"; tail -22 "$W/clusters.txt"
