"""scripts/autotune --best: rung 18's tables of measured rates (kernels/best/table_<gpu>.inc),
measured by sgemm_best_rates, read from a run's JSON or made provisionally from the bench's
committed results, and doc 18's predictions beside outcomes."""
import json
import os
import re
import subprocess
import sys
import textwrap

import ladder

from . import best_table, generated
from .autotune_search import run

ROOT = ladder.ROOT


def write_best_table(results, rates, header, source, gpu):
    inc = best_table.inc_path(results)
    with open(os.path.join(ROOT, inc), "w") as f:
        f.write(best_table.inc_text(rates, header, source, gpu))
    print(f"wrote {inc} ({source})")


def predictions_block(gpu_folder):
    """Doc 18's block of predictions beside outcomes for one GPU's results folder."""
    tag = f"best-predictions-{gpu_folder}"
    return tag, re.compile(rf"(<!-- {tag}:begin -->\n)(.*?)(<!-- {tag}:end -->)", re.S)


# A block's most runs in --best: small shapes then take 300 runs, not 1000 (each run also
# flushes L2), so that the grid and the suite measure in about three minutes.
BEST_MAX_RUNS = 300


def best_predictions(args, results):
    """docs/18_best.md's table of predictions beside outcomes, from the table compiled into
    --build's sgemm_best_rates (rebuilt first; with --check, as built) and the suite's
    measurements. With --check, changes nothing and returns 1 when the doc differs."""
    if not args.check:
        run(["cmake", "--build", args.build, "--target", "sgemm_best_rates"],
            stdout=subprocess.DEVNULL)
    shapes = best_table.suite_shapes(os.path.join(results, "bench.json"))
    gpu = best_table.measured_rates(os.path.join(results, "best_rates.json"))[1]["gpu"]
    binary = os.path.join(args.build, "sgemm_best_rates")
    out = subprocess.run([binary, "--predict", "--gpu", gpu] +
                         [f"--mnk={m}x{n}x{k}" for m, n, k in shapes],
                         check=True, capture_output=True, text=True).stdout.splitlines()
    names = [c.removesuffix("_us") for c in out[0].split(",")[4:]]
    predicted = {}
    for line in out[1:]:
        cells = line.split(",")
        predicted[tuple(map(int, cells[:3]))] = (cells[3], dict(zip(names, map(float, cells[4:]))))
    outcomes, source = best_table.suite_outcomes(results)
    sources = [os.path.relpath(s, ROOT) for s in source]
    text = best_table.predictions_markdown(shapes, predicted, outcomes, sources)
    doc = os.path.join(ROOT, "docs", "18_best.md")
    now = open(doc).read()
    tag, block = predictions_block(os.path.basename(results))
    wanted, count = block.subn(lambda m: m[1] + text + m[3], now)
    if count != 1:
        raise ladder.Error(f"docs/18_best.md needs one <!-- {tag}:begin --> block")
    differs = generated.update(doc, "docs/18_best.md", now, wanted, args.check,
                               "predictions table", " and ".join(sources))
    if args.check and differs:
        print("docs/18_best.md: the predictions are out of step with the table or the data; "
              "run scripts/autotune --best --predictions", file=sys.stderr)
    return 1 if args.check and differs else 0


def best(args):
    """Rung 18's table: measured (or read from --from-json), or provisional."""
    results = os.path.join(ROOT, args.results) if not os.path.isabs(args.results) else args.results
    rel = os.path.relpath(results, ROOT)
    if args.predictions:
        return best_predictions(args, results)
    if args.provisional:
        bench, inputs = (os.path.join(results, n) for n in ("bench.json", "rung16_inputs.json"))
        rates = best_table.provisional_rates(bench, inputs)
        ladder_json = os.path.join(results, "ladder.json")
        context = ({"gpu": "unknown"} if not os.path.exists(ladder_json)
                   else json.load(open(ladder_json))["context"])
        write_best_table(results, rates, [
            "PROVISIONAL: no run of sgemm_best_rates yet. Each grid shape takes the rates of the",
            f"bench's suite shape nearest it in log M, log N, log K (the row's comment): rungs 11",
            f"and 15 and cuBLAS from {rel}/bench.json; rung 16 from {rel}/rung16_inputs.json",
            "(uniform inputs) where it has the shape, else from bench.json."],
            f"provisional: {rel}/bench.json, {rel}/rung16_inputs.json",
            best_table.gpu_profile(context, results))
        return 0
    rates_json = args.from_json or os.path.join(results, "best_rates.json")
    if not args.from_json:
        binary = os.path.join(args.build, "sgemm_best_rates")
        run(["cmake", "--build", args.build, "--target", "sgemm_best_rates"])
        shapes = best_table.grid_shapes()
        shapes += [s for s in best_table.suite_shapes(os.path.join(results, "bench.json"))
                   if s not in shapes]
        os.makedirs(results, exist_ok=True)
        run([binary, "--block-ms", str(args.block_ms), "--reps", str(BEST_MAX_RUNS),
             "--json", rates_json,
             "--candidates", ",".join(best_table.CANDIDATES)] +
            [f"--mnk={m}x{n}x{k}" for m, n, k in shapes])
    measured, context = best_table.measured_rates(rates_json)
    rates = {s: (measured[s], "") for s in best_table.grid_shapes()}
    write_best_table(results, rates, textwrap.wrap(
        f"Measured {context.get('sgemm_date', '')}: {context['gpu']}, SM clock "
        f"{context['sm_clock_mhz']} MHz, driver {context['driver']}; "
        f"{context.get('sgemm_inputs', 'uniform')} inputs; {context.get('sgemm_timing', '')}. "
        "The comment after each row: cuBLAS SGEMM's GFLOP/s, timed in turn in the same run.",
        96),
        f"{os.path.relpath(rates_json, ROOT)}: {context['gpu']}",
        best_table.gpu_profile(context, results))
    return 0
