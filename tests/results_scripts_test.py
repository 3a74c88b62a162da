"""CPU tests of scripts/bench_results.py (the ladder table), scripts/results-table and
scripts/plot. Standard library only, but for the pictures, which need matplotlib:

    python3 tests/results_scripts_test.py             everything else (ctest: results.scripts)
    python3 tests/results_scripts_test.py --pictures  scripts/plot's PNGs (ctest: results.plot)

With --pictures and a Python that cannot import matplotlib, it prints why and exits 77,
which ctest reports as Skipped (SKIP_RETURN_CODE in tests/results.cmake).

tests/data/bench_fixture.json is unedited sgemm_bench output from a short sweep on a GPU:

    sgemm_bench --mnk=256,256,256 --mnk=1024,1024,1024 --mnk=4096,4096,4096 \
        --mnk=512,4096,1024 --max-seconds-per-run=0.05 \
        --benchmark_out=bench_fixture.json --benchmark_out_format=json

Its small time limit skips rung 1 at 4096, so it holds skips as well as timings; failures,
repetitions and Google Benchmark's older skip format are made from it inside the tests.
Rung names are read from it, so new rungs need no new fixture; regenerate it when
sgemm_bench's JSON changes.
"""
import copy
import json
import os
import shutil
import subprocess
import sys
import tempfile
import unittest

ROOT = os.path.dirname(os.path.dirname(os.path.realpath(__file__)))
SCRIPTS = os.path.join(ROOT, "scripts")
FIXTURE = os.path.join(ROOT, "tests", "data", "bench_fixture.json")
sys.path.insert(0, SCRIPTS)
import bench_results  # noqa: E402
import ladder  # noqa: E402

README = """# Title

Intro.

<!-- results-table:begin -->
stale
<!-- results-table:end -->

Rest.
"""


def run(script, *args):
    return subprocess.run([sys.executable, os.path.join(SCRIPTS, script), *args],
                          capture_output=True, text=True)


def fixture():
    with open(FIXTURE) as f:
        return json.load(f)


def write_json(path, data):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as f:
        json.dump(data, f)


def entry(data, name_part):
    """The fixture's first benchmark whose name contains name_part."""
    return next(b for b in data["benchmarks"] if name_part in b["name"])


class LoadTest(unittest.TestCase):
    def setUp(self):
        self.context, self.results = bench_results.load(FIXTURE)

    def test_context_has_the_gpu_facts(self):
        for key in ("gpu", "sm_clock_max_mhz", "driver_version", "cuda_runtime_version"):
            self.assertIn(key, self.context)
        self.assertIn(self.context["gpu"], bench_results.gpu_summary(self.context))

    def test_names_give_rung_kernel_and_shape(self):
        cublas = next(r for r in self.results if r.rung == 0 and r.shape == "4096x4096x4096")
        self.assertEqual(cublas.kernel, bench_results.CUBLAS)
        self.assertAlmostEqual(cublas.pct_of_reference, 100.0)
        names = [b["name"] for b in fixture()["benchmarks"]]
        rungs = [r for r in self.results if r.rung > 0]
        self.assertTrue(rungs, "the fixture has rungs")
        for r in rungs:
            self.assertTrue(any(f"/rung:{r.rung:02d}_{r.kernel}/{r.shape}/" in n for n in names))

    def test_skips_are_not_errors(self):
        skipped = [r for r in self.results if r.status == "skipped"]
        self.assertTrue(skipped, "the fixture was made with a time limit that skips")
        self.assertTrue(all("would take" in r.message for r in skipped))
        self.assertFalse([r for r in self.results if r.status == "error"])

    def test_a_skip_from_google_benchmark_before_1_8_is_a_skip(self):
        data = fixture()
        b = entry(data, "cublas/4096x4096x4096")
        b.update(error_occurred=True, error_message="skipped: too slow")
        with tempfile.TemporaryDirectory() as tmp:
            write_json(os.path.join(tmp, "b.json"), data)
            _, results = bench_results.load(os.path.join(tmp, "b.json"))
        (r,) = [r for r in results if r.rung == 0 and r.shape == "4096x4096x4096"]
        self.assertEqual((r.status, r.message), ("skipped", "too slow"))

    def test_repetitions_give_the_median_and_aggregates_are_ignored(self):
        data = fixture()
        b = entry(data, "cublas/4096x4096x4096")
        reps = []
        for i, gflops in enumerate([1.0, 5.0, 2.0]):
            r = copy.deepcopy(b)
            r.update({"GFLOP/s": gflops, "repetition_index": i, "repetitions": 3})
            reps.append(r)
        mean = dict(copy.deepcopy(b), run_type="aggregate", aggregate_name="mean")
        mean["GFLOP/s"] = 999.0
        data["benchmarks"] = reps + [mean]
        with tempfile.TemporaryDirectory() as tmp:
            write_json(os.path.join(tmp, "b.json"), data)
            _, results = bench_results.load(os.path.join(tmp, "b.json"))
        self.assertEqual([r.gflops for r in results], [2.0])

    def test_not_bench_output_is_a_clear_error(self):
        with tempfile.TemporaryDirectory() as tmp:
            write_json(os.path.join(tmp, "b.json"), {"context": {}, "benchmarks": []})
            with self.assertRaisesRegex(ladder.Error, "not sgemm_bench output"):
                bench_results.load(os.path.join(tmp, "b.json"))
            with self.assertRaisesRegex(ladder.Error, "cannot read"):
                bench_results.load(os.path.join(tmp, "missing.json"))


