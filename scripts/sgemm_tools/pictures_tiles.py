"""Pictures of rungs 4-7: a thread's column of C, its micro-tile as an outer product, As before
and after the transpose, the autotuned tile; drawn from the kernels' constants and the index
expressions that give each thread its elements."""
from sgemm_tools.pictures_src import evaluate, rung_source
from sgemm_tools.pictures_svg import BLUE, GREY, INK, PALETTE, STRONG, Svg

A_TONE, B_TONE = "#c6dbef", "#fdd0a2"


def thread_owner(src, env):
    """(threads along a row of micro-tiles, rows a thread owns, columns a thread owns), from
    `threadCol = threadIdx.x % (...)` and the TM/TN the kernel multiplies by."""
    across = evaluate(src.find(r"const int threadCol = threadIdx\.x % ([^;]+);",
                               "threadCol").group(1), env)
    return across, env.get("TM", 1), env.get("TN", 1)


def frame(s, x, y, c, u, fill_c, fill_a=None, fill_b=None):
    """As (BM x BK) left of the block tile, Bs (BK x BN) above it, the tile at (x, y), u px an
    element; fill_c(r, q) colours element (r, q) of the tile, fill_a/fill_b the tiles' cells."""
    BM, BN, BK = c["BM"], c["BN"], c["BK"]
    ax, by = x - BK * u - 12, y - BK * u - 12
    s.grid(ax, y, BM, BK, u, fill=fill_a or (lambda r, q: A_TONE), stroke="none")
    s.rect(ax, y, BK * u, BM * u)
    s.grid(x, by, BK, BN, u, fill=fill_b or (lambda r, q: B_TONE), stroke="none")
    s.rect(x, by, BN * u, BK * u)
    s.grid(x, y, BM, BN, u, fill=fill_c, stroke="none")
    s.rect(x, y, BN * u, BM * u)
    s.text(ax + BK * u / 2, y + BM * u + 16, f"As {BM}×{BK}", size=11, anchor="middle")
    s.text(x - 16, by + BK * u / 2 + 4, f"Bs {BK}×{BN}", size=11, anchor="end")
    s.text(x + BN * u / 2, y + BM * u + 16, f"block tile of C: BM × BN = {BM} × {BN}", size=11,
           anchor="middle")


