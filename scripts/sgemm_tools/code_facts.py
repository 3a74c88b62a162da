"""Facts about a rung's code that its own constants decide, for scripts/docs-facts:

    register_split(rung)        '40/232': the registers per thread that the producer and the
                                consumer warpgroups ask setmaxnreg for
    ffma_per_pass(rung)         FFMA per thread in one pass of the main loop as compiled
    ffma_per_ktile(rung)        FFMA per thread per k-tile (BK deep)
    sass_holds(rung, opcode)    what tests/sass_expectations.json requires of the rung's SASS
                                for an opcode, as a phrase
    fallbacks()                 {rung: [the rungs it falls back to]} (kernels/fallbacks.inc)
    constant(rung, name)        '1024': a file-level constexpr int of the rung's kernel file

The constants come from the kernel file: its file-level `constexpr int`s (rungs 4-6), the
template arguments of its first `launch_tile<...>` (or of the one a selector such as
`BM=128,BN=128` picks, for rungs with several tiles) bound to launch_tile's parameter names,
and the `static constexpr int`s of its `struct Tile` evaluated with them. The register split
evaluates kernels/hopper/pipeline.cuh's `RegisterSplit` with the arguments of the Tile's
`using Registers = RegisterSplit<...>`. Nothing is kept here that the code says.
"""
import json
import os
import re

import ladder

from .data_facts import join

EXPECTATIONS = "tests/sass_expectations.json"
PIPELINE = "kernels/hopper/pipeline.cuh"
FALLBACK = re.compile(r"^FALLBACK\((\w+), (\w+), (\w+),", re.M)
_COMMENT = re.compile(r"//[^\n]*|/\*.*?\*/", re.S)
_CONST = re.compile(r"^(?P<indent>[ \t]*)(?:static[ \t]+)?constexpr[ \t]+(?:int|bool)[ \t]+"
                    r"(?P<name>\w+)[ \t]*=(?P<expr>[^;{]*);", re.M)
_INNER_TERNARY = re.compile(r"\(([^()?]*)\?([^():]*):([^()]*)\)")
# A launcher answers a cudaError_t or a runtime::LaunchAnswer (kernels/runtime/launch_answer.h).
_LAUNCH_PARAMS = re.compile(r"template\s*<([^<>]*)>\s*(?:cudaError_t|runtime::LaunchAnswer)\s+"
                            r"launch_tile\s*\(")
_LAUNCH_ARGS = re.compile(r"launch_tile\s*<\s*([-\w\s,]+?)\s*>")
_K_LOOP = re.compile(r"(?:#pragma unroll(?:[ \t]+(?P<n>\d+))?\s*)?for \(int k = 0; k < BK; \+\+k\)")


def source(rel):
    """A file of the repository without its comments."""
    try:
        with open(os.path.join(ladder.ROOT, rel)) as f:
            return _COMMENT.sub("", f.read())
    except OSError as e:
        raise ladder.Error(f"cannot read {rel}: {e.strerror}") from None


def evaluate(expr, names):
    """The value of an integer constant expression of C++ (as the kernels' constants write
    them: + - * / % comparisons && || ! ?:) over `names`, or None when it uses another name."""
    e = re.sub(r"\b\w+::", "", expr).strip()
    while _INNER_TERNARY.search(e):
        e = _INNER_TERNARY.sub(r"((\2) if (\1) else (\3))", e)
    if "?" in e:
        cond, rest = e.split("?", 1)
        yes, no = rest.split(":", 1)
        e = f"(({yes}) if ({cond}) else ({no}))"
    e = e.replace("&&", " and ").replace("||", " or ").replace("/", "//")
    e = re.sub(r"!(?!=)", " not ", e)
    e = re.sub(r"\btrue\b", "True", re.sub(r"\bfalse\b", "False", e))
    try:
        return int(eval(e, {"__builtins__": {}}, dict(names)))  # the repository's own code
    except (NameError, SyntaxError, TypeError, ZeroDivisionError):
        return None


