"""The expectations language of tests/sass_expectations.json, and the check of kernel
records (see sass_report) against it.

    {"no_local_memory_from_rung": 4,       every rung from 4 on: LDL = STL = 0, no stack
     "rungs": {"<rung name>": [            rules, each with:
        {"where": "main_loop" | "kernel",  what to count (default main_loop)
         "instances": "all" | "any" | REGEX  which template instantiations (default all;
                                            REGEX is searched in '<kVectorized=true>')
         "expect": {"KEY": "OP NUMBER"},    OP one of >= <= == != > <
         "why": "what the lesson relies on"}]}}

A KEY is a count ('LDS.128', 'FFMA', 'LDS' = every width, 'FFMA.conflict' and the other
FFMA operand counts of sass.operand_counts), a ratio of two ('FFMA/LDS'), or with where =
kernel a resource ('registers', 'shared_bytes', 'stack_bytes', 'local_bytes').
"""
import json
import re
import sys

import ladder

from .kernel_names import short_labels
from .sass import RESOURCES

_CONDITION = re.compile(r"^\s*(>=|<=|==|!=|>|<)\s*(-?[\d.]+)\s*$")
_OPS = {">=": float.__ge__, "<=": float.__le__, "==": float.__eq__, "!=": float.__ne__,
        ">": float.__gt__, "<": float.__lt__}
WHERE = {"main_loop": "main loop", "kernel": "kernel"}


def value(kernel, where, key):
    """The number a KEY names in one kernel record, counted over `where`."""
    if "/" in key:
        num, den = (value(kernel, where, part) for part in key.split("/", 1))
        return num / den if den else float("inf")
    if where == "kernel" and key in RESOURCES.values():
        return kernel.get(key, 0)
    counts = kernel["kernel"] if where == "kernel" else kernel["main_loop"]["counts"]
    return counts.get(key, 0)


def check_rule(rule, instances, where_text, labels):
    """[(passed, message)] for one rule over a rung's instances."""
    where = rule.get("where", "main_loop")
    which = rule.get("instances", "all")
    why = rule.get("why", "")
    if which in ("all", "any"):
        chosen = instances
    else:
        chosen = [k for k in instances if re.search(which, k["variant"])]
        if not chosen:
            return [(False, f"no instantiation matches instances='{which}' "
                            f"(have: {', '.join(k['variant'] or '(plain)' for k in instances)})")]
    results = []
    for k in chosen:
        name = labels[id(k)]
        if where == "main_loop" and not k["main_loop"]:
            results.append((False, f"{name}: no main loop (no loop with FFMA, HMMA, HGMMA or "
                                   f"IGMMA) -- {why}"))
            continue
        failed = []
        shown = []
        for key, condition in rule["expect"].items():
            m = _CONDITION.match(str(condition))
            if not m:
                raise ladder.Error(f"expectation '{key}: {condition}' is not like '>= 4'")
            got = value(k, where, key)
            ok = _OPS[m[1]](float(got), float(m[2]))
            shown.append(f"{key} = {got:g} ({condition})")
            if not ok:
                failed.append(shown[-1])
        text = f"{name}: {where_text[where]} " + ", ".join(failed or shown) + f" -- {why}"
        results.append((not failed, text))
    if which == "any":
        ok = any(passed for passed, _ in results)
        best = [text for passed, text in results if passed == ok][:1]
        return [(ok, ("some instantiation: " if ok
                      else f"none of {len(results)} instantiations, e.g. ") + best[0])]
    return results


def no_local_memory(kernel, label):
    """(passed, message): no LDL/STL, no stack, no local bytes."""
    local = {key: value(kernel, "kernel", key) for key in ("LDL", "STL", "stack_bytes",
                                                           "local_bytes")}
    bad = {key: v for key, v in local.items() if v}
    return not bad, f"{label}: no local memory " + (
        f"-- but {bad}: spills or a local array (build with -DSGEMM_PTXAS_VERBOSE=ON)" if bad
        else "(LDL = STL = 0, stack 0)")


def check(kernels, expectations_path, wanted, binary, out=sys.stdout):
    """Checks every wanted rung (all when `wanted` is empty), prints a PASS/FAIL line per
    check and a count to `out`; 1 when any check failed, else 0."""
    with open(expectations_path) as f:
        spec = json.load(f)
    from_rung = spec.get("no_local_memory_from_rung", 1)
    labels = {key: text.strip().split(" ", 1)[1] for key, text in short_labels(kernels)[0].items()}
    results = []
    for r in ladder.rungs():
        if wanted and r.number not in wanted:
            continue
        instances = [k for k in kernels if k["rung"] == r.number]
        tag = f"rung {r.number:2d}"
        if not instances and r.dispatches:
            results.append((True, tag,
                            f"no kernel of its own: {r.kernel} runs other rungs' kernels"))
            continue
        if not instances:
            results.append((False, tag, f"no kernel sgemm::{r.name}::{r.function} in {binary}; "
                                        f"is {r.kernel} built into it?"))
            continue
        if r.number >= from_rung:
            for k in instances:
                passed, text = no_local_memory(k, labels[id(k)])
                results.append((passed, tag, text))
        for rule in spec.get("rungs", {}).get(r.name, []):
            for passed, text in check_rule(rule, instances, WHERE, labels):
                results.append((passed, tag, text))
    unknown = set(spec.get("rungs", {})) - {r.name for r in ladder.rungs()}
    for name in sorted(unknown):
        print(f"note: {expectations_path} has expectations for '{name}', not a rung in "
              f"{ladder.LIST}", file=out)
    print(file=out)
    for passed, tag, text in results:
        print(f"{'PASS' if passed else 'FAIL'}  {tag}  {text}", file=out)
    failures = sum(not p for p, _, _ in results)
    print(f"\n{len(results) - failures} of {len(results)} SASS checks passed"
          + (f"; {failures} FAILED" if failures else ""), file=out)
    return 1 if failures else 0
