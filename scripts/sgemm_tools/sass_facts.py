"""The SASS facts the docs cite: each rung kernel's instruction counts and resources for one
architecture, as scripts/sass reads them from a build, committed as JSON (results/sass/) so
that the docs' counts come from a file and a test tells when the build's SASS has moved.

    committed(kernels, nvcc, arch)     the JSON form of scripts/sass's kernel records
    differences(committed, computed)   what a committed file says that the build does not
    cited_differences(rel, computed, docs)  the same for the counts the docs cite (fact:sass,
                                       fact:sass-kstep markers): past a schedule's drift
                                       they fail sass.facts
    count(path, rung, key, ...)        '258', '484–487': a count (or a ratio) for docs-facts
    per_kstep(path, rung, key, ...)    the same per k-step of the main loop, k-steps per pass
                                       read from the rung's own `#pragma unroll`

Counts are static, one pass through the code as written (sgemm_tools.sass), and per thread:
a warp issues each instruction once for its 32 lanes, so they are per warp too.
"""
import json
import os
import re
import tempfile

import ladder

from . import code_facts

WHERE = ("main_loop", "kernel")
RESOURCES = ("registers", "shared_bytes", "stack_bytes", "local_bytes")
# The loop over the mma k-steps of one k-tile (rungs 12, 13): `#pragma unroll N` before it
# decides how many k-steps one pass of the main loop holds.
_KSTEP_LOOP = re.compile(r"(?:#pragma unroll(?:[ \t]+(?P<n>\d+))?[^\n]*\n\s*)?"
                         r"for \(int ks = 0; ks < T::KITER; \+\+ks\)")


# A doc's citation of a count: <!-- fact:sass JSON RUNG KEY [WHERE] [KERNELS] --> or
# <!-- fact:sass-kstep JSON RUNG KEY [KERNELS] --> (scripts/docs-facts renders them).
_CITATION = re.compile(r"<!-- fact:(?P<name>sass|sass-kstep)(?P<args>(?:[ \t]+[^\s>]+)+)[ \t]*-->")


def committed(kernels, nvcc, arch, disassembler=None):
    """{about, context, kernels} of scripts/sass's records for `arch`: each kernel's resources
    and the opcode counts of the whole kernel and of one pass of its main loop (the FFMA
    operand estimates of sass.operand_counts left out: no doc cites them yet)."""
    keep = lambda counts: {k: v for k, v in sorted(counts.items())  # noqa: E731
                           if not k.startswith("FFMA.")}
    out = []
    for k in kernels:
        if k["arch"] != arch or k["rung"] is None:
            continue
        record = {"rung": k["rung"], "name": k["name"], "variant": k["variant"]}
        record.update({r: k[r] for r in RESOURCES if r in k})
        record["main_loop"] = keep(k["main_loop"]["counts"]) if k["main_loop"] else None
        record["kernel"] = keep(k["kernel"])
        if record not in out:  # a shared header's kernel, compiled the same in two files
            out.append(record)
    return {"about": ["Written by scripts/sass --write-facts; checked against the build by "
                      "ctest sass.facts (scripts/sass --facts).",
                      "Per kernel: resources per thread and block, opcode counts of the whole "
                      "kernel and of one pass of its main loop (see scripts/sass --help).",
                      "docs-facts states them in the docs: fact:sass, fact:sass-kstep."],
            "context": {"nvcc": nvcc, "arch": arch, "cuobjdump": disassembler},
            "kernels": out}


def _keyed(facts):
    """{(rung, variant, n): record}: n tells apart kernels of one name that differ (a shared
    header's kernel that two files compile differently)."""
    out = {}
    for k in facts.get("kernels", []):
        n = 0
        while (k["rung"], k["variant"], n) in out:
            n += 1
        out[(k["rung"], k["variant"], n)] = k
    return out


