"""Pictures of doc 00 (how a rung is timed) and rungs 1-3 (which thread computes which element
of C, block tiles walking K), drawn from runner/timing.h, runner/timing.cu and the kernels."""
from sgemm_tools.pictures_src import Source, rung_source
from sgemm_tools.pictures_svg import (BLUE, GREY, INK, LIGHT, ORANGE, PALETTE, STRONG, Svg)


def timing(root):
    policy = Source(root, "runner/timing.h")
    harness = Source(root, "runner/timing.cu")
    device = Source(root, "runner/device.cu")
    c = policy.constants()
    order = harness.find(r"time_in_turn\(\{(\w+), (\w+)\}", "race of two kernels").groups()
    flush = int(device.find(r"scratch_\((\d+) \*", "L2 flusher's size").group(1))
    least = int(harness.find(r"run < most && \(run < (\d+) \|\|", "a block's least runs").group(1))
    harness.find(r"if \(run > 0\) samples", "a block's first run left out")
    on = policy.find(r"bool flush_l2 = (true|false)", "flush_l2 default").group(1) == "true"
    k = {"warmup": c["kWarmupRuns"], "block_ms": int(c["kBlockMs"]),
         "min_runs": least, "max_runs": c["kMaxRunsPerBlock"], "rounds": c["kTimingRounds"],
         "flush_x_L2": flush if on else 0, "first": order[0]}
    names = {"reference": "cuBLAS", "kernel": "rung"}
    colour = {"cuBLAS": "#a6cee3", "rung": "#fdbf6f"}
    turn = [names[n] for n in order]
    s = Svg("00 · How a rung is timed", f"{policy.path}, {harness.path}, {device.path}", k, 470)
    y, x = 96, 12
    s.text(x, y - 30, "time →", size=12, fill=GREY)
    s.line(x, y - 24, 688, y - 24, stroke=GREY, arrow=True)
    # Warm-up: each kernel once per turn, untimed.
    for i in range(k["warmup"]):
        for name in turn:
            s.rect(x, y, 12, 40, fill=colour[name], stroke=INK, sw=0.5)
            x += 14
    s.lines(12, y + 80, [f"warm-up: {k['warmup']} untimed", "runs of each, in turn"], size=11)
    x += 12
    blocks = k["rounds"] * len(turn)
    width = (688 - x - 4 * blocks - 8 * k["rounds"]) / blocks
    for r in range(k["rounds"]):
        for name in turn:
            s.rect(x, y, width, 40, fill=colour[name], stroke=INK, sw=1.5)
            runs = 9
            for j in range(runs):  # a flush before every run, the first run not counted
                rx = x + 3 + j * (width - 6) / runs
                s.rect(rx, y + 4, 2.5, 32, fill=INK, stroke="none")
                if j == 0:
                    s.rect(rx + 3, y + 4, (width - 6) / runs - 4, 32, fill=GREY, stroke="none")
            s.text(x + width / 2, y + 56, f"{name}, round {r + 1}", size=11, anchor="middle")
            x += width + 4
        x += 8
    x0 = 12 + 14 * k["warmup"] * len(turn) + 12
    s.line(x0, y + 66, 688, y + 66, stroke=INK)
    s.text((x0 + 688) / 2, y + 84, f"{k['rounds']} rounds of blocks in turn ({turn[0]} first): "
           "each kernel's block runs back to back", size=12, anchor="middle")
    # One block, one timed run, enlarged.
    y2 = 230
    s.text(12, y2, "One block:", size=13, bold=True)
    s.lines(12, y2 + 20, [
        f"runs back to back until it holds {k['block_ms']} ms of GPU time (at least "
        f"{k['min_runs']} runs, at most {k['max_runs']});",
        "its first run follows the other kernel's block, at another clock, and is not counted."],
        size=12)
    y3 = 300
    s.text(12, y3, "One timed run:", size=13, bold=True)
    s.rect(130, y3 - 16, 190, 34, fill=INK, stroke=INK)
    s.text(225, y3 + 5, f"L2 flush: write {k['flush_x_L2']}× L2's bytes", size=11,
           anchor="middle", fill="white")
    s.line(336, y3 - 22, 336, y3 + 24, stroke=STRONG, sw=2)
    s.text(336, y3 + 38, "event", size=11, anchor="middle", fill=STRONG)
    s.rect(346, y3 - 16, 220, 34, fill=colour["rung"], stroke=INK)
    s.text(456, y3 + 5, "the rung or cuBLAS, inputs from DRAM", size=11, anchor="middle")
    s.line(576, y3 - 22, 576, y3 + 24, stroke=STRONG, sw=2)
    s.text(576, y3 + 38, "event", size=11, anchor="middle", fill=STRONG)
    s.text(600, y3 + 5, "= 1 sample", size=12)
    s.legend(12, 370, [(colour["cuBLAS"], "cuBLAS of the rung's precision class, same inputs"),
                       (colour["rung"], "the rung"), (GREY, "a block's first run: not counted"),
                       (INK, "L2 flush before every timed run")])
    s.lines(380, 370, ["Reported: the median of each kernel's", "counted runs;",
                       "% of cuBLAS = cuBLAS median / rung median."], size=12)
    s.caption(["Schematic, not to scale: a real block holds up to "
               f"{k['max_runs']} runs; 9 are drawn."])
    return s


