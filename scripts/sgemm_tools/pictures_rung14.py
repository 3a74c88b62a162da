"""Pictures of rung 14: the block tile as the two consumer warpgroups share it, one wgmma's
m64nNk8 shape inside it and the accumulator fragment a thread holds; and the 128-byte swizzle
TMA writes each box's rows with, which the wgmma descriptors name. Drawn from rung 14's Tile
constants (the launcher's template arguments), the wgmma instruction hopper.cuh wraps, the
order of mma_stage's products (split_3xtf32.cuh) and the descriptor's stride."""
import re

from sgemm_tools.pictures_src import Source, evaluate, rung_source
from sgemm_tools.pictures_svg import BLUE, GREY, INK, LIGHT, PALETTE, STRONG, Svg, hue

TILE = r"struct Tile \{.*?\n\};"
PRODUCER = "#b2df8a"


def constants(root):
    """Rung 14's tile for long K (the launcher's last launch_tile<...>), the wgmma shape, the
    products' order, the swizzle span and the descriptor's stride, all read from the code."""
    src = rung_source(root, 14)
    body = src.find(r"runtime::LaunchAnswer launch\(const Gemm.*?\n}", "launch()").group(0)
    calls = re.findall(r"launch_tile<([^>]*)>\(", body)
    if not calls:
        raise SystemExit(f"scripts/pictures: {src.path}: no launch_tile<...> in launch()")
    names = list(src.launch_args())  # the template's parameter names
    args = dict(zip(names, (evaluate(a, {}) for a in calls[-1].split(","))))
    c = src.constants(args, TILE)
    c["PROMOTE_short"] = evaluate(calls[0].split(",")[names.index("PROMOTE")], {})
    hop = Source(root, "kernels/hopper/hopper.cuh")
    m, n, k = (int(v) for v in hop.find(r"wgmma\.mma_async\.sync\.aligned\.m(\d+)n(\d+)k(\d+)"
                                        r"\.f32\.tf32\.tf32", "the TF32 wgmma").groups())
    stride = hop.find(r"static_cast<uint64_t>\((\d+) \* kSpan >> 4\) << 32", "descriptor stride")
    split = Source(root, "kernels/split_3xtf32/split_3xtf32.cuh")
    order = re.findall(r"WgmmaTf32<BN>::mma\(acc, a(Hi|Lo) \+ step, b(Hi|Lo) \+ step", split.code)
    if len(order) != 3:
        raise SystemExit(f"scripts/pictures: {split.path}: mma_stage's three products not found")
    swz = split.find(r"kSwizzle =\s*BK == (\d+) \? CU_TENSOR_MAP_SWIZZLE_(\d+)B : "
                   r"CU_TENSOR_MAP_SWIZZLE_(\d+)B", "the tensor maps' swizzle").groups()
    c["swizzleBytes"] = int(swz[1]) if c["BK"] == int(swz[0]) else int(swz[2])
    c.update(wgM=m, wgN=n, wgK=k, groupRows=int(stride.group(1)),
             order=",".join(f"{a.lower()}*{b.lower()}" for a, b in order))
    if c["WGM"] != m or c["BN"] != n:
        raise SystemExit("scripts/pictures: rung 14's warpgroup tile is not the wgmma's shape")
    return c, [src.path, hop.path, split.path]


