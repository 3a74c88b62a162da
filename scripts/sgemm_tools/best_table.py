"""Rung 18's tables (kernels/best/table_<gpu>.inc, one per GPU measured): the grid they are
measured on, and the text of a table from a run of sgemm_best_rates (scripts/autotune --best),
or, provisionally, from the bench's committed results."""
import itertools
import json
import math
import os

# The rungs rung 18 chooses among: a column of the table each. A new path is one more name.
CANDIDATES = ["every_shape", "every_shape_3xtf32", "ozaki_int8", "cluster_splitk"]

# The grid, a factor of 2 between points in M and N (4 in K, 8 from 8192 to 65536): the bench's
# suite lies within it (128^3 .. 8192^3, K from 128 to 65536), and the rates beyond 8192 in M
# and N are held, as the GPU is full there. A factor of 4 in M and N (80 shapes) missed twice on
# the suite (experiments/notebook/results/h200/notebook.txt): 256 x 4096 x 4096 took rung 11 where rung 15 is
# faster, 6000^3 rung 16 where rung 15 is. 245 shapes, about four minutes of GPU time.
GRID = {"Ms": [128, 256, 512, 1024, 2048, 4096, 8192],
        "Ns": [128, 256, 512, 1024, 2048, 4096, 8192],
        "Ks": [128, 512, 2048, 8192, 65536]}



def inc_path(results):
    """The table of the GPU whose results folder is `results` (results/h100: kernels/
    kernels/best/table_h100.inc); kernels/best/best_tables.h includes each."""
    gpu = os.path.basename(os.path.normpath(results))
    return os.path.join("kernels", "best", f"table_{gpu}.inc")


def gpu_profile(context, results):
    """BEST_GPU's facts: name, SMs, maximum SM clock (MHz), peak memory bandwidth (GB/s). The
    bandwidth from the run's context, else from a run of the same GPU in the same folder
    (ladder.json, written by every `sgemm --json`); 0 where none has it."""
    bandwidth = context.get("memory_bandwidth_gbs", 0)
    ladder = os.path.join(results, "ladder.json")
    if not bandwidth and os.path.exists(ladder):
        with open(ladder) as f:
            other = json.load(f)["context"]
        if other.get("gpu") == context.get("gpu"):
            bandwidth = other.get("memory_bandwidth_gbs", 0)
    return (context["gpu"], context.get("sm_count", 0), context.get("sm_clock_max_mhz", 0),
            round(bandwidth))


def grid_shapes():
    return list(itertools.product(GRID["Ms"], GRID["Ns"], GRID["Ks"]))


def suite_shapes(bench_json):
    """The bench's suite, as the committed bench JSON has it: cuBLAS's shapes, in its order."""
    with open(bench_json) as f:
        benchmarks = json.load(f)["benchmarks"]
    shapes = []
    for b in benchmarks:
        parts = b["name"].split("/")
        if parts[1] == "cublas":
            shape = tuple(int(x) for x in parts[2].split("x"))
            if shape not in shapes:
                shapes.append(shape)
    return shapes


def measured_rates(rates_json):
    """{(M, N, K): {name: GFLOP/s}} and the context, from sgemm_best_rates's JSON."""
    with open(rates_json) as f:
        doc = json.load(f)
    rates = {}
    for r in doc["results"]:
        rates.setdefault((r["M"], r["N"], r["K"]), {})[r["name"]] = r["gflops"]
    return rates, doc["context"]


def _rung_rows(bench_json, inputs_json):
    """{(M, N, K): {name: (GFLOP/s, file)}}: rungs 11 and 15 and cuBLAS from the bench JSON,
    rung 16 from the per-distribution runs on uniform inputs where they have the shape (the
    final code), else from the bench JSON."""
    rows = {}

    def add(benchmarks, source, only=None):
        for b in benchmarks:
            parts = b["name"].split("/")
            name = "cublas" if parts[1] == "cublas" else parts[1].partition("_")[2]
            if only and name != only or b.get("error_occurred") or not b.get("GFLOP/s"):
                continue
            shape = tuple(int(x) for x in parts[2].split("x"))
            rows.setdefault(shape, {})[name] = (b["GFLOP/s"], source)

    with open(bench_json) as f:
        add(json.load(f)["benchmarks"], os.path.basename(bench_json))
    with open(inputs_json) as f:
        add(json.load(f)["inputs"]["uniform"], os.path.basename(inputs_json) + " uniform",
            only="ozaki_int8")
    return rows


def provisional_rates(bench_json, inputs_json):
    """Rates for every grid shape from the suite shape nearest it in (log M, log N, log K):
    a stand-in until the grid is measured. {(M, N, K): ({name: GFLOP/s}, where from)}."""
    rows = _rung_rows(bench_json, inputs_json)
    suite = [s for s in rows if all(c in rows[s] for c in CANDIDATES + ["cublas"])]
    table = {}
    for shape in grid_shapes():
        near = min(suite, key=lambda s: (sum((math.log2(a / b)) ** 2 for a, b in zip(s, shape)), s))
        sources = sorted({rows[near][c][1] for c in CANDIDATES})
        table[shape] = ({c: rows[near][c][0] for c in CANDIDATES + ["cublas"]},
                        f"{'x'.join(map(str, near))} of {', '.join(sources)}")
    return table