class TableTest(unittest.TestCase):
    def test_ladder_table_at_4096(self):
        context, results = bench_results.load(FIXTURE)
        table = bench_results.ladder_markdown(context, results, 4096)
        rows = [line for line in table.splitlines() if line.startswith("| ")]
        self.assertEqual(rows[0], "| Rung | Kernel | GFLOP/s | % of reference | Reference |")
        self.assertEqual(rows[1], "| ---: | :--- | ---: | ---: | :--- |")
        body = rows[2:]
        self.assertTrue(body[0].startswith("| 0 | cuBLAS | ") and body[0].endswith(" | — | — |"))
        numbers = [int(row.split("|")[1]) for row in body]
        self.assertEqual(numbers, sorted(numbers), "ladder order")
        for r in bench_results.ladder_at(results, 4096):
            row = next(row for row in body if row.startswith(f"| {r.rung} | {r.kernel} |"))
            if r.status == "ok":
                if r.rung > 0:
                    self.assertIn(f"| {r.gflops:.0f} | {r.pct_of_reference:.1f} | cuBLAS |", row)
            else:
                self.assertIn("| skipped | — | cuBLAS |", row)
                self.assertIn(f"- {r.label} skipped: {r.message}", table)

    def test_a_failed_rung_says_so(self):
        data = fixture()
        b = entry(data, "rung:02_")
        for key in ("GFLOP/s", "pct_of_cublas", "label", "skipped", "skip_message"):
            b.pop(key, None)
        b.update(error_occurred=True, error_message="rung 2 (coalesced) failed: exact FAIL: 3")
        with tempfile.TemporaryDirectory() as tmp:
            write_json(os.path.join(tmp, "b.json"), data)
            context, results = bench_results.load(os.path.join(tmp, "b.json"))
        size = next(r.M for r in results if r.rung == 2 and r.square and r.status == "error")
        table = bench_results.ladder_markdown(context, results, size)
        self.assertIn("| 2 | coalesced | FAILED | — | cuBLAS |", table)
        self.assertIn("exact FAIL: 3", table)

    def test_a_size_not_measured_is_a_clear_error(self):
        context, results = bench_results.load(FIXTURE)
        with self.assertRaisesRegex(ladder.Error, "no results at 3x3x3"):
            bench_results.ladder_markdown(context, results, 3)


