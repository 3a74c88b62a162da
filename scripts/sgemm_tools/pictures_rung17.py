"""The picture of rung 17: one tile of C whose K is split over the blocks of a thread-block
cluster, each block's partial tile in its own shared memory, and each rank summing its share of
the tile over every rank, in rank order, through distributed shared memory (DSMEM). Drawn from
the rung's table of tiles, its Tile constants, the reduction's constants (kInFlight, kMaxRanks)
and its launcher's choose(), run here as the launcher runs it on the committed H200 sweep's SM
count."""
import re

from sgemm_tools.pictures_src import rung_source, sweep_context
from sgemm_tools.pictures_svg import BLUE, GREEN, GREY, INK, LIGHT, STRONG, Svg, hue

SHAPE = (256, 256, 256)  # the example: a small problem, where the rung is the one call's path
SHARE = 2  # the rank whose share of the tile the picture follows


def table(src):
    """kConfigs as [(BM, BN, BK, TM, TN, STAGES)] and the indices of the rule's three tiles."""
    rows = re.findall(r"\{(\d+), (\d+), (\d+), &launch_tile<(\d+), (\d+), (\d+), (\d+), (\d+), "
                      r"(\d+)>\}", src.code)
    if not rows:
        raise SystemExit(f"scripts/pictures: {src.path} has no kConfigs rows")
    configs = [tuple(int(v) for v in r[3:]) for r in rows]
    pick = {n: int(src.find(rf"\b{n} = kConfigs\[(\d+)\]", n).group(1))
            for n in ("kSmallTile", "kLargeTile", "kDeepTile")}
    return configs, pick


