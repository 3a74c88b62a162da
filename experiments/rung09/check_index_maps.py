#!/usr/bin/env python3
"""A CPU model of rung 9's index arithmetic, written by hand from design (a), kernels/09_async_copy.cu
(the rung), and design (b), experiments/rung09/chunked_as.cuh. No GPU needed.

  python3 experiments/rung09/check_index_maps.py          # about a minute

1. Every copy mapping (16-byte and 4-byte, A and B) writes each element of a tile exactly
   once, to where the inner loop reads it; and the shared-memory wavefronts of each warp's
   copy instruction and inner-loop read (1 = no conflict; 4 is the least a 512-byte
   16-byte-per-lane access can take).
2. The ring, the edges and the guards on small odd shapes: every value the inner loop reads
   is the matrix element (zero past K, and for B past N), and no copy reads outside the
   matrix (its padding included).

It checks the model, not the compiled kernel: a change to the kernel's index expressions
must be made here too. The GPU tests check the kernel itself.
"""
import itertools
import random
from collections import defaultdict


def swizzle_b(r):  # kernels/09_async_copy.cu: swizzle(r)
    return r // 32 * 32 + r % 4 * 8 + (r // 4 + r % 4 * 2) % 8


def swizzle_a(r, k):  # transposed_as.cuh: swizzle(r, k), rung 8's
    return r ^ ((k // 4) % 4 * 8)


class Tile:
    def __init__(self, BM, BN, BK, WM, WN, WNITER, TM, TN):
        self.BM, self.BN, self.BK, self.WM, self.WN, self.WNITER, self.TM, self.TN = \
            BM, BN, BK, WM, WN, WNITER, TM, TN
        self.threads = (BM // WM) * (BN // WN) * 32
        self.WMITER = (WM * WN) // (32 * TM * TN * WNITER)
        self.WSUBM, self.WSUBN = WM // self.WMITER, WN // WNITER
        self.strideA, self.strideB = self.threads // 4, self.threads // (BN // 4)
        self.loadsA = BM * BK // 4 // self.threads
        self.loadsB = BK * BN // 4 // self.threads

    def __repr__(self):
        return f"{self.BM}x{self.BN}x{self.BK}"


def copies_a(t, design, aligned, w):
    """Every copy of A by warp w: (instruction, lane, dst float in As, tile row r, tile k,
    floats copied)."""
    for l in range(t.loadsA):
        r0 = w * 8 + l % (t.BM // t.strideA) * t.strideA
        if design == "b":
            c0 = l // (t.BM // t.strideA) * 4
            if aligned:
                for lane in range(32):
                    r, c = r0 + lane % 8, c0 + lane // 8
                    yield (l, 0), lane, 4 * (c * t.BM + swizzle_b(r)), r, 4 * c, 4
            else:
                for q, lane in itertools.product(range(4), range(32)):
                    r, c, kk = r0 + lane // 4, c0 + q, lane % 4
                    yield (l, q), lane, 4 * (c * t.BM + swizzle_b(r)) + kk, r, 4 * c + kk, 1
        else:
            kb = l // (t.BM // t.strideA) * 16
            for q, lane in itertools.product(range(4), range(32)):
                r, k = r0 + lane // 4, kb + lane % 4 * 4 + q
                yield (l, q), lane, k * t.BM + swizzle_a(r, k), r, k, 1


def copies_b(t, aligned, w):
    """Every copy of B by warp w: (instruction, lane, dst float in Bs, tile k, column, floats)."""
    for l in range(t.loadsB):
        for q in range(1 if aligned else 4):
            for lane in range(32):
                tid = w * 32 + lane
                innerColB, innerRowB = tid % (t.BN // 4), tid // (t.BN // 4)
                k = innerRowB + l * t.strideB
                if aligned:
                    yield (l, q), lane, k * t.BN + innerColB * 4, k, innerColB * 4, 4
                else:
                    c = (innerColB - lane) * 4 + q * 32 + lane
                    yield (l, q), lane, k * t.BN + c, k, c, 1


def read_a(t, design, r, k):
    """Where the inner loop reads element (r, k) of the A tile."""
    if design == "b":
        return 4 * ((k // 4) * t.BM + swizzle_b(r)) + k % 4
    return k * t.BM + swizzle_a(r - r % 4, k) + r % 4  # a float4 at a multiple of 4 rows


def wavefronts(byte_addresses, width):
    if width == 4:
        banks = defaultdict(set)
        for a in byte_addresses:
            banks[a // 4 % 32].add(a // 4)
        return max(len(v) for v in banks.values())
    slots = defaultdict(set)  # 16-byte accesses: 8 slots of 16 bytes across the 32 banks
    for chunk in {a // 16 for a in byte_addresses}:
        slots[chunk % 8].add(chunk)
    return max(len(v) for v in slots.values())


def check_maps(t, design):
    worst = defaultdict(int)
    for aligned in ([True, False] if design == "b" else [False]):
        where = {}
        for w in range(t.threads // 32):
            groups = defaultdict(list)
            for key, lane, dst, r, k, n in copies_a(t, design, aligned, w):
                for i in range(n):
                    assert (r, k + i) not in where, ("A copied twice", r, k + i)
                    where[(r, k + i)] = dst + i
                groups[key].append(4 * dst)
            width = 16 if design == "b" and aligned else 4
            for addrs in groups.values():
                name = f"A copy {width}-byte"
                worst[name] = max(worst[name], wavefronts(addrs, width))
        assert len(where) == t.BM * t.BK, "A tile not covered"
        assert all(d == read_a(t, design, r, k) for (r, k), d in where.items()), "A misplaced"
    for aligned in (True, False):
        where = {}
        for w in range(t.threads // 32):
            groups = defaultdict(list)
            for key, lane, dst, k, c, n in copies_b(t, aligned, w):
                for i in range(n):
                    assert (k, c + i) not in where, ("B copied twice", k, c + i)
                    where[(k, c + i)] = dst + i
                groups[key].append(4 * dst)
            for addrs in groups.values():
                name = f"B copy {16 if aligned else 4}-byte"
                worst[name] = max(worst[name], wavefronts(addrs, 16 if aligned else 4))
        assert len(where) == t.BK * t.BN, "B tile not covered"
        assert all(d == k * t.BN + c for (k, c), d in where.items()), "B misplaced"
    for w in range(t.threads // 32):
        warpCol, warpRow = w % (t.BN // t.WN), w // (t.BN // t.WN)
        for k, wm, i in itertools.product(range(t.BK), range(t.WMITER), range(t.TM)):
            if (design == "b" and k % 4) or (design == "a" and i % 4):
                continue  # (b) reads As once per 4 k, (a) once per 4 rows
            addrs = [4 * read_a(t, design, warpRow * t.WM + wm * t.WSUBM
                                + lane // (t.WSUBN // t.TN) * t.TM + i, k) for lane in range(32)]
            worst["As read"] = max(worst["As read"], wavefronts(addrs, 16))
        for k, wn, j in itertools.product(range(t.BK), range(t.WNITER), range(0, t.TN, 4)):
            addrs = [4 * (k * t.BN + warpCol * t.WN + wn * t.WSUBN
                          + lane % (t.WSUBN // t.TN) * t.TN + j) for lane in range(32)]
            worst["Bs read"] = max(worst["Bs read"], wavefronts(addrs, 16))
    return dict(worst)


def emulate(t, design, M, N, K, alignedA, alignedB, stages):
    """The kernel's data flow for every block, sequentially (the barriers' job)."""
    lda, ldb = K + random.randint(0, 5), N + random.randint(0, 5)

    def load_a(off):
        r, c = divmod(off, lda)
        assert 0 <= r < M and 0 <= c < K, ("A read outside the matrix", r, c)
        return ("A", r, c)

    def load_b(off):
        r, c = divmod(off, ldb)
        assert 0 <= r < K and 0 <= c < N, ("B read outside the matrix", r, c)
        return ("B", r, c)

    for blockRow, blockCol in itertools.product(range(0, M, t.BM), range(0, N, t.BN)):
        As = [[None] * (t.BK * t.BM) for _ in range(stages)]
        Bs = [[None] * (t.BK * t.BN) for _ in range(stages)]

        def fetch(k0, buf):
            for w in range(t.threads // 32):
                for _, lane, dst, r, k, n in copies_a(t, design, alignedA, w):
                    rowA, colA = min(blockRow + r, M - 1), k0 + k  # rows past M: row M-1
                    valid = min(max(K - colA, 0), n)  # n = 4: 16-byte copy, 1: 4-byte
                    src = rowA * lda + (colA if valid else 0)
                    for i in range(n):
                        As[buf][dst + i] = load_a(src + i) if i < valid else 0
                for _, lane, dst, k, c, n in copies_b(t, alignedB, w):
                    rowB, colB = k0 + k, blockCol + c
                    valid = (min(max(N - colB, 0), n) if rowB < K else 0)
                    src = rowB * ldb + colB if valid else 0
                    for i in range(n):
                        Bs[buf][dst + i] = load_b(src + i) if i < valid else 0

        for s in range(stages - 1):
            if s * t.BK < K:
                fetch(s * t.BK, s)
        k0, buf = 0, 0
        while k0 < K:
            ahead = k0 + (stages - 1) * t.BK
            if ahead < K:
                fetch(ahead, buf - 1 if buf > 0 else stages - 1)
            for r, k in itertools.product(range(t.BM), range(t.BK)):
                got, row, col = As[buf][read_a(t, design, r, k)], blockRow + r, k0 + k
                want = 0 if col >= K else ("A", min(row, M - 1), col)
                assert got == want, ("As", got, want)
            for k, c in itertools.product(range(t.BK), range(t.BN)):
                got, row, col = Bs[buf][k * t.BN + c], k0 + k, blockCol + c
                want = ("B", row, col) if row < K and col < N else 0
                assert got == want, ("Bs", got, want)
            k0, buf = k0 + t.BK, buf + 1 if buf + 1 < stages else 0


def main():
    random.seed(9)
    tiles = [Tile(128, 256, 16, 64, 64, 4, 4, 4), Tile(128, 256, 32, 64, 64, 4, 4, 4),
             Tile(256, 128, 16, 64, 64, 4, 4, 4), Tile(128, 128, 16, 64, 64, 4, 4, 4)]
    for t in tiles:
        for design in "ba":
            print(f"({design}) {t}: wavefronts per warp access {check_maps(t, design)}")
    shapes = [(1, 1, 1), (7, 5, 3), (130, 261, 37), (200, 257, 50)]
    for t in tiles[:2] + tiles[3:]:
        for design, (M, N, K), stages in itertools.product("ba", shapes, (2, 3, 4)):
            for alignedA, alignedB in itertools.product((True, False), repeat=2):
                if design == "a" and alignedA:
                    continue  # (a) copies A 4 bytes at a time whatever its alignment
                emulate(t, design, M, N, K, alignedA, alignedB, stages)
        print(f"{t}: ring, edges and guards emulated on {len(shapes)} shapes, both designs")
    print("all checks passed")


if __name__ == "__main__":
    main()