def constants(text, names, indented):
    """`names` with the constexpr ints of `text` added, in order, where they evaluate;
    file level only (no indent) unless `indented`."""
    names = dict(names)
    for m in _CONST.finditer(text):
        if m["indent"] and not indented:
            continue
        value = evaluate(m["expr"], names)
        if value is not None:
            names[m["name"]] = value
    return names


def constant(rung, name):
    names = constants(source(rung.kernel), {}, indented=False)
    if name not in names:
        raise ladder.Error(f"{rung.kernel} has no file-level constexpr int {name}")
    return str(names[name])


def struct(text, name):
    """([template parameter names], body) of `template <...> struct name {...};`."""
    m = re.search(r"template\s*<([^<>]*)>\s*struct\s+" + name + r"\s*\{(.*?)\n\};", text, re.S)
    if not m:
        return None, None
    return [p.split()[-1] for p in m[1].split(",")], m[2]


def tile(rung, select=None):
    """(the constants of the rung's tile, 'BM=128, BN=256, ..'), from its kernel file."""
    text = source(rung.kernel)
    names = constants(text, {}, indented=False)
    described = ""
    params = _LAUNCH_PARAMS.search(text)
    if params:
        params = [p.split()[-1] for p in params[1].split(",")]
        choices = []
        for m in _LAUNCH_ARGS.finditer(text):
            args = [evaluate(a, names) for a in m[1].split(",")]
            if len(args) == len(params) and None not in args:
                choices.append(dict(zip(params, args)))
        wanted = dict(item.split("=", 1) for item in select.split(",")) if select else {}
        chosen = [c for c in choices if all(str(c.get(k)) == v for k, v in wanted.items())]
        if not chosen:
            which = f" with {select}" if select else ""
            raise ladder.Error(f"{rung.kernel} launches no tile{which} (launch_tile<...> with "
                               "constant arguments)")
        names.update(chosen[0])
        described = ", ".join(f"{k}={v}" for k, v in chosen[0].items())
    elif select:
        raise ladder.Error(f"{rung.kernel} has one tile: no selector '{select}'")
    tile_params, body = struct(text, "Tile")
    if body is not None:
        names = constants(body, names, indented=True)
    return names, described, body or ""


def register_split(rung, select=None):
    names, _, body = tile(rung, select)
    m = re.search(r"RegisterSplit\s*<([^<>]*)>", body)
    if not m:
        raise ladder.Error(f"{rung.kernel}: its Tile has no `using Registers = RegisterSplit<..>`"
                           " (setmaxnreg): no register split to state")
    args = [evaluate(a, names) for a in m[1].split(",")]
    params, split = struct(source(PIPELINE), "RegisterSplit")
    if None in args or split is None or len(args) != len(params):
        raise ladder.Error(f"cannot evaluate RegisterSplit<{m[1]}> of {rung.kernel} with "
                           f"{PIPELINE}'s RegisterSplit")
    regs = constants(split, dict(zip(params, args)), indented=True)
    return f"{regs['kProducerRegs']}/{regs['kConsumerRegs']}"


def _ffma(rung, select):
    """(FFMA a thread issues per k, k per main-loop pass, BK, the tile's description)."""
    names, described, _ = tile(rung, select)
    if "kAccumulators" in names:
        per_k = names["kAccumulators"]
    elif "TM" in names:
        per_k = names["TM"] * names.get("TN", 1)
    else:
        raise ladder.Error(f"{rung.kernel} has no micro-tile (TM, kAccumulators): no FFMA count")
    loop = _K_LOOP.search(source(rung.kernel))
    if not loop or "BK" not in names:
        raise ladder.Error(f"{rung.kernel}: no `for (int k = 0; k < BK; ++k)` loop over a k-tile")
    if "#pragma" not in loop[0]:
        raise ladder.Error(f"{rung.kernel}: the loop over k has no #pragma unroll, so the "
                           "compiler decides what one pass of the main loop holds")
    unroll = int(loop["n"]) if loop["n"] else names["BK"]
    if names["BK"] % unroll:
        raise ladder.Error(f"{rung.kernel}: #pragma unroll {unroll} does not divide BK")
    return per_k, unroll, names["BK"], described


