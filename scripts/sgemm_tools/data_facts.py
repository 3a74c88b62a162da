"""Facts about committed measurements, for scripts/docs-facts, and the few words its facts
share:

    runs(json)                      'three runs of `sgemm_bench`'
    sweep(json)                     what a committed sweep ran: GPU, shapes, rungs, skips
    bench(json, rung, shape)        '82.6%': the rung's % of its precision class's cuBLAS
    bench_gflops(json, rung, shape) '41235': its GFLOP/s (rung 0: cuBLAS, -1: cuBLAS TF32)
    bench_ratio(json, a, b, shape)  '1.05×': rung a's GFLOP/s over rung b's
    bench_geomean(json, rung)       '176.4%': the geometric mean of its % over the shapes it ran
    best_path_worst(txt)            '0.975× (span=16 at 4096³)': the one call's worst row against
                                    its best path (experiments/one_call/best_path.sh's table)
    batched(txt, case)              '1.42×': cuBLAS's time over ours on a case of a committed
                                    sgemm_batched_bench run (its JSON lines)
    batched_geomean(txt)            '1.423×': their geometric mean over the suite's cases; a file
                                    of runs on several inputs gives the least and the most,
                                    '1.46–1.47×'
    h100_docs(quoted)               the rung docs that cite an H100 (in prose, or only in
                                    the kernel comments they quote)

A shape is MxNxK ('4096x4096x4096'); MxNxK-padded names the run with padded leading
dimensions. Values are the medians scripts/bench_results.py takes over the repetitions, as
the docs' measured tables show them.
"""
import functools
import json
import math
import os
import re

import bench_results
import ladder