def wgmma_tile(root):
    c, paths = constants(root)
    BM, BN, BK, WGM, m, n, k = (c[x] for x in ("BM", "BN", "BK", "WGM", "wgM", "wgN", "wgK"))
    steps, products = BK // k, len(c["order"].split(","))
    keep = {x: c[x] for x in ("BM", "BN", "BK", "STAGES", "PROMOTE", "kConsumers", "WGM",
                              "kAccumulators", "kThreads")}
    keep.update(wgmma=f"m{m}n{n}k{k}", order=c["order"])
    s = Svg("14 · A block tile on two consumer warpgroups, one wgmma m%dn%dk%d" % (m, n, k),
            ", ".join(paths), keep, 640)
    u = 256 / max(BM, BN)  # pixels per element of C
    cx, cy = 100, 170
    aw, bh = BK * u, BK * u  # A and B to the same scale
    # A's box (BM x BK) left of C, B's (BK x BN, Bt transposed back) above it, k8 steps marked.
    s.rect(cx - aw - 14, cy, aw, BM * u, fill=LIGHT)
    s.rect(cx, cy - bh - 14, BN * u, bh, fill=LIGHT)
    for t in range(1, steps):
        s.line(cx - aw - 14 + t * aw / steps, cy, cx - aw - 14 + t * aw / steps, cy + BM * u,
               stroke=GREY, dash="3 2")
        s.line(cx, cy - bh - 14 + t * bh / steps, cx + BN * u, cy - bh - 14 + t * bh / steps,
               stroke=GREY, dash="3 2")
    s.text(cx - aw / 2 - 14, cy - 8, f"A {BM}×{BK}", size=11, anchor="middle")
    s.text(cx + BN * u / 2, cy - bh - 22, f"B {BK}×{BN} (Bt in shared memory: {BN} rows of "
           f"{BK} k)", size=11, anchor="middle")
    # C: one band per consumer warpgroup, warps of 16 rows inside.
    for g in range(c["kConsumers"]):
        y = cy + g * WGM * u
        s.rect(cx, y, BN * u, WGM * u, fill=PALETTE[g], stroke=INK)
        for w in range(1, 4):
            s.line(cx, y + w * WGM * u / 4, cx + BN * u, y + w * WGM * u / 4, stroke=GREY,
                   dash="2 2")
        s.text(cx + BN * u / 2, y + WGM * u / 2 - 4, f"warpgroup {g}: warps {4 * g}–{4 * g + 3}",
               size=12, anchor="middle", bold=True)
        s.text(cx + BN * u / 2, y + WGM * u / 2 + 12, f"rows {g * WGM}–{g * WGM + WGM - 1}, "
               f"{WGM // 4} a warp", size=11, anchor="middle")
    # One wgmma: warpgroup 0's rows of A at k step 0, B's first k step, all of its C.
    s.rect(cx - aw - 14, cy, aw / steps, m * u, stroke=STRONG, sw=2.5)
    s.rect(cx, cy - bh - 14, n * u, bh / steps, stroke=STRONG, sw=2.5)
    s.rect(cx, cy, n * u, m * u, stroke=STRONG, sw=2.5)
    s.text(cx - aw - 14, cy + BM * u + 16, f"k step 0: {m}×{k}", size=11, fill=STRONG)
    s.text(cx + BN * u / 2, cy - bh - 14 + bh / steps - 4, f"B's k step 0: {k}×{n}", size=11,
           fill=STRONG, anchor="middle")  # inside its red band, clear of the text beside
    s.lines(12, cy + BM * u + 40, [f"C's block tile {BM}×{BN}; red: one wgmma m{m}n{n}k{k}",
                                   f"(A {m}×{k} by B {k}×{n} into warpgroup 0's {m}×{n} of C)."],
            size=12, fill=STRONG)
    s.lines(12, cy + BM * u + 76, [f"The producer, warps {4 * c['kConsumers']}–"
                                   f"{c['kThreads'] // 32 - 1}, owns no C:",
                                   "it issues the TMA copies."], size=12)
    # Right: the count per stage, then the fragment of warp 0's first 8 columns.
    x = 390
    order = c["order"].replace("*", "·").split(",")
    s.lines(x, 64, [" ".join([f"One stage: BK = {BK} = {steps} k steps of {k}.",
                    f"Per step, {products} wgmmas into the same registers:",
                    "  " + ", then ".join(order) + ",",
                    f"so {steps * products} wgmmas a stage per warpgroup, one",
                    "commit group; they read A and B from",
                    "shared memory through descriptors.",
                    f"A thread holds {m}·{n} / 128 = {c['kAccumulators']} floats of",
                    f"C (acc), and {c['kAccumulators']} more (sum): every",
                    f"{c['PROMOTE']} stages ({c['PROMOTE'] * BK} k; {c['PROMOTE_short'] * BK} "
                    "for short K) acc", "is added into sum in FP32."])], size=12, step=16)
    fx, fy, fw, fh = x + 60, 300, 56, 16
    s.text(x, fy - 24, "The fragment: warp 0, columns 0–7 of C", size=12, bold=True)
    s.text(x - 20, fy - 8, "lane l: d[4j+2i+c] = C[16w+l/4+8i][8j+2(l%4)+c]", size=11)
    for r in range(16):
        s.text(fx - 6, fy + r * fh + 12, f"row {r}", size=11, anchor="end")
        for p in range(4):
            lane = (r % 8) * 4 + p
            fill = STRONG if lane == 0 else PALETTE[lane % 8 // 4 + 2 * (r // 8)]
            s.rect(fx + p * fw, fy + r * fh, fw, fh, fill=fill, stroke=GREY, sw=0.5)
            s.text(fx + p * fw + fw / 2, fy + r * fh + 12,
                   f"l{lane} d{2 * (r // 8)},{2 * (r // 8) + 1}", size=11, anchor="middle",
                   fill="white" if lane == 0 else INK)
    for p in range(4):
        s.text(fx + p * fw + fw / 2, fy + 16 * fh + 14, f"col {2 * p},{2 * p + 1}", size=11,
               anchor="middle")
    s.caption([f"A, B and C to scale. The fragment repeats every 8 columns (j = 0 … {n // 8 - 1}: "
               "d[4j] …) and every 16 rows",
               "(warp w = 0 … 3). Red: lane 0's four floats of the first eight columns."])
    return s


def swizzle(root):
    c, paths = constants(root)
    span, chunk = c["kSpan"], 16
    chunks = span // chunk  # 16-byte chunks in a row: 8 for the 128-byte span
    k_per_chunk, k_step = chunk // 4, c["wgK"]
    group = c["groupRows"]  # rows in a group of the swizzle pattern (the descriptor's 8 * kSpan)
    if c["swizzleBytes"] != span:
        raise SystemExit("scripts/pictures: rung 14's box rows are not one swizzle span")
    keep = {"BK": c["BK"], "kSpan": span, "swizzle": f"{c['swizzleBytes']}B",
            "stride": group * span, "kBoxBytesA": c["kBoxBytesA"], "WGM": c["WGM"],
            "wgmma_k": k_step}
    s = Svg(f"14 · TMA's {span}-byte swizzle: where each 16-byte chunk of a row lands",
            ", ".join(paths[:2]), keep, 600)
    x0, y0, cw, ch = 96, 120, 70, 30
    s.lines(12, 48, [f"A box row is one k-tile of one row of A (or Bt): BK = {c['BK']} floats = "
                     f"{span} bytes = {chunks} chunks of 16 B.",
                     f"Chunk c holds k = {k_per_chunk}c … {k_per_chunk}c+{k_per_chunk - 1}. "
                     f"TMA stores it at position c XOR (row % {group}) within the row."],
            size=12)
    for p in range(chunks):
        s.lines(x0 + p * cw + cw / 2, y0 - 34, [f"position {p}", "banks",
                                               f"{4 * p}–{4 * p + 3}"],
                size=11, step=12, anchor="middle")
    kk = 1  # the k step the picture follows
    want = {kk * k_step // k_per_chunk + i for i in range(k_step // k_per_chunk)}
    for r in range(group):
        s.text(x0 - 8, y0 + r * ch + 19, f"row {r}", size=11, anchor="end")
        for p in range(chunks):
            cidx = p ^ (r % group)
            s.rect(x0 + p * cw, y0 + r * ch, cw, ch, fill=hue(cidx, chunks), stroke=GREY, sw=0.5)
            s.text(x0 + p * cw + cw / 2, y0 + r * ch + 19,
                   f"k{k_per_chunk * cidx}–{k_per_chunk * cidx + k_per_chunk - 1}", size=11,
                   anchor="middle")
            if cidx in want:
                s.rect(x0 + p * cw + 2, y0 + r * ch + 2, cw - 4, ch - 4, stroke=STRONG, sw=2.5)
    y = y0 + group * ch + 26
    lo = kk * k_step
    s.lines(12, y, [
        f"Red: what k step {kk} (k = {lo} … {lo + k_step - 1}) reads: chunks "
        f"{min(want)} and {max(want)} of every row, at a different",
        f"position in each of the {group} rows, so chunk {min(want)} of the {group} rows covers "
        f"all 32 banks. Unswizzled, chunk {min(want)}",
        f"of every row would sit at position {min(want)}, all {group} rows in banks "
        f"{4 * min(want)}–{4 * min(want) + 3}.",
        "", f"The pattern repeats every {group} rows, {group} × {span} = {group * span} bytes: "
        f"the descriptor's stride byte offset. The kernel's",
        f"descriptor for step kk is the box's address + {k_step * 4}·kk bytes; the hardware "
        "applies the XOR to the",
        f"address it computes, so each box, and warpgroup 1's rows {c['WGM']} … at "
        f"{c['WGM']} × {span} = {c['WGM'] * span} bytes, must start on a",
        f"{group * span}-byte boundary (a static_assert in the Tile): the phase of the "
        "swizzle is the address's own.",
        "", f"A box of A_hi is {c['BM']} rows: {c['BM'] // group} such groups, "
        f"{c['kBoxBytesA']} bytes; A_lo, Bt_hi, Bt_lo the same."], size=12)
    s.caption([f"Schematic of one {group * span}-byte group of {group} rows; colours follow "
               "the chunk (its k), "
               "not the position."])
    return s


def draw(root):
    return {"14_wgmma_tile.svg": lambda: wgmma_tile(root),
            "14_swizzle_128b.svg": lambda: swizzle(root)}
