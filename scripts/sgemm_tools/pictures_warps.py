"""Pictures of rungs 8 and 9: block tile -> warp tiles -> sub-tiles -> a thread's elements, the
XOR swizzle of As, the cp.async ring; drawn from the tile the launcher passes, the kernel's
Tile constants, its swizzle expression and its pipeline's stage arithmetic."""
from sgemm_tools.pictures_src import evaluate, rung_source
from sgemm_tools.pictures_svg import (GREEN, GREY, INK, LIGHT, ORANGE, PALETTE, STRONG,
                                      Svg, hue)

TILE = r"struct Tile \{.*?\n\};"


def tile_of(number, root):
    src = rung_source(root, number)
    return src, src.constants(src.launch_args(), TILE)


def warp_tiling(root):
    src, c = tile_of(8, root)
    BM, BN, WM, WN, TM, TN = (c[n] for n in ("BM", "BN", "WM", "WN", "TM", "TN"))
    WMITER, WNITER, WSUBM, WSUBN = (c[n] for n in ("WMITER", "WNITER", "WSUBM", "WSUBN"))
    lanes_across = evaluate(src.find(r"const int threadCol = lane % ([^;]+);", "threadCol")
                            .group(1), c)
    warps_across = evaluate(src.find(r"const int warpCol = warpIdx % ([^;]+);", "warpCol")
                            .group(1), c)
    k = {n: c[n] for n in ("BM", "BN", "BK", "WM", "WN", "WMITER", "WNITER", "WSUBM", "WSUBN",
                           "TM", "TN", "kThreads")}
    s = Svg("08 · Warp tiling: block tile → warp tiles → sub-tiles → a thread", src.path, k, 660)
    # 1. The block tile, a colour per warp tile.
    u1, x1, y1 = 2, 20, 70
    for w in range((BM // WM) * (BN // WN)):
        wr, wc = w // warps_across, w % warps_across
        s.rect(x1 + wc * WN * u1, y1 + wr * WM * u1, WN * u1, WM * u1,
               fill=PALETTE[w % len(PALETTE)], stroke=STRONG if w == 0 else INK,
               sw=3 if w == 0 else 0.5)
        s.text(x1 + (wc + 0.5) * WN * u1, y1 + (wr + 0.5) * WM * u1 + 4, f"warp {w}", size=11,
               anchor="middle")
    s.text(x1, y1 - 8, f"1. Block tile BM × BN = {BM} × {BN}: {c['kThreads'] // 32} warps, "
           f"each a WM × WN = {WM} × {WN} warp tile", size=12)
    # 2. Warp 0's tile: WMITER x WNITER sub-tiles, lane 0's elements in red.
    u2, x2, y2 = 3, 20, y1 + BM * u1 + 56
    for i in range(WMITER):
        for j in range(WNITER):
            tone = PALETTE[0] if (i + j) % 2 == 0 else "#d6eaf5"
            s.rect(x2 + j * WSUBN * u2, y2 + i * WSUBM * u2, WSUBN * u2, WSUBM * u2, fill=tone,
                   stroke=STRONG if i + j == 0 else INK, sw=3 if i + j == 0 else 0.5)
            s.rect(x2 + j * WSUBN * u2, y2 + i * WSUBM * u2, TN * u2, TM * u2, fill=STRONG,
                   stroke="none")
    s.lines(x2, y2 - 24, [f"2. Warp 0: WMITER × WNITER = {WMITER} × {WNITER}",
                          f"sub-tiles of WSUBM × WSUBN = {WSUBM} × {WSUBN}"], size=12)
    # 3. One sub-tile: the 32 lanes, each TM x TN.
    u3, x3, y3 = 6, x2 + WN * u2 + 90, y2
    for lane in range(32):
        r, q = lane // lanes_across, lane % lanes_across
        s.rect(x3 + q * TN * u3, y3 + r * TM * u3, TN * u3, TM * u3,
               fill=STRONG if lane == 0 else PALETTE[0], stroke=INK, sw=0.5)
        s.text(x3 + (q + 0.5) * TN * u3, y3 + (r + 0.5) * TM * u3 + 4, str(lane), size=11,
               anchor="middle", fill="white" if lane == 0 else INK)
    s.lines(x3, y3 - 24, ["3. Its first sub-tile: 32 lanes,", f"each TM × TN = {TM} × {TN}"],
            size=12)
    tx = x3 + WSUBN * u3 + 24
    per = WMITER * WNITER * TM * TN
    s.lines(tx, y3 + 10, [
        "4. One thread, lane 0 (red):", f"its {TM} × {TN} elements in each", f"of the "
        f"{WMITER * WNITER} sub-tiles: {per}", "accumulators in registers.", "",
        f"Per k it loads {WMITER} × {TM // 4} + {WNITER} × {TN // 4}", "LDS.128 and does "
        f"{per} FFMA;", "the warp's 32 lanes read one", f"{WSUBM}-row slice of As and one",
        f"{WSUBN}-column slice of Bs", "per sub-tile, shared by them all."], size=12)
    s.caption([f"To scale: the block tile at {u1} px an element, warp 0 at {u2}, one sub-tile "
               f"at {u3}; red outlines: the part enlarged next.",
               "Numbered as the kernel numbers them: lane % (WSUBN/TN) picks a lane's column, "
               "warpIdx % (BN/WN) a warp's."])
    return s


def lanes_per_row(src, c):
    """How many lanes store one row r of As: each thread loads a float4 of A at column
    innerColA, so BK / 4 neighbouring threads share a row."""
    return evaluate(src.find(r"const int innerColA = threadIdx\.x % ([^;]+);", "innerColA")
                    .group(1), c)


def unswizzled_ways(BM, per_row):
    """The bank conflict of warp 0's first transposed store As[k·BM + r]: lane n writes row
    r = n / per_row at k = (n % per_row)·4; the most lanes on one bank."""
    banks = [((n % per_row * 4) * BM + n // per_row) % 32 for n in range(32)]
    return max(banks.count(b) for b in banks)


def swizzle(root):
    src, c = tile_of(8, root)
    names, expr = src.returns("swizzle")
    per_row = lanes_per_row(src, c)
    BM, BK = c["BM"], c["BK"]
    # Rungs 6 and 7 store As the same way, unswizzled, with tiles of their own.
    src6 = rung_source(root, 6)
    c6 = src6.constants()
    src7, c7 = tile_of(7, root)
    before = {n: unswizzled_ways(cn["BM"], lanes_per_row(sn, cn))
              for n, sn, cn in ((6, src6, c6), (7, src7, c7))}
    k = {"BM": BM, "BK": BK, "swizzle": expr.replace(" ", ""),
         "ways_rung6": before[6], "ways_rung7": before[7]}
    s = Svg("08 · The XOR swizzle: which bank each element of As lands in", src.path, k, 766)
    cell, ch, x0 = 19, 15, 56
    rows = BK

    def bank(r, kk, swizzled):
        where = evaluate(expr, dict(zip(names, (r, kk)))) if swizzled else r
        return (kk * BM + where) % 32

    # One store instruction of warp 0: lane n writes row n / per_row, k = (n % per_row) * 4.
    store = {(n % per_row * 4, n // per_row) for n in range(32)}
    for p, swz in enumerate((False, True)):
        y = 80 + p * (rows * ch + 96)
        hit = [bank(r, kk, swz) for kk, r in store]
        worst = max(hit.count(b) for b in set(hit))
        title = ("Before: As[k·BM + r], rung 8's tile without the swizzle" if not swz else
                 f"After (rung 8): As[k·BM + swizzle(r, k)], swizzle = {expr}")
        s.text(12, y - 26, title, size=13, bold=True)
        for r in range(32):
            s.text(x0 + r * cell + cell / 2, y - 6, str(r), size=11, anchor="middle", fill=GREY)
        for kk in range(rows):
            s.text(x0 - 6, y + kk * ch + 11, f"k={kk}", size=11, anchor="end")
            s.add(f'<g font-size="11" text-anchor="middle" stroke="white" stroke-width="0.5">')
            for r in range(32):  # each cell's colour and number: its bank
                b, cx, cy = bank(r, kk, swz), x0 + r * cell, y + kk * ch
                s.add(f'<rect x="{cx}" y="{cy}" width="{cell}" height="{ch}" fill="{hue(b, 32)}"/>'
                      f'<text x="{cx + cell / 2:g}" y="{cy + 11}" stroke="none">{b}</text>')
            s.add("</g>")
        for kk, r in sorted(store):
            s.rect(x0 + r * cell + 1, y + kk * ch + 1, cell - 2, ch - 2, stroke=INK, sw=2)
        lanes = "one lane on each" if worst == 1 else f"{worst} lanes on each"
        verdict = (f"one store instruction of warp 0 (outlined): {len(set(hit))} banks, {lanes}: "
                   + (f"a {worst}-way conflict" if worst > 1 else "no conflict"))
        s.text(12, y + rows * ch + 20, verdict, size=12, fill=STRONG if worst > 1 else GREEN,
               bold=True)
        if not swz:
            ways = lambda n: f"{before[n]}-way" if before[n] > 1 else "none"  # noqa: E731
            s.lines(12, y + rows * ch + 38, [
                f"Rungs 6 and 7 store so too: rung 6 (BM {c6['BM']}, BK {c6['BK']}) {ways(6)}, "
                f"rung 7 (BM {c7['BM']}, BK {c7['BK']}) {ways(7)}."], size=12, fill=STRONG)
    s.caption([f"Rows k = 0..{rows - 1}, columns r = 0..31 of As (a row holds BM = {BM} floats); "
               "a cell's number is its bank, index mod 32.",
               f"Warp 0's first store: lane n writes row r = n / {per_row} at k = (n % "
               f"{per_row})·4. XOR with a multiple of 8 keeps each aligned",
               "group of 4 r together, so the inner loop's float4 reads remain LDS.128."])
    return s


def ring(root):
    src, c = tile_of(9, root)
    S, BK = c["STAGES"], c["BK"]
    pending = evaluate(src.find(r"wait_pending<([^>]+)>\(\)", "the ring's wait").group(1), c)
    src.find(r"fetch\(ahead, buf > 0 \? buf - 1 : STAGES - 1\)", "the refill of the buffer "
             "computed on last step")
    tiles = 2 * S
    k = {"STAGES": S, "BK": BK, "wait_group": pending, "kSharedBytes": c["kSharedBytes"]}
    s = Svg(f"09 · The cp.async ring: {S} shared-memory stages over time", src.path, k, 500)
    # Simulate the kernel: before step 0 tiles 0..S-2 start; at step t the wait leaves at
    # most `pending` groups in flight, then tile t+S-1 starts into the buffer of step t-1.
    held = {b: (b, "flight") for b in range(S - 1)}
    columns = [("start", dict(held))]
    for t in range(tiles):
        held[t % S] = (t, "compute")
        for b, (tile, _) in held.items():
            if tile != t and held[b][1] != "done":
                held[b] = (tile, "ready" if tile <= t + S - 2 - pending else "flight")
        if t + S - 1 < tiles:
            held[(t + S - 1) % S] = (t + S - 1, "flight")
        columns.append((f"step {t}", dict(held)))
        held[t % S] = (t, "done")
    colour = {"flight": "#c6dbef", "ready": GREEN, "compute": ORANGE, "done": LIGHT}
    x0, y0, w, h = 110, 90, 80, 44
    for i, (label, state) in enumerate(columns):
        s.text(x0 + i * w + w / 2, y0 - 10, label, size=12, anchor="middle", bold=i > 0)
        for b in range(S):
            tile, what = state.get(b, (None, "done"))
            s.rect(x0 + i * w + 2, y0 + b * h + 2, w - 4, h - 4, fill=colour[what],
                   stroke=INK if what != "done" else GREY)
            text = "" if tile is None or what == "done" else f"k-tile {tile}"
            s.text(x0 + i * w + w / 2, y0 + b * h + h / 2 + 4, text, size=11, anchor="middle")
    for b in range(S):
        s.text(x0 - 10, y0 + b * h + h / 2 + 4, f"buffer {b}", size=12, anchor="end")
    for i in range(1, len(columns)):
        s.line(x0 + i * w, y0 - 4, x0 + i * w, y0 + S * h + 4, stroke=STRONG, sw=2)
    s.text(x0 + w, y0 + S * h + 16, "red: wait + __syncthreads", size=11, fill=STRONG,
           anchor="middle")
    yb = y0 + S * h + 30
    s.arrow(x0, yb, x0 + len(columns) * w, yb, stroke=GREY)
    s.text(x0 + len(columns) * w, yb + 16, "time →", size=11, anchor="end", fill=GREY)
    used = {what for _, state in columns for _, what in state.values()}
    s.legend(20, yb + 40, [(colour[w], text) for w, text in (
        ("flight", "copy in flight (cp.async, SASS LDGSTS): issued, not yet waited for"),
        ("ready", "landed and waited for: ready"),
        ("compute", "being computed (LDS + FFMA from this buffer)"),
        ("done", "free: the next copy may refill it")) if w in used or w == "done"])
    s.lines(20, yb + 120, [
        f"Step t starts with cp.async.wait_group {pending} (at most {pending} of this thread's "
        "groups of copies still in flight:",
        f"k-tile t has landed) and one __syncthreads (everyone's has, and the buffer of step "
        "t - 1 is free).",
        f"Then it starts k-tile t + {S - 1} into that free buffer and computes k-tile t: "
        f"{S - 1} k-tiles travel while one is computed.",
        f"{S} stages × (BM + BN)·BK·4 bytes = {c['kSharedBytes'] // 1024} KiB of dynamic "
        f"shared memory (BK = {BK})."], size=12)
    s.caption([f"One block over K = {tiles}·BK ({tiles} k-tiles), stepped as the kernel's loop "
               "steps; a copy's real duration varies."])
    return s


def draw(root):
    return {"08_warp_tiling.svg": lambda: warp_tiling(root),
            "08_swizzle.svg": lambda: swizzle(root),
            "09_cp_async_ring.svg": lambda: ring(root)}
