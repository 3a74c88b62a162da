"""The picture of rung 19: one small problem on the tensor cores, two ways. Rung 15 runs it in
128 x 128 tiles over slices of K whose partial tiles go through a workspace to a second kernel;
rung 19 runs it in 64 x 64 tiles, four times as many, over a cluster's slices summed in the
blocks' shared memory, in one launch. Drawn from rung 15's Fused tile and choose() (kMostSlices)
and rung 19's Tile and ranks_for() (kMaxRanks, kBlocksPerSm, kSliceUnit), each run here as its
launcher runs it on the committed H200 sweep's SM count."""
from sgemm_tools.pictures_src import rung_source, sweep_context
from sgemm_tools.pictures_svg import BLUE, GREEN, GREY, INK, LIGHT, ORANGE, Svg, hue

SHAPE = (512, 512, 512)  # the example: a small problem where rung 15's fused path runs


def rung15_plan(src, sms, M, N, K):
    """Rung 15's fused path for a problem below kFusedBelow: (BM, BK, tiles, slices, kSlice)."""
    for line in (r"plan.slices = static_cast<int>\(std::min<long long>\(\(sms \+ tiles - 1\) / "
                 r"tiles, kMostSlices\)\)", r"kSlice = \(kTiles \+ want - 1\) / want \* bk"):
        src.find(line, f"choose()'s line /{line}/")
    c = src.constants()
    m = src.find(r"struct Fused \{\s*static constexpr int BM = (\d+), BN = \d+, BK = (\d+);",
                 "struct Fused's tile")
    bm, bk = int(m.group(1)), int(m.group(2))
    tiles = -(-M // bm) * -(-N // bm)
    want = min(-(-sms // tiles), c["kMostSlices"])
    k_tiles = -(-K // bk)
    want = max(1, min(want, k_tiles))
    k_slice = -(-k_tiles // want) * bk
    return bm, bk, tiles, -(-K // k_slice), k_slice


def rung19_plan(src, sms, M, N, K):
    """Rung 19's launcher: (BM, BK, tiles, ranks, kSlice), as ranks_for() and slice_of()."""
    src.find(r"tiles \* ranks \* 2 <= kBlocksPerSm \* sms", "ranks_for()'s fill")
    c = src.constants()
    t = src.constants(scope=r"struct Tile \{.*?\n\};")
    tiles = -(-M // t["BM"]) * -(-N // t["BN"])
    ranks = 1
    while (ranks * 2 <= c["kMaxRanks"] and tiles * ranks * 2 <= c["kBlocksPerSm"] * sms
           and K >= ranks * 2 * c["kSliceUnit"]):
        ranks *= 2
    unit = c["kSliceUnit"]
    k_slice = -(-K // (ranks * unit)) * unit
    return t["BM"], t["BK"], tiles, ranks, k_slice


def small_problem(root):
    r15, r19 = rung_source(root, 15), rung_source(root, 19)
    sweep = sweep_context(root)
    sms = sweep["sms"]
    M, N, K = SHAPE
    bm15, bk15, tiles15, slices15, ks15 = rung15_plan(r15, sms, M, N, K)
    bm19, bk19, tiles19, ranks, ks19 = rung19_plan(r19, sms, M, N, K)
    c19 = r19.constants()
    k = {"shape": f"{M}x{N}x{K}", "gpu": sweep["gpu"].replace(" ", "_"), "sms": sms,
         "rung15_tile": bm15, "rung15_slices": slices15, "rung15_kSlice": ks15,
         "rung19_tile": bm19, "rung19_ranks": ranks, "rung19_kSlice": ks19,
         "kMaxRanks": c19["kMaxRanks"], "kBlocksPerSm": c19["kBlocksPerSm"],
         "kSliceUnit": c19["kSliceUnit"]}
    s = Svg(f"19 · {M}³ on the tensor cores: slices through a workspace, or through a cluster",
            f"{r15.path}, {r19.path}, results/h200/bench.json", k, 560)
    panels = [("Rung 15 (fused path)", bm15, tiles15, slices15, ks15, BLUE, 20),
              ("Rung 19", bm19, tiles19, ranks, ks19, GREEN, 350)]
    u = 150 / max(M, N)
    for title, bm, tiles, slices, ks, colour, x0 in panels:
        y0 = 78
        per = -(-M // bm)
        s.text(x0, y0 - 26, title, size=13, bold=True)
        s.text(x0, y0 - 10, f"C in {tiles} tiles of {bm} × {bm}", size=12)
        s.grid(x0, y0, per, -(-N // bm), bm * u, cell_h=bm * u, fill=lambda r, q: LIGHT,
               stroke=INK)
        s.rect(x0, y0, bm * u, bm * u, fill=colour, stroke=INK, sw=1.5, opacity=0.6)
        kx, kw = x0 + 160, 150
        s.text(kx, y0 + 12, f"K = {K} in {slices} slices", size=12)
        s.text(kx, y0 + 28, f"of {ks} k, a block each", size=12)
        for r in range(slices):
            lo, hi = r * ks, min(K, (r + 1) * ks)
            s.rect(kx + lo * kw / K, y0 + 40, (hi - lo) * kw / K, 20, fill=hue(r, slices),
                   stroke=INK, sw=0.5)
        s.text(kx, y0 + 84, f"{tiles * slices} blocks for {sms} SMs", size=12, bold=True)
    # What happens to the partial tiles: two launches and a round trip, or one launch.
    y = 290
    s.text(20, y, "Rung 15: every block writes its partial tile to a workspace in device memory;",
           size=12)
    s.text(20, y + 18, "a second kernel reads the slices back and adds them in order.", size=12)
    s.rect(20, y + 32, 250, 28, fill=BLUE, stroke=INK, opacity=0.6)
    s.text(145, y + 51, "launch 1: fused kernel → workspace", size=12, anchor="middle")
    s.line(272, y + 46, 306, y + 46, arrow=True)
    s.rect(310, y + 32, 190, 28, fill=ORANGE, stroke=INK, opacity=0.6)
    s.text(405, y + 51, "launch 2: sum the slices", size=12, anchor="middle")
    y2 = y + 100
    s.text(20, y2, f"Rung 19: the {ranks} blocks of a tile form a cluster; each keeps its partial "
           "tile in its own", size=12)
    s.text(20, y2 + 18, f"shared memory, and rank r adds rows [{bm19}r/{ranks}, {bm19}(r+1)/"
           f"{ranks}) of every rank's, in rank order.", size=12)
    s.rect(20, y2 + 32, 480, 28, fill=GREEN, stroke=INK, opacity=0.6)
    s.text(260, y2 + 51, "one launch: split, wgmma, sum through DSMEM, store C", size=12,
           anchor="middle")
    s.line(20, y2 + 80, 680, y2 + 80, stroke=GREY, sw=0.5)
    s.caption([f"Each launcher's plan for {M}³ on {sms} SMs ({sweep['gpu']}); tiles and "
               "slices to scale."])
    return s


def draw(root):
    return {"19_small_problem.svg": lambda: small_problem(root)}
