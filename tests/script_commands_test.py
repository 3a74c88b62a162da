#!/usr/bin/env python3
"""The `sgemm` command lines that scripts/sanitize and scripts/profile build are valid
usage: each one, run without a GPU (CUDA_VISIBLE_DEVICES empty), must get as far as looking
for the device (exit 3), never stop at its flags (exit 2). Under compute-sanitizer or ncu a
usage error shows only as "terminated before first instrumented API call".

    python3 tests/script_commands_test.py --binary build/sgemm   (ctest: scripts.commands)
"""
import argparse
import os
import shlex
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.realpath(__file__)))
NO_DEVICE = 3  # sgemm --help: "3  no usable GPU, or a CUDA error"


def dry_run(script, *args):
    """The command lines a script prints with --dry-run."""
    p = subprocess.run([sys.executable, os.path.join(ROOT, "scripts", script), *args,
                        "--dry-run"], capture_output=True, text=True)
    if p.returncode != 0:
        sys.exit(f"FAIL: scripts/{script} --dry-run exit {p.returncode}: {p.stderr.strip()}")
    return [shlex.split(line) for line in p.stdout.splitlines() if line.strip()]


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--binary", required=True)
    binary = os.path.abspath(ap.parse_args().binary)
    tool = sys.executable  # any executable stands in for compute-sanitizer and ncu
    commands = dry_run("sanitize", "--binary", binary, "--sanitizer", tool)
    commands += dry_run("profile", "6", "--binary", binary, "--ncu", tool)
    commands += dry_run("profile", "15", "1000", "--pad", "3", "--binary", binary, "--ncu", tool)
    env = dict(os.environ, CUDA_VISIBLE_DEVICES="")
    checked, failures = set(), []
    for cmd in commands:
        if binary not in cmd:
            failures.append(f"no {binary} in: {' '.join(cmd)}")
            continue
        sgemm = cmd[cmd.index(binary):]
        key = tuple(sgemm)
        if key in checked:
            continue
        checked.add(key)
        p = subprocess.run(sgemm, capture_output=True, text=True, env=env)
        if p.returncode != NO_DEVICE:
            failures.append(f"exit {p.returncode} (want {NO_DEVICE}, no GPU): "
                            f"{' '.join(sgemm)}\n  {(p.stdout + p.stderr).strip()[:300]}")
    for f in failures:
        print("FAIL: " + f)
    print(f"{len(checked)} distinct sgemm command lines from {len(commands)} script commands: "
          + ("ok" if not failures else f"{len(failures)} bad"))
    return 1 if failures or not checked else 0


if __name__ == "__main__":
    sys.exit(main())
