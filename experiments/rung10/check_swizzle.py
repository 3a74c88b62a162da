#!/usr/bin/env python3
"""A CPU model of rung 10's A reads (kernels/10_tma_specialized.cu), no GPU needed.

Checks, for the default tile (BM 128, BK 32, warp tile 64 x 64 in 2 x 4 sub-tiles of 32 x 16,
TM = TN = 4):
  1. the kernel's swizzle<BK>(r0, c) plus its row offsets is where TMA's 128-byte swizzle puts
     chunk c of row r (byte address bits [4, 7) XOR bits [7, 10), box 1024-byte aligned);
  2. each LDS.128 of a warp (fixed sub-tile wm, row i, chunk c) reads 8 distinct float4s, one in
     each 16-byte slot of a 128-byte line: no bank conflict;
  3. with rung 9's row order (a thread's rows consecutive) the same reads would be 4-way
     conflicts under TMA's swizzle.

    python3 experiments/rung10/check_swizzle.py
"""
BK, BM, WM, WN, WNITER, TM, TN = 32, 128, 64, 64, 4, 4, 4
WMITER = WM * WN // (32 * TM * TN * WNITER)
WSUBM, WSUBN = WM // WMITER, WN // WNITER
THREAD_ROWS = WSUBM // TM  # kThreadRows


def swizzle(r, c):  # the kernel's, in floats
    return r * BK + 4 * (c ^ (r * BK // 32 % (BK // 4)))


def tma_byte(r, c):  # where TMA's 128B swizzle puts chunk c of row r, in bytes
    a = r * BK * 4 + c * 16
    return a ^ (((a >> 7) & 7) << 4)


def worst_per_slot(byte_addresses):
    slots = {}
    for a in set(byte_addresses):
        slots.setdefault((a >> 4) & 7, set()).add(a)
    return max(len(v) for v in slots.values())


def main():
    worst = 0
    for warp_row in range(BM // WM):
        for wm in range(WMITER):
            for i in range(TM):
                for c in range(BK // 4):
                    reads = []
                    for lane in range(32):
                        thread_row = lane // (WSUBN // TN)
                        r0 = warp_row * WM + thread_row
                        offset = wm * WSUBM + i * THREAD_ROWS
                        got = (swizzle(r0, c) + offset * BK) * 4
                        assert got == tma_byte(r0 + offset, c), (warp_row, wm, i, c, lane)
                        reads.append(got)
                    assert len(set(reads)) == 8
                    worst = max(worst, worst_per_slot(reads))
    rung9 = max(worst_per_slot([tma_byte(t * TM + i, c) for t in range(8)])
                for i in range(TM) for c in range(BK // 4))
    print(f"kernel's swizzle = TMA's 128B swizzle: yes; addresses per 16-byte slot in one "
          f"LDS.128: {worst} (conflict-free)")
    print(f"rung 9's row order under the same swizzle: {rung9} per slot ({rung9}-way conflict)")
    return 0 if worst == 1 else 1


if __name__ == "__main__":
    raise SystemExit(main())