DIFF_BLOCK = re.compile(r"<!-- diff:begin.*?<!-- diff:end -->", re.S)
WORDS = ("no", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten")


def join(items):
    """'a', 'a and b', 'a, b and c'."""
    items = list(items)
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + " and " + items[-1]


def numbers(values, width=1):
    """'1–11 and 13–16', '10, 11 and 14–16': runs of three or more as ranges."""
    values, groups = sorted(set(values)), []
    for v in values:
        if groups and v == groups[-1][-1] + 1:
            groups[-1].append(v)
        else:
            groups.append([v])
    out = []
    for g in groups:
        if len(g) >= 3:
            out.append(f"{g[0]:0{width}d}–{g[-1]:0{width}d}")
        else:
            out += [f"{v:0{width}d}" for v in g]
    if not out:
        raise ladder.Error("a fact lists no rungs")
    return join(out)


def counted(n, noun):
    return f"{WORDS[n] if n < len(WORDS) else n} {noun}{'' if n == 1 else 's'}"


def read_text(rel):
    try:
        with open(os.path.join(ladder.ROOT, rel)) as f:
            return f.read()
    except OSError as e:
        raise ladder.Error(f"cannot read {rel}: {e.strerror}") from None


def load_json(rel):
    return json.loads(read_text(rel))


def runs(rel):
    context = load_json(rel).get("context", {})
    if "sgemm_runs" in context or "benchmarks" in load_json(rel):
        return counted(len(context.get("sgemm_runs", [])) or 1, "run") + " of `sgemm_bench`"
    return counted(len(context.get("runs", [])) or 1, "session") + " of `sgemm --accuracy`"


def sweep(rel):
    data = load_json(rel)
    context, results = bench_results.load(os.path.join(ladder.ROOT, rel))
    shapes = {(r.M, r.N, r.K, r.padded) for r in results}
    skipped = [f"rung {r.rung} at {r.M}³" if r.square else f"rung {r.rung} at {r.shape}"
               for r in results if r.status == "skipped"]
    rungs = sorted({r.rung for r in results if r.rung > 0})
    references = sorted({r.kernel for r in results if r.rung <= 0})
    counters = sorted({k for run in data["benchmarks"] for k in run
                       if k.startswith(("pct_of", "reference_", "cublas_"))})
    listed = context.get("sgemm_runs", [])
    in_turn = "in turn" in context.get("sgemm_timing", "")
    return (f"ran on an {context['gpu']} on {context.get('date', '?')[:10]} (driver "
            f"{context.get('driver_version', '?')}, CUDA "
            f"{context.get('cuda_runtime_version', '?')}): {len(shapes)} shapes, "
            f"{join([f'rungs {numbers(rungs)}'] + references)}, "
            f"{counted(len(skipped), 'skip')}{f' ({join(skipped)})' if skipped else ''}, in "
            f"{counted(len(listed) or 1, 'run')} of `sgemm_bench`"
            f"{' (its `context` lists them in `sgemm_runs`)' if listed else ''}; each rung "
            f"timed {'in turn with' if in_turn else 'apart from'} its reference, counters "
            f"{join(f'`{c}`' for c in counters)}")


@functools.lru_cache(maxsize=None)
def _results(rel):
    return bench_results.load(os.path.join(ladder.ROOT, rel))[1]


def result(rel, rung, shape):
    """The Result of one rung (a number; 0 cuBLAS, -1 cuBLAS TF32) at one shape."""
    want, padded = shape.split("-")[0], shape.endswith("-padded")
    try:
        number = int(rung)
    except ValueError:
        raise ladder.Error(f"'{rung}' is not a rung number") from None
    for r in _results(rel):
        if r.rung == number and r.shape == want and r.padded == padded:
            if r.status != "ok":
                raise ladder.Error(f"{rel}: rung {rung} at {shape} {r.status}: {r.message}")
            return r
    raise ladder.Error(f"{rel} has no rung {rung} at {shape} (shapes are MxNxK, "
                       "MxNxK-padded)")


def bench(rel, rung, shape):
    r = result(rel, rung, shape)
    if r.rung <= 0:
        raise ladder.Error("a reference has no % of itself: use bench-gflops")
    return f"{r.pct_of_reference:.1f}%"


def bench_gflops(rel, rung, shape):
    return f"{result(rel, rung, shape).gflops:.0f}"


def bench_ratio(rel, a, b, shape):
    return f"{result(rel, a, shape).gflops / result(rel, b, shape).gflops:.2f}×"


def bench_geomean(rel, rung):
    """The geometric mean of the rung's % of its reference over the unpadded shapes it ran."""
    pcts = [r.pct_of_reference for r in _results(rel)
            if r.rung == int(rung) and not r.padded and r.status == "ok"]
    if not pcts or int(rung) <= 0:
        raise ladder.Error(f"{rel} has no % of a reference for rung {rung}")
    return f"{100 * math.exp(sum(math.log(p / 100) for p in pcts) / len(pcts)):.1f}%"


def best_path_worst(rel):
    """The row of best_path.txt where rung 18 over the faster of rungs 15 and 16 is least."""
    rows = [line.strip("| ").split(" | ") for line in read_text(rel).splitlines()
            if line.startswith("| ")]
    rows = [r for r in rows if len(r) == 6 and re.fullmatch(r"[0-9.]+", r[5])]
    if not rows:
        raise ladder.Error(f"{rel} has no rows of rung 18 over its best path")
    inputs, shape, *_, ratio = min(rows, key=lambda r: float(r[5]))
    return f"{ratio}× ({inputs} at {shape.split('x')[0]}³)"


def _batched_rows(rel):
    rows = [json.loads(line) for line in read_text(rel).splitlines() if line.startswith("{")]
    if not rows:
        raise ladder.Error(f"{rel} has no JSON lines of sgemm_batched_bench")
    return rows


def batched(rel, case):
    """cuBLAS's time over ours on `case`, its first run in the file."""
    for row in _batched_rows(rel):
        if row["case"] == case:
            return f"{row['ratio']:.2f}×"
    raise ladder.Error(f"{rel} has no case {case}")


def batched_geomean(rel):
    """The geometric mean of the suite's ratios, per run on one kind of inputs."""
    runs = {}
    for row in _batched_rows(rel):
        if row["suite"]:
            runs.setdefault(row.get("inputs", "uniform"), []).append(math.log(row["ratio"]))
    means = sorted(f"{math.exp(sum(v) / len(v)):.3f}" for v in runs.values())
    return f"{means[0]}×" if means[0] == means[-1] else f"{means[0]}–{means[-1]}×"


def rung_docs():
    """(number, path, text) of every rung's doc."""
    out = []
    for r in ladder.rungs():
        path = os.path.join(ladder.ROOT, r.doc)
        if os.path.exists(path):
            with open(path) as f:
                out.append((r.number, r.doc, f.read()))
    return out


def h100_docs(quoted):
    found = []
    for number, doc, text in rung_docs():
        prose = DIFF_BLOCK.sub("", text)
        if "H100" in prose and not quoted:
            if "results/h100" not in prose:
                raise ladder.Error(f"{doc} cites an H100 but does not link results/h100/")
            found.append(number)
        elif quoted and "H100" not in prose and "H100" in text:
            found.append(number)
    return numbers(found, 2)
