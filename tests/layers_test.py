#!/usr/bin/env python3
"""The layers stay apart and rungs are named by handles (issue 37, the library its own layer):

1. No file of kernels/ or library/ includes a header of runner/: kernels include the library,
   and the library includes nothing of the runner that validates and reports.
2. No rung name stands as a string literal in the C++ and CUDA code of library/, kernels/,
   runner/, bench/ or tests/: code names a rung by RungId (kernels/rung_id.h), generated from
   kernels/ladder.inc. The list itself and the code generated from data (kernels/best/table_<gpu>.inc)
   are the exceptions; a user's argument is parsed into a handle through the list (rung_id).

    python3 tests/layers_test.py    (ctest: layers.apart; no build, no GPU)
"""
import os
import re
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.realpath(__file__)))
CODE = (".h", ".cuh", ".cu", ".cpp", ".inc")
GENERATED = {"kernels/ladder.inc", "kernels/best/table_h200.inc",
             "kernels/best/table_h100.inc"}
INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)
RUNG = re.compile(r"^RUNG\(\s*\d+\s*,\s*([a-z0-9_]+)\s*,", re.M)


def files(folder):
    for base, _, names in os.walk(os.path.join(ROOT, folder)):
        for name in sorted(names):
            if name.endswith(CODE):
                path = os.path.join(base, name)
                yield os.path.relpath(path, ROOT), open(path, encoding="utf-8").read()


def main():
    problems = []
    runner_headers = {n for n in os.listdir(os.path.join(ROOT, "runner")) if n.endswith(".h")}
    for folder in ("kernels", "library"):
        for path, text in files(folder):
            for header in INCLUDE.findall(text):
                if os.path.basename(header) in runner_headers:
                    problems.append(f"{path} includes runner/{header}: the library and the "
                                    "kernels include nothing of the runner")
    with open(os.path.join(ROOT, "kernels", "ladder.inc"), encoding="utf-8") as f:
        names = RUNG.findall(f.read())
    if not names:
        problems.append("kernels/ladder.inc: no RUNG(...) line read")
    quoted = re.compile(r'"(' + "|".join(map(re.escape, names)) + r')"')
    for folder in ("library", "kernels", "runner", "bench", "tests"):
        for path, text in files(folder):
            if path in GENERATED:
                continue
            for number, line in enumerate(text.splitlines(), 1):
                hit = quoted.search(line)
                if hit:
                    problems.append(f"{path}:{number}: the rung name {hit.group(0)} as a string; "
                                    f"name it RungId::{hit.group(1)} (kernels/rung_id.h)")
    for problem in problems:
        print(problem)
    print(f"{len(problems)} problems" if problems else "layers apart, rungs named by RungId")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
