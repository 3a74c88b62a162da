"""Rung 18's picture: the one call's decision on each GPU measured, drawn from the tables the
library compiles in (kernels/best/table_*.inc) and the margin kernels/best/best_choice.h gives a
data-dependent path. At each grid shape with M = N, the path the launcher takes there (the
fastest measured rate, rung 16's counted kDataDependentMargin times slower) and its rate as a
percentage of cuBLAS SGEMM's, timed in turn with it in the run the table was written from
(results/<gpu>/best_rates.json)."""
import json
import os
import re

from sgemm_tools.pictures_src import Source
from sgemm_tools.pictures_svg import GREY, INK, Svg

# One colour per candidate rung, by the registry's name.
COLOURS = {"every_shape": "#fdbf6f", "every_shape_3xtf32": "#a6cee3", "ozaki_int8": "#b2df8a",
           "cluster_splitk": "#cab2d6"}
LABELS = {"every_shape": "rung 11 (CUDA cores, tile and split-K by a model)",
          "every_shape_3xtf32": "rung 15 (3xTF32 on wgmma)",
          "ozaki_int8": "rung 16 (Ozaki II on INT8 wgmma)",
          "cluster_splitk": "rung 17 (cluster split-K, one launch)"}
ROW = re.compile(r"BEST_RATE\(\s*(\d+),\s*(\d+),\s*(\d+),([^)]*)\)")


def read_table(root, src):
    gpu = src.find(r'BEST_GPU\("([^"]+)"', "BEST_GPU").group(1)
    names = re.findall(r'"(\w+)"', src.find(r"BEST_CANDIDATES\(([^)]*)\)", "candidates").group(1))
    axes = {a: [int(x) for x in src.find(rf"BEST_AXIS\({a},([^)]*)\)", a).group(1).split(",")]
            for a in ("Ms", "Ns", "Ks")}
    source = src.find(r'BEST_SOURCE\("([^":]+)', "BEST_SOURCE").group(1)
    with open(os.path.join(root, source)) as f:
        cublas = {(r["M"], r["N"], r["K"]): r["gflops"] for r in json.load(f)["results"]
                  if r["name"] == "cublas"}
    rows = {}
    for m in ROW.finditer(src.code):
        shape = tuple(int(m.group(i)) for i in (1, 2, 3))
        rates = [float(x) for x in m.group(4).split(",") if x.strip()]
        rows[shape] = (dict(zip(names, rates)), cublas[shape])
    return gpu, names, axes, rows


def chosen(rates, margin):
    """The launcher's choice at a grid shape (kernels/18_best.cu's choose(), on the grid)."""
    def counted(name):
        return rates[name] / margin if name == "ozaki_int8" else rates[name]
    return max(rates, key=counted)  # the first on a tie, as choose()


def decision(root):
    choice = Source(root, "kernels/best/best_choice.h")
    margin = float(choice.find(r"kDataDependentMargin = ([\d.]+);", "the margin").group(1))
    tables = [Source(root, os.path.join("kernels", "best", f"table_{g}.inc"))
              for g in ("h200", "h100")]
    read = [read_table(root, t) for t in tables]
    sizes, ks = read[0][2]["Ms"], read[0][2]["Ks"]
    cell_w, cell_h, left, top = 58, 30, 86, 88
    panel = len(ks) * cell_w + 40
    k = {"margin": margin, "grid_M=N": ",".join(map(str, sizes)), "grid_K": ",".join(map(str, ks))}
    s = Svg("18 · The one call's path per shape, from each GPU's measured table",
            ", ".join(t.path for t in tables) + ", " + choice.path, k,
            top + len(sizes) * cell_h + 140, width=left + len(read) * (panel + 56) - 40)
    for p, (gpu, names, axes, rows) in enumerate(read):
        x0 = left + p * (panel + 56)
        s.text(x0 + len(ks) * cell_w / 2, top - 34, gpu, size=13, anchor="middle", bold=True)
        for c, K in enumerate(ks):
            s.text(x0 + c * cell_w + cell_w / 2, top - 8, f"K={K}", size=11, anchor="middle")
        for r, M in enumerate(sizes):
            y = top + r * cell_h
            if p == 0:
                s.text(x0 - 8, y + cell_h / 2 + 4, f"{M}²", size=11, anchor="end")
            for c, K in enumerate(ks):
                rates, cublas = rows[(M, M, K)]
                name = chosen(rates, margin)
                s.rect(x0 + c * cell_w, y, cell_w, cell_h, fill=COLOURS.get(name, GREY),
                       stroke="white", sw=1)
                s.text(x0 + c * cell_w + cell_w / 2, y + cell_h / 2 + 4,
                       f"{100 * rates[name] / cublas:.0f}%", size=11, anchor="middle")
        s.rect(x0, top, len(ks) * cell_w, len(sizes) * cell_h, stroke=INK)
    s.text(left - 70, top + len(sizes) * cell_h / 2, "M = N", size=11, rotate=True)
    legend_y = top + len(sizes) * cell_h + 28
    s.legend(left, legend_y, [(COLOURS[n], LABELS[n]) for n in read[0][1] if n in COLOURS],
             size=11, step=17)
    s.caption([f"Each cell: the path rung 18 takes at that grid shape (rung 16 counted {margin:g}× "
               "slower: its speed depends on the data), and its",
               "measured rate as % of cuBLAS SGEMM timed in turn with it. Between grid shapes "
               "the rates are interpolated (the tables hold M ≠ N too)."])
    return s


def draw(root):
    return {"18_decision.svg": lambda: decision(root)}
