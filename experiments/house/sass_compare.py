#!/usr/bin/env python3
"""Is the machine code of every kernel the same before and after a house step?

Compares two builds kernel by kernel: each argument is a `cuobjdump -sass` dump, or a cubin,
object file or binary that cuobjdump is run on. A kernel is matched across the two by its name
demangled (cu++filt or c++filt) with every namespace qualifier removed, so that code moved into
another namespace still meets its old self; its instructions are compared as cuobjdump prints
them, encodings included (a mangled name inside an instruction is normalized the same way).
Prints one line a kernel (identical, DIFFERENT, only before, only after, ignored) and exits 1
when any kernel differs or is missing on one side, 0 otherwise.

  experiments/house/sass_compare.py before.cubin after.cubin
  experiments/house/sass_compare.py before.sass after.sass --pair 'decide\\(' 'decide<false>'

--pair BEFORE AFTER: the kernel whose normalized name matches the regex BEFORE is compared with
the one matching AFTER (a kernel that became a template, or was renamed); each must match one.
--ignore REGEX: kernels (either side) to leave out, e.g. a new instantiation; listed as ignored.
--ignore-offsets: leave out the /*0000*/ column (only if code moved inside a kernel is expected).
--keep-namespaces: match on the demangled names as they are.
Tools: $CUOBJDUMP and $CUFILT, else cuobjdump and cu++filt/c++filt on PATH or in /tmp/cutools.
"""
import argparse
import os
import re
import shutil
import subprocess
import sys

TOOL_DIRS = ["/tmp/cutools", "/usr/local/cuda/bin"]
FUNCTION = re.compile(r"^\s*Function\s*:\s*(\S+)\s*$")
ARCH = re.compile(r"^\s*code for (sm_\w+)")
OFFSET = re.compile(r"^\s*/\*[0-9a-f]{4,}\*/")
MANGLED = re.compile(r"\b_Z\w+")
QUALIFIER = re.compile(r"\b[A-Za-z_]\w*::")


def tool(env, *names):
    if os.environ.get(env):
        return os.environ[env]
    for name in names:
        found = shutil.which(name) or next(
            (os.path.join(d, name) for d in TOOL_DIRS if os.access(os.path.join(d, name), os.X_OK)),
            None)
        if found:
            return found
    sys.exit(f"sass_compare: no {' or '.join(names)} (set ${env})")


def dump_of(path):
    """The `cuobjdump -sass` text of path: the file itself if it is one, else cuobjdump's."""
    with open(path, "rb") as f:
        head = f.read(1 << 16)
    if b"\0" not in head and re.search(rb"Function\s*:", head):
        with open(path, encoding="utf-8", errors="replace") as f:
            return f.read()
    cuobjdump = tool("CUOBJDUMP", "cuobjdump")
    p = subprocess.run([cuobjdump, "-sass", path], capture_output=True, text=True)
    if p.returncode != 0:
        sys.exit(f"sass_compare: {cuobjdump} -sass {path} failed:\n{p.stderr}")
    return p.stdout


def parse(text):
    """[(arch, mangled name, [instruction lines])] in the order of the dump."""
    functions, arch, current = [], "", None
    for line in text.splitlines():
        m = ARCH.match(line)
        if m:
            arch, current = m[1], None
            continue
        m = FUNCTION.match(line)
        if m:
            current = (arch, m[1], [])
            functions.append(current)
            continue
        stripped = line.strip()
        if current is None or not stripped or stripped.startswith(".") or \
                set(stripped) <= set("."):
            continue
        current[2].append(stripped)
    return functions


def demangler(mangled_names):
    names = sorted(set(mangled_names))
    if not names:
        return {}
    cufilt = tool("CUFILT", "cu++filt", "c++filt")
    p = subprocess.run([cufilt], input="\n".join(names) + "\n", capture_output=True, text=True)
    lines = p.stdout.splitlines()
    if p.returncode != 0 or len(lines) != len(names):
        sys.exit(f"sass_compare: {cufilt} failed on the kernel names")
    return dict(zip(names, lines))


