"""The picture of rung 15: K cut into slices whose blocks are one thread-block cluster, each
slice's partial tile in its own shared memory, and each rank finishing a band of the tile's
rows by adding every rank's partial tile in rank order through distributed shared memory;
beside it, the path and the slices rung 15's choose() gives each shape of the committed sweep.
Drawn from kernels/15_every_shape_3xtf32.cu's constants (the Tile struct at run_prepass's
template arguments, kPitch, kMostRanks, kMostSlices, kPromote, kFusedBelow, the Fused tile)
and choose() as the launcher computes them, on the sweep's GPU; Slicing, and the cluster of a
tile's slices as multiply() launches it."""
import json
import os
import re

from sgemm_tools.pictures_src import Source, evaluate, rung_source, sweep_context
from sgemm_tools.pictures_svg import BLUE, GREY, INK, LIGHT, PALETTE, Svg, hue

TILE = r"struct Tile \{.*?\n\};"
# The sweep's shape whose plan the cluster panel draws: few tiles, long K.
SHAPE = "large-K"


class Rung15:
    """What the picture needs of rung 15's source: the pre-pass tile, the limits, choose()."""

    def __init__(self, root):
        src = self.src = rung_source(root, 15)
        top = src.constants()  # the file's own: kMostRanks, kPromote, kMostSlices, ...
        args = src.find(r"run_prepass<([^>]*)>\(g, plan\.slices", "run()'s run_prepass<...>")
        names = ["BN", "BK", "STAGES", "PROMOTE"]
        self.args = dict(zip(names, (evaluate(a, top) for a in args.group(1).split(","))))
        self.tile = src.constants(self.args, TILE)
        self.pitch = evaluate(src.find(r"constexpr int kPitch = ([^;]+);", "kPitch").group(1),
                              self.tile)
        self.ranks, self.promote = top["kMostRanks"], top["kPromote"]
        self.most_slices = top["kMostSlices"]
        fused = src.find(r"struct Fused \{\s*static constexpr int BM = (\d+), BN = (\d+), "
                         r"BK = (\d+);", "the Fused tile").groups()
        self.fused_bm, self.fused_bn, self.fused_bk = (int(v) for v in fused)
        below = src.find(r"constexpr double kFusedBelow = ([\d.]+) \* ([\d.]+) \* ([\d.]+);",
                         "kFusedBelow").groups()
        self.fused_below = float(below[0]) * float(below[1]) * float(below[2])
        self.side = round(self.fused_below ** (1 / 3))
        # choose() and the launcher's lines this module computes again: a change to them must
        # show here, not pass unnoticed.
        for line in [r"plan\.fused = static_cast<double>\(M\) \* N \* K < kFusedBelow;",
                     r"\(sms \+ tiles - 1\) / tiles, kMostSlices\)",
                     r"\{sms / tiles, kMostRanks, K / \(kPromote \* 32\)\}",
                     r"firstRow = rank \* BM / slices",
                     r"s\.x \+= p\.x"]:
            src.find(line, "the line /" + line + "/ of choose() or the cluster's sum")
        # Slicing, run_prepass and multiply()'s cluster: in the rung's file too.
        for line in [r"kSlice = \(kTiles \+ want - 1\) / want \* bk;",
                     r"slices = \(K \+ kSlice - 1\) / kSlice;",
                     r"Slicing cut\(K, std::min\(want, kMostRanks\), BK\);",
                     r"clusterDim\.y = static_cast<unsigned>\(slices\);"]:
            src.find(line, "the line /" + line + "/ of Slicing, run_prepass or multiply()")

    def plan(self, M, N, K, sms):
        """choose() then Slicing, as the launcher runs them: (fused, tiles, slices, kSlice)."""
        tiles = -(-M // 128) * -(-N // 128)
        fused = float(M) * N * K < self.fused_below
        if fused:
            want, bk = min(-(-sms // tiles), self.most_slices), self.fused_bk
        else:
            want = max(1, min(sms // tiles, self.ranks, K // (self.promote * 32)))
            want, bk = min(want, self.ranks), self.args["BK"]
        k_tiles = -(-K // bk)
        want = max(1, min(want, k_tiles))
        k_slice = -(-k_tiles // want) * bk
        return fused, tiles, -(-K // k_slice), k_slice


def sweep_shapes(root, path="results/h200/bench.json"):
    """The shapes rung 15 ran in the committed sweep, in the sweep's order."""
    with open(os.path.join(root, path)) as f:
        names = [b["name"] for b in json.load(f)["benchmarks"]]
    shapes = []
    for name in names:
        m = re.match(r"sgemm/rung:15_[^/]+/(\d+)x(\d+)x(\d+)/", name)
        if m and tuple(map(int, m.groups())) not in shapes:
            shapes.append(tuple(map(int, m.groups())))
    if not shapes:
        raise SystemExit(f"scripts/pictures: {path} holds no rung 15 shape")
    return shapes


def cluster_slices(root):
    r = Rung15(root)
    sweep = sweep_context(root)
    if SHAPE not in sweep["kinds"]:
        raise SystemExit(f"scripts/pictures: results/h200/bench.json names no '{SHAPE}' shape")
    M, N, K = (int(v) for v in sweep["kinds"][SHAPE].split("x"))
    sms = sweep["sms"]
    fused, tiles, slices, k_slice = r.plan(M, N, K, sms)
    if fused or slices < 2:
        raise SystemExit(f"scripts/pictures: rung 15 no longer runs {SHAPE} in a cluster")
    BM, BN, BK = r.tile["BM"], r.args["BN"], r.args["BK"]
    k = {"shape": f"{M}x{N}x{K}", "gpu": sweep["gpu"].replace(" ", "_"), "sms": sms,
         "tile": f"{BM}x{BN}x{BK}", "STAGES": r.args["STAGES"], "PROMOTE": r.args["PROMOTE"],
         "kPitch": r.pitch, "slices": slices, "kSlice": k_slice, "kMostRanks": r.ranks,
         "kMostSlices": r.most_slices, "kFusedBelow": f"{r.side}^3"}
    s = Svg("15 · Slices of K meet in a cluster, summed in rank order",
            f"{r.src.path}, results/h200/bench.json", k, 1000)
    # K, cut into slices: one block per slice, the slices of a tile one cluster.
    s.text(12, 50, f"{M} × {N} × {K}, {sweep['gpu']} ({sms} SMs): {tiles} tiles of "
           f"{BM} × {BN}, K in {slices} slices", size=12, bold=True)
    kx, ky, kw = 60, 64, 600
    s.text(12, ky + 20, "K →", size=12)
    for z in range(slices):
        lo, hi = z * k_slice, min(K, (z + 1) * k_slice)
        s.rect(kx + lo * kw / K, ky, (hi - lo) * kw / K, 30, fill=hue(z, max(slices, 2)))
        s.text(kx + (lo + hi) / 2 * kw / K, ky + 20, f"slice z = {z}: k {lo} … {hi - 1}",
               size=11, anchor="middle")
    s.lines(12, ky + 52, [f"Grid {tiles} × {slices}, cluster (1, {slices}, 1): a tile's "
                          f"{slices} blocks are one cluster; rank z walks slice z, "
                          f"{k_slice // BK} stages of BK = {BK}"], size=12, step=15)
    # The cluster: each rank's partial tile in its own shared memory, and the bands of rows.
    top, bw, bh = 150, 250, 200
    gap = (700 - 24 - slices * bw) / max(slices - 1, 1) if slices <= 2 else 10
    bw = bw if slices <= 2 else (676 - 10 * (slices - 1)) / slices
    band = [(z * BM // slices, (z + 1) * BM // slices) for z in range(slices)]
    xs = [12 + z * (bw + gap) for z in range(slices)]
    for z in range(slices):
        x = xs[z]
        s.rect(x, top, bw, bh + 120, fill=LIGHT, stroke=INK)
        s.text(x + 8, top + 18, f"block (x, {z}): cluster rank {z}", size=12, bold=True)
        s.lines(x + 8, top + 36, [f"1. wgmma over slice {z} →", "   sum[] in registers",
                                  f"2. sum[] → P, its ring reused:", f"   {BM} × {r.pitch} "
                                  f"floats (pitch BN + {r.pitch - BN})"], size=11, step=14)
        py, ph = top + 98, bh - 10
        s.rect(x + 8, py, bw - 16, ph, fill=hue(z, max(slices, 2)), stroke=INK)
        for w, (lo, hi) in enumerate(band):
            y0, y1 = py + lo * ph / BM, py + hi * ph / BM
            s.line(x + 8, y0, x + bw - 8, y0, stroke=GREY, dash="4 3")
            s.text(x + bw / 2, (y0 + y1) / 2 + 4, f"P rows {lo}–{hi - 1}", size=11,
                   anchor="middle")
            if w == z:  # the band this rank finishes
                s.rect(x + 12, y0 + 4, bw - 24, y1 - y0 - 8, stroke=BLUE, sw=2.5)
        s.text(x + 8, py + ph + 16, f"P: rank {z}'s partial tile, in its smem", size=11)
        s.lines(x + 8, top + bh + 180, [f"4. rank {z} finishes rows {band[z][0]}–"
                                      f"{band[z][1] - 1}:", "   " + " + ".join(
                                          f"P{q}" for q in range(slices)) + ", in rank order,",
                                      "   then α, β, guard path → C"],
                size=11, step=14, fill=BLUE)
    # 3. the reads through distributed shared memory: rank z's band, from every rank in order.
    s.rect(12, top + bh + 130, 676, 26, fill="#fff7d6", stroke=INK, dash="4 3")
    s.text(350, top + bh + 147, "3. cluster barrier (release / acquire): every P is written "
           "and visible to the whole cluster", size=11, anchor="middle")
    py, ph = top + 98, bh - 10
    for z in range(slices):  # rank z reads its band of rows from every other rank q
        lo, hi = band[z]
        for q in range(slices):
            if q == z:
                continue
            y = py + (lo + hi) / 2 * ph / BM + 8
            x_from, x_to = ((xs[q] + bw - 8, xs[z] + 8) if q < z else (xs[q] + 8, xs[z] + bw - 8))
            s.arrow(x_from, y, x_to, y, stroke=BLUE, sw=2)
    s.text(350, top + bh + 240, "Blue arrows: ld.shared::cluster reads of another rank's "
           "rows, float4 by float4.", size=11, anchor="middle", fill=BLUE)
    s.text(350, top + bh + 256, f"5. a last cluster barrier: no block exits while another "
           "may still read its shared memory.", size=11, anchor="middle")
    # The paths per shape of the sweep.
    ty = top + bh + 292
    s.text(12, ty, f"choose() per shape: the fused kernel below {r.side}³ multiply-adds, "
           "else the pre-pass path", size=12, bold=True)
    cols = [12, 180, 230, 330, 440]
    heads = ["M × N × K", "tiles", "path", "slices × kSlice", "where the slices meet"]
    for x, h in zip(cols, heads):
        s.text(x, ty + 20, h, size=11, bold=True)
    for i, (m, n, kk) in enumerate(sweep_shapes(root)):
        f, t, sl, ks = r.plan(m, n, kk, sms)
        y = ty + 36 + i * 15
        meet = ("none: one slice" if sl == 1 else
                "workspace, then a sum kernel" if f else f"a cluster of {sl}, in shared memory")
        colour = PALETTE[1] if f else PALETTE[0] if sl == 1 else PALETTE[2]
        s.rect(8, y - 11, 684, 14, fill=colour, stroke="none")
        for x, v in zip(cols, [f"{m} × {n} × {kk}", str(t), "fused" if f else "pre-pass",
                               f"{sl} × {ks}" if sl > 1 else "1", meet]):
            s.text(x, y, v, size=11, bold=(m, n, kk) == (M, N, K))
    s.caption(["K's slices to scale along K; the cluster schematic. Table: choose() and Slicing "
               "computed here as the launcher", "computes them; the bold row is the shape "
               "drawn above. Green: fused; orange: a cluster; blue: one slice."])
    return s


# The lines of mma_stage_split_a (kernels/split_3xtf32/split_3xtf32.cuh) this picture draws: the fragment's
# element, its address in the swizzled box, the split; a change to them must show here.
FRAGMENT = (r"const int r = row \+ 8 \* \(v % 2\), "
            r"k = 16 \* half \+ 8 \* step \+ lane % 4 \+ 4 \* \(v / 2\);")
ADDRESS = r"r \* kSpan \+ \(\(k / 4 \^ r % 8\) \* 16\) \+ k % 4 \* 4"
ROW = r"row = threadIdx\.x / 32 % 4 \* 16 \+ lane / 4;"
SPLIT = (r"\(bits \+ \(kRoundsAll \|\| \(bits & 0x7fffffffu\) < kRoundsToInfBits \? 0x1000u : 0u\)\) "
         r"&\s+0xffffe000u")


def split_a(root):
    """Warp 0's part of a warpgroup's k8 step of A: which lane holds which element in which of
    its four registers, and where each element sits in the TMA box under the 128-byte swizzle:
    one LDS.32 of the warp (one register v) reads 8 rows x 4 k, 32 different banks."""
    r = Rung15(root)
    head = Source(root, "kernels/split_3xtf32/split_3xtf32.cuh")
    tile = head.find(r"static_assert\(kSpan == (\d+) && BK == (\d+)", "the split's tile")
    span, bk = int(tile.group(1)), int(tile.group(2))
    for line in (FRAGMENT, ADDRESS, ROW, SPLIT):
        head.find(line, "the line /" + line + "/ of mma_stage_split_a or split_finite")
    most_n = r.src.constants()["kSplitAMaxN"]
    chunks, per_chunk = span // 16, 4  # 16-byte chunks a row, floats a chunk

    def element(lane, v, step=0, half=0):  # (row, k) of register v of `lane` (warp 0)
        return lane // 4 + 8 * (v % 2), 16 * half + 8 * step + lane % 4 + 4 * (v // 2)

    def address(row, k):
        return row * span + ((k // 4 ^ row % 8) * 16) + k % 4 * 4

    k = {"kSpan": span, "BK": bk, "kSplitAMaxN": most_n}
    s = Svg("15 · A split in the main kernel: wgmma's fragment of A, and the box it comes from",
            "kernels/split_3xtf32/split_3xtf32.cuh (mma_stage_split_a, split_finite), " + r.src.path, k, 560,
            width=800)
    # Left: the fragment, warp 0's 16 rows of the warpgroup's 64 x 8 slab of the first k8 step.
    cw, ch, x0, y0 = 40, 20, 40, 80
    s.text(x0, y0 - 22, "A, rows 0–15 (warp 0) × k 0–7 of a k8 step:", size=12, bold=True)
    s.text(x0, y0 - 8, "lane l, register a[v]", size=11)
    owner = {}
    for lane in range(32):
        for v in range(4):
            owner[element(lane, v)] = (lane, v)
    for row in range(16):
        for kk in range(8):
            lane, v = owner[(row, kk)]
            s.rect(x0 + kk * cw, y0 + row * ch, cw, ch, fill=PALETTE[v], stroke=GREY, sw=0.5)
            s.text(x0 + kk * cw + cw / 2, y0 + row * ch + 14, f"{lane} a{v}", size=11,
                   anchor="middle")
    for kk in range(8):
        s.text(x0 + kk * cw + cw / 2, y0 + 16 * ch + 14, f"k{kk}", size=11, anchor="middle")
    for row in range(0, 16, 4):
        s.text(x0 - 6, y0 + row * ch + 14, str(row), size=11, anchor="end")
    s.text(x0, y0 + 16 * ch + 32, "warps 1–3: rows 16–63, the same pattern", size=11)
    # Right: the box in shared memory, rows of kSpan bytes in 16-byte chunks; where register
    # a0's elements (k 0-3: chunk 0) of the warp's 8 rows sit, and their banks.
    bx, by, bw = 390, 80, 36
    s.text(bx, by - 36, f"The TMA box: rows of {span} B, 16-byte chunk q", size=12, bold=True)
    s.text(bx, by - 22, "of row r at position q ^ r % 8 (the swizzle)", size=12, bold=True)
    s.text(bx, by - 8, "the k a position holds; register a0 of the warp in colour", size=11)
    for row in range(8):
        for pos in range(chunks):
            q = pos ^ row % 8  # the chunk of k that sits at this position
            lit = q == 0
            s.rect(bx + pos * bw, by + row * ch, bw, ch, fill=PALETTE[0] if lit else LIGHT,
                   stroke=GREY, sw=0.5)
            s.text(bx + pos * bw + bw / 2, by + row * ch + 14, f"k{4 * q}–{4 * q + 3}", size=11,
                   anchor="middle")
        s.text(bx - 6, by + row * ch + 14, f"r{row}", size=11, anchor="end")
    for pos in range(chunks):
        s.text(bx + pos * bw + bw / 2, by + 8 * ch + 14, f"b{4 * pos}–{4 * pos + 3}", size=11,
               anchor="middle")
    banks = sorted({address(*element(lane, 0)) // 4 % 32 for lane in range(32)})
    s.lines(bx, by + 8 * ch + 36, [
        "one LDS.32 of the warp (register a0): rows 0–7, k 0–3",
        f"→ {len(banks)} different banks" + (", no conflict" if len(banks) == 32 else ""),
        "(b: the banks a 16-byte position covers;", "the XOR spreads the 8 rows over them)"],
        size=11)
    # Below: the split and the two groups a stage.
    y = 470
    s.lines(12, y, [
        "split_finite, on the bits: hi = (x + 0x1000) & ~0x1fff (cut near FLT_MAX), "
        "lo = the same on x − hi",
        "each stage: k8 steps 0–1 into registers hi[0], lo[0], then 2–3 into hi[1], lo[1], "
        "two wgmma groups;",
        "wait_group 1 retires the last stage's same half before its registers are written again",
        f"only where N ≤ {most_n}: each column of tiles splits A again"], size=11, step=16)
    s.caption(["Not to scale. Drawn from the fragment and address lines of mma_stage_split_a."])
    return s


# The line of mma_stage_split_a that places element v of a thread in B^T's boxes (kMajorM).
MAJOR_M = (r"majorM\[v\] = r / 32 \* BK \* kSpan \+ k8 \* kSpan \+ "
           r"\(\(r % 32 / 4 \^ k8\) \* 16\) \+ r % 4 \* 4;")


def split_b(root):
    """C^T = B^T A^T: the kernel's A is B^T, which TMA reads from the row-major B in boxes of
    BK k-rows x 32 columns; warp 0's register a0 (rows 0-7 of C^T, k 0-3) read across the first
    box, and the banks one LDS.32 of the warp meets."""
    r = Rung15(root)
    head = Source(root, "kernels/split_3xtf32/split_3xtf32.cuh")
    tile = head.find(r"static_assert\(kSpan == (\d+) && BK == (\d+)", "the split's tile")
    span, bk = int(tile.group(1)), int(tile.group(2))
    for line in (MAJOR_M, ROW):
        head.find(line, "the line /" + line + "/ of mma_stage_split_a")
    most = r.src.constants()["kSplitAMaxN"]
    box_cols = span // 4  # floats of a box row: one swizzle span
    chunks = span // 16

    def place(row, k8):  # majorM[v]'s bytes, for the first box (row < 32)
        return row // 32 * bk * span + k8 * span + ((row % 32 // 4 ^ k8) * 16) + row % 4 * 4

    k = {"kSpan": span, "BK": bk, "kSplitAMaxN": most}
    s = Svg("15 · B split in the main kernel: C^T = B^T A^T, B^T's fragment across TMA's boxes",
            "kernels/split_3xtf32/split_3xtf32.cuh (mma_stage_split_a<…, kMajorM>), " + r.src.path, k, 300,
            width=800)
    bx, by, bw, ch = 60, 90, 90, 36  # two lines a cell: the columns, then the lanes
    s.text(20, by - 48, f"Where M ≤ {most} < N: B (K × N, row-major) is read as it lies, in "
           f"boxes of {bk} k × {box_cols} columns;", size=12, bold=True)
    s.text(20, by - 32, "16-byte chunk q of k-row k at position q ^ k % 8. Register a0 of warp 0: "
           "lane l holds C^T's row l / 4 at k = l % 4.", size=11)
    s.text(20, by - 16, "Each cell: a 16-byte position of box 0's first four k-rows, the columns "
           "it holds, and the lanes that read it.", size=11)
    reads = {}
    for lane in range(32):
        row, k8 = lane // 4, lane % 4
        byte = place(row, k8)
        reads.setdefault((k8, byte % span // 16), []).append(lane)
    for k8 in range(4):
        for pos in range(chunks):
            q = pos ^ k8 % 8
            lanes = reads.get((k8, pos), [])
            s.rect(bx + pos * bw, by + k8 * ch, bw, ch, fill=PALETTE[0] if lanes else LIGHT,
                   stroke=GREY, sw=0.5)
            label = [f"n{4 * q}–{4 * q + 3}"] + (["l" + ",".join(map(str, lanes))] if lanes
                                                  else [])
            s.lines(bx + pos * bw + bw / 2, by + k8 * ch + 15, label, size=11, step=14,
                    anchor="middle")
        s.text(bx - 6, by + k8 * ch + 22, f"k{k8}", size=11, anchor="end")
    banks = {}
    for lane in range(32):
        bank = place(lane // 4, lane % 4) // 4 % 32
        banks[bank] = banks.get(bank, 0) + 1
    ways = max(banks.values())
    end = s.lines(20, by + 4 * ch + 24, [
        f"one LDS.32 of the warp (register a0): {len(banks)} different banks, "
        f"{ways} lanes on each: a {ways}-way conflict" if ways > 1 else
        f"one LDS.32 of the warp (register a0): {len(banks)} banks, no conflict",
        "(C^T's rows 0–3 and 4–7 sit in one 16-byte chunk pair, which the k-rows' swizzle "
        "moves only among 4 positions)",
        "the split, the flags and the two wgmma groups are A's (15_split_a.svg); "
        "A's split, not transposed, is the kernel's B;",
        "the epilogue writes C^T's element (row, col) to C's (col, row)"], size=11, step=16)
    s.height = end + 14  # room for the caption's first line
    s.caption(["Not to scale. Drawn from the majorM line of mma_stage_split_a."])
    return s


def draw(root):
    return {"15_cluster_slices.svg": lambda: cluster_slices(root),
            "15_split_a.svg": lambda: split_a(root),
            "15_split_b.svg": lambda: split_b(root)}