def choose(src, configs, pick, c, M, N, K, sms):
    """The launcher's choose() and ranks_for(), as the rung computes them: (config, ranks,
    kSlice). The lines it follows must still be in the source."""
    for line in (r"tiles\(kSmallTile\) <= sms \? kSmallTile : kLargeTile",
                 r"&c == &kSmallTile \? 2LL \* sms : sms", r"plan.kSlice >= kDeepFrom",
                 r"ranks_for\(tiles\(kDeepTile\), sms,", r"tiles \* ranks \* 2 <= maxBlocks",
                 r"\(K \+ kSlice - 1\) / kSlice < ranks \* 2"):
        src.find(line, f"choose()'s line /{line}/")

    def slice_of(k, ranks, bk):
        return (k + ranks * bk - 1) // (ranks * bk) * bk

    def ranks_for(tiles, max_blocks, bk):
        ranks = 1
        while ranks < c["kMaxRanks"] and tiles * ranks * 2 <= max_blocks:
            if -(-K // slice_of(K, ranks * 2, bk)) < ranks * 2:
                break
            ranks *= 2
        return ranks

    def tiles(i):
        return -(-M // configs[i][0]) * -(-N // configs[i][1])
    small = tiles(pick["kSmallTile"]) <= sms
    i = pick["kSmallTile"] if small else pick["kLargeTile"]
    ranks = ranks_for(tiles(i), 2 * sms if small else sms, configs[i][2])
    if small and slice_of(K, ranks, configs[i][2]) >= c["kDeepFrom"]:
        i = pick["kDeepTile"]
        ranks = ranks_for(tiles(i), sms, configs[i][2])
    return i, ranks, slice_of(K, ranks, configs[i][2])


def cluster_sum(root):
    src = rung_source(root, 17)
    sweep = sweep_context(root)
    sms = sweep["sms"]
    base = src.constants()
    configs, pick = table(src)
    M, N, K = SHAPE
    i, R, k_slice = choose(src, configs, pick, base, M, N, K, sms)
    BM, BN, BK, TM, TN, STAGES = configs[i]
    c = src.constants(dict(BM=BM, BN=BN, BK=BK, TM=TM, TN=TN, STAGES=STAGES))
    chunks, flight = c["kPartialFloats"] // 4, c["kInFlight"]
    tm, tn = -(-M // BM), -(-N // BN)
    k = {"shape": f"{M}x{N}x{K}", "gpu": sweep["gpu"].replace(" ", "_"), "sms": sms,
         "config": i, "tile": f"{BM}x{BN}x{BK}", "TM": TM, "TN": TN, "STAGES": STAGES,
         "threads": c["kThreads"], "ranks": R, "kSlice": k_slice, "kChunks": chunks,
         "kInFlight": flight, "kMaxRanks": c["kMaxRanks"], "kDeepFrom": c["kDeepFrom"],
         "smem": c["kSharedBytes"]}
    s = Svg("17 · Cluster split-K: partial tiles summed in rank order through DSMEM",
            f"{src.path}, results/h200/bench.json", k, 790)
    # C's tiles, and the one the cluster owns.
    x0, y0, u = 20, 76, 150 / max(M, N)
    s.text(x0, y0 - 28, f"C: {M} × {N}", size=12, bold=True)
    s.text(x0, y0 - 12, f"{tm} × {tn} tiles of {BM} × {BN}", size=11)
    s.grid(x0, y0, tm, tn, BN * u, cell_h=BM * u, fill=lambda r, q: LIGHT, stroke=INK)
    s.rect(x0, y0, BN * u, BM * u, fill=STRONG, stroke=INK, sw=1.5)
    s.lines(x0, y0 + M * u + 18, [f"red: one tile, one cluster of {R} blocks;",
                                  f"{tm * tn} tiles → {tm * tn * R} blocks on {sms} SMs"],
            size=11)
    # K cut into the ranks' slices.
    kx, ky, kw = 200, 76, 480
    s.text(kx, ky - 28, f"K = {K}: {R} slices of kSlice = {k_slice}", size=12, bold=True)
    s.text(kx, ky - 12, f"{k_slice // BK} k-tiles of BK = {BK} each, one slice a rank",
           size=11)
    for r in range(R):
        lo, hi = r * k_slice, min(K, (r + 1) * k_slice)
        if hi > lo:
            s.rect(kx + lo * kw / K, ky, (hi - lo) * kw / K, 26, fill=hue(r, R), stroke=INK)
            s.text(kx + (lo + hi) / 2 * kw / K, ky + 17, f"r{r}", size=11, anchor="middle")
    s.lines(kx, ky + 46, [
        "Block rank r walks k in [r·kSlice, (r+1)·kSlice) through a",
        f"{STAGES}-buffer cp.async ring: {c['kThreads']} threads, {TM} × {TN} FFMA "
        "accumulators each,",
        f"make its partial tile Pr ({BM} × {BN}). The plan is choose()'s for",
        f"{M}×{N}×{K} on {sms} SMs ({sweep['gpu']}): tile {i} of the table,",
        f"{R} blocks a cluster (at most {c['kMaxRanks']}). Then Pr goes to the block's",
        "own shared memory, and barrier.cluster (arrive.release,",
        "wait.acquire) makes every Pr visible to the whole cluster."],
        size=12)
    # The blocks' shared memory, each P_r cut into the ranks' shares.
    by, bh = 300, 200
    bw = (700 - 40) / R
    share = [(q * chunks // R, (q + 1) * chunks // R) for q in range(R + 1)]
    s.text(20, by - 12, f"Each block's shared memory after the loop: Pr, {chunks} float4s "
           f"in {R} shares of {chunks // R}", size=12, bold=True)
    for r in range(R):
        x = 20 + r * bw
        s.rect(x + 4, by, bw - 8, bh, fill=hue(r, R), stroke=INK)
        s.text(x + bw / 2, by + 16, f"rank {r}: P{r}", size=11, anchor="middle")
        for q in range(1, R):
            y = by + share[q][0] * bh / chunks
            s.line(x + 4, y, x + bw - 4, y, stroke=GREY, sw=0.5)
        lo, hi = share[SHARE][0] * bh / chunks, share[SHARE + 1][0] * bh / chunks
        s.rect(x + 4, by + lo, bw - 8, hi - lo, fill="none", stroke=STRONG, sw=2)
    rows0 = share[SHARE][0] * 4 // BN
    rows1 = (share[SHARE + 1][0] * 4 - 1) // BN
    # Rank SHARE reads its share from every rank (its own too) and adds them in rank order.
    sy = by + bh + 70
    sx, sw_ = 20 + SHARE * bw + bw / 2, 320
    for r in range(R):
        cx = 20 + r * bw + bw / 2
        mid = by + (share[SHARE][0] + share[SHARE + 1][0]) / 2 * bh / chunks
        s.path([(cx, mid), (cx, by + bh + 24), (sx + (r - (R - 1) / 2) * 14, sy)],
               stroke=BLUE if r != SHARE else GREEN, sw=1.2, dash=None if r == SHARE else "4 2")
    left = max(20, min(sx - sw_ / 2, 680 - sw_))
    s.rect(left, sy, sw_, 34, fill=LIGHT, stroke=INK)
    chain = " + ".join(f"P{r}" for r in range(R))
    s.text(left + sw_ / 2, sy + 14, f"rank {SHARE}: sum = {chain}", size=11, anchor="middle")
    s.text(left + sw_ / 2, sy + 28, f"C = α·sum + β·C, rows {rows0}–{rows1} of the tile",
           size=11, anchor="middle")
    s.lines(20, sy + 56, [
        f"Rank r finishes float4s [r·{chunks}/{R}, (r+1)·{chunks}/{R}) of the tile: mapa "
        "turns its own address of P into rank s's,",
        "ld.shared::cluster reads it (dashed: another block's shared memory; green: its own).",
        f"Loads go out {flight} ranks at a time; the additions stay in rank order 0, 1, …:",
        "the same sum on every run, whichever block finished first. A second, relaxed",
        "barrier.cluster keeps every block alive until the others have read its P."],
        size=12)
    # The order within one element: groups of kInFlight loads, one chain of additions.
    oy = sy + 150
    s.text(20, oy, f"One float4 of rank {SHARE}'s share:", size=12, bold=True)
    for r in range(R):
        x = 236 + r * 54 + (r // flight) * 14
        s.rect(x, oy - 14, 40, 20, fill=hue(r, R), stroke=INK)
        s.text(x + 20, oy + 1, f"P{r}", size=11, anchor="middle")
        if r:
            s.text(x - 7, oy + 1, "+", size=13, anchor="middle", bold=True)
    for g in range(0, R, flight):
        x = 236 + g * 54 + (g // flight) * 14
        s.text(x, oy + 22, f"ranks {g}–{min(R, g + flight) - 1}: loads in flight together",
               size=11, fill=GREEN)
    s.caption([f"Schematic at the plan choose() makes for {M}×{N}×{K}; C's tiles, K's slices "
               "and the shares of P to scale."])
    return s


def draw(root):
    return {"17_cluster_sum.svg": lambda: cluster_sum(root)}
