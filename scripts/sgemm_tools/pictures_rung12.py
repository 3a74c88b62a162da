"""Pictures of rungs 12 and 13: the mma.sync m16n8k8 TF32 fragments (which lane holds which
element of P, Q and D as the instruction defines them, and of As, Bs and C as rung 12 reads
and writes them), and rung 13's 3xTF32 split with the order of its three products. Drawn from
the asm's instruction shape and operand lists, the Tile constants, the kernel's own index
expressions for its fragment loads and stores (evaluated lane by lane), split_tf32's mask
and the order of the mma calls in rung 13's k-step loop."""
import re
import struct

from sgemm_tools.pictures_src import evaluate, rung_source
from sgemm_tools.pictures_svg import BLUE, GREY, INK, LIGHT, ORANGE, PALETTE, STRONG, Svg

TILE = r"struct Tile \{.*?\n\};"
FOLLOW = 6  # the lane the pictures outline


def instruction(src):
    """(m, n, k) of the mma and how many registers each operand list of the asm has."""
    m = src.find(r'"mma\.sync\.aligned\.m(\d+)n(\d+)k(\d+)\.row\.col\.f32\.tf32\.tf32\.f32 '
                 r'(\{[^}]*\}), (\{[^}]*\}), "\s*"(\{[^}]*\})', "the mma.sync instruction")
    shape = tuple(int(v) for v in m.group(1, 2, 3))
    regs = [g.count("%") for g in m.group(4, 5, 6)]
    return shape, regs


def ptx_layout(M, N, K):
    """The m16n8k8 TF32 fragments as PTX defines them: {(row, col): (lane, register)} of P
    (M x K), Q (K x N) and D (M x N); lane l is group g = l / 4, thread t = l % 4."""
    P, Q, D = {}, {}, {}
    for lane in range(32):
        g, t = lane // 4, lane % 4
        for r, (row, k) in enumerate([(g, t), (g + 8, t), (g, t + 4), (g + 8, t + 4)]):
            P[row, k] = (lane, f"p{r}")
        for r, k in enumerate([t, t + 4]):
            Q[k, g] = (lane, f"q{r}")
        for r, (row, col) in enumerate([(g, 2 * t), (g, 2 * t + 1), (g + 8, 2 * t),
                                        (g + 8, 2 * t + 1)]):
            D[row, col] = (lane, f"d{r}")
    assert len(P) == M * K and len(Q) == K * N and len(D) == M * N
    return P, Q, D


