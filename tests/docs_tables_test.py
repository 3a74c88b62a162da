#!/usr/bin/env python3
"""CPU tests of scripts/docs-tables and bench_results.rung_markdown, on the bench fixture
(tests/data/bench_fixture.json; see tests/results_scripts_test.py for how it was made).

    python3 tests/docs_tables_test.py        (ctest: docs.tables_script, label cpu)

Each test builds a small repository in a temporary folder (docs/NN_name.md named after a
real rung, results/<gpu>/bench.json) and runs the script on it.
"""
import json
import math
import os
import shutil
import subprocess
import sys
import tempfile
import unittest

ROOT = os.path.dirname(os.path.dirname(os.path.realpath(__file__)))
SCRIPT = os.path.join(ROOT, "scripts", "docs-tables")
FIXTURE = os.path.join(ROOT, "tests", "data", "bench_fixture.json")
sys.path.insert(0, os.path.join(ROOT, "scripts"))
import bench_results  # noqa: E402
import ladder  # noqa: E402

JSON = "results/some-gpu/bench.json"
DOC = f"""# A rung

Prose.

## Measured

<!-- measured:begin {JSON} -->
stale
<!-- measured:end -->

## After

More prose.
"""


def fixture():
    with open(FIXTURE) as f:
        return json.load(f)


class RenderTest(unittest.TestCase):
    def setUp(self):
        self.context, self.results = bench_results.load(FIXTURE)

    def test_every_shape_of_the_rung_with_the_numbers_of_the_json(self):
        for rung in {r.rung for r in self.results if r.rung > 0}:
            text = bench_results.rung_markdown(self.context, self.results, rung, "SRC")
            self.assertIn(self.context["gpu"], text)
            self.assertIn("(SRC)", text)
            self.assertIn("against cuBLAS SGEMM timed in the same run", text)
            for r in (r for r in self.results if r.rung == rung):
                first = f"| {r.M} |" if r.square else f"| {r.M}×{r.N}×{r.K} |"
                row = next(line for line in text.splitlines() if first in line)
                if r.status == "ok":
                    self.assertIn(f"| {r.gflops:.0f} | {r.reference_gflops:.0f} | "
                                  f"{r.pct_of_reference:.1f} |", row)
                else:
                    self.assertIn("| skipped |", row)
                    self.assertIn(r.message, text)

    def test_square_sizes_in_order_then_the_other_shapes(self):
        text = bench_results.rung_markdown(self.context, self.results, 8, "SRC")
        lines = text.splitlines()
        square = [int(line.split("|")[1]) for line in lines
                  if line.startswith("| ") and line.split("|")[1].strip().isdigit()]
        self.assertEqual(square, sorted(square))
        self.assertLess(lines.index("| M = N = K | GFLOP/s | cuBLAS GFLOP/s | % of cuBLAS |"),
                        lines.index("| shape | M×N×K | GFLOP/s | cuBLAS GFLOP/s | % of cuBLAS |"))

    def test_a_skipped_shape_keeps_the_cublas_figure(self):
        (skip,) = [r for r in self.results if r.rung > 0 and r.status == "skipped"]
        (ref,) = [r for r in self.results if r.rung == 0 and r.shape == skip.shape]
        text = bench_results.rung_markdown(self.context, self.results, skip.rung, "SRC")
        self.assertIn(f"| {skip.M} | skipped | {ref.gflops:.0f} | — |", text)

    def test_a_rung_not_in_the_json_renders_nothing(self):
        self.assertIsNone(bench_results.rung_markdown(self.context, self.results, 99, "SRC"))

    def test_compare_adds_columns_and_geometric_means(self):
        text = bench_results.rung_markdown(self.context, self.results, 8, "SRC", (6, 7))
        self.assertIn("| % of cuBLAS | rung 6 % | rung 7 % |", text)
        by = {(r.rung, r.shape): r for r in self.results}
        shapes = [r.shape for r in self.results if r.rung == 8 and r.status == "ok"
                  and all(by[(n, r.shape)].status == "ok" for n in (6, 7))]
        self.assertTrue(shapes, "the fixture has shapes every compared rung ran")
        for shape in shapes:
            r = by[(8, shape)]
            first = f"| {r.M} |" if r.square else f"| {r.M}×{r.N}×{r.K} |"
            row = next(line for line in text.splitlines() if first in line)
            self.assertTrue(row.endswith(f"| {by[(6, shape)].pct_of_reference:.1f} | "
                                         f"{by[(7, shape)].pct_of_reference:.1f} |"), row)
        for n in (8, 6, 7):
            logs = [math.log(by[(n, shape)].pct_of_reference) for shape in shapes]
            self.assertIn(f"rung {n} {math.exp(sum(logs) / len(logs)):.1f}%", text)
        self.assertIn(f"over the {len(shapes)} shapes every one ran", text)

    def test_compare_with_a_rung_of_another_reference_or_none_is_an_error(self):
        with self.assertRaisesRegex(ladder.Error, "no results of rung 99"):
            bench_results.rung_markdown(self.context, self.results, 8, "SRC", (99,))


