"""sgemm_bench's JSON (Google Benchmark's format) as the scripts see it: one Result per
benchmark, the GPU facts of its context, the ladder table at one size (the README's) and one
rung's table over every shape (the docs'). Standard library only, so scripts/results-table,
scripts/docs-tables and their CPU tests need nothing installed.

    import bench_results
    context, results = bench_results.load("results/h100/bench.json")
    print(bench_results.ladder_markdown(context, results, 4096))
    print(bench_results.rung_markdown(context, results, 6, "results/h100/bench.json"))
"""
import functools
import json
import math
import re
import statistics
from dataclasses import dataclass

import ladder
from ladder import Error

# "sgemm/cublas/4096x4096x4096/iterations:1/manual_time", "sgemm/cublas_tf32/..." or
# "sgemm/rung:05_blocktiling_2d/1000x1000x1000/lda=1008/ldb=1008/ldc=1008/iterations:1/...".
# The rung's number and name come from the name, never from a list kept here.
_NAME = re.compile(r"^sgemm/(?:(?P<reference>cublas(?:_tf32)?)|"
                   r"rung:(?P<number>\d+)_(?P<name>[a-z0-9_]+))"
                   r"/(?P<M>\d+)x(?P<N>\d+)x(?P<K>\d+)(?P<rest>/.*)?$")

# The references' numbers in the runner (runner/runnables.h) and how tables name them.
REFERENCE_NUMBERS = {"cublas": 0, "cublas_tf32": -1}
REFERENCE_TITLES = {"cublas": "cuBLAS", "cublas_tf32": "cuBLAS TF32"}

# Google Benchmark before 1.8 has no SkipWithMessage: sgemm_bench then reports a skip as an
# error whose message starts with this (bench/sweep.cpp).
_OLD_SKIP_PREFIX = "skipped: "

CUBLAS = "cuBLAS"


@functools.lru_cache(maxsize=None)
def reference_of(rung):
    """The name of the reference a rung's % is of ("cublas", "cublas_tf32"): its precision
    class in kernels/ladder.inc; cuBLAS SGEMM for a rung the list no longer has."""
    for r in ladder.rungs():
        if r.number == rung:
            return r.reference
    return "cublas"


@dataclass
class Result:
    rung: int  # 0 is cuBLAS, -1 cuBLAS TF32
    kernel: str  # "blocktiling_2d", or CUBLAS, or "cuBLAS TF32"
    M: int
    N: int
    K: int
    padded: bool  # leading dimensions larger than the rows (--pad)
    status: str  # "ok", "skipped" or "error"
    message: str  # ok: the check ("exact PASS"); otherwise why it was skipped or failed
    gflops: float = None
    reference_gflops: float = None  # of the reference named by `reference`, same run
    pct_of_reference: float = None
    reference: str = "cublas"  # for a rung: what its % is of; for a reference: itself

    @property
    def reference_title(self):  # "cuBLAS", "cuBLAS TF32"
        return REFERENCE_TITLES[self.reference]

    @property
    def label(self):  # "5 blocktiling_2d", "0 cuBLAS"
        return f"{self.rung} {self.kernel}"

    @property
    def square(self):
        return self.M == self.N == self.K and not self.padded

    @property
    def shape(self):
        return f"{self.M}x{self.N}x{self.K}"


def _status(run):
    """(status, message) of one Google Benchmark run entry."""
    if run.get("skipped"):  # Google Benchmark >= 1.8
        return "skipped", run.get("skip_message", "")
    if run.get("error_occurred"):
        message = run.get("error_message", "")
        if message.startswith(_OLD_SKIP_PREFIX):
            return "skipped", message[len(_OLD_SKIP_PREFIX):]
        return "error", message
    return "ok", run.get("label", "")


def _median(runs, key):
    values = [r[key] for r in runs if key in r]
    return statistics.median(values) if values else None


