#!/usr/bin/env python3
"""scripts/pictures catches a stale picture: on a copy of the tree's sources and committed
pictures, a planted change to a constant a picture is drawn from makes `--check` fail and name
the picture and the constant; a change to a comment, or none, leaves it passing; a picture
edited by hand fails too; drawing is deterministic.

    python3 tests/pictures_test.py        (ctest: docs.pictures_planted, label cpu;docs)
"""
import os
import re
import shutil
import subprocess
import sys
import tempfile
import unittest

ROOT = os.path.dirname(os.path.dirname(os.path.realpath(__file__)))
SCRIPT = os.path.join(ROOT, "scripts", "pictures")
# What the pictures are drawn from, and the pictures: copied into each test's tree.
COPIED = ["kernels", "runner", "library", os.path.join("results", "h200", "bench.json"),
          os.path.join("results", "h200", "best_rates.json"),
          os.path.join("results", "h100", "best_rates.json"), os.path.join("docs", "pictures")]


def run(*args):
    return subprocess.run([sys.executable, SCRIPT, *args], capture_output=True, text=True)


class PlantedConstants(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="pictures_test_")
        for rel in COPIED:
            src, dst = os.path.join(ROOT, rel), os.path.join(self.tmp, rel)
            os.makedirs(os.path.dirname(dst), exist_ok=True)
            (shutil.copytree if os.path.isdir(src) else shutil.copy)(src, dst)

    def tearDown(self):
        shutil.rmtree(self.tmp)

    def plant(self, rel, old, new, count=1):
        path = os.path.join(self.tmp, rel)
        with open(path) as f:
            text = f.read()
        self.assertIn(old, text, f"{rel} no longer holds {old!r}: update this test")
        with open(path, "w") as f:
            f.write(text.replace(old, new, count))

    def check(self):
        return run("--check", "--root", self.tmp)

    def assertStale(self, picture, constant):
        p = self.check()
        self.assertEqual(p.returncode, 1, p.stdout + p.stderr)
        lines = [line for line in p.stdout.splitlines() if line.startswith(picture)]
        self.assertTrue(lines, f"no line names {picture}: {p.stdout}")
        self.assertRegex(lines[0], r"\b" + re.escape(constant) + r" \S+ -> \S+")
        return p.stdout

    def test_the_copy_matches(self):
        p = self.check()
        self.assertEqual(p.returncode, 0, p.stdout + p.stderr)

    def test_a_tile_constant(self):
        self.plant("kernels/05_blocktiling_2d.cu", "constexpr int BM = 128;",
                   "constexpr int BM = 64;")
        out = self.assertStale("05_micro_tile.svg", "BM")
        self.assertNotIn("04_thread_column", out)  # only the pictures drawn from rung 5

    def test_a_launcher_template_argument(self):
        self.plant("kernels/07_autotuned.cu", "launch_tile<128, 128, 32, 16, 4>",
                   "launch_tile<128, 128, 32, 8, 8>")
        self.assertStale("07_tile_params.svg", "TM")

    def test_the_swizzle(self):
        self.plant("kernels/08_warptiling.cu", "return r ^ ((k / 4) % 4 * 8);",
                   "return r ^ ((k / 4) % 4 * 4);")
        self.assertStale("08_swizzle.svg", "swizzle")

    def test_the_stages(self):
        self.plant("kernels/09_async_copy.cu", "launch_tile<128, 256, 16, 64, 64, 4, 4, 4, 3>",
                   "launch_tile<128, 256, 16, 64, 64, 4, 4, 4, 4>")
        self.assertStale("09_cp_async_ring.svg", "STAGES")

    def test_the_register_split(self):
        self.plant("kernels/10_tma_specialized.cu",
                   "RegisterSplit<kThreads, kProducerThreads, 40>",
                   "RegisterSplit<kThreads, kProducerThreads, 24>")
        self.assertStale("10_mbarrier_ring.svg", "regs")

    def test_the_timing_policy(self):
        self.plant("runner/timing.h", "kWarmupRuns = 3;", "kWarmupRuns = 5;")
        self.assertStale("00_timing.svg", "warmup")

    def test_the_ozaki_moduli_and_chunk(self):
        self.plant("kernels/16_ozaki_int8.cu", "constexpr int kLadderModuli = 7;",
                   "constexpr int kLadderModuli = 6;")
        self.assertStale("16_ozaki_idea.svg", "kLadderModuli")
        self.plant("kernels/16_ozaki_int8.cu", "constexpr int kChunkDepth = 1 << 16;",
                   "constexpr int kChunkDepth = 1 << 15;")
        self.assertStale("16_ozaki_idea.svg", "kChunkDepth")

    def test_a_formula_the_ozaki_picture_computes_again(self):
        self.plant("kernels/ozaki/ozaki_bits.cuh", "kHalf = (P - 1) / 2;",
                   "kHalf = (P + 1) / 2;")
        p = self.check()
        self.assertNotEqual(p.returncode, 0, p.stdout + p.stderr)
        self.assertIn("the centred residue of an odd modulus", p.stderr)

    def test_a_comment_changes_nothing(self):
        self.plant("kernels/05_blocktiling_2d.cu", "constexpr int BM = 128;",
                   "// constexpr int BM = 64; (an old value)\nconstexpr int BM = 128;")
        p = self.check()
        self.assertEqual(p.returncode, 0, p.stdout + p.stderr)

    def test_a_picture_edited_by_hand(self):
        self.plant("docs/pictures/03_block_tiles.svg", "</svg>", "<!-- edited --></svg>")
        p = self.check()
        self.assertEqual(p.returncode, 1, p.stdout + p.stderr)
        self.assertIn("03_block_tiles.svg: differs from a fresh drawing", p.stdout)

    def test_a_missing_picture(self):
        os.remove(os.path.join(self.tmp, "docs", "pictures", "01_thread_map.svg"))
        p = self.check()
        self.assertEqual(p.returncode, 1)
        self.assertIn("01_thread_map.svg: missing", p.stdout)

    def test_redrawing_is_deterministic_and_fixes_it(self):
        self.plant("kernels/05_blocktiling_2d.cu", "constexpr int TN = 8;",
                   "constexpr int TN = 4;")
        self.assertEqual(self.check().returncode, 1)
        drawn = run("--root", self.tmp)
        self.assertEqual(drawn.returncode, 0, drawn.stderr)
        self.assertIn("05_micro_tile.svg: drawn", drawn.stdout)
        path = os.path.join(self.tmp, "docs", "pictures", "05_micro_tile.svg")
        with open(path) as f:
            first = f.read()
        self.assertIn("TN=4", first.split("\n", 1)[0])
        self.assertEqual(run("--root", self.tmp).stdout, "")  # nothing left to draw
        with open(path) as f:
            self.assertEqual(f.read(), first)
        self.assertEqual(self.check().returncode, 0)

    def test_every_picture_names_its_sources(self):
        folder = os.path.join(ROOT, "docs", "pictures")
        for name in sorted(os.listdir(folder)):
            with open(os.path.join(folder, name)) as f:
                head = f.readline()
            self.assertRegex(head, r"^<!-- drawn by scripts/pictures from \S+.*: \w+=\S+", name)


if __name__ == "__main__":
    unittest.main()