class ScriptTest(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.mkdtemp()
        _, results = bench_results.load(FIXTURE)  # the last rung the fixture holds
        self.rung = max((r for r in ladder.rungs() if any(x.rung == r.number for x in results)),
                        key=lambda r: r.number)
        self.doc = os.path.join(self.tmp, "docs", os.path.basename(self.rung.doc))
        os.makedirs(os.path.dirname(self.doc))
        self.write(self.doc, DOC)
        self.json = os.path.join(self.tmp, JSON)
        os.makedirs(os.path.dirname(self.json))
        self.write(self.json, json.dumps(fixture()))

    def tearDown(self):
        shutil.rmtree(self.tmp)

    @staticmethod
    def write(path, text):
        with open(path, "w") as f:
            f.write(text)

    def text(self):
        with open(self.doc) as f:
            return f.read()

    def tables(self, *args):
        return subprocess.run([sys.executable, SCRIPT, *args, self.doc],
                              capture_output=True, text=True)

    def test_writes_the_block_then_check_passes(self):
        stale = self.tables("--check")
        self.assertEqual(stale.returncode, 1)
        self.assertIn("-stale", stale.stdout)
        self.assertIn("run scripts/docs-tables", stale.stderr)
        self.assertEqual(self.text(), DOC, "--check changes nothing")
        self.assertEqual(self.tables().returncode, 0)
        text = self.text()
        self.assertTrue(text.startswith(DOC.split("stale")[0]))
        self.assertTrue(text.endswith("<!-- measured:end -->\n\n## After\n\nMore prose.\n"))
        self.assertIn(f"[{JSON}](../{JSON})", text)
        context, results = bench_results.load(self.json)
        self.assertIn(bench_results.rung_markdown(context, results, self.rung.number,
                                                  f"[{JSON}](../{JSON})"), text)
        self.assertEqual(self.tables("--check").returncode, 0)

    def test_compare_in_the_marker(self):
        self.write(self.doc, DOC.replace(f"{JSON} -->", f"{JSON} compare=6,7 -->"))
        self.assertEqual(self.tables().returncode, 0)
        self.assertIn("| rung 6 % | rung 7 % |", self.text())
        self.assertIn("Geometric mean", self.text())
        self.assertEqual(self.tables("--check").returncode, 0)

    def test_check_fails_when_a_number_is_edited(self):
        self.tables()
        context, results = bench_results.load(self.json)
        r = next(r for r in results if r.rung == self.rung.number and r.status == "ok")
        number = f"| {r.pct_of_reference:.1f} |"
        self.write(self.doc, self.text().replace(number, "| 99.9 |", 1))
        p = self.tables("--check")
        self.assertEqual(p.returncode, 1)
        self.assertIn(f"+| {r.M}", p.stdout)

    def test_a_rung_the_json_lacks_says_how_to_measure_it(self):
        data = fixture()
        data["benchmarks"] = [b for b in data["benchmarks"]
                              if f"rung:{self.rung.number:02d}_" not in b["name"]]
        self.write(self.json, json.dumps(data))
        self.assertEqual(self.tables().returncode, 0)
        text = self.text()
        self.assertIn("has not been measured yet", text)
        self.assertIn(f"--benchmark_out={JSON}", text)
        self.assertEqual(self.tables("--check").returncode, 0)

    def test_problems_are_clear_errors(self):
        cases = [
            (DOC.replace(f" {JSON} -->", " -->"), "names no JSON"),
            (DOC.replace("<!-- measured:end -->", ""), "missing after the begin marker"),
            (DOC.replace(JSON, "results/none/bench.json"), "does not exist"),
            ("# No block\n", "has no measured block"),
        ]
        for text, message in cases:
            self.write(self.doc, text)
            p = self.tables("--check")
            self.assertEqual(p.returncode, 1, message)
            self.assertIn(message, p.stderr)
            self.assertNotIn("Traceback", p.stderr)


if __name__ == "__main__":
    unittest.main(verbosity=2)
