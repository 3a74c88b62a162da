#!/usr/bin/env python3
"""Each rung names the rung it grew from (the parent column of kernels/ladder.inc), and the
lesson of rung N is `scripts/diff N`, parent -> N. This test (ctest: docs.parents; no build,
no GPU):

1. prints, for every rung 2 on, its parent, the changed lines of `scripts/diff N` (+ and -
   lines) and the share of them that are comments, with the reading bar (at most 600 changed
   lines, at most a quarter comments; doc_lint.BAR_LINES, BAR_SHARE) marked but not asserted;
2. asserts the parent column is sane: a rung listed before (0 for the first rung only), and of
   the same precision class unless the rung's kernel file says which class it is ("precision
   class `tf32`": a rung that changes class says so);
3. asserts `scripts/diff N` diffs from the parent's kernel file;
4. asserts the README's ladder table gives each rung's parent in its "grew from" column, and
   that the header of docs 12-18, and of any doc whose rung did not grow from the one before,
   names `scripts/diff N` and says "grew from rung P".

    python3 tests/ladder_parents_test.py
"""
import os
import re
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.realpath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "scripts"))
import ladder  # noqa: E402
from sgemm_tools import doc_lint  # noqa: E402

BAR_LINES = doc_lint.BAR_LINES  # the reading bar of scripts/diff N, printed only
BAR_SHARE = doc_lint.BAR_SHARE
FIRST_NAMED = 12  # docs from here on say which rung they grew from


def run_diff(rung):
    p = subprocess.run([sys.executable, os.path.join(ROOT, "scripts", "diff"), str(rung.number),
                        "--no-color"], capture_output=True, text=True)
    if p.returncode:
        raise ladder.Error(f"scripts/diff {rung.number} failed: {p.stderr.strip()}")
    return p.stdout


def says_its_class(rung):
    """True when the rung's kernel file names its own precision class in its comments."""
    with open(os.path.join(ROOT, rung.kernel), encoding="utf-8") as f:
        text = " ".join(re.sub(r"^\s*//\s?", "", line) for line in f.read().splitlines())
    return f"precision class `{rung.precision}`" in re.sub(r"\s+", " ", text)


def readme_parents():
    """{rung number: the README ladder table's 'grew from' cell}."""
    with open(os.path.join(ROOT, "README.md"), encoding="utf-8") as f:
        lines = f.read().splitlines()
    header = next((i for i, line in enumerate(lines)
                   if line.startswith("| rung | file |") and "grew from" in line), None)
    if header is None:
        return None
    column = [c.strip() for c in lines[header].strip("|").split("|")].index("grew from")
    out = {}
    for line in lines[header + 2:]:
        if not line.startswith("|"):
            break
        cells = [c.strip() for c in line.strip().strip("|").split(" | ")]
        if cells[0].isdigit():
            out[int(cells[0])] = cells[column]
    return out


def doc_header(rung):
    """The doc's lines after its title, up to the first blank line after some text."""
    with open(os.path.join(ROOT, rung.doc), encoding="utf-8") as f:
        lines = f.read().splitlines()[1:]
    while lines and not lines[0].strip():
        lines.pop(0)
    return " ".join(lines[:lines.index("")] if "" in lines else lines)


def main():
    problems = []
    order = ladder.rungs()
    numbers = {r.number: r for r in order}
    if order[0].parent != 0:
        problems.append(f"rung {order[0].number} is the first: its parent must be 0")
    table = readme_parents()
    if table is None:
        problems.append("README.md: no ladder table with a 'grew from' column")
    print("rung  parent  changed    +     -  comments  share   bar (<= 600, <= 25% comments)")
    for r in order[1:]:
        parent = numbers.get(r.parent)
        if parent is None or r.parent >= r.number:
            problems.append(f"rung {r.number} grew from {r.parent}: not a rung before it")
            continue
        if parent.precision != r.precision and not says_its_class(r):
            problems.append(f"rung {r.number} is {r.precision} but grew from {parent.number}, "
                            f"{parent.precision}: {r.kernel} must say 'precision class "
                            f"`{r.precision}`'")
        text = run_diff(r)
        if not text.startswith(f"--- {parent.kernel}\n+++ {r.kernel}\n"):
            problems.append(f"scripts/diff {r.number} does not diff {parent.kernel} -> {r.kernel}")
        hunks = text[text.find("\n@@"):].splitlines()  # past the --- / +++ file header
        plus = sum(line.startswith("+") for line in hunks)
        notes, total = doc_lint.comment_share(text)
        share = notes / total if total else 0.0
        misses = ([f"{total} lines"] if total > BAR_LINES else []) + \
                 ([f"{share:.0%} comments"] if share > BAR_SHARE else [])
        print(f"{r.number:4d}  {r.parent:6d}  {total:7d}  {plus:4d}  {total - plus:4d}  "
              f"{notes:8d}  {share:5.1%}  {'over: ' + ', '.join(misses) if misses else 'meets'}")
        if table is not None and table.get(r.number) != str(r.parent):
            problems.append(f"README.md: the ladder table's 'grew from' for rung {r.number} is "
                            f"{table.get(r.number)!r}, kernels/ladder.inc says {r.parent}")
        if r.number >= FIRST_NAMED or r.parent != r.number - 1:
            header = doc_header(r)
            if f"`scripts/diff {r.number}`" not in header or \
                    not re.search(rf"\bgrew from rung {r.parent}\b", header):
                problems.append(f"{r.doc}: its header line must give `scripts/diff {r.number}` "
                                f"and say it grew from rung {r.parent}")
    for p in problems:
        print(f"FAILED: {p}")
    print(f"{len(problems)} problems" if problems else
          "every rung grew from an earlier one; scripts/diff, README and docs agree")
    return 1 if problems else 0


if __name__ == "__main__":
    ladder.main_guard(main)
