#!/usr/bin/env python3
"""Merges inputs_bench.sh's runs (one sgemm_bench JSON per distribution) into the file that
scripts/inputs-table reads: {"context": the first run's context plus how the runs were made,
"inputs": {distribution: its benchmarks}}, in inputs_bench.sh's order.

    experiments/rung16/inputs_merge.py OUT.json DIR/uniform.json DIR/normal.json ...
"""
import json
import os
import sys


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    merged = {"context": None, "inputs": {}}
    for path in sys.argv[2:]:
        with open(path) as f:
            run = json.load(f)
        if merged["context"] is None:
            merged["context"] = dict(run["context"])
            merged["context"]["sgemm_runs"] = (
                "one sgemm_bench run per distribution (--rungs 15,16 --inputs DIST), in one GPU "
                "call, experiments/rung16/inputs_bench.sh")
        merged["inputs"][os.path.basename(path)[:-len(".json")]] = run["benchmarks"]
    with open(sys.argv[1], "w") as f:
        json.dump(merged, f, indent=1)


if __name__ == "__main__":
    main()
