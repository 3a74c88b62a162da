"""CPU tests of scripts/bench_results.py (the ladder table), scripts/results-table,
scripts/plot and what it shares (scripts/sgemm_tools: plots, pythons). Standard library only,
but for the pictures, which need matplotlib:

    python3 tests/results_scripts_test.py             everything else (ctest: results.scripts)
    python3 tests/results_scripts_test.py --pictures  scripts/plot's PNGs (ctest: results.plot)

With --pictures it runs under the Python that scripts/plot would draw with (the same search,
sgemm_tools/pythons.py); when no Python here can import matplotlib, it prints why and exits
77, which ctest reports as Skipped (SKIP_RETURN_CODE in tests/results.cmake).

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
import stat
import struct
import subprocess
import sys
import tempfile
import unittest
import zlib

ROOT = os.path.dirname(os.path.dirname(os.path.realpath(__file__)))
SCRIPTS = os.path.join(ROOT, "scripts")
FIXTURE = os.path.join(ROOT, "tests", "data", "bench_fixture.json")
sys.path.insert(0, SCRIPTS)
import bench_results  # noqa: E402
import ladder  # noqa: E402
from sgemm_tools import plots, pythons  # noqa: E402

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


def python3_on_path(folder, python=sys.executable):
    """An environment whose first python3 on PATH runs `python` (as a wrapper, so a virtual
    environment stays one), so scripts/plot can be run the way a user runs it."""
    wrapper = os.path.join(folder, "python3")
    with open(wrapper, "w") as f:
        f.write(f'#!/bin/sh\nexec "{python}" "$@"\n')
    os.chmod(wrapper, 0o755)
    return dict(os.environ, PATH=folder + os.pathsep + os.environ.get("PATH", ""))


def hide_matplotlib(folder):
    """An environment in which no Python can import matplotlib (PYTHONPATH shadows it)."""
    os.makedirs(os.path.join(folder, "hide", "matplotlib"))
    with open(os.path.join(folder, "hide", "matplotlib", "__init__.py"), "w") as f:
        f.write("raise ImportError('hidden by the test')\n")
    return dict(os.environ, PYTHONPATH=os.path.join(folder, "hide"))


def png_with_text(path, texts):
    """A 1x1 PNG with tEXt chunks, written with the standard library."""
    def chunk(kind, body):
        return (struct.pack(">I", len(body)) + kind + body +
                struct.pack(">I", zlib.crc32(kind + body) & 0xffffffff))
    text = b"".join(chunk(b"tEXt", k.encode("latin-1") + b"\0" + v.encode("latin-1"))
                    for k, v in texts.items())
    with open(path, "wb") as f:
        f.write(b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", 1, 1, 8, 0, 0, 0, 0))
                + text + chunk(b"IDAT", zlib.compress(b"\0\0")) + chunk(b"IEND", b""))


class PlotDataTest(unittest.TestCase):
    """What the pictures show (sgemm_tools/plots.py), standard library only."""

    def setUp(self):
        self.context, self.results = bench_results.load(FIXTURE)

    def test_powers_of_two_are_the_line_and_other_sizes_stand_apart(self):
        data = fixture()
        for b in data["benchmarks"]:  # 1000 beside 1024: must not share a line
            if "/1024x1024x1024/" in b["name"]:
                data["benchmarks"].append(dict(copy.deepcopy(b), name=b["name"].replace(
                    "1024x1024x1024", "1000x1000x1000"), run_name=b["run_name"].replace(
                    "1024x1024x1024", "1000x1000x1000")))
        with tempfile.TemporaryDirectory() as tmp:
            write_json(os.path.join(tmp, "b.json"), data)
            context, results = bench_results.load(os.path.join(tmp, "b.json"))
        square = plots.square(context, results)
        self.assertIn(context["gpu"], square["gpu"])
        for series in square["series"]:
            self.assertTrue(all(plots.power_of_two(n) for n, _ in series["powers_of_two"]))
            self.assertEqual([n for n, _ in series["other_sizes"]],
                             [1000] if any(n == 1024 for n, _ in series["powers_of_two"])
                             else [])
        self.assertEqual([s["rung"] for s in square["series"]],
                         sorted({r.rung for r in results if r.square and r.status == "ok"}))

    def test_percent_and_nonsquare(self):
        bars = plots.percent(self.context, self.results, 4096)["bars"]
        rungs = [r.rung for r in bench_results.ladder_at(self.results, 4096) if r.rung > 0]
        self.assertEqual([b["rung"] for b in bars], rungs)
        self.assertTrue(any(b["status"] == "skipped" and b["pct"] is None for b in bars))
        nonsquare = plots.nonsquare(self.context, self.results)
        self.assertEqual(nonsquare["shapes"], ["512x4096x1024"])
        self.assertTrue(all(len(s["gflops"]) == 1 for s in nonsquare["series"]))
        self.assertIsNone(plots.percent(self.context, self.results, 3))
        self.assertEqual(set(plots.pictures(self.context, self.results, 4096)),
                         {"gflops_square.png", "percent_of_cublas_4096.png",
                          "gflops_nonsquare.png"})

    def test_a_png_carries_its_data(self):
        with tempfile.TemporaryDirectory() as tmp:
            path = os.path.join(tmp, "p.png")
            data = plots.square(self.context, self.results)
            png_with_text(path, {"Software": "test", plots.DATA_KEY: plots.encode(data)})
            self.assertEqual(json.loads(plots.png_texts(path)[plots.DATA_KEY]), data)


class CommittedPlotsTest(unittest.TestCase):
    """scripts/plot --check: a committed table.md or picture that its JSON no longer gives
    fails, with the difference; standard library only."""

    def setUp(self):
        self.tmp = tempfile.mkdtemp()
        self.folder = os.path.join(self.tmp, "results", "gpu")
        self.json = os.path.join(self.folder, "bench.json")
        write_json(self.json, fixture())
        context, results = bench_results.load(self.json)
        with open(os.path.join(self.folder, "table.md"), "w") as f:
            f.write(bench_results.ladder_markdown(context, results, 4096))
        for name, data in plots.pictures(context, results, 4096).items():
            png_with_text(os.path.join(self.folder, name), {plots.DATA_KEY: plots.encode(data)})

    def tearDown(self):
        shutil.rmtree(self.tmp)

    def check(self):
        return run("plot", "--check", self.json)

    def test_current_files_pass(self):
        p = self.check()
        self.assertEqual(p.returncode, 0, p.stdout + p.stderr)

    def test_an_edited_table_fails(self):
        with open(os.path.join(self.folder, "table.md"), "a") as f:
            f.write("stale\n")
        p = self.check()
        self.assertEqual(p.returncode, 1)
        self.assertIn("-stale", p.stdout)
        self.assertIn("table.md", p.stderr)

    def test_new_numbers_in_the_json_make_the_pictures_stale(self):
        data = fixture()
        entry(data, "rung:02_")["GFLOP/s"] = 12345678.0
        write_json(self.json, data)
        p = self.check()
        self.assertEqual(p.returncode, 1)
        self.assertIn("12345678.0", p.stdout)  # the difference, as the data it plots
        self.assertIn("gflops_square.png", p.stderr)
        self.assertIn("scripts/plot --in-place", p.stderr)

    def test_a_picture_without_data_fails(self):
        png_with_text(os.path.join(self.folder, "gflops_square.png"), {"Software": "old"})
        p = self.check()
        self.assertEqual(p.returncode, 1)
        self.assertIn("gflops_square.png: carries no data", p.stdout)

    def test_in_place_leaves_pictures_whose_data_is_unchanged(self):
        # A matplotlib that fails when anything is drawn: --in-place must not draw a picture
        # that already carries its data (another matplotlib would write other bytes).
        fake = os.path.join(self.tmp, "fake", "matplotlib")
        os.makedirs(fake)
        with open(os.path.join(fake, "__init__.py"), "w") as f:
            f.write("def use(*args, **kwargs):\n    pass\n")
        with open(os.path.join(fake, "pyplot.py"), "w") as f:
            f.write("def __getattr__(name):\n    raise RuntimeError('drew with ' + name)\n")
        env = dict(os.environ, PYTHONPATH=os.path.dirname(fake))
        pictures = sorted(n for n in os.listdir(self.folder) if n.endswith(".png"))

        def contents():
            return {n: open(os.path.join(self.folder, n), "rb").read() for n in pictures}
        before = contents()
        p = subprocess.run([sys.executable, os.path.join(SCRIPTS, "plot"), "--in-place",
                            self.json], capture_output=True, text=True, env=env)
        self.assertEqual(p.returncode, 0, p.stdout + p.stderr)
        self.assertIn("left alone", p.stdout)
        self.assertEqual(contents(), before)
        data = fixture()  # new numbers: now it must draw
        entry(data, "rung:02_")["GFLOP/s"] = 12345678.0
        write_json(self.json, data)
        p = subprocess.run([sys.executable, os.path.join(SCRIPTS, "plot"), "--in-place",
                            self.json], capture_output=True, text=True, env=env)
        self.assertNotEqual(p.returncode, 0)
        self.assertIn("drew with", p.stderr)


class PythonsTest(unittest.TestCase):
    """Which Python scripts/plot draws with (sgemm_tools/pythons.py), on stand-ins."""

    def setUp(self):
        self.tmp = tempfile.mkdtemp()

    def tearDown(self):
        shutil.rmtree(self.tmp)

    def python(self, folder, name, has_it):
        """A stand-in interpreter: `-c "import matplotlib"` succeeds only when `has_it`."""
        os.makedirs(os.path.join(self.tmp, folder), exist_ok=True)
        path = os.path.join(self.tmp, folder, name)
        with open(path, "w") as f:
            f.write("#!/bin/sh\n" + ("exit 0\n" if has_it else "exit 1\n"))
        os.chmod(path, os.stat(path).st_mode | stat.S_IXUSR)
        return path

    def test_every_python3_on_path_then_the_system_one_then_versioned_ones(self):
        a = self.python("a", "python3", False)
        b = self.python("b", "python3", False)
        b12 = self.python("b", "python3.12", False)
        a9 = self.python("a", "python3.9", False)
        self.python("a", "python3.12-config", False)
        path = os.pathsep.join(os.path.join(self.tmp, d) for d in ("a", "b"))
        found = [p for p in pythons.candidates(path) if p != pythons.SYSTEM_PYTHON]
        self.assertEqual(found, [a, b, b12, a9])
        if os.path.exists(pythons.SYSTEM_PYTHON):
            self.assertEqual(pythons.candidates(path).index(pythons.SYSTEM_PYTHON), 2)

    def test_the_first_that_can_import_it(self):
        self.python("a", "python3", False)
        good = self.python("b", "python3", True)
        self.python("c", "python3", True)
        path = os.pathsep.join(os.path.join(self.tmp, d) for d in ("a", "b", "c"))
        python, tried = pythons.find("no_such_module_here", path)
        if python == pythons.SYSTEM_PYTHON:
            self.skipTest("the system python3 can import a module that does not exist")
        self.assertEqual(python, good)
        self.assertEqual(tried[-2:], [os.path.join(self.tmp, "a", "python3"), good])

    def test_a_script_run_again_does_not_look_further(self):
        self.python("b", "python3", True)
        os.environ[pythons.RERUN] = "x"
        python, tried = pythons.find("no_such_module_here", os.path.join(self.tmp, "b"))
        self.assertIsNone(python)
        self.assertEqual(tried, [sys.executable])
        self.assertNotIn(pythons.RERUN, os.environ, "the programs it runs look again")


class PlotScriptTest(unittest.TestCase):
    """scripts/plot where no Python can import matplotlib: the table, then a clear error; and
    where its output goes."""

    def test_without_matplotlib_says_how_to_get_it(self):
        with tempfile.TemporaryDirectory() as tmp:
            p = subprocess.run([sys.executable, os.path.join(SCRIPTS, "plot"), FIXTURE, "--out",
                                tmp], capture_output=True, text=True, env=hide_matplotlib(tmp))
            self.assertEqual(p.returncode, 1, p.stderr)
            self.assertRegex(p.stderr, "^scripts/plot: needs matplotlib")
            self.assertIn("apt-get install python3-matplotlib", p.stderr)
            self.assertIn("pip install matplotlib", p.stderr)
            self.assertIn(f"tried: {sys.executable}, ", p.stderr)  # then the others
            self.assertIn("| Rung | Kernel |", p.stdout)  # the table needs no matplotlib
            self.assertTrue(os.path.exists(os.path.join(tmp, "table.md")))

    def test_run_as_a_command_it_names_the_pythons_it_tried(self):
        with tempfile.TemporaryDirectory() as tmp:
            env = dict(python3_on_path(tmp), PYTHONPATH=hide_matplotlib(tmp)["PYTHONPATH"])
            p = subprocess.run([os.path.join(SCRIPTS, "plot"), FIXTURE, "--out", tmp],
                               capture_output=True, text=True, env=env)
            self.assertEqual(p.returncode, 1, p.stderr)
            self.assertIn(f"tried: {sys.executable}, {os.path.join(tmp, 'python3')}", p.stderr)

    def test_the_default_output_is_under_build_not_beside_the_json(self):
        with tempfile.TemporaryDirectory(prefix="sgemm_plot_", dir=None) as tmp:
            folder = os.path.join(tmp, "results", os.path.basename(tmp))
            write_json(os.path.join(folder, "bench.json"), fixture())
            out = os.path.join(ROOT, "build", "plots", os.path.basename(tmp))
            try:
                run_env = hide_matplotlib(tmp)
                subprocess.run([sys.executable, os.path.join(SCRIPTS, "plot"),
                                os.path.join(folder, "bench.json")], capture_output=True,
                               text=True, env=run_env)
                self.assertEqual(os.listdir(folder), ["bench.json"], "nothing beside the JSON")
                self.assertTrue(os.path.exists(os.path.join(out, "table.md")))
            finally:
                shutil.rmtree(out, ignore_errors=True)

    def test_in_place_and_out_are_one_or_the_other(self):
        p = run("plot", FIXTURE, "--in-place", "--out", "x")
        self.assertEqual(p.returncode, 2)
        self.assertIn("not allowed with", p.stderr)


class PicturesTest(unittest.TestCase):
    """scripts/plot's PNGs; needs matplotlib (run with --pictures: ctest results.plot)."""

    def setUp(self):
        if not pythons.importable_here("matplotlib"):
            self.skipTest(f"{sys.executable} cannot import matplotlib: run with --pictures")

    def check_pictures(self, folder):
        context, results = bench_results.load(FIXTURE)
        for name, data in plots.pictures(context, results, 4096).items():
            with open(os.path.join(folder, name), "rb") as f:
                self.assertEqual(f.read(8), b"\x89PNG\r\n\x1a\n", name)
            self.assertEqual(json.loads(plots.png_texts(os.path.join(folder, name))[
                plots.DATA_KEY]), data, name)
        with open(os.path.join(folder, "table.md")) as f:
            self.assertEqual(f.read(), bench_results.ladder_markdown(context, results, 4096))

    def test_writes_the_pictures_with_their_data(self):
        with tempfile.TemporaryDirectory() as tmp:
            p = run("plot", FIXTURE, "--out", tmp)
            self.assertEqual(p.returncode, 0, p.stderr)
            self.check_pictures(tmp)

    def test_in_place_writes_what_check_accepts(self):
        with tempfile.TemporaryDirectory() as tmp:
            json_path = os.path.join(tmp, "bench.json")
            shutil.copy(FIXTURE, json_path)
            p = run("plot", "--in-place", json_path)
            self.assertEqual(p.returncode, 0, p.stderr)
            self.check_pictures(tmp)
            p = run("plot", "--check", json_path)
            self.assertEqual(p.returncode, 0, p.stdout + p.stderr)

    def test_a_python3_first_on_path_without_matplotlib_hands_over(self):
        """As with pyenv before /usr/bin/python3: the script runs again under one that has it."""
        with tempfile.TemporaryDirectory() as tmp:
            first, later = os.path.join(tmp, "first"), os.path.join(tmp, "later")
            os.makedirs(first)
            os.makedirs(later)
            with open(os.path.join(first, "python3"), "w") as f:  # this Python, matplotlib blocked
                f.write(f'#!/bin/sh\nexec "{sys.executable}" -c "import runpy, sys; '
                        "sys.modules['matplotlib'] = None; sys.argv = sys.argv[1:]; "
                        "runpy.run_path(sys.argv[0], run_name='__main__')\" \"$@\"\n")
            os.chmod(os.path.join(first, "python3"), 0o755)
            env = python3_on_path(later)
            env["PATH"] = first + os.pathsep + env["PATH"]
            p = subprocess.run([os.path.join(SCRIPTS, "plot"), FIXTURE, "--out", tmp,
                                "--size", "1024"], capture_output=True, text=True, env=env)
            self.assertEqual(p.returncode, 0, p.stderr)
            self.assertIn(f"running under {os.path.join(later, 'python3')}", p.stderr)
            self.assertTrue(os.path.exists(os.path.join(tmp, "percent_of_cublas_1024.png")))


SKIPPED = 77  # ctest: SKIP_RETURN_CODE of results.plot

if __name__ == "__main__":
    if sys.argv[1:] == ["--pictures"]:
        python, tried = pythons.find("matplotlib")  # as scripts/plot finds it
        if python is None:
            print(f"SGEMM-SKIPPED: no Python here can import matplotlib (tried: "
                  f"{', '.join(tried)}); the picture test needs it: on Debian or Ubuntu "
                  "`sudo apt-get install python3-matplotlib`, elsewhere "
                  "`python3 -m pip install matplotlib`")
            sys.exit(SKIPPED)
        if python != sys.executable:
            pythons.run_under(python, __file__)
        unittest.main(argv=sys.argv[:1], defaultTest="PicturesTest", verbosity=2)
    everything_else = [name for name, value in list(globals().items())
                       if isinstance(value, type) and issubclass(value, unittest.TestCase)
                       and value is not PicturesTest]
    unittest.main(defaultTest=everything_else, verbosity=2)
