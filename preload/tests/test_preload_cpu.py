#!/usr/bin/env python3
"""The preload library on a machine without a GPU (ctest label cpu): it exports exactly the
entry points of preload/exports.map, and a program written for cuBLAS (tests/probe.cpp) runs
under LD_PRELOAD: cublasCreate answers (no GPU: a failure status, not a crash), and calls that
the library forwards reach the real cuBLAS, as its log says.

  python3 preload/tests/test_preload_cpu.py --lib build/preload/libsgemm_preload.so \
      --probe build/preload/sgemm_preload_probe --map preload/exports.map
"""
import argparse
import os
import re
import subprocess
import sys
import unittest

ARGS = None


def exported(lib, nm):
    """The symbols the library defines and exports (nm -D --defined-only)."""
    out = subprocess.run([nm, "-D", "--defined-only", lib], check=True, capture_output=True,
                         text=True).stdout
    names = set()
    for line in out.splitlines():
        fields = line.split()
        if len(fields) >= 3:
            names.add(fields[2].split("@")[0])
    return names


def intended(map_path):
    text = re.sub(r"/\*.*?\*/", "", open(map_path).read(), flags=re.S)
    body = text.split("global:")[1].split("local:")[0]
    return {name.strip() for name in body.split(";") if name.strip()}


class PreloadOnTheHost(unittest.TestCase):
    def test_exports_exactly_the_map(self):
        want = intended(ARGS.map)
        self.assertIn("cublasSgemm_v2", want)
        self.assertEqual(exported(ARGS.lib, ARGS.nm), want)

    def test_needs_no_cublas(self):
        # The program's own cuBLAS, found at run time: the library names none.
        out = subprocess.run(["readelf", "-d", ARGS.lib], capture_output=True, text=True).stdout
        needed = re.findall(r"\(NEEDED\).*\[(.*)\]", out)
        self.assertTrue(needed, out)
        self.assertFalse([n for n in needed if "cublas" in n or "cudart" in n], needed)

    def run_probe(self, **env):
        environment = dict(os.environ, LD_PRELOAD=os.path.abspath(ARGS.lib), **env)
        return subprocess.run([ARGS.probe, "create"], env=environment, capture_output=True,
                              text=True, timeout=120)

    def test_probe_runs_under_the_library(self):
        run = self.run_probe(SGEMM_PRELOAD_LOG="1")
        self.assertEqual(run.returncode, 0, run.stdout + run.stderr)
        unhooked = subprocess.run([ARGS.probe, "create"], capture_output=True, text=True,
                                  timeout=120)
        # The same answers as without the library: cuBLAS's own, for the calls it forwards.
        self.assertEqual(run.stdout, unhooked.stdout)
        self.assertRegex(run.stdout, r"cublasCreate \d+")
        self.assertIn("sgemm_preload: cublasSgemm_v2: forwarded (null handle)", run.stderr)
        self.assertIn("sgemm_preload: cublasGemmEx: forwarded "
                      "(compute type CUBLAS_COMPUTE_32F_FAST_TF32)", run.stderr)

    def test_log_off_and_switch_off(self):
        quiet = self.run_probe()
        self.assertEqual(quiet.returncode, 0, quiet.stderr)
        self.assertNotIn("sgemm_preload", quiet.stderr)
        off = self.run_probe(SGEMM_PRELOAD="off", SGEMM_PRELOAD_LOG="1")
        self.assertEqual(off.returncode, 0, off.stderr)
        self.assertIn("sgemm_preload: cublasSgemm_v2: forwarded (switched off by SGEMM_PRELOAD)", off.stderr)


def main():
    global ARGS
    parser = argparse.ArgumentParser()
    parser.add_argument("--lib", required=True)
    parser.add_argument("--probe", required=True)
    parser.add_argument("--map", required=True)
    parser.add_argument("--nm", default="nm")
    ARGS, rest = parser.parse_known_args()
    unittest.main(argv=[sys.argv[0]] + rest, verbosity=2)


if __name__ == "__main__":
    main()
