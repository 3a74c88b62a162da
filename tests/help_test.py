#!/usr/bin/env python3
"""Every program the build makes and every script in scripts/ answers as a user expects:
`--help` prints its help on stdout and exits with 0 (a program's help names no flag it lacks);
a flag it does not know is bad usage, exit status 2 and one line that says so. Some bad usages
that each program has its own way of meeting are tried too (BAD_USAGE below), and an output
file that cannot be written (exit status 3 and one line: UNWRITABLE). No GPU, network or
install is used: the tools a script could reach for (apt-get, curl, ncu, cmake, ...) are
stand-ins on PATH that record the call, and the test fails when one is called;
CUDA_VISIBLE_DEVICES is empty.

    python3 tests/help_test.py --program build/sgemm --program build/sgemm_bench ...
    (ctest: help.every_program; CMake passes every executable of the project but the tests)
"""
import argparse
import os
import re
import stat
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.realpath(__file__)))
SCRIPTS = os.path.join(ROOT, "scripts")
BAD_FLAG = "--no-such-flag"
USAGE = 2
LONGEST_LINE = 200  # a sentence, not a dump (CLI11 once printed DBL_MAX in 309 digits)

# Bad usages beside the unknown flag, by program (file name), each answered with exit 2 and
# one line.
BAD_USAGE = {
    "sgemm": [["99"], ["1", "--sizes", "0"], ["1", "--inputs", "phi=9"]],
    "sgemm_bench": [["--max-seconds-per-run=-1"], ["--max-seconds-per-run=abc"],
                    ["--benchmark_filter=no_such_benchmark", "--benchmark_list_tests"]],
    "sgemm_moduli": [["--counts", "9"], ["--sizes", "abc"], ["--block-ms", "-1"]],
    "diff": [["99"], ["abc"]],
    "get-cuobjdump": [[]],
    "get-deps": [["extra"]],
}

# An output file that cannot be written: a runtime error, exit status 3 and one line, found
# before any GPU work (so without a GPU too), by program.
RUNTIME_ERROR = 3
UNWRITABLE = {
    "sgemm": [["6", "--json", "/nonexistent/x.json"]],
    "sgemm_bench": [["--json=/nonexistent/x.json"], ["--benchmark_out=/nonexistent/x.json"]],
    "sgemm_best_rates": [["--json", "/nonexistent/x.json"]],
}

# What a script must not start just to answer: downloads, installs, GPU tools, builds.
STAND_INS = ("apt-get", "apt", "dpkg", "dpkg-deb", "curl", "wget", "git", "pip", "pip3",
             "nvidia-smi", "ncu", "nsys", "compute-sanitizer", "cuobjdump", "cmake", "ctest",
             "ninja", "make", "nvcc")


def scripts():
    """Every executable file in scripts/ (the package folder and modules are not commands)."""
    out = []
    for name in sorted(os.listdir(SCRIPTS)):
        path = os.path.join(SCRIPTS, name)
        if os.path.isfile(path) and os.access(path, os.X_OK):
            out.append(path)
    return out


def stand_in_folder(tmp, log):
    folder = os.path.join(tmp, "bin")
    os.makedirs(folder)
    for tool in STAND_INS:
        path = os.path.join(folder, tool)
        with open(path, "w") as f:
            f.write(f"#!/bin/sh\necho \"{tool} $*\" >> '{log}'\nexit 97\n")
        os.chmod(path, os.stat(path).st_mode | stat.S_IXUSR)
    return folder


class Checker:
    def __init__(self, tmp):
        self.log = os.path.join(tmp, "called.log")
        self.env = dict(os.environ, CUDA_VISIBLE_DEVICES="", PYTHONDONTWRITEBYTECODE="1",
                        PATH=stand_in_folder(tmp, self.log) + os.pathsep + os.environ["PATH"])
        self.cwd = tmp
        self.failures = []
        self.runs = 0

    def run(self, program, args):
        shown = " ".join([os.path.relpath(program, ROOT), *args])
        before = sorted(os.listdir(ROOT))
        try:
            p = subprocess.run([program, *args], capture_output=True, text=True, env=self.env,
                               cwd=self.cwd, timeout=60, stdin=subprocess.DEVNULL)
        except subprocess.TimeoutExpired:
            self.failures.append(f"{shown}: still running after 60 s")
            return None, shown
        self.runs += 1
        if os.path.exists(self.log):
            with open(self.log) as f:
                self.failures.append(f"{shown}: ran {f.read().strip()!r}")
            os.remove(self.log)
        if sorted(os.listdir(ROOT)) != before:
            self.failures.append(f"{shown}: changed the repository's top folder: "
                                 f"{sorted(set(os.listdir(ROOT)) ^ set(before))}")
        return p, shown

    def help(self, program, own_flags_only=False):
        p, shown = self.run(program, ["--help"])
        if p is None:
            return
        if p.returncode != 0 or not p.stdout.strip():
            self.failures.append(f"{shown}: exit {p.returncode} with {len(p.stdout)} characters "
                                 f"on stdout (want 0 and the help): {p.stderr.strip()[:300]}")
        elif own_flags_only:
            # A flag the text names is one the program has (an option line of its own), or
            # Google Benchmark's, which sgemm_bench passes on, or a script's it quotes
            # ("scripts/autotune --best").
            text = re.sub(r"scripts/[\w-]+(\s+--?[\w=.-]+)*", "", p.stdout)
            own = set(re.findall(r"^\s+(?:-\w,\s*)?(--[\w-]+)", text, re.M))
            named = set(re.findall(r"(?<![\w-])--[a-z][\w-]*", text))
            foreign = sorted(f for f in named - own if not f.startswith("--benchmark_"))
            if foreign:
                self.failures.append(f"{shown}: names flags it does not have: {foreign}")

    def bad_usage(self, program, args, status=USAGE, what="bad usage"):
        p, shown = self.run(program, args)
        if p is None:
            return
        lines = [line for line in (p.stdout + p.stderr).splitlines() if line.strip()]
        if p.returncode != status:
            self.failures.append(f"{shown}: exit {p.returncode}, want {status} ({what}): "
                                 f"{' | '.join(lines)[:300]}")
        elif len(lines) != 1 or len(lines[0]) > LONGEST_LINE:
            self.failures.append(f"{shown}: want one line of at most {LONGEST_LINE} "
                                 f"characters, got {len(lines)}: {' | '.join(lines)[:400]}")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--program", action="append", default=[],
                    help="a program the build made (repeatable)")
    args = ap.parse_args()
    commands = [os.path.abspath(p) for p in args.program] + scripts()
    with tempfile.TemporaryDirectory() as tmp:
        checker = Checker(tmp)
        for command in commands:
            name = os.path.basename(command)
            checker.help(command, own_flags_only=command not in scripts())
            checker.bad_usage(command, [BAD_FLAG])
            for bad in BAD_USAGE.get(name, []):
                checker.bad_usage(command, bad)
            for bad in UNWRITABLE.get(name, []):
                checker.bad_usage(command, bad, RUNTIME_ERROR, "a file that cannot be written")
    names = ", ".join(os.path.basename(c) for c in commands)
    if checker.failures:
        print("\n".join(f"FAIL: {f}" for f in checker.failures))
        print(f"{len(checker.failures)} of {checker.runs} runs failed ({names})")
        return 1
    print(f"{checker.runs} runs, all as expected: {names}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
