#!/usr/bin/env python3
"""Rung 17's choice against what experiments/rung17/configs.cu measured: per shape, the variant
that choose() in kernels/17_cluster_splitk.cu picks (its rule, written again here), the variant
that measured fastest, and what a fitted cost model would have picked instead (it was tried
first and lost: a linear model of the times misses the short-K regime, below).

    experiments/rung17/fit_table.py experiments/rung17/results/h200/rung17_configs_v1.txt

The cost model that was tried, per tile c of the table and cluster size r (blocks of a cluster: the split of K):
    tiles = ceil(M / BM) * ceil(N / BN), blocks = tiles * r, k-tiles per block = kSlice / BK
    an SM holds up to occ_c blocks at once; the blocks go out in waves of sms * occ_c, and a
    wave whose SMs hold b blocks each takes k-tiles * (L_c + (b - 1) * T_c)
    time = F + G * r + the waves' times + E * (elements of partial tiles an SM sums, per 1024)
L_c: one k-tile of a block alone on its SM (latency: the ring's copies from memory); T_c: what
each more block on the SM adds (throughput). F: launch and epilogue; G: each rank's share of
the cluster's barrier; E: the sum through (distributed) shared memory, per element. Linear in (F, G, L_c, T_c): a least
squares fit of the relative error (pure Python, no numpy).
"""
import math
import re
import sys

SMS = 132
BK = 16
# BM, BN, blocks an SM holds at once (registers and shared memory of each instantiation, from
# -Xptxas -v: 65, 59, 74 and 127 registers; 19, 25, 37 and 64 KiB of shared memory).
TILES = {"32x64": (32, 64, 8), "64x64": (64, 64, 3), "128x64": (128, 64, 3), "128x128": (128, 128, 2)}
NAMES = list(TILES)


def read(path):
    """{(M, N, K): {variant: microseconds}} from the configs17 output."""
    rows, header, shape = {}, None, None
    for line in open(path):
        f = line.split()
        if f and f[0] == "shape":
            header = f[3:-3]  # rung11, choice, 32x64/1, ...
        elif f and re.fullmatch(r"\d+x\d+x\d+", f[0]):
            shape = tuple(int(x) for x in f[0].split("x"))
        elif f and f[0] == "(us)" and shape:
            rows[shape] = {"cublas": float(f[1])}
            rows[shape].update({h: float(v) for h, v in zip(header, f[2:])})
    return rows


def slice_of(K, r):
    return (K + r * BK - 1) // (r * BK) * BK


def features(shape, tile, r):
    """The model's coefficients of (F, G, E, L_0, T_0, L_1, T_1, ...) for this variant."""
    M, N, K = shape
    BM, BN, occ = TILES[tile]
    blocks = math.ceil(M / BM) * math.ceil(N / BN) * r
    k_tiles = slice_of(K, r) // BK
    x = [0.0] * (3 + 2 * len(NAMES))
    x[0], x[1] = 1.0, r
    i = 3 + 2 * NAMES.index(tile)
    while blocks > 0:  # waves
        per_sm = min(occ, math.ceil(blocks / SMS))
        x[2] += per_sm * BM * BN / 1024  # the partial tiles' trip through shared memory
        x[i] += k_tiles
        x[i + 1] += k_tiles * (per_sm - 1)
        blocks -= per_sm * SMS
    return x


def solve(A, b):
    """Least squares by the normal equations and Gaussian elimination."""
    n = len(A[0])
    N = [[sum(r[i] * r[j] for r in A) for j in range(n)] + [sum(r[i] * y for r, y in zip(A, b))]
         for i in range(n)]
    for c in range(n):
        p = max(range(c, n), key=lambda r: abs(N[r][c]))
        N[c], N[p] = N[p], N[c]
        for r in range(n):
            if r != c and N[c][c]:
                f = N[r][c] / N[c][c]
                N[r] = [a - f * b for a, b in zip(N[r], N[c])]
    return [N[i][n] / N[i][i] if N[i][i] else 0.0 for i in range(n)]


def rule(shape):
    """choose() in kernels/17_cluster_splitk.cu."""
    M, N, K = shape
    tiles = lambda t: math.ceil(M / TILES[t][0]) * math.ceil(N / TILES[t][1])  # noqa: E731
    tile = "32x64" if tiles("32x64") <= SMS else "128x128"
    max_blocks = 2 * SMS if tile == "32x64" else SMS
    r = 1
    while r < 16 and tiles(tile) * r * 2 <= max_blocks and valid(shape, r * 2):
        r *= 2
    return f"{tile}/{r}"


def valid(shape, r):
    K = shape[2]
    return r == 1 or math.ceil(K / slice_of(K, r)) == r  # no rank without k


def main():
    rows = read(sys.argv[1])
    A, b = [], []
    for shape, times in rows.items():
        for v, t in times.items():
            if "/" not in v or not valid(shape, int(v.split("/")[1])):
                continue
            tile, r = v.split("/")
            A.append([x / t for x in features(shape, tile, int(r))])
            b.append(1.0)  # relative error: predicted / measured - 1
    p = solve(A, b)
    print(f"F = {p[0]:.3f} us, G = {p[1]:.3f} us per rank, E = {p[2]:.4f} us per 1024 elements "
          "of partial tiles an SM sums")
    for i, tile in enumerate(NAMES):
        print(f"{tile:8s} L = {p[3 + 2 * i]:.4f} us per k-tile alone, T = {p[4 + 2 * i]:.4f} "
              f"us per k-tile for each more block on the SM")
    print(f"\n{'shape':18s} {'rule':>11s} {'its us':>8s} {'best':>11s} {'best us':>8s} "
          f"{'rule/best':>9s} {'model':>11s} {'model/best':>10s} {'cuBLAS us':>9s} "
          f"{'rule % of cuBLAS':>16s}")
    for shape, times in rows.items():
        pred = {}
        for tile in NAMES:
            for r in (1, 2, 4, 8, 16):
                if valid(shape, r):
                    pred[f"{tile}/{r}"] = sum(a * c for a, c in zip(features(shape, tile, r), p))
        pick = min(pred, key=pred.get)
        best = min((v for v in times if "/" in v), key=times.get)
        ours = rule(shape)
        print(f"{'x'.join(map(str, shape)):18s} {ours:>11s} {times[ours]:8.2f} {best:>11s} "
              f"{times[best]:8.2f} {times[ours] / times[best]:9.3f} {pick:>11s} "
              f"{times[pick] / times[best]:10.3f} {times['cublas']:9.2f} "
              f"{100 * times['cublas'] / times[ours]:16.1f}")


if __name__ == "__main__":
    main()
