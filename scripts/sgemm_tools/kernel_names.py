"""Kernel names as a reader wants them: which rung a (mangled or demangled) kernel belongs to,
its template arguments named after the kernel's own template parameters
('<kVectorized=true>'), and short table labels.

Each rung's kernel is sgemm::<name>::sgemm_<name> (kernels/ladder.inc).
"""
import os
import re
import shutil
import subprocess

import ladder


def demangle(names):
    """{mangled: demangled}; c++filt, else cu++filt, else the names as they are."""
    for tool in ("c++filt", "cu++filt"):
        path = shutil.which(tool)
        if path and names:
            p = subprocess.run([path], input="\n".join(names) + "\n", capture_output=True,
                               text=True)
            lines = p.stdout.splitlines()
            if p.returncode == 0 and len(lines) == len(names):
                return dict(zip(names, lines))
    return {n: n for n in names}


def template_args(text):
    """'<128, true>' -> ['128', 'true'] (top-level commas only)."""
    args, depth, cur = [], 0, ""
    for ch in text[1:-1]:
        if ch in "<(":
            depth += 1
        elif ch in ">)":
            depth -= 1
        if ch == "," and depth == 0:
            args.append(cur.strip())
            cur = ""
        else:
            cur += ch
    return args + [cur.strip()] if cur.strip() else args


def readable(arg):
    """A demangled template argument as the source writes it: '(bool)1' -> 'true'."""
    arg = re.sub(r"^\(bool\)1$", "true", re.sub(r"^\(bool\)0$", "false", arg))
    arg = re.sub(r"^\((?:unsigned )?(?:int|long|short|char)\)(-?\d+)$", r"\1", arg)
    arg = re.sub(r"^(-?\d+)[uUlL]+$", r"\1", arg)
    return re.sub(r"^\((?:\w+::)*(\w+)\)(-?\d+)$", r"\1(\2)", arg)  # enum: Access(1)


def template_params(rung):
    """Names of the kernel's template parameters, read from its source, or []."""
    try:
        with open(os.path.join(ladder.ROOT, rung.kernel)) as f:
            source = f.read()
    except OSError:
        return []
    source = re.sub(r"//[^\n]*|/\*.*?\*/", " ", source, flags=re.S)  # comments may sit between
    m = re.search(r"template\s*<([^{};]*?)>\s*__global__[^{};]*?\b" + rung.function + r"\s*\(",
                  source)
    if not m:
        return []
    names = []
    for param in template_args("<" + m[1] + ">"):
        param = param.split("=")[0].strip()
        names.append(re.split(r"[\s*&]+", param)[-1] if param else "?")
    return names


def variant_of(rung, demangled, mangled):
    """'<kVectorized=true>' for a template instantiation, '' for a plain kernel, or the
    function's own name for another kernel in the rung's namespace."""
    key = f"sgemm::{rung.name}::{rung.function}"
    # the rung's own kernel, not another whose name it begins (sgemm_<name>_fused)
    m = re.search(re.escape(key) + r"(?!\w)", demangled)
    at = m.start() if m else -1
    if at < 0:
        if demangled == mangled:  # no demangler: show the raw template arguments
            m = re.search(rf"{len(rung.function)}{rung.function}(I.*?E)E", mangled)
            return f"<{m[1]}>" if m else ""
        other = demangled.split(f"sgemm::{rung.name}::", 1)[-1].split("(")[0]
        return f" ({other})"
    rest = demangled[at + len(key):]
    if not rest.startswith("<"):
        return ""
    depth = 0
    for i, ch in enumerate(rest):
        depth += ch == "<"
        depth -= ch == ">"
        if depth == 0:
            break
    args = [readable(a) for a in template_args(rest[:i + 1])]
    params = template_params(rung)
    if len(params) == len(args):
        args = [f"{p}={a}" for p, a in zip(params, args)]
    return "<" + ", ".join(args) + ">"


def short_labels(kernels):
    """Table labels: a rung's template arguments that differ between its instantiations
    ('6 vectorized<kVectorized=true>'), and notes giving the ones they share; a kernel of no
    rung (rung None: one named with scripts/sass --function) goes by its function name."""
    labels, notes, archs = {}, [], {k["arch"] for k in kernels}
    at = lambda k: f" @{k['arch']}" if len(archs) > 1 else ""  # noqa: E731
    for number in sorted({k["rung"] for k in kernels if k["rung"] is not None}):
        group = [k for k in kernels if k["rung"] == number]
        args = [template_args(k["variant"]) if k["variant"].startswith("<") else []
                for k in group]
        shared = [a for a in args[0] if all(a in other for other in args)]
        if shared:
            notes.append(f"{number:>2} {group[0]['name']}: {', '.join(shared)}")
        for k, own in zip(group, args):
            rest = [a for a in own if a not in shared]
            text = f"{number:>2} {k['name']}" + (f"<{', '.join(rest)}>" if rest else
                                                 ("" if own else k["variant"]))
            labels[id(k)] = text + at(k)
    for k in kernels:
        if k["rung"] is None:
            labels[id(k)] = k["function"] + at(k)
    return labels, notes


# The namespaces of the kernels' shared headers (kernels/<group>/), each the rung that teaches
# it: rung 16 alone includes the Ozaki headers; rung 14 teaches the split's pre-pass kernels,
# which rung 15's file holds a copy of too.
SHARED_NAMESPACES = {"ozaki": "ozaki_int8", "split_3xtf32": "wgmma_3xtf32"}


def rung_of(demangled, mangled, rungs):
    """The rung whose namespace holds this kernel, or None (cuBLAS, the harness's own)."""
    for r in rungs:
        names = [r.name] + [n for n, rung in SHARED_NAMESPACES.items() if rung == r.name]
        for name in names:
            namespace = f"_ZN5sgemm{len(name)}{name}"  # sgemm::<name>::, mangled
            if f"sgemm::{name}::" in demangled or mangled.startswith(namespace):
                return r
    return None
