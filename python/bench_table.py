#!/usr/bin/env python3
"""Writes the README's table "what a Python user gets" from python/bench.py's JSON, between

    <!-- python-table:begin results/<gpu>/python_bench.json -->
    <!-- python-table:end -->

    python3 python/bench_table.py            # rewrite the blocks in README.md
    python3 python/bench_table.py --check    # exit 1, with a diff, when a block is stale
    python3 python/bench_table.py FILE...    # other Markdown files

The JSON path in the begin marker is relative to the repository root. Standard library only.
"""
import argparse
import difflib
import json
import os
import re
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BEGIN = re.compile(r"<!-- python-table:begin (?P<json>[^\s>]+) -->\n")
END = "<!-- python-table:end -->"
DISTRIBUTIONS = (("uniform", "uniform"), ("normal", "normal"), ("heavy", "heavy-tailed"))


class Error(Exception):
    pass


def load(path):
    try:
        with open(path) as f:
            data = json.load(f)
    except (OSError, json.JSONDecodeError) as e:
        raise Error(f"cannot read {path}: {e}") from None
    if not data.get("rows") or "context" not in data:
        raise Error(f"{path} holds no rows: run python/bench.py --out {path}")
    return data


def _size(shape):
    m, n, k = shape
    return f"{m}³" if m == n == k else f"{m}×{n}×{k}"


def _error(v):
    if v is None:
        return "—"
    if v == float("inf"):
        return "inf"
    return f"{v:.2f}" if v < 100 else f"{v:.1e}"


TIMING = {  # how the run ordered its timed blocks (the JSON's context "timing"; none: each
    # method's blocks one after another)
    "in_turn": ", every method in turn in each round",
    "in_turn_with_reference": ", each method's blocks alternating with torch.matmul FP32's and "
                              "its speed taken over the reference's blocks beside it"}


def table(data, source):
    ctx, rows = data["context"], data["rows"]
    shapes = sorted({tuple(r["shape"]) for r in rows}, key=lambda s: (s[0] * s[1] * s[2], s))
    dists = [(key, title) for key, title in DISTRIBUTIONS
             if any(r["distribution"] == key for r in rows)]
    methods = []
    for r in rows:  # in the order they ran
        if r["method"] not in [m for m, _ in methods]:
            methods.append((r["method"], r.get("label", r["method"])))
    cell = {(r["method"], tuple(r["shape"]), r["distribution"]): r for r in rows}
    names = " / ".join(title for _, title in dists)
    lines = [
        f"On {ctx.get('gpu', '?')} (driver {ctx.get('driver', '?')}, CUDA {ctx.get('cuda', '?')};"
        f" torch {ctx.get('torch', '—')}, JAX {ctx.get('jax', '—')}), from {source}, one process"
        f" (`{ctx.get('command', 'python/bench.py')}`). Each size's cell is the speed over "
        "torch.matmul in IEEE FP32 (`allow_tf32=False`) on the same shape and inputs, for "
        f"{names} inputs (that row: its milliseconds); time is the median of "
        f"{ctx.get('reps', '?')} timed blocks after warm-up"
        f"{TIMING.get(ctx.get('timing'), '')}"
        " (CUDA events; JAX: wall clock to `block_until_ready`). Error is the largest "
        "|c − c64| / (u·(|A|·|B|)) over the elements of C at any size, u = 2⁻²⁴, c64 computed "
        "in float64 on the GPU: FP32's worst-case bound is about K, a correctly rounded result "
        "0.5.", "",
        "| method | " + " | ".join(_size(s) for s in shapes) + " | " +
        " | ".join(f"error, {title}" for _, title in dists) + " |",
        "| :--- |" + " ---: |" * (len(shapes) + len(dists))]
    base = rows[0]["method"] if not any(r["method"] == "torch_fp32" for r in rows) \
        else "torch_fp32"
    for method, label in methods:
        cells = [label]
        for s in shapes:
            got = [cell.get((method, s, d)) for d, _ in dists]
            if method == base:
                cells.append(" / ".join("—" if r is None else f"{r['ms']:.3g}" for r in got) +
                             " ms")
            else:
                cells.append(" / ".join("—" if r is None or r.get("speedup") is None
                                        else f"{r['speedup']:.2f}×" for r in got))
        for d, _ in dists:
            errors = [r["error"] for (m, _, dd), r in cell.items()
                      if m == method and dd == d and r.get("error") is not None]
            cells.append(_error(max(errors)) if errors else "—")
        lines.append("| " + " | ".join(cells) + " |")
    for s in data.get("skipped", []):
        lines.append("")
        lines.append(f"{s.get('label', s['method'])}: not measured ({s['reason']}).")
    return "\n".join(lines) + "\n\n`python/bench_table.py` writes this block from the JSON.\n"


def render(path, text, root=ROOT):
    out, at = [], 0
    for begin in BEGIN.finditer(text):
        end = text.find(END, begin.end())
        if end < 0:
            raise Error(f"{path}: '{END}' is missing")
        rel = begin["json"]
        full = os.path.join(root, rel)
        link = os.path.relpath(full, os.path.dirname(os.path.abspath(path)))
        out += [text[at:begin.end()], table(load(full), f"[{rel}]({link})")]
        at = end
    return "".join(out) + text[at:]


def main(argv=None, root=ROOT):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--check", action="store_true",
                        help="change nothing; exit 1 with a diff when a block is stale")
    parser.add_argument("files", nargs="*", help="default: README.md")
    args = parser.parse_args(argv)
    stale = []
    for path in args.files or [os.path.join(root, "README.md")]:
        with open(path, encoding="utf-8") as f:
            now = f.read()
        if not BEGIN.search(now):
            continue
        try:
            wanted = render(path, now, root)
        except Error as e:
            print(f"bench_table: {e}", file=sys.stderr)
            return 2
        if wanted == now:
            continue
        stale.append(path)
        if args.check:
            sys.stdout.writelines(difflib.unified_diff(
                now.splitlines(keepends=True), wanted.splitlines(keepends=True),
                f"{path} (now)", f"{path} (from the JSON)"))
        else:
            with open(path, "w", encoding="utf-8") as f:
                f.write(wanted)
            print(f"{path}: Python table rewritten")
    if args.check and stale:
        print("the Python tables disagree with the JSON; run python/bench_table.py",
              file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