def inc_text(rates, header, source, gpu, candidates=CANDIDATES):
    """The table's text. `rates`: {(M, N, K): ({name: GFLOP/s}, comment or "")} on the grid;
    `header`: comment lines on where the numbers come from; `source`: one line of it; `gpu`:
    gpu_profile's facts."""
    widths = [max(8, len(c)) for c in candidates]  # a column as wide as its name
    lines = ["// Rung 18's table for one GPU (kernels/18_best.cu reads it): the GFLOP/s of each",
             "// candidate rung on a grid of shapes, M, N and K ascending, K fastest. Generated by",
             "// scripts/autotune --best: do not edit; kernels/18_best.cu says how it is used.",
             "// BEST_GPU: name, SMs, maximum SM clock (MHz), peak memory bandwidth (GB/s; 0:",
             "// unknown)."]
    lines += [f"// {h}" for h in header]
    lines.append(f'BEST_GPU("{gpu[0]}", {gpu[1]}, {gpu[2]}, {gpu[3]})')
    lines.append(f'BEST_SOURCE("{source}")')
    lines.append("BEST_CANDIDATES(" + ", ".join(f'"{c}"' for c in candidates) + ")")
    for axis in ("Ms", "Ns", "Ks"):
        lines.append(f"BEST_AXIS({axis}, " + ", ".join(map(str, GRID[axis])) + ")")
    lines.append("//             M      N      K" +
                 "".join(f"  {c:>{w}}" for c, w in zip(candidates, widths)) + "  // cuBLAS")
    for shape in grid_shapes():
        values, comment = rates[shape]
        missing = [c for c in candidates if not values.get(c)]
        if missing:
            raise ValueError(f"no rate of {', '.join(missing)} at {shape}")
        cells = "".join(f", {values[c]:>{w}.1f}" for c, w in zip(candidates, widths))
        note = f"  // {values['cublas']:.1f}" if values.get("cublas") else ""
        note += f" {comment}" if comment else ""
        lines.append(f"BEST_RATE({shape[0]:>5}, {shape[1]:>5}, {shape[2]:>5}{cells}){note}")
    return "\n".join(lines) + "\n"


def suite_outcomes(results):
    """{(M, N, K): {name: GFLOP/s}} for the suite: sgemm_best_rates's run when there is one
    (best_rates.json, the table's own), else the bench's committed results."""
    rates_json = os.path.join(results, "best_rates.json")
    if os.path.exists(rates_json):
        return measured_rates(rates_json)[0], [rates_json]
    rows = _rung_rows(os.path.join(results, "bench.json"),
                      os.path.join(results, "rung16_inputs.json"))
    return ({s: {n: v[0] for n, v in r.items()} for s, r in rows.items()},
            [os.path.join(results, "bench.json"), os.path.join(results, "rung16_inputs.json")])


def predictions_markdown(shapes, predicted, outcomes, source):
    """The doc's table: per suite shape, the predicted path and time beside the measured ones.
    `predicted`: {(M, N, K): (chosen name, {name: microseconds})}; `outcomes`: GFLOP/s;
    `source`: the files they come from, relative to the repository."""
    def us(shape, rate):
        return 2.0 * shape[0] * shape[1] * shape[2] / (rate * 1e3)

    links = " and ".join(f"[{os.path.basename(s)}](../{s})" for s in source)
    extra = (" (rung 16 from the second where it has the shape, on uniform inputs)"
             if len(source) > 1 else "")
    lines = [f"Predicted: the table compiled in (`sgemm_best_rates --predict`); measured: "
             f"{links}{extra}, each rung timed in turn with cuBLAS SGEMM on uniform inputs. "
             "*Regret*: the chosen path's measured time over the fastest path's (1.00 = the "
             "right choice).", "",
             "| shape | predicted path | predicted µs | measured fastest | measured µs | "
             "chosen path's µs | regret | cuBLAS µs | chosen, % of cuBLAS |",
             "| --- | --- | ---: | --- | ---: | ---: | ---: | ---: | ---: |"]
    regrets, chosen_pct, best_pct = [], [], []
    for shape in shapes:
        chosen, micros = predicted[shape]
        got = outcomes.get(shape, {})
        if not all(got.get(c) for c in CANDIDATES):
            continue
        fastest = max(CANDIDATES, key=lambda c: got[c])
        regret = us(shape, got[chosen]) / us(shape, got[fastest])
        regrets.append(regret)
        cublas, pct = "–", "–"
        if got.get("cublas"):
            chosen_pct.append(100 * got[chosen] / got["cublas"])
            best_pct.append(100 * got[fastest] / got["cublas"])
            cublas, pct = f"{us(shape, got['cublas']):.1f}", f"{chosen_pct[-1]:.1f}"
        lines.append(f"| {'×'.join(map(str, shape))} | {chosen} | {micros[chosen]:.1f} | "
                     f"{fastest} | {us(shape, got[fastest]):.1f} | {us(shape, got[chosen]):.1f} | "
                     f"{regret:.2f} | {cublas} | {pct} |")
    right = sum(r == 1 for r in regrets)
    geo = math.exp(sum(math.log(r) for r in regrets) / len(regrets))
    lines += ["", f"The fastest path chosen on {right} of {len(regrets)} shapes; geometric mean "
              f"regret {geo:.3f}, worst {max(regrets):.2f}."]
    if chosen_pct:
        def mean(values):
            return math.exp(sum(math.log(v) for v in values) / len(values))
        lines[-1] += (f" Geometric mean over the {len(chosen_pct)} shapes, % of cuBLAS SGEMM: "
                      f"{mean(chosen_pct):.1f}% for the chosen paths, {mean(best_pct):.1f}% for "
                      "the fastest path of each shape.")
    return "\n".join(lines) + "\n"