def micro_tiles(s, x, y, c, u, across, tm, tn, follow=0):
    """Outline every thread's tm x tn elements, coloured by warp; thread `follow` in red."""
    for t in range((c["BM"] // tm) * (c["BN"] // tn)):
        r, q = t // across * tm, t % across * tn
        s.rect(x + q * u, y + r * u, tn * u, tm * u, fill=PALETTE[t // 32 % len(PALETTE)],
               stroke="white", sw=0.4)
    r, q = follow // across * tm, follow % across * tn
    s.rect(x + q * u, y + r * u, tn * u, tm * u, fill=STRONG, stroke=INK, sw=1)


def thread_column(root):
    src = rung_source(root, 4)
    c = src.constants()
    across, tm, _ = thread_owner(src, c)
    k = {n: c[n] for n in ("BM", "BN", "BK", "TM", "kThreads")}
    s = Svg("04 · Each thread computes a column of TM elements of C", src.path, k, 520)
    u, x, y, kk = 4, 110, 110, 3
    frame(s, x, y, c, u, lambda r, q: None,
          fill_a=lambda r, q: STRONG if q == kk and r < tm else A_TONE,
          fill_b=lambda r, q: STRONG if r == kk and q == 0 else B_TONE)
    micro_tiles(s, x, y, c, u, across, tm, 1)
    zx, zy, z = 420, 110, 22
    s.text(zx, zy - 12, f"Thread 0 at step k = {kk}, enlarged:", size=13, bold=True)
    s.rect(zx + 110, zy, z, z, fill=B_TONE, stroke=INK)
    s.text(zx + 110 + z + 6, zy + 10, "b = Bs[k][threadCol],", size=11)
    s.text(zx + 110 + z + 6, zy + 24, f"used {tm} times", size=11)
    for i in range(tm):
        s.rect(zx, zy + 40 + i * z, z, z, fill=A_TONE, stroke=INK)
        s.text(zx + z / 2, zy + 40 + i * z + 15, f"a{i}", size=11, anchor="middle")
        s.rect(zx + 110, zy + 40 + i * z, z, z, fill=STRONG, stroke=INK)
        s.text(zx + 110 + z + 6, zy + 40 + i * z + 15, f"acc[{i}] += a{i} · b", size=11)
        s.arrow(zx + z + 4, zy + 40 + i * z + z / 2, zx + 106, zy + 40 + i * z + z / 2,
                stroke=GREY)
    s.text(zx, zy + 36 + tm * z + 20, f"a0..a{tm - 1}: As at rows threadRow·TM + i,", size=11)
    s.text(zx, zy + 36 + tm * z + 34, f"column k ({tm} loads)", size=11)
    s.legend(zx, zy + 36 + tm * z + 60, [(STRONG, "thread 0's elements of C, its loads"),
                                         (PALETTE[0], "warp 0's threads; a colour per warp")])
    s.lines(20, 440, [
        f"Thread t owns column t % {across} and rows (t / {across})·TM .. +{tm - 1}: "
        f"{c['kThreads']} threads cover {c['BM']} × {c['BN']}.",
        f"Per step of k it loads one value of Bs and reuses it for TM = {tm} FMAs: "
        f"{tm} FMAs for {tm + 1} shared loads.",
        "A warp (one colour) is 32 neighbouring columns: its loads of Bs stay coalesced."],
        size=12)
    s.caption([f"To scale, {u} px an element: every thread's column drawn in full, colour per "
               "warp; thread 0 in red."])
    return s


def micro_tile(root):
    src = rung_source(root, 5)
    c = src.constants()
    across, tm, tn = thread_owner(src, c)
    k = {n: c[n] for n in ("BM", "BN", "BK", "TM", "TN", "kThreads")}
    s = Svg("05 · A thread's TM × TN micro-tile: an outer product from registers", src.path, k,
            520)
    u, x, y, kk = 2, 110, 100, 5
    frame(s, x, y, c, u, lambda r, q: None,
          fill_a=lambda r, q: STRONG if q == kk and r < tm else A_TONE,
          fill_b=lambda r, q: STRONG if r == kk and q < tn else B_TONE)
    micro_tiles(s, x, y, c, u, across, tm, tn)
    zx, zy, z = 470, 130, 22
    s.text(zx - 90, zy - 56, f"Thread 0 at step k = {kk}, enlarged:", size=13, bold=True)
    for j in range(tn):
        s.rect(zx + j * z, zy - 20, z, z - 6, fill=B_TONE, stroke=INK)
    s.text(zx, zy - 26, f"regN: TN = {tn} values of row k of Bs", size=11)
    for i in range(tm):
        s.rect(zx - 30, zy + 4 + i * z, z - 6, z, fill=A_TONE, stroke=INK)
        for j in range(tn):
            s.rect(zx + j * z, zy + 4 + i * z, z, z, fill="#fcd5d5", stroke=INK, sw=0.5)
    s.text(zx - 34, zy + 4 + tm * z / 2, "regM", size=11, anchor="end")
    s.text(zx - 34, zy + 20 + tm * z / 2, "(column", size=11, anchor="end")
    s.text(zx - 34, zy + 36 + tm * z / 2, "of As)", size=11, anchor="end")
    s.text(zx, zy + 4 + tm * z + 18, "acc[i·TN + j] += regM[i] · regN[j]", size=11)
    s.text(zx, zy + 4 + tm * z + 34, f"regM: TM = {tm} values, As column k", size=11)
    s.legend(zx - 90, zy + tm * z + 70, [(STRONG, "thread 0's micro-tile and its loads"),
                                        (PALETTE[0], "warp 0's threads; a colour per warp")])
    s.lines(20, 430, [
        f"Thread t owns rows (t / {across})·TM and columns (t % {across})·TN of the tile, "
        f"TM × TN = {tm} × {tn}.",
        f"Per step of k it loads TM + TN = {tm + tn} values into registers and does TM·TN = "
        f"{tm * tn} FMAs with them,",
        f"the outer product of a column slice of As and a row slice of Bs. {c['kThreads']} "
        "threads, a warp per colour."], size=12)
    s.caption([f"To scale, {u} px an element: every thread's micro-tile drawn in full; "
               "thread 0 in red."])
    return s


def as_transpose(root):
    src = rung_source(root, 6)
    c = src.constants()
    src.find(r"As\[\(innerColA \* 4 \+ 0\) \* BM \+ innerRowA", "As stored transposed")
    BM, BK, tm = c["BM"], c["BK"], c["TM"]
    k = {n: c[n] for n in ("BM", "BK", "TM", "kThreads")}
    s = Svg("06 · As before and after the transpose: one LDS.128 reads 4 floats", src.path, k,
            610)
    u, z = 2, 13
    # Before: As[r * BK + k], BM x BK; thread 0 reads rows 0..TM-1 at k = 0.
    s.text(20, 56, f"Rung 5: As[r·BK + k], {BM} × {BK}", size=13, bold=True)
    s.grid(20, 70, BM, BK, u, fill=lambda r, q: STRONG if q == 0 and r < tm else A_TONE,
           stroke="none")
    s.rect(20, 70, BK * u, BM * u)
    s.text(20 + BK * u / 2, 70 + BM * u + 14, "r ↓, k →", size=11, anchor="middle")
    zx = 80
    s.grid(zx, 84, tm, BK, z, fill=lambda r, q: STRONG if q == 0 else A_TONE)
    for q in range(0, BK, 4):
        s.text(zx + q * z + z / 2, 80, f"k={q}", size=11, anchor="middle")
    for r in range(tm):
        s.text(zx + BK * z + 4, 84 + r * z + 10, f"r={r}: address {r * BK}", size=11)
    s.line(20 + BK * u, 70, zx, 84, stroke=GREY, dash="3 2")
    s.line(20 + BK * u, 70 + tm * u, zx, 84 + tm * z, stroke=GREY, dash="3 2")
    s.lines(zx, 84 + tm * z + 20, [
        f"Thread 0 needs rows 0..{tm - 1} at step k: {tm} floats {BK} apart,",
        f"so {tm} scalar loads (LDS.32)."], size=12)
    # After: As[k * BM + r], BK x BM; the same TM floats side by side.
    y2 = 70 + BM * u + 50
    s.text(20, y2 - 14, f"Rung 6: As[k·BM + r], {BK} × {BM} (transposed)", size=13, bold=True)
    s.grid(20, y2, BK, BM, u, fill=lambda r, q: STRONG if r == 0 and q < tm else A_TONE,
           stroke="none")
    s.rect(20, y2, BM * u, BK * u)
    s.text(20 + BM * u + 6, y2 + 12, "k ↓, r →", size=11)
    zy, zz, cols = y2 + 60, 19, 4 * tm // 2 if tm < 16 else tm
    s.line(20, y2 + u, 20, zy, stroke=GREY, dash="3 2")
    s.line(20 + cols * u, y2 + u, 20 + cols * zz, zy, stroke=GREY, dash="3 2")
    s.grid(20, zy, 1, cols, zz, fill=lambda r, q: (STRONG if q < tm else "#fb9a99" if q < 2 * tm
                                                    else A_TONE))
    for q in range(cols):
        s.text(20 + q * zz + zz / 2, zy + 13, str(q), size=11, anchor="middle")
    for g in range(0, min(cols, 2 * tm), 4):
        s.rect(20 + g * zz + 1, zy - 6, 4 * zz - 2, zz + 12, stroke=INK, sw=1.5)
        s.text(20 + (g + 2) * zz, zy + zz + 20, "LDS.128", size=11, anchor="middle")
    s.lines(20, zy + zz + 44, [
        f"Row k = 0, r = 0..{cols - 1}: thread 0's {tm} floats (red) are now side by side, "
        f"{tm // 4} LDS.128;",
        f"the thread with the next rows (pink) reads the next {tm}. A float4 is 16 bytes, "
        "aligned."], size=12)
    # The copy that transposes: one float4 of A (4 k of row r) -> 4 scalar stores.
    gx, gy = 400, 110
    s.text(gx, gy - 40, "The copy transposes:", size=13, bold=True)
    s.text(gx, gy - 20, "row r of A, 4 consecutive k: one LDG.128", size=11)
    s.grid(gx, gy, 1, 4, 24, fill=lambda r, q: BLUE)
    for q in range(4):
        s.text(gx + q * 24 + 12, gy + 16, f"k{q}", size=11, anchor="middle", fill="white")
    s.grid(gx + 150, gy + 40, 4, 6, 24, fill=lambda r, q: BLUE if q == 2 else A_TONE)
    for q in range(4):
        s.arrow(gx + q * 24 + 12, gy + 24, gx + 150 + 2 * 24 + 6, gy + 40 + q * 24 + 12,
                stroke=GREY)
    s.lines(gx + 150, gy + 150, ["As: rows k..k+3, column r: 4 scalar stores (STS.32)"],
            size=11, step=14)
    s.caption([f"The tiles to scale ({u} px an element). Enlarged: thread 0 (threadRow 0) and, "
               "after the transpose,", "the thread with the next TM rows (threadRow 1)."])
    return s


def tile_params(root):
    src = rung_source(root, 7)
    c = src.constants(src.launch_args(), r"struct Tile \{.*?\n\};")
    across, tm, tn = thread_owner(src, c)
    k = {n: c[n] for n in ("BM", "BN", "BK", "TM", "TN", "kThreads", "kMinBlocks")}
    s = Svg("07 · The autotuned tile: BM, BN, BK, TM, TN and the threads", src.path, k, 530)
    u, x, y = 2, 100, 130
    frame(s, x, y, c, u, lambda r, q: None)
    micro_tiles(s, x, y, c, u, across, tm, tn)
    smem = (c["BM"] + c["BN"]) * c["BK"] * 4
    s.lines(390, 70, [f"BM × BN = {c['BM']} × {c['BN']}: C per block",
                      f"BK = {c['BK']}: depth of As and Bs per step",
                      f"TM × TN = {tm} × {tn}: C per thread (red: thread 0)",
                      f"threads = (BM/TM)·(BN/TN) = {c['kThreads']}",
                      "   (a warp per colour)",
                      "", f"shared memory: (BM + BN)·BK·4 = {smem // 1024} KiB",
                      f"accumulators a thread: TM·TN = {tm * tn}",
                      f"per k a thread: {tm // 4} + {tn // 4} LDS.128, {tm * tn} FMAs",
                      f"blocks an SM asked for: {c['kMinBlocks']} (__launch_bounds__)"], size=12,
            step=18, items=True)
    zx, zy, z = 420, 300, 6
    for t in range(4):
        s.rect(zx + t * tn * z, zy, tn * z, tm * z, fill=STRONG if t == 0 else PALETTE[0],
               stroke=INK)
        s.text(zx + (t + 0.5) * tn * z, zy - 4, str(t), size=11, anchor="middle")
    s.text(zx + 4 * tn * z + 8, zy + 12, "threads 0..3, enlarged:", size=11)
    s.text(zx + 4 * tn * z + 8, zy + 28, f"each TM × TN = {tm} × {tn}", size=11)
    s.text(zx + 4 * tn * z + 8, zy + 44, "elements of C", size=11)
    s.lines(20, 440, ["The tile is launch()'s launch_tile<BM, BN, BK, TM, TN>: the combination "
                      "scripts/autotune measured fastest", "(results/<gpu>/autotune.csv holds "
                      "every candidate). The kernel is rung 6's with these as template "
                      "parameters."], size=12)
    s.caption([f"To scale, {u} px an element: every thread's micro-tile drawn in full."])
    return s


def draw(root):
    return {"04_thread_column.svg": lambda: thread_column(root),
            "05_micro_tile.svg": lambda: micro_tile(root),
            "06_as_transpose.svg": lambda: as_transpose(root),
            "07_tile_params.svg": lambda: tile_params(root)}