def _result(name, runs):
    """One Result from every repetition of one benchmark: the median of the timed ones."""
    m = _NAME.match(name)
    if not m:
        return None  # not one of ours
    statuses = [_status(r) for r in runs]
    ok = [r for r, s in zip(runs, statuses) if s[0] == "ok"]
    status, message = next((s for s in statuses if s[0] == "ok"), statuses[0])
    if m["reference"]:
        rung, kernel, reference = (REFERENCE_NUMBERS[m["reference"]],
                                   REFERENCE_TITLES[m["reference"]], m["reference"])
    else:
        rung, kernel = int(m["number"]), m["name"]
        reference = reference_of(rung)
    # Sweeps before the tf32 rungs named the counters after cuBLAS SGEMM, every rung's reference.
    old = any("pct_of_cublas" in r for r in ok)
    if old:
        reference = "cublas" if not m["reference"] else reference
    return Result(rung=rung, kernel=kernel, M=int(m["M"]), N=int(m["N"]), K=int(m["K"]),
                  padded="lda=" in (m["rest"] or ""), status=status, message=message,
                  gflops=_median(ok, "GFLOP/s"),
                  reference_gflops=_median(ok, "cublas_GFLOP/s" if old else "reference_GFLOP/s"),
                  pct_of_reference=_median(ok, "pct_of_cublas" if old else "pct_of_reference"),
                  reference=reference)


def load(path):
    """(context, [Result]) from a sgemm_bench JSON, in the order the bench ran them."""
    try:
        with open(path) as f:
            data = json.load(f)
    except OSError as e:
        raise Error(f"cannot read {path}: {e.strerror}") from None
    except json.JSONDecodeError as e:
        raise Error(f"{path} is not JSON: {e}") from None
    context = data.get("context", {})
    if "gpu" not in context or "benchmarks" not in data:
        raise Error(f"{path} is not sgemm_bench output (--benchmark_out_format=json): "
                    "no GPU in its context")
    by_name = {}  # run_name: every repetition; aggregates (mean, stddev...) are recomputed
    for run in data["benchmarks"]:
        if run.get("run_type", "iteration") == "iteration":
            by_name.setdefault(run.get("run_name", run["name"]), []).append(run)
    results = [_result(name, runs) for name, runs in by_name.items()]
    results = [r for r in results if r is not None]
    if not results:
        raise Error(f"{path} holds no sgemm benchmarks")
    return context, results


def gpu_summary(context):
    """'NVIDIA H100 80GB HBM3, SM clock 1980 MHz max (1755 at start), driver ..., CUDA ...'."""
    c = context
    start = c.get("sm_clock_mhz_at_start", "0")
    clock = f"SM clock {c.get('sm_clock_max_mhz', '?')} MHz max"
    if start not in ("", "0"):
        clock += f" ({start} MHz when the sweep started)"
    return (f"{c['gpu']}, {clock}, driver {c.get('driver_version', '?')}, "
            f"CUDA {c.get('cuda_runtime_version', '?')} runtime")


def shape_kinds(context):
    """{"512x16384x4096": "wide", ...}: the bench's names for its non-square problems."""
    pairs = (item.split("=", 1) for item in context.get("sgemm_shape_kinds", "").split(","))
    return {p[0]: p[1] for p in pairs if len(p) == 2}


def ladder_at(results, size):
    """The results of the square size×size×size problem, ladder order (references first)."""
    rows = [r for r in results if r.square and r.M == size]
    return sorted(rows, key=lambda r: r.rung)


def _number(value, digits):
    return "—" if value is None else f"{value:.{digits}f}"


def ladder_markdown(context, results, size):
    """The ladder table at one size, in markdown, with a line per skipped or failed rung."""
    rows = ladder_at(results, size)
    if not rows:
        raise Error(f"no results at {size}x{size}x{size}: run the bench with that size")
    lines = [f"SGEMM {size}×{size}×{size} on {gpu_summary(context)}; each rung's % is of the "
             "reference of its precision class (cuBLAS SGEMM for fp32 rungs, cuBLAS TF32 for "
             "tf32 rungs), timed in turn with it in the same run.", "",
             "| Rung | Kernel | GFLOP/s | % of reference | Reference |",
             "| ---: | :--- | ---: | ---: | :--- |"]
    notes = []
    for r in rows:
        of = "—" if r.rung <= 0 else r.reference_title
        if r.status == "ok":
            pct = "—" if r.rung <= 0 else _number(r.pct_of_reference, 1)
            lines.append(f"| {r.rung} | {r.kernel} | {_number(r.gflops, 0)} | {pct} | {of} |")
        else:
            what = "skipped" if r.status == "skipped" else "FAILED"
            lines.append(f"| {r.rung} | {r.kernel} | {what} | — | {of} |")
            notes.append(f"- {r.label} {what}: {r.message}")
    return "\n".join(lines + ([""] + notes if notes else [])) + "\n"


def _shape_cell(r):  # "512×16384×4096"
    return f"{r.M}×{r.N}×{r.K}"