def differences(old, new):
    """['rung 13 <...>: main_loop instructions 330 in the file, 484 in the build', ...]."""
    said = []
    if {k: v for k, v in old.get("context", {}).items() if k != "cuobjdump"} != \
            {k: v for k, v in new.get("context", {}).items() if k != "cuobjdump"}:
        said.append(f"context {old.get('context')} in the file, {new.get('context')} in the build")
    before, after = _keyed(old), _keyed(new)
    for key in sorted(set(before) | set(after), key=str):
        name = f"rung {key[0]} {key[1].strip() or '(plain)'}{f' #{key[2] + 1}' if key[2] else ''}"
        if key not in after:
            said.append(f"{name}: in the file, not in the build")
            continue
        if key not in before:
            said.append(f"{name}: in the build, not in the file")
            continue
        a, b = before[key], after[key]
        for field in RESOURCES:
            if a.get(field) != b.get(field):
                said.append(f"{name}: {field} {a.get(field)} in the file, {b.get(field)} in "
                            "the build")
        for where in WHERE:
            x, y = a.get(where) or {}, b.get(where) or {}
            for op in sorted(set(x) | set(y)):
                if x.get(op, 0) != y.get(op, 0):
                    said.append(f"{name}: {where} {op} {x.get(op, 0)} in the file, "
                                f"{y.get(op, 0)} in the build")
    return said


def citations(paths):
    """[(file, line, name, args)] of every fact:sass / fact:sass-kstep marker in the files."""
    out = []
    for path in paths:
        with open(path) as f:
            text = f.read()
        for m in _CITATION.finditer(text):
            out.append((os.path.relpath(path, ladder.ROOT), text.count("\n", 0, m.start()) + 1,
                        m["name"], m["args"].split()))
    return out


# ptxas does not schedule a kernel bit for bit the same in every build: a build of the same
# source with the same flags gave rung 7 one more LDS.32 and one NOP less in its main loop
# (seen on a loaded 2-core machine, not reproduced alone). A cited count may move that much.
DRIFT_COUNT = 2  # instructions, or 1% of the count where that is more
DRIFT_RATIO = 0.02  # relative, for a ratio of two counts


def _drifted(before, after, ratio):
    """Whether two instantiations' values differ by more than a schedule's drift."""
    if len(before) != len(after):
        return True
    for a, b in zip(sorted(before), sorted(after)):
        limit = DRIFT_RATIO * abs(a) if ratio else max(DRIFT_COUNT, 0.01 * abs(a))
        if abs(a - b) > limit:
            return True
    return False


def cited_differences(rel, computed, paths):
    """(problems, drifts): the citations of the committed file `rel` in `paths` whose count
    the build's facts (`computed`, as committed() makes them) no longer give, as
    ['docs/13_x.md:183: fact:sass-kstep ...: 484 in the file, 492 in the build', ...]: those
    past a schedule's drift (DRIFT_COUNT, DRIFT_RATIO), then those within it."""
    with tempfile.TemporaryDirectory() as tmp:
        build = os.path.join(tmp, "build_facts.json")
        with open(build, "w") as f:
            json.dump(computed, f)
        problems, drifts = [], []
        for where, line, name, args in citations(paths):
            if args[0] != rel:
                continue
            values = count_values if name == "sass" else kstep_values
            try:
                before, ratio = values(rel, *args[1:])
            except ladder.Error:
                continue  # a broken citation is docs-facts' to report
            try:
                after, _ = values(build, *args[1:])
                shown = render(after, ratio)
            except ladder.Error as e:
                after, shown = [], f"nothing ({e})"
            if before == after:
                continue
            said = (f"{where}:{line}: fact:{name} {' '.join(args)}: {render(before, ratio)} in "
                    f"the file, {shown} in the build")
            (problems if _drifted(before, after, ratio) else drifts).append(said)
        return problems, drifts