def ffma_per_pass(rung, select=None):
    per_k, unroll, _, described = _ffma(rung, select)
    count = per_k * unroll
    _cross_check(rung, described, count)
    return str(count)


def ffma_per_ktile(rung, select=None):
    per_k, _, bk, _ = _ffma(rung, select)
    return str(per_k * bk)


def _rules(rung):
    try:
        with open(os.path.join(ladder.ROOT, EXPECTATIONS)) as f:
            spec = json.load(f)
    except (OSError, ValueError) as e:
        raise ladder.Error(f"cannot read {EXPECTATIONS}: {e}") from None
    return spec, spec.get("rungs", {}).get(rung.name, [])


def _cross_check(rung, described, count):
    """The SASS tests' FFMA count of one main-loop pass, where they state one, agrees."""
    for rule in _rules(rung)[1]:
        which = rule.get("instances", "all")
        if rule.get("where", "main_loop") != "main_loop" or "FFMA" not in rule["expect"]:
            continue
        if which not in ("all", "any") and not re.search(which, described):
            continue
        op, number = rule["expect"]["FFMA"].split()
        if not {"==": count == float(number), ">=": count >= float(number),
                "<=": count <= float(number)}.get(op, True):
            raise ladder.Error(f"{rung.kernel} computes {count} FFMA per main-loop pass, but "
                               f"{EXPECTATIONS} requires FFMA {op} {number} of rung "
                               f"{rung.number}: one of them is wrong")


_PHRASES = {">=": "at least {n} {k}", ">": "more than {n} {k}", "<=": "at most {n} {k}",
            "<": "fewer than {n} {k}", "!=": "other than {n} {k}", "==": "exactly {n} {k}"}


def _phrase(key, condition):
    op, n = condition.split()
    names = [f"`{part}`" for part in key.split("/")]
    if op == "==" and float(n) == 0 and len(names) == 1:
        return f"no {names[0]}"
    return _PHRASES[op].format(n=n, k=" per ".join(names))


def _matches(key, opcode):
    return any(part == opcode or part.startswith(opcode + ".") for part in key.split("/"))


def sass_holds(rung, opcode, where=None):
    """'at least 32 `LDGSTS.32` in the kernel; no `LDGSTS` in one pass of the main loop'."""
    if where not in (None, "kernel", "main_loop"):
        raise ladder.Error(f"'{where}' is not where a SASS rule counts: kernel or main_loop")
    spec, rules = _rules(rung)
    said = []
    if opcode in ("LDL", "STL") and rung.number >= spec.get("no_local_memory_from_rung", 99):
        said.append(f"no `{opcode}` in the kernel (no local memory)")
    for rule in rules:
        place = rule.get("where", "main_loop")
        if where and place != where:
            continue
        parts = [_phrase(k, c) for k, c in rule["expect"].items() if _matches(k, opcode)]
        if not parts:
            continue
        text = join(parts) + (" in the kernel" if place == "kernel"
                              else " in one pass of the main loop")
        which = rule.get("instances", "all")
        if which == "any":
            text += " (of at least one instantiation)"
        elif which != "all":
            text += f" (instantiations matching `{which}`)"
        said.append(text)
    if not said:
        raise ladder.Error(f"{EXPECTATIONS} requires nothing of {opcode} for rung {rung.number}"
                           f"{' in its ' + where if where else ''}: state only what the SASS "
                           "tests check (add a rule there first)")
    return "; ".join(said)


def fallbacks():
    """{rung number: [the numbers it falls back to]}, from kernels/fallbacks.inc."""
    by_name = {r.name: r.number for r in ladder.rungs()}
    out = {}
    with open(os.path.join(ladder.ROOT, "kernels", "fallbacks.inc")) as f:
        for rung, _, instead in FALLBACK.findall(f.read()):
            out.setdefault(by_name[rung], [])
            if by_name[instead] not in out[by_name[rung]]:
                out[by_name[rung]].append(by_name[instead])
    return out