def _geometric_means(mine, others, rung, compare):
    """The sentence under a compared table: each rung's geometric mean of % over the shapes
    that all of them ran."""
    ok = {(r.shape, r.padded): r for r in mine if r.status == "ok"}
    keys = [k for k in ok if all(k in others[n] and others[n][k].status == "ok"
                                 for n in compare)]
    if not keys:
        return "No shape ran on every compared rung: no geometric means."

    def mean(rows):
        return math.exp(statistics.fmean(math.log(rows[k].pct_of_reference) for k in keys))
    means = [f"rung {rung} {mean(ok):.1f}%"] + [f"rung {n} {mean(others[n]):.1f}%"
                                                for n in compare]
    return (f"Geometric mean of % of the reference over the {len(keys)} shapes every one "
            f"ran: {', '.join(means)}.")


def _row(r, reference, first, extra=()):
    """A table row of one rung's Result; its reference's GFLOP/s from `reference` (the
    reference's own row) when the rung has none; `extra` cells at the end."""
    cublas = r.reference_gflops if r.reference_gflops is not None else \
        (reference.gflops if reference else None)
    if r.status == "ok":
        cells = [_number(r.gflops, 0), _number(cublas, 0), _number(r.pct_of_reference, 1)]
    else:
        cells = ["skipped" if r.status == "skipped" else "FAILED", _number(cublas, 0), "—"]
    return "| " + " | ".join(first + cells + list(extra)) + " |"


def rung_markdown(context, results, rung, source, compare=()):
    """One rung at every shape of the JSON, in markdown: a sentence naming the GPU and
    `source` (where the JSON is, as the reader should see it), the square sizes, the other
    shapes, and a line per skipped or failed shape. With `compare` (rung numbers of the same
    reference), a column of each one's % per shape and the geometric means of the %s over
    the shapes every one of them ran. None when the JSON has no such rung."""
    mine = [r for r in results if r.rung == rung]
    if not mine:
        return None
    others = {n: {(r.shape, r.padded): r for r in results if r.rung == n} for n in compare}
    for n, rows in others.items():
        if not rows:
            raise Error(f"compare={n}: the JSON holds no results of rung {n}")
        if next(iter(rows.values())).reference != mine[0].reference:
            raise Error(f"compare={n}: rung {n} has another reference than rung {rung}")

    def pcts(r):  # the compared rungs' % on r's shape
        got = [others[n].get((r.shape, r.padded)) for n in compare]
        return [_number(o.pct_of_reference if o and o.status == "ok" else None, 1) for o in got]
    ref = mine[0].reference
    title = REFERENCE_TITLES[ref]
    reference = {(r.shape, r.padded): r for r in results
                 if r.rung == REFERENCE_NUMBERS[ref]}
    checks = sorted({r.message for r in mine if r.status == "ok" and r.message})
    checked = ("Every timed shape first passed its check against cuBLAS "
               f"({', '.join(f'`{c}`' for c in checks)}); " if checks else "")
    against = ("cuBLAS SGEMM" if ref == "cublas" else
               "cuBLAS in TF32 mode (CUBLAS_COMPUTE_32F_FAST_TF32)")
    lines = [f"`sgemm_bench` on {gpu_summary(context)} ({source}). {checked}"
             f"% of {title} is against {against} timed in the same run, on the same shape."]
    extra = "".join(f" rung {n} % |" for n in compare)
    rule = " ---: |" * len(compare)
    square = sorted((r for r in mine if r.square), key=lambda r: r.M)
    if square:
        lines += ["", f"| M = N = K | GFLOP/s | {title} GFLOP/s | % of {title} |{extra}",
                  "| ---: | ---: | ---: | ---: |" + rule]
        lines += [_row(r, reference.get((r.shape, r.padded)), [str(r.M)], pcts(r))
                  for r in square]
    other = [r for r in mine if not r.square]
    if other:
        kinds = shape_kinds(context)
        lines += ["", f"| shape | M×N×K | GFLOP/s | {title} GFLOP/s | % of {title} |{extra}",
                  "| :--- | ---: | ---: | ---: | ---: |" + rule]
        for r in other:
            kind = kinds.get(r.shape, "") + (" (padded)" if r.padded else "")
            lines.append(_row(r, reference.get((r.shape, r.padded)),
                              [kind.strip() or "—", _shape_cell(r)], pcts(r)))
    if compare:
        lines += ["", _geometric_means(mine, others, rung, compare)]
    notes = [f"- {_shape_cell(r)} {'skipped' if r.status == 'skipped' else 'FAILED'}: "
             f"{r.message}" for r in mine if r.status != "ok"]
    return "\n".join(lines + ([""] + notes if notes else [])) + "\n"
