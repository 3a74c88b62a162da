#!/usr/bin/env python3
"""Where a kernel's executed instructions go, from ncu's per-instruction source page
(ncu --import R.ncu-rep --page source --print-source sass --csv > R.csv): runs of consecutive
SASS lines executed equally often, each with its share of the instructions and of the stall
samples, its count per unit of work (--per: e.g. tiles times consumer warps), and its opcodes.

    experiments/batched/sass_blocks.py R.csv --per 2097152 [--least 0.003]
"""
import argparse
import collections
import csv


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("csv")
    p.add_argument("--per", type=float, default=1.0, help="divide counts by this (units of work)")
    p.add_argument("--least", type=float, default=0.003, help="hide runs below this share")
    args = p.parse_args()
    rows = list(csv.reader(open(args.csv)))
    head = next(r for r in rows if "Address" in r)
    data = rows[rows.index(head) + 1:]
    source, executed = head.index("Source"), head.index("Instructions Executed")
    sampled = head.index("Warp Stall Sampling (All Samples)")
    total = sum(int(r[executed]) for r in data)
    samples = sum(int(r[sampled]) for r in data) or 1
    runs, start = [], 0
    for i in range(1, len(data) + 1):
        if i == len(data) or data[i][executed] != data[start][executed]:
            runs.append((start, i))
            start = i
    print(f"{len(data)} SASS lines, {total} warp instructions executed, "
          f"{total / args.per:.1f} per unit")
    print(f"{'lines':>11} {'each':>11} {'share':>6} {'stalls':>6} {'per unit':>9}  opcodes")
    for a, b in runs:
        each = int(data[a][executed])
        if each * (b - a) < total * args.least:
            continue
        ops = collections.Counter(
            r[source].split()[1 if r[source].split()[0].startswith("@") else 0].split(".")[0]
            for r in data[a:b])
        stalls = sum(int(r[sampled]) for r in data[a:b]) / samples
        print(f"{a:5d}-{b - 1:5d} {each:11d} {each * (b - a) / total:6.3f} {stalls:6.3f} "
              f"{each * (b - a) / args.per:9.1f}  "
              + " ".join(f"{k} {v}" for k, v in ops.most_common(6)))


if __name__ == "__main__":
    main()