def load(rel):
    try:
        with open(os.path.join(ladder.ROOT, rel)) as f:
            return json.load(f)
    except (OSError, ValueError) as e:
        raise ladder.Error(f"cannot read {rel}: {e}") from None


def instances(path, rung, which=None):
    """The records of the rung in the committed file: its own kernel's instantiations, or
    the kernels whose variant matches the regex `which` (another kernel of its file, say
    'split_rows')."""
    records = [k for k in load(path)["kernels"] if k["rung"] == rung.number]
    if which:
        chosen = [k for k in records if re.search(which, k["variant"])]
    else:
        chosen = [k for k in records if not k["variant"].startswith(" (")]
    if not chosen:
        have = ", ".join(k["variant"] or "(plain)" for k in records) or "none"
        raise ladder.Error(f"{path} has no kernel of rung {rung.number}"
                           f"{' matching ' + which if which else ''} (it has: {have})")
    return chosen


def _value(record, key, where):
    if key in RESOURCES:
        if where != "kernel":
            raise ladder.Error(f"{key} is the kernel's: say `kernel` where the fact counts")
        return record.get(key)
    counts = record.get(where)
    if counts is None:
        raise ladder.Error(f"rung {record['rung']} {record['variant']} has no main loop")
    if "/" in key:
        top, bottom = (_value(record, part, where) for part in key.split("/", 1))
        if not bottom:
            raise ladder.Error(f"no {key.split('/', 1)[1]} in the {where}: no ratio {key}")
        return top / bottom
    return counts.get(key, 0)


def render(values, ratio):
    """'1,140', or '484–487' where the instantiations differ; ratios to a tenth."""
    text = (lambda v: f"{v:.1f}") if ratio else (lambda v: f"{round(v):,}")  # noqa: E731
    low, high = text(min(values)), text(max(values))
    return low if low == high else f"{low}–{high}"


def count_values(path, number, key, where="main_loop", which=None):
    """The values count() renders, one per instantiation, and whether they are ratios."""
    if where not in WHERE:
        raise ladder.Error(f"'{where}' is not where a SASS fact counts: {' or '.join(WHERE)}")
    rung = ladder.rung(number)
    return [_value(k, key, where) for k in instances(path, rung, which)], "/" in key


def count(path, number, key, where="main_loop", which=None):
    """A count (instructions, HMMA, LDS.64, ...), a ratio of two (instructions/HMMA) or a
    resource (registers, shared_bytes; where = kernel) of the rung's kernels in the
    committed SASS facts at `path`."""
    return render(*count_values(path, number, key, where, which))


def ksteps_per_pass(rung):
    """How many mma k-steps one pass of the main loop holds: the `#pragma unroll N` of the
    rung's loop over k-steps (N; KITER where it unrolls fully, the pass then being a k-tile)."""
    loop = _KSTEP_LOOP.search(code_facts.source(rung.kernel))
    if not loop:
        raise ladder.Error(f"{rung.kernel} has no `for (int ks = 0; ks < T::KITER; ++ks)` loop "
                           "over k-steps: no per-k-step count")
    if loop["n"]:
        return int(loop["n"])
    if "#pragma" not in loop[0]:
        raise ladder.Error(f"{rung.kernel}: the loop over k-steps has no #pragma unroll, so the "
                           "compiler decides what one pass of the main loop holds")
    names, _, _ = code_facts.tile(rung)
    return names["KITER"]


def kstep_values(path, number, key, which=None):
    """The values per_kstep() renders, one per instantiation (never ratios)."""
    if "/" in key:
        raise ladder.Error(f"a ratio ({key}) is the same per pass and per k-step: use fact:sass")
    rung = ladder.rung(number)
    steps = ksteps_per_pass(rung)
    return [_value(k, key, "main_loop") / steps for k in instances(path, rung, which)], False


def per_kstep(path, number, key, which=None):
    """A main-loop count per k-step: one pass's count over the k-steps it holds."""
    return render(*kstep_values(path, number, key, which))
