"""What scripts/plot's pictures show, from a sgemm_bench JSON, with the standard library only:
the data of each picture (scripts/plot draws it and stores it in the PNG), and the check that
the committed pictures and table.md beside a JSON still show what it holds (scripts/plot
--check; ctest results.committed_plots). The check compares data, not pixels, which change
with matplotlib's version: a PNG carries the data it was drawn from as JSON in a tEXt chunk.

    data = plots.pictures(context, results, 4096)   # {"gflops_square.png": {...}, ...}
    stale = plots.check("results/h100/bench.json", 4096)
"""
import glob
import json
import os
import re
import struct
import zlib

import bench_results
import ladder
from sgemm_tools import generated

DATA_KEY = "sgemm-plot-data"  # the PNG tEXt keyword that holds a picture's data
TABLE = "table.md"
SQUARE = "gflops_square.png"
NONSQUARE = "gflops_nonsquare.png"
PERCENT = re.compile(r"^percent_of_cublas_(\d+)\.png$")


def percent_name(size):
    return f"percent_of_cublas_{size}.png"


def _round(value, digits):
    return None if value is None else round(value, digits)


def power_of_two(n):
    return n > 0 and n & (n - 1) == 0


def by_rung(results):
    """{rung: (label, [Result])}, ladder order."""
    out = {}
    for r in sorted(results, key=lambda r: r.rung):
        out.setdefault(r.rung, (r.label, []))[1].append(r)
    return out


def square(context, results):
    """GFLOP/s of each rung at the square sizes: the powers of two (drawn as a line) apart
    from the other sizes (drawn as markers, not joined: 4097 beside 4096 would make a line
    jump). None when the JSON has no square results."""
    series = []
    for rung, (label, rows) in by_rung([r for r in results
                                        if r.square and r.status == "ok"]).items():
        rows.sort(key=lambda r: r.M)
        series.append({"rung": rung, "label": label,
                       "powers_of_two": [[r.M, _round(r.gflops, 1)] for r in rows
                                         if power_of_two(r.M)],
                       "other_sizes": [[r.M, _round(r.gflops, 1)] for r in rows
                                       if not power_of_two(r.M)]})
    return {"gpu": bench_results.gpu_summary(context), "series": series} if series else None


def percent(context, results, size):
    """Each rung's % of its reference at size³, or why it has none. None without rungs there."""
    bars = [{"rung": r.rung, "label": r.label, "reference": r.reference_title,
             "status": r.status,
             "pct": _round(r.pct_of_reference, 2) if r.status == "ok" else None}
            for r in bench_results.ladder_at(results, size) if r.rung > 0]
    return {"gpu": bench_results.gpu_summary(context), "size": size, "bars": bars} if bars \
        else None


def nonsquare(context, results):
    """GFLOP/s of each rung at each non-square shape, in the order the bench ran them (None
    where it was skipped or failed). None when the JSON has no non-square shapes."""
    shapes = []
    for r in results:
        if not r.square and not r.padded and r.shape not in shapes:
            shapes.append(r.shape)
    if not shapes:
        return None
    kinds = bench_results.shape_kinds(context)
    series = []
    for rung, (label, rows) in by_rung([r for r in results if r.shape in shapes
                                        and not r.padded]).items():
        gflops = {r.shape: _round(r.gflops, 1) for r in rows if r.status == "ok"}
        series.append({"rung": rung, "label": label, "gflops": [gflops.get(s) for s in shapes]})
    return {"gpu": bench_results.gpu_summary(context), "shapes": shapes,
            "kinds": [kinds.get(s, "") for s in shapes], "series": series}


def pictures(context, results, size):
    """{file name: its data} for every picture the JSON has data for."""
    data = {SQUARE: square(context, results), percent_name(size): percent(context, results, size),
            NONSQUARE: nonsquare(context, results)}
    return {name: d for name, d in data.items() if d is not None}


def encode(data):
    """The data as a PNG tEXt value: compact JSON, ASCII (tEXt is Latin-1)."""
    return json.dumps(data, sort_keys=True, separators=(",", ":"))


def png_texts(path):
    """{keyword: text} of a PNG's tEXt and zTXt chunks."""
    with open(path, "rb") as f:
        png = f.read()
    if png[:8] != b"\x89PNG\r\n\x1a\n":
        raise ladder.Error(f"{path} is not a PNG")
    texts, at = {}, 8
    while at + 8 <= len(png):
        length, kind = struct.unpack(">I4s", png[at:at + 8])
        body = png[at + 8:at + 8 + length]
        if kind == b"tEXt":
            key, _, text = body.partition(b"\0")
            texts[key.decode("latin-1")] = text.decode("latin-1")
        elif kind == b"zTXt":
            key, _, text = body.partition(b"\0")
            texts[key.decode("latin-1")] = zlib.decompress(text[1:]).decode("latin-1")
        at += 12 + length  # length, type, data, CRC
    return texts


def shown(path):
    """A path as the user should read it: relative to the repository when inside it."""
    rel = os.path.relpath(os.path.abspath(path), ladder.ROOT)
    return path if rel.startswith("..") else rel


def _lines(data):
    """The data to show a difference in: a line per key, and per item of a list of objects."""
    lines = []
    for key in sorted(data):
        value = data[key]
        if isinstance(value, list) and value and isinstance(value[0], dict):
            lines += [f"{key}:"] + [f"  {encode(item)}" for item in value]
        else:
            lines.append(f"{key}: {encode(value)}")
    return "\n".join(lines) + "\n"


def _check_picture(path, wanted):
    """True, with the difference printed, when the PNG at `path` does not carry `wanted`."""
    embedded = png_texts(path).get(DATA_KEY)
    if embedded is None:
        print(f"{shown(path)}: carries no data (drawn before pictures carried theirs)")
        return True
    return generated.update(path, shown(path), _lines(json.loads(embedded)), _lines(wanted),
                            True, "picture")


def check(json_path, size):
    """The committed table.md and pictures beside `json_path` that no longer show what it holds
    (each difference printed), as paths to show. What is not there is not checked."""
    folder = os.path.dirname(os.path.abspath(json_path))
    context, results = bench_results.load(json_path)
    stale = []
    table = os.path.join(folder, TABLE)
    if os.path.exists(table):
        with open(table) as f:
            now = f.read()
        if generated.update(table, shown(table), now,
                            bench_results.ladder_markdown(context, results, size), True, "table"):
            stale.append(shown(table))
    wanted = pictures(context, results, size)
    for path in sorted(glob.glob(os.path.join(folder, "*.png"))):
        name = os.path.basename(path)
        match = PERCENT.match(name)
        if match:  # the size is in its name
            data = percent(context, results, int(match[1]))
        elif name in (SQUARE, NONSQUARE):
            data = wanted.get(name)
        else:
            continue  # not one of scripts/plot's
        if data is None:
            print(f"{shown(path)}: {json_path} has no data for this picture any more")
        if data is None or _check_picture(path, data):
            stale.append(shown(path))
    return stale
