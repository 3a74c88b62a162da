"""The numbers the committed measurements hold, as a lesson may quote them (scripts/docs-lint
numbers, through doc_lint.numbers):

    data = Measured(root)
    percentages, ratios = data.allowed(doc_text, {8, 7})   # strings: '82.6', '2.12'
    named_rungs('rungs 5–7 and rung 10')                    # {5, 6, 7, 10}
"""
import json
import os
import re

import bench_results

RESULTS = ("results/h200", "results/h100")
CORE = ("bench.json", "ladder.json", "precision.json")  # and profiles/*.json
_RUNGS = re.compile(r"\brungs?\s+(\d+(?:(?:\s*(?:,|and|or|to|[–-])\s*)\d+)*)", re.I)
_PCT_KEY = re.compile(r"pct|percent", re.I)
_RATIO_KEY = re.compile(r"(?:^|_)(?:vs|ratio|speedup)(?:_|$)", re.I)


class Measured:
    """The numbers a lesson may quote: those of the core JSONs of each GPU (CORE and
    profiles/) and of every results/<gpu>/...json the doc names (an experiment's too:
    experiments/<name>/results/<gpu>/...json), as strings at 0-3 decimals.
    A value that belongs to a rung (a record with a "rung", a sweep's row, a profile
    NN_*.json; cuBLAS is rung 0) counts only for that rung's doc, the doc after it, and a
    line that names it ('rung 8', 'rungs 5-8', 'cuBLAS'; a table row: or its header); doc 00
    may quote any. A percentage may quote a value of a key
    with pct or percent in its name (of a sgemm_bench sweep: the median of its repetitions
    that bench_results takes, as the docs' tables show), or 100x a ratio key's (vs_..., ratio,
    speedup); a speed ratio a ratio key's, or a percentage / 100."""

    def __init__(self, root):
        self.root = root
        self._files = {}
        self._unions = {}

    def _file(self, rel):
        """{rung or None: (percentages, ratios) as strings} of one JSON."""
        if rel not in self._files:
            values = []
            tag = re.match(r"(\d\d)_", os.path.basename(rel)) if "/profiles/" in rel else None
            _collect(os.path.join(self.root, rel), int(tag[1]) if tag else None, values)
            out = {}
            for rung, kind, v in values:
                pct, ratio = out.setdefault(rung, (set(), set()))
                for digits in range(4):
                    pct.add(f"{v * (100 if kind == 'ratio' else 1):.{digits}f}")
                    ratio.add(f"{v * (1 if kind == 'ratio' else 0.01):.{digits}f}")
            self._files[rel] = out
        return self._files[rel]

    def allowed(self, text, rungs):
        """(percentages, ratios) a doc with this text may quote of these rungs (None: any)."""
        named = set(re.findall(r"(?:experiments/[\w-]+/)?results/h[0-9]+/[\w./-]*?\.json", text))
        for folder in RESULTS:
            named |= {f"{folder}/{name}" for name in CORE}
            profiles = os.path.join(self.root, folder, "profiles")
            if os.path.isdir(profiles):
                named |= {f"{folder}/profiles/{n}" for n in os.listdir(profiles)
                          if n.endswith(".json")}
        key = (frozenset(named), None if rungs is None else frozenset(rungs))
        if key not in self._unions:
            pct, ratio = set(), set()
            for rel in named:
                for rung, (p, r) in self._file(rel).items():
                    if rungs is None or rung is None or rung in rungs:
                        pct |= p
                        ratio |= r
            self._unions[key] = (pct, ratio)
        return self._unions[key]


def _collect(path, rung, values):
    """[(rung, 'pct' or 'ratio', value)] of one JSON (nothing when it does not exist)."""
    try:
        with open(path) as f:
            data = json.load(f)
    except (OSError, ValueError):
        return
    sweep = isinstance(data, dict) and "benchmarks" in data
    if sweep:
        try:
            values += [(r.rung, "pct", r.pct_of_reference) for r in bench_results.load(path)[1]
                       if r.pct_of_reference is not None]
        except Exception:  # noqa: BLE001 -- not a sweep bench_results reads
            sweep = False
    stack = [(rung, "", data)]
    while stack:
        rung, key, value = stack.pop()
        if isinstance(value, dict):
            own = value.get("rung")
            rung = own if isinstance(own, int) and not isinstance(own, bool) else rung
            stack += [(rung, k, v) for k, v in value.items()
                      if not (sweep and k == "benchmarks")]
        elif isinstance(value, list):
            stack += [(rung, key, v) for v in value]
        elif isinstance(value, (int, float)) and not isinstance(value, bool):
            if _PCT_KEY.search(key):
                values.append((rung, "pct", value))
            elif _RATIO_KEY.search(key):
                values.append((rung, "ratio", value))


def named_rungs(line):
    """The rungs a line names: 'rung 8', 'rungs 5 and 6', 'rungs 5–8', 'rungs 5 to 8';
    cuBLAS is 0, cuBLAS TF32 -1."""
    out = set()
    for m in _RUNGS.finditer(line):
        for a, b in re.findall(r"(\d+)(?:\s*(?:[–-]|to)\s*(\d+))?", m[1]):
            out |= set(range(int(a), int(b or a) + 1))
    if "cuBLAS" in line:
        out |= {0, -1} if "TF32" in line else {0}
    return out
