#!/usr/bin/env python3
"""The house's rules, read from the code (docs/MAP.md draws the layers):

1. The layers include downwards only: include/sgemm/ (the public headers) <- kernels/runtime/
   <- kernels/ (rungs and their shared headers) <- library/ <- runner/, bench/, tests/. No
   kernel file includes a header of library/ or runner/ (the public headers are include/), and
   the library includes nothing of the runner that validates and reports.
2. Every header has `#pragma once` (a C header, an include guard), and every #include of a header stands outside any
   namespace (at the top of the file that uses it), so that a header means the same wherever it
   is included. The X-macro lists (.inc) are data, read where their macro is defined.
3. No test switch in the lesson code: no SGEMM_PLANT_* or SGEMM_FORCE_* in kernels/ (tests
   plant their bugs from their own side: tests/gpu_planted_test.cpp).
4. No rung name stands as a string literal in the C++ and CUDA code of library/, kernels/,
   runner/, bench/ or tests/: code names a rung by RungId (kernels/rung_id.h), generated from
   kernels/ladder.inc. The list itself and the code generated from data (kernels/best/
   table_<gpu>.inc) are the exceptions; a user's argument is parsed into a handle through the
   list (rung_id).

Each rule is also run on a planted tree that breaks it, and must fail there.

    python3 tests/layers_test.py    (ctest: layers.apart; no build, no GPU)
"""
import os
import re
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.realpath(__file__)))
CODE = (".h", ".cuh", ".cu", ".cpp", ".inc")
HEADERS = (".h", ".cuh")
GENERATED = {"kernels/ladder.inc", "kernels/best/table_h200.inc",
             "kernels/best/table_h100.inc"}
INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"')
RUNG = re.compile(r"^RUNG\(\s*\d+\s*,\s*([a-z0-9_]+)\s*,", re.M)
# Where a quoted include is looked for, after the including file's own folder: the include
# directories CMakeLists.txt gives each layer.
SEARCH = {"kernels": ["kernels", "include"], "library": ["library", "kernels", "include"],
          "include": ["include"]}
# What each layer may include, by the folder the header resolves to.
ALLOWED = {"kernels": ("kernels/", "include/"), "library": ("library/", "kernels/", "include/"),
           "include": ("include/",)}
SWITCH = re.compile(r"\bSGEMM_(PLANT|FORCE)_\w*")


def files(root, folder):
    for base, _, names in os.walk(os.path.join(root, folder)):
        for name in sorted(names):
            if name.endswith(CODE):
                path = os.path.join(base, name)
                yield os.path.relpath(path, root), open(path, encoding="utf-8").read()


def resolve(root, path, header):
    """The header's path relative to root, as the compiler would find it, or in another layer's
    folder where it would not (so that the rule can name it), or None."""
    layer = path.split("/")[0]
    others = ["include", "kernels", "library", "runner"]
    for folder in [os.path.dirname(path)] + SEARCH.get(layer, []) + others:
        candidate = os.path.normpath(os.path.join(folder, header))
        if os.path.isfile(os.path.join(root, candidate)):
            return candidate
    return None


def layering(root):
    problems = []
    for layer, allowed in ALLOWED.items():
        for path, text in files(root, layer):
            for line in text.splitlines():
                m = INCLUDE.match(line)
                if not m:
                    continue
                found = resolve(root, path, m.group(1))
                if found is None:
                    problems.append(f"{path} includes \"{m.group(1)}\", which is in none of "
                                    f"{SEARCH[layer]}")
                elif not found.startswith(allowed):
                    problems.append(f"{path} includes {found}: the {layer} layer includes only "
                                    f"{', '.join(allowed)}")
    return problems


