"""The README's picture of the whole ladder: each rung's rate at one size on one GPU, as a bar
on a log scale, under the ceilings of the units it computes on (FFMA on the CUDA cores, TF32
and INT8 tensor cores), with cuBLAS SGEMM marked.

Every number comes from a committed file, named in the picture: the rates from the bench sweep
(results/<gpu>/bench.json, the README's results table at the same size); the TF32 ceiling from
cuBLAS TF32's best rate in that sweep (a measurement); the FFMA and INT8 ceilings, which no
committed run measures, from results/<gpu>/spec.json (NVIDIA's published rates, with its
source), labelled "spec". A rung that splits one product into several (3xTF32: three TF32
products; the Ozaki scheme: one INT8 product per modulus and one for its bound) has that
ceiling divided by their count as its own roof, the count read from the code.

    svg = draw(root, "h200")          # an Svg (sgemm_tools.pictures_svg); svg.svg() its text
"""
import json
import math
import os

import bench_results
from sgemm_tools import code_facts
from sgemm_tools.pictures_svg import GREY, INK, Svg, num

SIZE = 4096
WIDTH, HEIGHT = 800, 808
LEFT, RIGHT, TOP, BOTTOM = 66, 784, 44, 484  # the plot's frame
LOW, HIGH = 0.3, 4000.0  # TFLOP/s at the frame's bottom and top
TICKS = [0.5, 1, 2, 5, 10, 20, 50, 100, 200, 500, 1000, 2000]
# The units a rung computes on, by its name in kernels/ladder.inc: colour, legend.
UNITS = {
    "ffma": ("#1f78b4", "FFMA on the CUDA cores"),
    "tf32": ("#ff7f00", "TF32 tensor cores (class tf32: % of cuBLAS TF32)"),
    "3xtf32": ("#33a02c", "3xTF32 on TF32 tensor cores"),
    "int8": ("#6a3d9a", "INT8 tensor cores (Ozaki scheme II)"),
    "best": ("#444444", "the one call (a rung per problem)"),
}
CUBLAS = "#e31a1c"
PRODUCTS_3XTF32 = 3  # big·big, big·small, small·big: the method's definition (doc 13)


def unit(name):
    """The unit a rung's name says it computes on."""
    for key, word in (("3xtf32", "3xtf32"), ("int8", "int8"), ("tf32", "tf32"),
                      ("best", "best")):
        if word in name:
            return key
    return "ffma"


def y_of(tflops):
    return BOTTOM - (BOTTOM - TOP) * math.log10(tflops / LOW) / math.log10(HIGH / LOW)


def rates(root, gpu):
    """({rung: Result} at SIZE³, cuBLAS SGEMM's Result there, cuBLAS TF32's best square
    Result) of results/<gpu>/bench.json."""
    context, results = bench_results.load(os.path.join(root, "results", gpu, "bench.json"))
    at = {r.rung: r for r in results
          if r.square and r.M == SIZE and r.status == "ok"}
    tf32 = max((r for r in results if r.rung == -1 and r.square and r.status == "ok"),
               key=lambda r: r.gflops)
    return context, at, tf32