def normalize(demangled, keep_namespaces):
    name = re.sub(r"\s+", " ", demangled).strip()
    if keep_namespaces:
        return name
    previous = None
    while previous != name:  # a::b::c: strip until none is left
        previous, name = name, QUALIFIER.sub("", name)
    return name


def kernels(text, args):
    """{(arch, normalized name): (mangled name, [instructions, names normalized])}."""
    functions = parse(text)
    mangled = {n for _, n, _ in functions}
    for _, _, body in functions:
        for line in body:
            mangled.update(MANGLED.findall(line))
    names = {m: normalize(d, args.keep_namespaces) for m, d in demangler(mangled).items()}
    out = {}
    for arch, name, body in functions:
        lines = [MANGLED.sub(lambda m: names.get(m[0], m[0]), line) for line in body]
        if args.ignore_offsets:
            lines = [OFFSET.sub("", line).strip() for line in lines]
        key = (arch, names.get(name, name))
        if key in out:
            sys.exit(f"sass_compare: two kernels normalize to {key[1]} ({arch}): "
                     "use --keep-namespaces")
        out[key] = (name, lines)
    return out


def first_difference(a, b):
    for i, (x, y) in enumerate(zip(a, b)):
        if x != y:
            return i, x, y
    i = min(len(a), len(b))
    return i, a[i] if i < len(a) else "(end)", b[i] if i < len(b) else "(end)"


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("before")
    p.add_argument("after")
    p.add_argument("--pair", nargs=2, action="append", default=[], metavar=("BEFORE", "AFTER"))
    p.add_argument("--ignore", action="append", default=[], metavar="REGEX")
    p.add_argument("--ignore-offsets", action="store_true")
    p.add_argument("--keep-namespaces", action="store_true")
    args = p.parse_args()
    before, after = kernels(dump_of(args.before), args), kernels(dump_of(args.after), args)

    def only(side, regex, label):
        found = [k for k in side if re.search(regex, k[1])]
        if len(found) != 1:
            sys.exit(f"sass_compare: --pair {label} /{regex}/ matches {len(found)} kernels")
        return found[0]

    pairs = []
    for b_regex, a_regex in args.pair:
        pairs.append((only(before, b_regex, "BEFORE"), only(after, a_regex, "AFTER")))
    paired_b, paired_a = {b for b, _ in pairs}, {a for _, a in pairs}
    pairs += [(k, k) for k in before if k in after and k not in paired_b and k not in paired_a]
    ignored = lambda k: any(re.search(r, k[1]) for r in args.ignore)  # noqa: E731

    failed, counts = False, {}
    rows = []
    for b, a in pairs:
        label = b[1] if a == b else f"{b[1]}  ->  {a[1]}"
        if ignored(b) or ignored(a):
            rows.append(("ignored", b[0], label))
            continue
        lb, la = before[b][1], after[a][1]
        if lb == la:
            rows.append(("identical", b[0], f"{label}  ({len(lb) // 2} instructions)"))
        else:
            i, x, y = first_difference(lb, la)
            rows.append(("DIFFERENT", b[0], f"{label}\n    line {i}: before {x}\n"
                                            f"    line {i}: after  {y}"))
            failed = True
    for side, keys, other, what in ((before, before.keys(), paired_b | set(after), "only before"),
                                    (after, after.keys(), paired_a | set(before), "only after")):
        for k in keys:
            if k not in other:
                if ignored(k):
                    rows.append(("ignored", k[0], f"{k[1]} ({what})"))
                else:
                    rows.append((what.upper(), k[0], k[1]))
                    failed = True
    for status, arch, label in rows:
        counts[status] = counts.get(status, 0) + 1
        print(f"{status:<11} {arch:<7} {label}")
    print("; ".join(f"{n} {s}" for s, n in sorted(counts.items())))
    print("SAME machine code" if not failed else "machine code DIFFERS")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
