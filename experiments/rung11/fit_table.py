#!/usr/bin/env python3
"""Fits rung 11's table (kConfigs, kSumMicros, kSumBytesPerMicro) to sgemm_autotune CSVs of
experiments/rung11/configs.cu: for each tile, one SM's rate and a block's fixed cost; for the
slices' sum, a fixed cost and a bandwidth. The model is kernels/11_every_shape.cu's `choose`;
the fit minimises the squared log error over every measured (tile, slices, shape), by a grid
search (standard library only).

    experiments/rung11/fit_table.py experiments/rung11/results/h200/rung11_configs*.csv
"""
import csv
import itertools
import math
import sys

SMS, BK = 132, 32


def predict(BM, BN, slices, M, N, K, block_us, gflops, sum_us, bytes_per_us):
    k_slice = -(-K // (slices * BK)) * BK
    slices = -(-K // k_slice)
    waves = -(-(-(-M // BM) * -(-N // BN) * slices) // SMS)
    t = waves * (block_us + 2 * BM * BN * k_slice / (gflops * 1e3))
    return t + (sum_us + (slices + 2) * M * N * 4 / bytes_per_us if slices > 1 else 0)


def main(paths):
    rows = []
    for path in paths:
        for r in csv.DictReader(open(path)):
            _, tile, _, slices = r["params"].split()
            BM, BN = map(int, tile.split("x"))
            rows.append((BM, BN, int(slices), int(r["M"]), int(r["N"]), int(r["K"]),
                         float(r["median_ms"]) * 1000))
    tiles = sorted({(r[0], r[1]) for r in rows}, reverse=True)
    grid = dict(block=[1, 2, 3, 4, 6, 8, 10, 12, 16], gflops=range(300, 401, 5),
                sum_us=[2, 3, 4, 5, 6, 8], bw=[1.5e6, 2e6, 2.5e6, 3e6])
    best = None
    for sum_us, bw in itertools.product(grid["sum_us"], grid["bw"]):
        fit, total = {}, 0.0
        for tile in tiles:  # each tile's constants are independent given the sum's
            mine = [r for r in rows if (r[0], r[1]) == tile]
            err, b, g = min((sum(math.log(predict(*r[:6], b, g, sum_us, bw) / r[6]) ** 2
                                 for r in mine), b, g)
                            for b, g in itertools.product(grid["block"], grid["gflops"]))
            fit[tile] = (g, b)
            total += err
        if best is None or total < best[0]:
            best = (total, fit, sum_us, bw)
    total, fit, sum_us, bw = best
    print(f"squared log error {total:.3f} over {len(rows)} measurements")
    for (BM, BN), (g, b) in fit.items():
        print(f"tile {BM}x{BN}: gflopsPerSM {g}, blockMicros {b}")
    print(f"kSumMicros {sum_us}, kSumBytesPerMicro {bw:g}")


if __name__ == "__main__":
    main(sys.argv[1:])