def draw(root, gpu="h200"):
    bench_rel = f"results/{gpu}/bench.json"
    spec_rel = f"results/{gpu}/spec.json"
    ozaki_rel = "kernels/16_ozaki_int8.cu"
    context, at, tf32_best = rates(root, gpu)
    with open(os.path.join(root, spec_rel)) as f:
        spec = json.load(f)
    with open(os.path.join(root, ozaki_rel)) as f:
        moduli = code_facts.constants(f.read(), {}, indented=False)["kLadderModuli"]
    products_int8 = moduli + 1  # one INT8 product per modulus, one for the bound plane
    sms, mhz = int(context["sm_count"]), int(context["sm_clock_max_mhz"])
    ffma = spec["fp32_lanes_per_sm"] * 2 * sms * mhz / 1e6  # TFLOP/s
    tf32 = tf32_best.gflops / 1e3
    int8 = spec["int8_tensor_tops_with_sparsity"] / spec["sparsity_factor"]
    cublas = at[0]
    rungs = sorted(n for n in at if n > 0)
    gpu_name = context["gpu"]

    constants = {"size": SIZE, "sms": sms, "mhz": mhz, "ffma": f"{ffma:.1f}",
                 "tf32": f"{tf32:.1f}", "int8": f"{int8:g}", "moduli": moduli,
                 "cublas": f"{cublas.gflops:.0f}"}
    for n in rungs:
        constants[f"rung{n}"] = f"{at[n].gflops:.0f}/{at[n].pct_of_reference:.1f}%"
    svg = Svg(f"The ladder on an {gpu_name} at {SIZE}³, under the hardware's ceilings",
              f"{bench_rel}, {spec_rel}, {ozaki_rel}", constants, HEIGHT, WIDTH)
    svg.header = lambda: (f"<!-- drawn by scripts/roofline from {svg.source}: "
                          + " ".join(f"{k}={v}" for k, v in constants.items()) + " -->")

    # The frame, a grid line at each tick, the axis's words.
    for t in TICKS:
        y = y_of(t)
        svg.line(LEFT, y, RIGHT, y, stroke="#e4e4e4")
        svg.text(LEFT - 6, y + 4, f"{t:g}", anchor="end")
    svg.rect(LEFT, TOP, RIGHT - LEFT, BOTTOM - TOP, stroke=GREY)
    svg.text(16, (TOP + BOTTOM) / 2, "TFLOP/s (INT8: TOPS), log scale", anchor="middle",
             rotate=True)

    step = (RIGHT - LEFT) / len(rungs)
    x_of = {n: LEFT + step * (i + 0.5) for i, n in enumerate(rungs)}
    span = {}
    for n in rungs:
        span.setdefault(unit(at[n].kernel), []).append(n)

    def ceiling(value, colour, label, below=False):
        y = y_of(value)
        svg.line(LEFT, y, RIGHT, y, stroke=colour, sw=2)
        svg.text(LEFT + 6, y + 15 if below else y - 5, label, fill=colour, bold=True)

    # Labels stay left of the first bar that reaches them.
    ceiling(int8, UNITS["int8"][0], f"INT8 tensor cores {int8:g} TOPS: spec, dense ({spec_rel})")
    ceiling(tf32, UNITS["tf32"][0],
            f"TF32 tensor cores {tf32:.0f} TFLOP/s: measured, cuBLAS TF32 at "
            f"{tf32_best.M}³ ({bench_rel})")
    ceiling(ffma, UNITS["ffma"][0], f"FFMA {ffma:.1f} TFLOP/s: spec ({spec_rel})")
    y = y_of(cublas.gflops / 1e3)
    svg.line(LEFT, y, RIGHT, y, stroke=CUBLAS, sw=2, dash="6 4")
    svg.text(LEFT + 6, y + 15, f"cuBLAS SGEMM {cublas.gflops / 1e3:.1f} = 100%",
             fill=CUBLAS, bold=True)

    # A rung's own roof where it splits one product into several.
    # Its label above the roof, or below where the bars under it leave room (rung 16).
    for key, value, text, below in (
            ("3xtf32", tf32 / PRODUCTS_3XTF32, f"TF32 ÷ {PRODUCTS_3XTF32}", False),
            ("int8", int8 / products_int8, f"INT8 ÷ {products_int8}", True)):
        if key not in span:
            continue
        x0, x1 = x_of[span[key][0]] - step / 2 + 2, x_of[span[key][-1]] + step / 2 - 2
        y = y_of(value)
        svg.line(x0, y, x1, y, stroke=UNITS[key][0], sw=3)
        svg.text((x0 + x1) / 2, y + 16 if below else y - 5, text, anchor="middle",
                 fill=UNITS[key][0], bold=True)

    # The bars, and under the axis each rung's % of its reference, its number and name.
    svg.text(LEFT - 6, BOTTOM + 18, "%", anchor="end", fill="#444444")
    for n in rungs:
        r, x = at[n], x_of[n]
        colour = UNITS[unit(r.kernel)][0]
        top = y_of(r.gflops / 1e3)
        svg.rect(x - step * 0.3, top, step * 0.6, BOTTOM - top, fill=colour, stroke="none")
        svg.text(x, BOTTOM + 18, f"{r.pct_of_reference:.0f}", anchor="middle")
        svg.text(x + 4, BOTTOM + 28, f"{n} {r.kernel}", anchor="end", rotate=True)

    # The legend in two columns, then the caption.
    entries = [(UNITS[k][0], UNITS[k][1]) for k in UNITS if k in span]
    rows = (len(entries) + 1) // 2
    svg.legend(LEFT, BOTTOM + 194, entries[:rows])
    svg.legend(LEFT + 360, BOTTOM + 194, entries[rows:])
    svg.caption([
        f"Bars: each rung at {SIZE}³ ({bench_rel}); under the axis, its % of the cuBLAS of its",
        f"precision class, timed in turn with it. FFMA: {spec['fp32_lanes_per_sm']} lanes × 2 × "
        f"{sms} SMs × {mhz} MHz. A short roof: the",
        f"ceiling ÷ the products a rung runs for one FP32 product (3xTF32: {PRODUCTS_3XTF32}; "
        f"Ozaki: {moduli} moduli",
        f"and a bound, kLadderModuli in {ozaki_rel}).",
    ])
    return svg