class ResultsTableScriptTest(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.mkdtemp()
        self.readme = os.path.join(self.tmp, "README.md")
        self.json = os.path.join(self.tmp, "results", "some-gpu", "bench.json")
        write_json(self.json, fixture())
        with open(self.readme, "w") as f:
            f.write(README)

    def tearDown(self):
        shutil.rmtree(self.tmp)

    def table(self, *args):
        return run("results-table", "--readme", self.readme, *args)

    def text(self):
        with open(self.readme) as f:
            return f.read()

    def test_writes_the_block_then_check_passes(self):
        stale = self.table("--check")
        self.assertEqual(stale.returncode, 1)
        self.assertIn("-stale", stale.stdout)  # the diff
        self.assertIn("scripts/results-table", stale.stderr)
        self.assertEqual(self.table().returncode, 0)
        text = self.text()
        self.assertTrue(text.startswith("# Title\n\nIntro.\n\n<!-- results-table:begin -->\n"))
        self.assertTrue(text.endswith("<!-- results-table:end -->\n\nRest.\n"))
        self.assertIn("| 0 | cuBLAS |", text)
        self.assertIn("(results/some-gpu/bench.json)", text)
        self.assertNotIn("gflops_square.png", text)  # no plot beside the JSON yet
        self.assertEqual(self.table("--check").returncode, 0, self.table("--check").stdout)

    def test_check_fails_when_a_number_is_edited(self):
        self.table()
        text = self.text()
        with open(self.readme, "w") as f:
            f.write(text.replace("| 0 | cuBLAS | ", "| 0 | cuBLAS | 1"))
        p = self.table("--check")
        self.assertEqual(p.returncode, 1)
        self.assertIn("-| 0 | cuBLAS", p.stdout)
        self.assertIn("+| 0 | cuBLAS", p.stdout)

    def test_shows_the_plot_when_it_exists(self):
        open(os.path.join(os.path.dirname(self.json), "gflops_square.png"), "w").close()
        self.table()
        self.assertIn("](results/some-gpu/gflops_square.png)", self.text())

    def test_markers_without_json_fail_clearly(self):
        os.remove(self.json)
        p = self.table("--check")
        self.assertEqual(p.returncode, 1)
        self.assertIn("does not exist", p.stderr)

    def test_the_marker_names_the_json_when_there_are_several(self):
        write_json(os.path.join(self.tmp, "results", "other-gpu", "bench.json"), fixture())
        p = self.table("--check")
        self.assertEqual(p.returncode, 1)
        self.assertIn("several", p.stderr)
        with open(self.readme, "w") as f:
            f.write(README.replace("begin -->", "begin results/other-gpu/bench.json -->"))
        self.assertEqual(self.table().returncode, 0)
        self.assertIn("(results/other-gpu/bench.json)", self.text())

    def test_no_markers_fail_clearly(self):
        with open(self.readme, "w") as f:
            f.write("# Title\n")
        p = self.table("--check")
        self.assertEqual(p.returncode, 1)
        self.assertIn("results-table:begin", p.stderr)


def python3_on_path(folder):
    """An environment whose first python3 on PATH runs this interpreter (as a wrapper, so a
    virtual environment stays one), so scripts/plot can be run the way a user runs it."""
    wrapper = os.path.join(folder, "python3")
    with open(wrapper, "w") as f:
        f.write(f'#!/bin/sh\nexec "{sys.executable}" "$@"\n')
    os.chmod(wrapper, 0o755)
    return dict(os.environ, PATH=folder + os.pathsep + os.environ.get("PATH", ""))


def matplotlib_missing():
    """Why this interpreter cannot draw the pictures, or None when it can."""
    try:
        import matplotlib  # noqa: F401
    except ImportError as e:
        return (f"{sys.executable} cannot import matplotlib ({e}); the picture test needs it: "
                f"`{sys.executable} -m pip install matplotlib`, or on Debian or Ubuntu "
                "`sudo apt-get install python3-matplotlib` and configure with "
                "-DPython3_EXECUTABLE=/usr/bin/python3")
    return None


class PlotScriptTest(unittest.TestCase):
    """scripts/plot without matplotlib (hidden from it here): the table, then a clear error."""

    def test_without_matplotlib_says_how_to_get_it(self):
        with tempfile.TemporaryDirectory() as tmp:
            code = ("import runpy, sys; sys.modules['matplotlib'] = None; "
                    f"sys.argv = ['plot', {FIXTURE!r}, '--out', {tmp!r}]; "
                    f"runpy.run_path({os.path.join(SCRIPTS, 'plot')!r}, run_name='__main__')")
            p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
            self.assertEqual(p.returncode, 1)
            self.assertIn("apt-get install python3-matplotlib", p.stderr)
            self.assertIn("pip install matplotlib", p.stderr)
            self.assertIn(f"{sys.executable} (the python3 that runs it) cannot import", p.stderr)
            self.assertIn("| Rung | Kernel |", p.stdout)  # the table needs no matplotlib
            self.assertTrue(os.path.exists(os.path.join(tmp, "table.md")))
            system = "/usr/bin/python3"  # where Debian's python3-matplotlib goes
            if os.path.realpath(sys.executable) != os.path.realpath(system) and \
                    subprocess.run([system, "-c", "import matplotlib"],
                                   capture_output=True).returncode == 0:
                self.assertIn(f"{system} has it already", p.stderr)

    def test_run_as_a_command_it_names_the_python3_it_found(self):
        with tempfile.TemporaryDirectory() as tmp:
            os.makedirs(os.path.join(tmp, "hide", "matplotlib"))
            with open(os.path.join(tmp, "hide", "matplotlib", "__init__.py"), "w") as f:
                f.write("raise ImportError('hidden by the test')\n")
            env = dict(python3_on_path(tmp), PYTHONPATH=os.path.join(tmp, "hide"))
            p = subprocess.run([os.path.join(SCRIPTS, "plot"), FIXTURE, "--out", tmp],
                               capture_output=True, text=True, env=env)
            self.assertEqual(p.returncode, 1, p.stderr)
            self.assertRegex(p.stderr, "^scripts/plot: needs matplotlib")
            self.assertIn(f"{sys.executable} -m pip install matplotlib", p.stderr)


class PicturesTest(unittest.TestCase):
    """scripts/plot's PNGs; needs matplotlib (run with --pictures: ctest results.plot)."""

    def setUp(self):
        missing = matplotlib_missing()
        if missing:
            self.skipTest(missing)

    def check_pictures(self, folder):
        for name in ("gflops_square.png", "percent_of_cublas_4096.png", "gflops_nonsquare.png"):
            with open(os.path.join(folder, name), "rb") as f:
                self.assertEqual(f.read(8), b"\x89PNG\r\n\x1a\n", name)
        with open(os.path.join(folder, "table.md")) as f:
            context, results = bench_results.load(FIXTURE)
            self.assertEqual(f.read(), bench_results.ladder_markdown(context, results, 4096))

    def test_writes_the_pictures(self):
        with tempfile.TemporaryDirectory() as tmp:
            p = run("plot", FIXTURE, "--out", tmp)
            self.assertEqual(p.returncode, 0, p.stderr)
            self.check_pictures(tmp)

    def test_runs_with_the_python3_first_on_path(self):
        with tempfile.TemporaryDirectory() as tmp:
            p = subprocess.run([os.path.join(SCRIPTS, "plot"), FIXTURE, "--out", tmp,
                                "--size", "1024"], capture_output=True, text=True,
                               env=python3_on_path(tmp))
            self.assertEqual(p.returncode, 0, p.stderr)
            self.assertTrue(os.path.exists(os.path.join(tmp, "percent_of_cublas_1024.png")))
            self.assertIn("wrote ", p.stdout)


SKIPPED = 77  # ctest: SKIP_RETURN_CODE of results.plot

if __name__ == "__main__":
    if sys.argv[1:] == ["--pictures"]:
        missing = matplotlib_missing()
        if missing:
            print(f"SGEMM-SKIPPED: {missing}")
            sys.exit(SKIPPED)
        unittest.main(argv=sys.argv[:1], defaultTest="PicturesTest", verbosity=2)
    everything_else = [name for name, value in list(globals().items())
                       if isinstance(value, type) and issubclass(value, unittest.TestCase)
                       and value is not PicturesTest]
    unittest.main(defaultTest=everything_else, verbosity=2)