def headers_stand_alone(root):
    problems = []
    for folder in ("include", "kernels", "library", "runner", "bench", "tests"):
        for path, text in files(root, folder):
            guarded = re.search(r"^#pragma once", text, re.M) or re.search(
                r"^#ifndef (\w+)\n#define \1\b", text, re.M)  # a C header's include guard
            if path.endswith(HEADERS) and not guarded:
                problems.append(f"{path}: a header without #pragma once or an include guard")
            depth = 0  # namespaces open at this line
            for number, line in enumerate(text.splitlines(), 1):
                m = INCLUDE.match(line)
                # A list of X-macro rows (.inc: ladder.inc, fallbacks.inc, a rate table) is data
                # read where its macro is defined, not a header.
                if m and depth > 0 and not m.group(1).endswith(".inc"):
                    problems.append(f"{path}:{number}: #include inside a namespace")
                if re.match(r"^\s*(inline\s+)?namespace\b[^;]*\{\s*(//.*)?$", line):
                    depth += 1
                elif re.match(r"^\s*}\s*//\s*namespace\b", line):
                    depth -= 1
    return problems


def no_switches(root):
    problems = []
    for path, text in files(root, "kernels"):
        for number, line in enumerate(text.splitlines(), 1):
            hit = SWITCH.search(line)
            if hit:
                problems.append(f"{path}:{number}: {hit.group(0)}, a test switch in the lesson "
                                "code (plant the bug from the test's side)")
    return problems


def rungs_by_handle(root):
    problems = []
    with open(os.path.join(root, "kernels", "ladder.inc"), encoding="utf-8") as f:
        names = RUNG.findall(f.read())
    if not names:
        return ["kernels/ladder.inc: no RUNG(...) line read"]
    quoted = re.compile(r'"(' + "|".join(map(re.escape, names)) + r')"')
    for folder in ("library", "kernels", "runner", "bench", "tests"):
        for path, text in files(root, folder):
            if path in GENERATED:
                continue
            for number, line in enumerate(text.splitlines(), 1):
                hit = quoted.search(line)
                if hit:
                    problems.append(f"{path}:{number}: the rung name {hit.group(0)} as a string; "
                                    f"name it RungId::{hit.group(1)} (kernels/rung_id.h)")
    return problems


RULES = [layering, headers_stand_alone, no_switches, rungs_by_handle]

# A tree that breaks each rule once: {path: text}.
PLANTED = {
    "include/sgemm/sgemm.h": "#pragma once\n",
    "kernels/ladder.inc": "RUNG(1, naive, 0, fp32, \"x\")\n",
    "kernels/01_naive.cu": ('#include "sgemm/sgemm.h"\n#include "dispatch.h"\n'
                            "namespace sgemm::naive {\n#include \"piece.cuh\"\n"
                            "#ifdef SGEMM_PLANT_BUG\n#endif\n}  // namespace sgemm::naive\n"),
    "kernels/piece.cuh": "// no guard\n",
    "library/dispatch.h": "#pragma once\n",
    "library/api.cpp": 'const char* name = "naive";\n',
}
PLANTED_WANT = {layering: "includes library/dispatch.h",
                headers_stand_alone: "#include inside a namespace",
                no_switches: "SGEMM_PLANT_BUG", rungs_by_handle: '"naive" as a string'}


def planted_rules_fail():
    """Each rule on PLANTED: it must report the break planted for it."""
    problems = []
    with tempfile.TemporaryDirectory() as root:
        for path, text in PLANTED.items():
            os.makedirs(os.path.join(root, os.path.dirname(path)), exist_ok=True)
            with open(os.path.join(root, path), "w", encoding="utf-8") as f:
                f.write(text)
        for rule, want in PLANTED_WANT.items():
            if not any(want in p for p in rule(root)):
                problems.append(f"{rule.__name__} passed a planted tree that breaks it ({want})")
        if not any("without #pragma once" in p for p in headers_stand_alone(root)):
            problems.append("headers_stand_alone passed a header without #pragma once")
    return problems


def main():
    problems = [p for rule in RULES for p in rule(ROOT)] + planted_rules_fail()
    for problem in problems:
        print(problem)
    print(f"{len(problems)} problems" if problems else
          "layers apart, headers stand alone, no test switches, rungs named by RungId")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
