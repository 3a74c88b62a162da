#!/usr/bin/env python3
"""A run of `sgemm_bench --rungs ...` into a GPU's committed bench.json: its rungs' rows
replace the committed ones (new rungs are added), and context.sgemm_runs records the run.
    experiments/rung19/merge.py NEW.json results/h200/bench.json "why the rows changed"
"""
import json
import sys


def rung(name):
    """'rung:19_cluster_3xtf32' of 'sgemm/rung:19_cluster_3xtf32/128x128x128/...', else None."""
    part = name.split("/")[1]
    return part if part.startswith("rung:") else None


def main():
    new_path, committed_path, why = sys.argv[1:4]
    new, committed = json.load(open(new_path)), json.load(open(committed_path))
    rungs = {rung(b["name"]) for b in new["benchmarks"]} - {None}
    kept = [b for b in committed["benchmarks"] if rung(b["name"]) not in rungs]
    committed["benchmarks"] = kept + [b for b in new["benchmarks"] if rung(b["name"])]
    numbers = ",".join(sorted(r[5:7].lstrip("0") for r in rungs))
    committed["context"]["sgemm_runs"].append(
        f"{new['context']['date']} sgemm_bench --rungs {numbers} --shapes all (these rungs' rows, "
        f"replacing the earlier runs'; {why})")
    with open(committed_path, "w") as f:
        json.dump(committed, f, indent=2)
        f.write("\n")
    print(f"{committed_path}: {len(kept)} rows kept, rungs {numbers} from {new_path}")


if __name__ == "__main__":
    main()
