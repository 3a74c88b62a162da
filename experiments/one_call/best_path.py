#!/usr/bin/env python3
"""The one call beside its best single path, from sgemm_bench JSON files (one per input
distribution, named DIST.json): per distribution and size, rung 18's speed over the faster of
rungs 15 and 16, each as % of cuBLAS SGEMM timed in turn with it. Exit 1 when a ratio is below
the bar (0.95) or a file lacks a rung.
  experiments/one_call/best_path.py OUT/best_path/*.json"""
import json
import os
import sys

BAR = 0.95


def percents(path):
    """{(size, rung number): % of cuBLAS} from one bench JSON."""
    out = {}
    for b in json.load(open(path))["benchmarks"]:
        parts = b["name"].split("/")
        if parts[1].startswith("rung:") and b.get("pct_of_reference"):
            rung = int(parts[1].split(":")[1].split("_")[0])
            out[(parts[2], rung)] = b["pct_of_reference"]
    return out


def main(paths):
    print("| inputs | size | rung 15 | rung 16 | rung 18 | 18 / best |")
    print("| --- | --- | ---: | ---: | ---: | ---: |")
    worst, ok = None, True
    for path in paths:
        name = os.path.basename(path).removesuffix(".json")
        got = percents(path)
        for size in sorted({s for s, _ in got}, key=lambda s: int(s.split("x")[0])):
            p = [got.get((size, r)) for r in (15, 16, 18)]
            if None in p:
                print(f"| {name} | {size} | missing a rung |")
                ok = False
                continue
            ratio = p[2] / max(p[0], p[1])
            worst = ratio if worst is None else min(worst, ratio)
            ok = ok and ratio >= BAR
            print(f"| {name} | {size} | {p[0]:.1f}% | {p[1]:.1f}% | {p[2]:.1f}% | {ratio:.3f} |")
    print(f"\nworst {worst:.3f}; bar {BAR}: {'met' if ok else 'NOT met'}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