def thread_map(root, number):
    """Rungs 1 and 2: one block of threads over C, coloured by warp, and where a warp's loads
    of A and B fall at one step k."""
    src = rung_source(root, number)
    c = src.constants()
    bx, by = src.find(r"dim3 block\((\w+), (\w+)\)", "block shape").groups()
    m = src.find(r"const int row = blockIdx\.\w \* (\w+) \+ threadIdx\.(\w)", "row index")
    rows, row_by = c[m.group(1)], m.group(2)
    cols = c[src.find(r"const int col = blockIdx\.\w \* (\w+)", "col index").group(1)]
    nx, ny = c[bx], c[by]
    k = {bx: nx, by: ny, "block_x": bx, "row": "threadIdx." + row_by}

    def warp(r, col):  # the warp of the thread that computes C[r][col]
        x, y = (r, col) if row_by == "x" else (col, r)
        return (y * nx + x) // 32

    down = row_by == "x"  # a warp's lanes walk down a column of C
    title = f"{number:02d} · Which thread computes which element of C"
    s = Svg(title, src.path, k, 520)
    cell, kk = 8, 8
    cx, cy = 120, 150
    ax, by_ = cx - kk * cell - 20, cy - kk * cell - 20
    s.grid(cx, cy, rows, cols, cell, fill=lambda r, q: PALETTE[warp(r, q) % len(PALETTE)])
    w0 = [(r, q) for r in range(rows) for q in range(cols) if warp(r, q) == 0]
    r1, q1 = max(w0)
    s.rect(cx, cy, (q1 + 1) * cell, (r1 + 1) * cell, stroke=STRONG, sw=2.5)
    s.text(cx, cy + rows * cell + 34, f"C: one block's {rows} × {cols} elements, one thread "
           "each", size=12)
    s.text(cx + cols * cell, cy + rows * cell + 14, "N →", size=12, anchor="end")
    s.text(ax - 4, cy + rows * cell / 2, "M ↓", size=12, anchor="end")
    if row_by == "x":
        s.text(cx, cy + rows * cell + 14, "↑ warp 0", size=12, fill=STRONG, bold=True)
    else:
        s.text(cx + cols * cell + 4, cy + 8, "← warp 0", size=12, fill=STRONG, bold=True)
    # A (M x K) at the left, B (K x N) above: the first kk steps of k.
    s.grid(ax, cy, rows, kk, cell, fill=lambda r, q: (
        STRONG if q == 0 and (down or r == 0) else LIGHT))
    s.text(ax + kk * cell / 2, cy - 6, "A  (k →)", size=12, anchor="middle")
    s.grid(cx, by_, kk, cols, cell, fill=lambda r, q: (
        STRONG if r == 0 and (not down or q == 0) else LIGHT))
    s.text(cx - 6, by_ + kk * cell / 2 + 4, "B  (k ↓)", size=12, anchor="end")
    tx = cx + cols * cell + 30
    if down:
        lines = ["Warp 0 (red outline): lanes 0–31 are", "threadIdx.x = 0..31, which picks the",
                 "ROW: the warp walks DOWN a column of C.", "",
                 "At each step k, its 32 loads of A are 32", "different rows, lda floats apart:",
                 "32 separate memory transactions.", "Its load of B is one address (broadcast).",
                 "Its stores of C are 32 rows apart too."]
    else:
        lines = ["Warp 0 (red outline): lanes 0–31 are", "threadIdx.x = 0..31, which now picks",
                 "the COLUMN: the warp walks ALONG a row.", "",
                 "At each step k, its 32 loads of B are 32", "consecutive floats of one row: 128",
                 "bytes, coalesced into a few transactions.", "Its load of A is one address "
                 "(broadcast).", "Its stores of C are consecutive too."]
    s.lines(tx, cy + 36, lines, size=12)
    s.legend(tx, cy + 210, [(STRONG, "what warp 0 reads at step k = 0"),
                            (PALETTE[0], "warp 0's elements of C"),
                            (PALETTE[1], "warp 1's, and so on (colour per warp)")])
    s.caption([f"To scale: the block's {nx * ny} threads are drawn in full, one cell per element "
               "of C;", f"A and B show only the block's rows and columns and the first {kk} "
               "steps of k."])
    return s