def kernel_layout(src, c):
    """What rung 12's k-step reads and its epilogue writes, lane by lane, from its own index
    expressions (ks = mi = ni = warpRow = warpCol = h-free origin): {(row, k)} of an 8-row
    slice of As, {(k, col)} of a 16-column slice of Bs, {(row, col)} of an 8 x 16 tile of C."""
    a_at = src.find(r"&As\[buf\]\[(\(warpRow[^\]]+)\]", "the q-fragment load").group(1)
    b_at = src.find(r"const float\* p = &Bs\[buf\]\[([^\]]+)\]", "the p-fragment load").group(1)
    src.find(r"a\[mi\]\[0\] = to_tf32\(v\.x\), a\[mi\]\[1\] = to_tf32\(v\.y\)", "q's pair")
    src.find(r"k1row = \*reinterpret_cast<const float2\*>\(p \+ T::kStrideB\)", "p's 2nd row")
    src.find(r"b\[ni\]\[0\] = to_tf32\(k0row\.x\), b\[ni\]\[1\] = to_tf32\(k0row\.y\);\s*"
             r"b\[ni\]\[2\] = to_tf32\(k1row\.x\), b\[ni\]\[3\] = to_tf32\(k1row\.y\)", "p's pairs")
    src.find(r"mma_m16n8k8\(acc\[ni\]\[mi\], b\[ni\], a\[mi\]\)", "mma(acc, b as P, a as Q)")
    row_at = src.find(r"const int row = blockRow \+ warpRow \* WM \+ ([^;]+);", "C's row").group(1)
    col_at = src.find(r"const int col = blockCol \+ warpCol \* WN \+ ([^;]+);", "C's col").group(1)
    src.find(r"r\[2\] = \{acc\[ni\]\[mi\]\[h\], acc\[ni\]\[mi\]\[h \+ 2\]\}", "C's pair")
    As, Bs, C = {}, {}, {}
    for lane in range(32):
        env = dict(c, g=lane // 4, t=lane % 4, warpRow=0, warpCol=0, mi=0, ni=0, ks=0)
        off = evaluate(a_at, env)
        for r in range(2):
            As[off // c["kStrideA"], off % c["kStrideA"] + r] = (lane, f"q{r}")
        off = evaluate(b_at, env)
        for r in range(4):
            Bs[off // c["kStrideB"] + r // 2, off % c["kStrideB"] + r % 2] = (lane, f"p{r}")
        for h in range(2):
            row, col = evaluate(row_at, dict(env, h=h)), evaluate(col_at, dict(env, h=h))
            C[row, col], C[row, col + 1] = (lane, f"d{h}"), (lane, f"d{h + 2}")
    assert len(As) == 64 and len(Bs) == 128 and len(C) == 128, "one element per register"
    return As, Bs, C


def banks_clean(c, a_rows, b_rows):
    """True when every half-warp's LDS.64 of As and of Bs covers the 32 banks once."""
    for half in (range(16), range(16, 32)):
        for words in ([r * c["kStrideA"] + k for (r, k) in a_rows if a_rows[r, k][0] in half],
                      [k * c["kStrideB"] + col for (k, col) in b_rows
                       if b_rows[k, col][0] in half and k % 2 == 0]):
            if sorted(w % 32 for w in words) != list(range(32)):
                return False
    return True


def cells(s, x, y, cells_of, rows, cols, w, h, label):
    """A fragment: each cell coloured by its lane's group and numbered with its lane; the
    followed lane's cells, outlined, also name their register (every lane holds its elements
    in the same places of its group's pattern, so one lane's registers read for all)."""
    s.text(x, y - 6, label, size=12, bold=True)
    for (r, col), (lane, reg) in cells_of.items():
        s.rect(x + col * w, y + r * h, w, h, fill=PALETTE[lane // 4], stroke=GREY, sw=0.4)
        s.text(x + (col + 0.5) * w, y + (r + 0.75) * h, f"{lane}:{reg}" if lane == FOLLOW
               else lane, size=11, anchor="middle", bold=lane == FOLLOW)
    s.rect(x, y, cols * w, rows * h, stroke=INK)
    for (r, col), (lane, _) in cells_of.items():
        if lane == FOLLOW:
            s.rect(x + col * w, y + r * h, w, h, stroke=STRONG, sw=2)


def fragments(root):
    src = rung_source(root, 12)
    c = src.constants(src.launch_args(), TILE)
    (M, N, K), regs = instruction(src)
    if regs != [M * N // 32, M * K // 32, K * N // 32]:
        raise SystemExit(f"scripts/pictures: {src.path}: mma operand lists {regs} do not match "
                         f"m{M}n{N}k{K}")
    P, Q, D = ptx_layout(M, N, K)
    As, Bs, C = kernel_layout(src, c)
    clean = banks_clean(c, As, Bs)
    k = {"mma": f"m{M}n{N}k{K}", "regs_d_p_q": "/".join(map(str, regs))}
    k.update({n: c[n] for n in ("BM", "BN", "BK", "WM", "WN", "MITER", "NITER", "KITER",
                                "kStrideA", "kStrideB")})
    s = Svg(f"12 · mma.sync m{M}n{N}k{K} TF32: which lane holds which element", src.path, k, 0,
            width=800)
    w, h = 30, 16
    y1 = s.lines(12, 50, [f"1. As the instruction defines them: D ({M}×{N}) += P ({M}×{K}) · Q "
                          f"({K}×{N}), all 32 lanes; lane l is group g = l / 4, thread "
                          "t = l % 4."], size=12) + 24
    gap = (s.width - 40 - (K + N + N) * w) / 2
    cells(s, 20, y1, P, M, K, w, h, f"P: {regs[1]} registers a lane")
    cells(s, 20 + K * w + gap, y1, Q, K, N, w, h, f"Q: {regs[2]} registers a lane")
    cells(s, 20 + (K + N) * w + 2 * gap, y1, D, M, N, w, h,
          f"D (FP32): {regs[0]} registers a lane")
    y2 = s.lines(12, y1 + M * h + 30, [
        "2. As rung 12 uses them, C^T = B^T A^T: P is a 16-column slice of B, Q an 8-row slice "
        "of A, D an 8 × 16 tile of C transposed; k t, t+4 → 2t, 2t+1 and P's rows g, g+8 → "
        "columns 2g, 2g+1. Each pair (q0 q1, p0 p1, p2 p3, d0 d2, d1 d3) is two neighbouring "
        "floats of one row: one LDS.64 or one 64-bit store, no register moves. Laid out as "
        "C = A · B:"], size=12)
    xb, yb = 20 + 8 * w + 40, y2 + 24
    cells(s, xb, yb, Bs, 8, 16, w, h, f"Bs: 8 k × 16 columns (row stride kStrideB = "
          f"{c['kStrideB']})")
    yc = yb + 8 * h + 34
    cells(s, 20, yc, As, 8, 8, w, h, f"As: 8 rows × 8 k (stride {c['kStrideA']})")
    cells(s, xb, yc, C, 8, 16, w, h, "C: 8 rows × 16 columns (acc)")
    s.arrow(20 + 8 * w + 6, yc + 4 * h, xb - 6, yc + 4 * h, stroke=GREY)
    s.arrow(xb + 8 * w, yb + 8 * h + 4, xb + 8 * w, yc - 20, stroke=GREY)
    yt = s.lines(12, yc + 8 * h + 30, [
        f"A warp tile of WM × WN = {c['WM']} × {c['WN']} is MITER × NITER = {c['MITER']} × "
        f"{c['NITER']} such tiles; KITER = {c['KITER']} steps of 8 k per BK = {c['BK']}: "
        f"{c['MITER'] * c['NITER'] * c['KITER']} mma per tile.",
        "Half a warp's LDS.64 of As and of Bs (lanes 0–15, 16–31) touch the 32 banks "
        + ("once each: no conflict." if clean else "unevenly: a conflict."),
        ], size=12)
    s.height = yt + 18  # room for the caption's first line
    s.caption([f"Cells: the lane that holds the element; colour: the lane's group g; red "
               f"outline: lane {FOLLOW} (g = {FOLLOW // 4}, t = {FOLLOW % 4}), with the register "
               "it holds the element in: every lane holds its elements in the same places of "
               "its group's pattern. Part 2 is computed from the kernel's own load and store "
               "indices, lane by lane."])
    return s


def tf32(bits, mask):
    """cvt.rna.tf32.f32 as ptxas does it for finite x: add half a unit, clear the cut bits."""
    return (bits + ((~mask & 0xffffffff) + 1) // 2) & mask


def f32(bits):
    return struct.unpack("<f", struct.pack("<I", bits))[0]


def bits_of(x):
    return struct.unpack("<I", struct.pack("<f", x))[0]


def split(root):
    src = rung_source(root, 13)
    # The first tile of rung 13's list (launch_config's first launch_tile<...>): the GPU's
    # shared memory picks one, and each has warps of 64 x 64 but the last.
    tile = src.launch_args(caller=r"cudaError_t launch_config\(int config")
    c = src.constants(tile, TILE)
    mask = int(src.find(r"big & (0x[0-9a-f]+)u", "split_tf32's mask").group(1), 16)
    cut = (~mask & 0xffffffff).bit_length()
    keep = 23 - cut + 1  # significant bits of a TF32, the implicit one included
    order = re.findall(r"mma_m16n8k8\(part\[mi\], (\w+), (\w+)\[m0 \+ mi\]\)", src.code)
    names = {"b": "big B", "bSmall": "small B", "a": "big A", "aSmall": "small A"}
    if len(order) != 3 or any(p not in names or q not in names for p, q in order):
        raise SystemExit(f"scripts/pictures: {src.path}: expected three mma into part[], "
                         f"found {order}")
    src.find(r"acc\[ni\]\[m0 \+ mi\]\[j\] \+= part\[mi\]\[j\]", "the FADD of part into acc")
    k = {"mask": hex(mask), "tf32_bits": keep, "order": ",".join(f"{p}*{q}" for p, q in order),
         "kPartTiles": c["kPartTiles"], "MITER": c["MITER"], "NITER": c["NITER"],
         "KITER": c["KITER"]}
    s = Svg("13 · 3xTF32: a float as big + small, and the order of the three products",
            src.path, k, 530, width=760)
    # 1. The split of a float's 24-bit significand.
    x0, y0, u = 150, 78, 22
    s.text(12, y0 - 18, f"1. big = tf32(x), small = tf32(x − big); a TF32 keeps {keep} "
           f"significant bits (mask {hex(mask)} clears {cut}).", size=12)
    rows = [("x (FP32)", 0, 24, LIGHT), ("big", 0, keep, BLUE),
            ("small", keep, 2 * keep, ORANGE), ("left over", 2 * keep, 24, GREY)]
    for i, (label, lo, hi, fill) in enumerate(rows):
        y = y0 + i * 24
        s.text(x0 - 8, y + 15, label, size=12, anchor="end")
        s.grid(x0, y, 1, 24, u, cell_h=20, fill=lambda r, q: fill if lo <= q < hi else "white")
    for b in (0, keep, 2 * keep, 24):
        s.text(x0 + b * u, y0 + 4 * 24 + 12, f"2^-{b}" if b else "2^0", size=11,
               anchor="middle")
    xb = bits_of(1 / 3)
    x = f32(xb)
    big = tf32(xb, mask)
    rest = x - f32(big)
    small = tf32(bits_of(rest), mask)
    err = rest - f32(small)
    s.lines(12, y0 + 4 * 24 + 34, [
        f"x = 1/3 as FP32 = {x:.10f}: big = {f32(big):.10f}, small = {f32(small):.4e}, "
        f"x − big − small = {err:.2e} ({abs(err / x):.1e} of x).",
        f"x − big is exact in FP32; small keeps its leading {keep} bits; what is left lies "
        f"below about 2^-{2 * keep} of x."], size=12)
    # 2. The three products and the dropped fourth, on a scale of magnitudes.
    y1 = y0 + 4 * 24 + 90
    s.text(12, y1, "2. x·y = big·big + big·small + small·big + small·small: their sizes, "
           "relative to x·y", size=12)
    ax = lambda e: x0 + e * u  # noqa: E731  (e: the power of 2 below x·y)
    s.line(ax(0), y1 + 50, ax(24), y1 + 50, stroke=INK)
    for e in (0, keep, 2 * keep, 24):
        s.line(ax(e), y1 + 46, ax(e), y1 + 54)
        s.text(ax(e), y1 + 68, f"2^-{e}" if e else "2^0", size=11, anchor="middle")
    s.text(ax(24), y1 + 82, "FP32's unit", size=11, anchor="middle")
    for e, label, colour in ((0, "big·big", BLUE), (keep, "big·small, small·big", ORANGE),
                             (2 * keep, "dropped: small·small (and the left over)", GREY)):
        s.rect(ax(e) - 5, y1 + 20, 10, 24, fill=colour, stroke=INK)
        last = e == 2 * keep
        s.text(ax(e) + (5 if last else 8), y1 + (14 if last else 34), label, size=11,
               anchor="end" if last else "start")
    # 3. The order in one k-step, from the kernel's loop.
    y2 = y1 + 112
    s.text(12, y2, f"3. One k-step, per mma tile (kPartTiles = {c['kPartTiles']} at a time): "
           "small products first, into a fresh partial sum", size=12)
    steps = ["part = 0"] + [f"part += {names[p]} · {names[q]}" for p, q in order] + \
        ["acc += part (FADD)"]
    fills = ["white"] + [ORANGE if "small" in names[p] + names[q] else BLUE for p, q in order] \
        + [LIGHT]
    bw = 136
    for i, (label, fill) in enumerate(zip(steps, fills)):
        bx = 12 + i * (bw + 12)
        s.rect(bx, y2 + 14, bw, 34, fill=fill, stroke=INK)
        s.text(bx + bw / 2, y2 + 35, label, size=11, anchor="middle")
        if i:
            s.arrow(bx - 12, y2 + 31, bx, y2 + 31)
    hmma = 3 * c["MITER"] * c["NITER"]
    s.lines(12, y2 + 72, [
        "The three products are HMMA on the tensor core, whose adds round toward zero; the "
        "step's sum reaches acc by FADD,",
        f"rounding to nearest. Per k-step and warp: {hmma} HMMA (3 × MITER × NITER = 3 × "
        f"{c['MITER']} × {c['NITER']}), {4 * c['MITER'] * c['NITER']} FADD a lane."],
        size=12)
    s.caption(["Part 1: a cell is a bit of the significand (small starts lower where x − big "
               "has leading zeros); part 2 in powers of 2.", "The order of part 3 is read from "
               "the kernel's loop."])
    return s


def draw(root):
    return {"12_fragments.svg": lambda: fragments(root), "13_split.svg": lambda: split(root)}
