"""Pictures of rungs 10 and 11: the producer and consumer warpgroups around the ring's full and
empty mbarriers, and a shape's tile grid with K split into slices summed in a fixed order;
drawn from the Tile constants, pipeline.cuh's register split, the ring's arrival counts, and
rung 11's table and model (run here as the launcher runs it)."""
import re

from sgemm_tools.pictures_src import Source, evaluate, rung_source, sweep_context
from sgemm_tools.pictures_svg import (BLUE, GREEN, GREY, INK, LIGHT, ORANGE, PALETTE, STRONG,
                                      Svg, hue)

TILE = r"struct Tile \{.*?\n\};"
PRODUCER, CONSUMER = "#b2df8a", "#a6cee3"


def mbarrier_ring(root):
    src = rung_source(root, 10)
    c = src.constants(src.launch_args(), TILE)
    pipe = Source(root, "kernels/hopper/pipeline.cuh")
    keep = int(src.find(r"RegisterSplit<kThreads, kProducerThreads, (\d+)>", "register split")
               .group(1))
    regs = pipe.constants({"kThreads": c["kThreads"], "kProducerThreads": c["kProducerThreads"],
                           "kProducerRegs_": keep}, r"struct RegisterSplit \{.*?\n\};")
    init = src.find(r"ring_init<STAGES>\(full, empty, ([^,]+), ([^)]+)\)", "ring_init").groups()
    full_n, empty_n = (evaluate(e, c) for e in init)
    tx = evaluate(src.find(r"mbar_arrive_expect_tx\(&full\[buf\], ([^)]+)\)", "expect_tx")
                  .group(1), c)
    src.find(r"mbar_wait\(&full\[buf\], phase\)", "the consumers' wait on full")
    pipe.find(r"mbar_wait\(&empty\[buf\], phase \^ 1\)", "the producer's wait on empty")
    S, P, C = c["STAGES"], c["kProducerThreads"], c["kConsumerThreads"]
    k = {"STAGES": S, "BM": c["BM"], "BN": c["BN"], "BK": c["BK"], "producer": P,
         "consumers": C, "full_arrivals": full_n, "empty_arrivals": empty_n, "expect_tx": tx,
         "regs": f"{regs['kLaunchRegs']}->{keep}/{regs['kConsumerRegs']}"}
    s = Svg("10 · Producer and consumers around the mbarrier ring", src.path + ", " + pipe.path,
            k, 640)
    top, row = 86, 58
    s.rect(10, top, 170, S * row, fill=PRODUCER, stroke=INK)
    s.lines(18, top + 20, ["Producer warpgroup", f"{P} threads (warps {C // 32}–"
                           f"{(C + P) // 32 - 1})", f"setmaxnreg: {regs['kLaunchRegs']} → {keep}",
                           "registers a thread", "", "fill n of buffer s:", "wait empty[s],",
                           "  parity (n % 2) ^ 1", "thread 0: expect_tx", f"  {tx // 1024} KiB, "
                           "TMA copy of B", f"all {P}: cp.async of A,", "  then arrive on full[s]"],
            size=11, step=15)
    s.rect(520, top, 170, S * row, fill=CONSUMER, stroke=INK)
    s.lines(528, top + 20, [f"{C // 128} consumer warpgroups", f"{C} threads (warps 0–"
                            f"{C // 32 - 1})", f"setmaxnreg: {regs['kLaunchRegs']} → "
                            f"{regs['kConsumerRegs']}", "registers a thread", "",
                            "k-tile t, s = t % STAGES:", "wait full[s],",
                            "  parity (t / STAGES) % 2", "LDS.128 + FFMA from it,",
                            "lane 0 of each warp:", "  arrive on empty[s]"],
            size=11, step=15)
    for b in range(S):
        y = top + b * row
        s.rect(262, y + 8, 100, row - 16, fill="#fdd0a2", stroke=INK)
        s.text(312, y + row / 2 + 4, f"Bs[{b}] {c['BK']}×{c['BN']}", size=11, anchor="middle")
        s.rect(366, y + 8, 66, row - 16, fill="#c6dbef", stroke=INK)
        s.text(399, y + row / 2 + 4, f"As[{b}] {c['BK']}×{c['BM']}", size=11, anchor="middle")
        s.rect(196, y + 12, 60, row - 24, fill=LIGHT, stroke=INK)
        s.text(226, y + row / 2 + 4, f"empty[{b}]", size=11, anchor="middle")
        s.rect(440, y + 12, 64, row - 24, fill=LIGHT, stroke=INK)
        s.text(472, y + row / 2 + 4, f"full[{b}]", size=11, anchor="middle")
    s.text(347, top - 10, f"the ring: {S} stages in shared memory", size=12, anchor="middle")
    y = top + S * row + 20
    s.path([(95, top + S * row), (95, y + 10), (472, y + 10), (472, top + S * row - 12)],
           stroke=GREEN, sw=2)
    s.path([(610, top + S * row), (610, y + 34), (226, y + 34), (226, top + S * row - 12)],
           stroke=BLUE, sw=2)
    for b in range(S):  # the waits: a barrier's completion releases the waiting side
        s.path([(504, top + b * row + row / 2), (520, top + b * row + row / 2)], stroke=BLUE,
               sw=1.5, dash="3 2")
        s.path([(196, top + b * row + row / 2), (180, top + b * row + row / 2)], stroke=GREEN,
               sw=1.5, dash="3 2")
    s.text(12, y + 56, f"full[s] completes after {full_n} arrivals ({P} cp.async + 1 "
           f"expect_tx) and {tx} bytes of B (TMA)", size=12, fill=GREEN)
    s.text(12, y + 72, f"empty[s] completes after {empty_n} arrivals (lane 0 of each consumer "
           "warp, once it read the stage)", size=12, fill=BLUE)
    # The phase bit over two laps of the ring.
    ty, w = y + 110, 60
    s.text(12, ty - 8, "The phase bit: fill n of buffer s completes phase n % 2 of full[s]; a "
           "fresh barrier", size=12)
    s.text(12, ty + 8, "counts as having completed the phase before 0, so the first lap's waits "
           "on empty pass at once.", size=12)
    rows = [("k-tile t", lambda t: t), ("buffer s = t % " + str(S), lambda t: t % S),
            ("fill n = t / " + str(S), lambda t: t // S),
            ("consumers wait full[s]: parity", lambda t: t // S % 2),
            ("producer waits empty[s]: parity", lambda t: t // S % 2 ^ 1)]
    for i, (label, f) in enumerate(rows):
        yy = ty + 24 + i * 22
        s.text(206, yy + 15, label, size=11, anchor="end", bold=i == 0)
        for t in range(2 * S):
            fill = (PALETTE[t // S] if i < 3 else (ORANGE if f(t) else "white"))
            s.rect(214 + t * w, yy, w - 2, 20, fill=fill, stroke=GREY, sw=0.5)
            s.text(214 + t * w + w / 2, yy + 15, str(f(t)), size=11, anchor="middle")
    s.caption(["Schematic. Solid arrows: arrivals on a stage's barrier (green: the producer's, "
               "blue: the consumers');", "dashed: a completed barrier releases the side that "
               "waits on it. Every stage works alike."])
    return s


def plan(configs, counts, sum_micros, sum_rate, M, N, K, sms):
    """Rung 11's choose(): the (tile, slices) its model predicts fastest, as the launcher
    computes it (integer k-tiles, waves of one block an SM, the sum's cost)."""
    best = None
    for cfg in configs:
        BM, BN, BK, rate, fixed = cfg
        tiles = -(-M // BM) * -(-N // BN)
        for want in counts:
            k_slice = (K + want * BK - 1) // (want * BK) * BK
            slices = (K + k_slice - 1) // k_slice
            if slices != want and want > 1:
                continue
            nbytes = (slices + 2.0) * M * N * 4
            waves = (tiles * slices + sms - 1) // sms
            block = fixed + 2.0 * BM * BN * k_slice / (rate * 1e3)
            micros = waves * block + (sum_micros + nbytes / sum_rate if slices > 1 else 0)
            if best is None or micros < best[-1]:
                best = (cfg, tiles, slices, k_slice, waves, micros)
    return best


def split_k(root):
    src = rung_source(root, 11)
    rows = re.findall(r"\{(\d+), (\d+), (\d+), ([\d.e+]+), ([\d.e+]+), &launch_tile<", src.code)
    configs = [(int(a), int(b), int(k), float(r), float(f)) for a, b, k, r, f in rows]
    counts = [int(v) for v in src.find(r"kSliceCounts\[\] = \{([^}]*)\}", "kSliceCounts")
              .group(1).split(",")]
    sum_micros = float(src.find(r"kSumMicros = ([\d.e+]+);", "kSumMicros").group(1))
    sum_rate = float(src.find(r"kSumBytesPerMicro = ([\d.e+]+);", "kSumBytesPerMicro").group(1))
    sweep = sweep_context(root)
    kind = "large-K"
    if kind not in sweep["kinds"]:
        raise SystemExit(f"scripts/pictures: results/h200/bench.json names no '{kind}' shape")
    M, N, K = (int(v) for v in sweep["kinds"][kind].split("x"))
    cfg, tiles, slices, k_slice, waves, micros = plan(configs, counts, sum_micros, sum_rate, M,
                                                      N, K, sweep["sms"])
    one = plan([cfg], [1], sum_micros, sum_rate, M, N, K, sweep["sms"])
    BM, BN, BK = cfg[:3]
    k = {"shape": f"{M}x{N}x{K}", "gpu": sweep["gpu"].replace(" ", "_"), "sms": sweep["sms"],
         "tile": f"{BM}x{BN}x{BK}",
         "slices": slices, "kSlice": k_slice, "configs": len(configs),
         "slice_counts": "/".join(map(str, counts))}
    s = Svg("11 · Every shape: a tile, K split into slices, a fixed-order sum",
            f"{src.path}, results/h200/bench.json", k, 590)
    tm, tn = -(-M // BM), -(-N // BN)
    u = 200 / max(M, N)
    x0, y0 = 20, 70
    s.text(x0, y0 - 14, f"C: {M} × {N}, {tm} × {tn} tiles of {BM} × {BN}", size=12, bold=True)
    s.grid(x0, y0, tm, tn, BN * u, cell_h=BM * u, fill=lambda r, q: PALETTE[0], stroke=INK)
    s.rect(x0, y0, BN * u, BM * u, fill=STRONG, stroke=INK, sw=1.5)
    s.text(x0, y0 + M * u + 18, "red: tile (0, 0), whose partial tiles are below", size=11,
           fill=STRONG)
    kx, ky, kw = 260, 92, 420
    s.text(kx, ky - 8, f"K = {K} →", size=12, bold=True)
    for z in range(slices):
        lo, hi = z * k_slice, min(K, (z + 1) * k_slice)
        s.rect(kx + lo * kw / K, ky, (hi - lo) * kw / K, 30, fill=hue(z, max(slices, 2)),
               stroke=INK)
        s.text(kx + (lo + hi) / 2 * kw / K, ky + 20, f"slice z={z}", size=11, anchor="middle")
    s.lines(kx, ky + 52, [
        f"{slices} slices of kSlice = {k_slice}: {k_slice // BK} k-tiles of BK = {BK} each.",
        "Block (x, y, z) computes tile (x, y) over slice z.",
        f"{tiles} tiles × {slices} slices = {tiles * slices} blocks on {sweep['sms']} SMs",
        f"({sweep['gpu']}): {waves} wave{'s' if waves > 1 else ''}.",
        f"Unsplit: {tiles} blocks, {tiles / sweep['sms']:.0%} of the SMs busy,",
        "each walking all of K alone."], size=12)
    # The partial tiles and their sum, z in order.
    py = 350
    s.lines(20, py - 30, ["Each slice writes its partial tile W[z] to the workspace; a second "
                          "kernel adds them,", "z = 0, 1, 2, … in this order for every element:"],
            size=12)
    for z in range(slices):
        x = 20 + z * 78
        s.rect(x, py, 56, 40, fill=hue(z, max(slices, 2)), stroke=INK)
        s.text(x + 28, py + 25, f"W[{z}]", size=12, anchor="middle")
        if z < slices - 1:
            s.text(x + 67, py + 25, "+", size=16, anchor="middle", bold=True)
    end = 20 + slices * 78
    s.text(end - 4, py + 25, "→", size=16, bold=True)
    s.rect(end + 20, py, 120, 40, fill=STRONG, stroke=INK)
    s.text(end + 80, py + 25, "C = α·sum + β·C", size=11, anchor="middle", fill="white")
    chain = "sum = " + "(" * max(slices - 2, 0) + "W[0]" + "".join(
        f" + W[{z}]" + (")" if 1 <= z < slices - 1 else "") for z in range(1, slices))
    s.text(20, py + 64, chain, size=12)
    s.lines(20, py + 96, [
        "The order is fixed, whichever block finished first: no atomics, so the result is",
        "the same, bit for bit, on every run.",
        f"The choice is rung 11's model over its table of {len(configs)} tiles and "
        f"{len(counts)} slice counts ({', '.join(map(str, counts))}):",
        f"it predicts {micros:.0f} µs for this plan against {one[-1]:.0f} µs unsplit "
        f"(predictions of the model, not measurements),",
        f"from waves of blocks, the slice's FFMA at the tile's rate, and the sum's cost."],
        size=12)
    s.caption([f"The shape is the sweep's '{kind}' shape; C's tile grid to scale, K's slices "
               "to scale along K."])
    return s


def draw(root):
    return {"10_mbarrier_ring.svg": lambda: mbarrier_ring(root),
            "11_split_k.svg": lambda: split_k(root)}