def block_tiles(root):
    """Rung 3: the block's tile of C, and A's and B's tiles walking K through shared memory."""
    src = rung_source(root, 3)
    c = src.constants()
    BM, BN, BK = c["BM"], c["BN"], c["BK"]
    s = Svg("03 · Block tiles walking along K through shared memory", src.path,
            {"BM": BM, "BN": BN, "BK": BK}, 610)
    tiles_k, tiles_mn, u = 3, 3, 1.0  # a problem of 3 x 3 block tiles and K = 3 BK, to scale
    K, M, N = tiles_k * BK, tiles_mn * BM, tiles_mn * BN
    bi, bj, step = tiles_mn - 1, 1, 1  # the block drawn, and the step of k0 it is at
    ax, by = 20, 70
    cx, cy = ax + K * u + 20, by + K * u + 20
    s.rect(ax, cy, K * u, M * u, fill=LIGHT)
    s.rect(cx, by, N * u, K * u, fill=LIGHT)
    for t in range(tiles_k):
        on = t == step
        s.rect(ax + t * BK * u, cy + bi * BM * u, BK * u, BM * u,
               fill=BLUE if on else "#c6dbef", stroke=INK)
        s.rect(cx + bj * BN * u, by + t * BK * u, BN * u, BK * u,
               fill=ORANGE if on else "#fdd0a2", stroke=INK)
        s.text(ax + (t + 0.5) * BK * u, cy + bi * BM * u - 4, f"k0={t * BK}", size=11,
               anchor="middle")
        s.text(cx + (bj + 1) * BN * u + 4, by + (t + 0.5) * BK * u + 4, f"k0={t * BK}", size=11)
    for i in range(tiles_mn):
        for j in range(tiles_mn):
            s.rect(cx + j * BN * u, cy + i * BM * u, BN * u, BM * u, stroke=GREY, sw=0.5)
    s.rect(cx + bj * BN * u, cy + bi * BM * u, BN * u, BM * u, fill=PALETTE[1], stroke=STRONG,
           sw=2)
    s.text(cx + (bj + 0.5) * BN * u, cy + (bi + 0.5) * BM * u + 4, "block", size=11,
           anchor="middle")
    s.arrow(ax, cy - 28, ax + K * u, cy - 28)
    s.text(ax, cy - 34, "A (M × K): its tiles walk K →", size=12)
    s.arrow(cx - 10, by, cx - 10, by + K * u)
    s.text(cx - 16, by + 12, "B (K × N)", size=12, anchor="end")
    s.text(cx - 16, by + 28, "tiles walk K ↓", size=12, anchor="end")
    s.text(cx + N * u / 2, cy + M * u + 16, f"C: {tiles_mn} × {tiles_mn} block tiles", size=12,
           anchor="middle")
    # Shared memory, enlarged: As (BM x BK) and Bs (BK x BN), one thread's row and column.
    v = 2.5
    sx, sy = 420, 80
    tr, tc = 5, 9  # the thread followed: threadRow, threadCol
    s.text(sx, sy - 24, "Shared memory, this step:", size=13, bold=True)
    ay, bx = sy + BK * v + 16, sx + BK * v + 16
    s.grid(sx, ay, BM, BK, v, fill=lambda r, q: STRONG if r == tr else "#c6dbef", stroke="none")
    s.rect(sx, ay, BK * v, BM * v, stroke=INK)
    s.text(sx + BK * v / 2, ay + BM * v + 16, f"As[{BM}][{BK}]", size=12, anchor="middle")
    s.grid(bx, sy, BK, BN, v, fill=lambda r, q: STRONG if q == tc else "#fdd0a2", stroke="none")
    s.rect(bx, sy, BN * v, BK * v, stroke=INK)
    s.text(bx - 6, sy + BK * v / 2, f"Bs[{BK}][{BN}]", size=12, anchor="end")
    s.rect(bx, ay, BN * v, BM * v, fill=PALETTE[1], stroke=INK)
    s.rect(bx + tc * v, ay + tr * v, v, v, fill=STRONG, stroke="none")
    s.text(bx + BN * v / 2, ay + BM * v + 16, f"C tile {BM} × {BN}", size=12, anchor="middle")
    ya = cy + M * u + 34
    s.path([(ax + (step + 0.5) * BK * u, cy + M * u), (ax + (step + 0.5) * BK * u, ya),
            (sx + BK * v / 2, ya), (sx + BK * v / 2, ay + BM * v + 20)], stroke=BLUE, dash="4 3")
    s.arrow(cx + (bj + 1) * BN * u + 46, by + (step + 0.5) * BK * u, bx - 4, sy + BK * v / 2 + 12,
            stroke=ORANGE, dash="4 3")
    s.lines(20, ya + 30, [
        f"Each step, the block's {BM * BN} threads copy a {BM} × {BK} tile of A and a "
        f"{BK} × {BN} tile of B into shared memory",
        f"({BK * BM // (BM * BN)} elements of each per thread). After a barrier, every thread "
        f"reads its row of As and its column",
        f"of Bs from there: {BK} FMAs. Each element copied is read by {BN} threads. Then k0 "
        "moves on by BK;",
        "the block's tile of C stays where it is."], size=12)
    s.legend(20, ya + 104, [(STRONG, "one thread: its row of As, its column of Bs, its element "
                                     "of C"), (PALETTE[1], "the block's tile of C "
                                     "(threadIdx.y picks the row, threadIdx.x the column)")])
    s.caption([f"To scale: {u:g} px an element on the left (a problem of {tiles_mn} × {tiles_mn} "
               f"block tiles and K = {tiles_k}·BK),", f"{v:g} px an element in shared memory."])
    return s


def draw(root):
    return {"00_timing.svg": lambda: timing(root),
            "01_thread_map.svg": lambda: thread_map(root, 1),
            "02_thread_map.svg": lambda: thread_map(root, 2),
            "03_block_tiles.svg": lambda: block_tiles(root)}
