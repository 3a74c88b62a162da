#!/usr/bin/env python3
"""scripts/roofline catches a stale README picture: on a copy of the data it is drawn from, a
planted change to a rung's rate, to a ceiling's spec or to the moduli in the code makes
`--check` fail and name what changed; a picture edited by hand or missing fails too; drawing is
deterministic; and the picture is legible at 1:1 (no text under 11 px, nothing outside it).

    python3 tests/roofline_test.py        (ctest: results.roofline_planted, label cpu)
"""
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import unittest

ROOT = os.path.dirname(os.path.dirname(os.path.realpath(__file__)))
SCRIPT = os.path.join(ROOT, "scripts", "roofline")
PICTURE = os.path.join("results", "h200", "roofline.svg")
COPIED = [os.path.join("results", "h200", name) for name in
          ("bench.json", "spec.json", "roofline.svg")] + [os.path.join("kernels",
                                                                       "16_ozaki_int8.cu")]
# The mean width of a character of a sans-serif face, in ems, a little over DejaVu Sans's (what
# rsvg and many browsers fall back to, wider than Helvetica; its bold came to 0.6 em a
# character over this picture's longest label): a label is estimated no narrower than it is.
EM, EM_BOLD = 0.6, 0.64


def run(*args):
    return subprocess.run([sys.executable, SCRIPT, *args], capture_output=True, text=True)


class Planted(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="roofline_test_")
        for rel in COPIED:
            os.makedirs(os.path.dirname(os.path.join(self.tmp, rel)), exist_ok=True)
            shutil.copy(os.path.join(ROOT, rel), os.path.join(self.tmp, rel))

    def tearDown(self):
        shutil.rmtree(self.tmp)

    def edit(self, rel, change):
        path = os.path.join(self.tmp, rel)
        with open(path, encoding="utf-8") as f:
            text = f.read()
        new = change(text)
        self.assertNotEqual(new, text, f"the plant changed nothing in {rel}: update this test")
        with open(path, "w", encoding="utf-8") as f:
            f.write(new)

    def check(self):
        return run("--check", "--root", self.tmp)

    def assertStale(self, *names):
        p = self.check()
        self.assertEqual(p.returncode, 1, p.stdout + p.stderr)
        for name in names:
            self.assertRegex(p.stdout, r"\b" + re.escape(name) + r" \S+ -> \S+")
        return p.stdout

    def test_the_copy_matches(self):
        p = self.check()
        self.assertEqual(p.returncode, 0, p.stdout + p.stderr)

    def test_a_rungs_rate(self):
        def slower(text):
            data = json.loads(text)
            for b in data["benchmarks"]:
                if b["name"].startswith("sgemm/rung:14_wgmma_3xtf32/4096x4096x4096/"):
                    b["GFLOP/s"] = b.get("GFLOP/s", 0) / 2
                    b["pct_of_reference"] = b["pct_of_reference"] / 2
            return json.dumps(data)
        self.edit(os.path.join("results", "h200", "bench.json"), slower)
        self.assertStale("rung14")

    def test_a_spec(self):
        self.edit(os.path.join("results", "h200", "spec.json"),
                  lambda t: t.replace('"int8_tensor_tops_with_sparsity": 3958',
                                      '"int8_tensor_tops_with_sparsity": 3000'))
        self.assertStale("int8")

    def test_the_moduli(self):
        self.edit(os.path.join("kernels", "16_ozaki_int8.cu"),
                  lambda t: t.replace("constexpr int kLadderModuli = 7;",
                                      "constexpr int kLadderModuli = 6;"))
        self.assertStale("moduli")

    def test_edited_by_hand(self):
        self.edit(PICTURE, lambda t: t.replace("#1f78b4", "#1f78b5", 1))
        self.assertIn("differs from a fresh drawing", self.check().stdout)

    def test_missing(self):
        os.remove(os.path.join(self.tmp, PICTURE))
        p = self.check()
        self.assertEqual(p.returncode, 1)
        self.assertIn("missing", p.stdout)

    def test_drawing_writes_what_check_wants(self):
        os.remove(os.path.join(self.tmp, PICTURE))
        self.assertEqual(run("--root", self.tmp).returncode, 0)
        self.assertEqual(self.check().returncode, 0)
        with open(os.path.join(self.tmp, PICTURE), encoding="utf-8") as a, \
                open(os.path.join(ROOT, PICTURE), encoding="utf-8") as b:
            self.assertEqual(a.read(), b.read())


class Legible(unittest.TestCase):
    """The committed picture at 1:1: every text at least 11 px, every element inside it."""

    @classmethod
    def setUpClass(cls):
        with open(os.path.join(ROOT, PICTURE), encoding="utf-8") as f:
            cls.svg = f.read()
        m = re.search(r'<svg [^>]*width="(\d+)" height="(\d+)"', cls.svg)
        cls.width, cls.height = int(m[1]), int(m[2])

    def texts(self):
        for m in re.finditer(r"<text ([^>]*)>([^<]*)</text>", self.svg):
            attrs = dict(re.findall(r'([a-z-]+)="([^"]*)"', m[1]))
            yield attrs, m[2].replace("&amp;", "&").replace("&lt;", "<").replace("&gt;", ">")

    def test_no_small_text(self):
        sizes = [float(a["font-size"]) for a, _ in self.texts()]
        self.assertTrue(sizes)
        self.assertGreaterEqual(min(sizes), 11)

    def test_text_inside(self):
        for a, s in self.texts():
            x, y, size = float(a["x"]), float(a["y"]), float(a["font-size"])
            length = len(s) * size * (EM_BOLD if a.get("font-weight") == "bold" else EM)
            start = {"start": 0, "middle": 0.5, "end": 1}[a.get("text-anchor", "start")]
            lo, hi = -start * length, (1 - start) * length
            if "rotate" in a.get("transform", ""):  # reads upward: along -y
                self.assertGreaterEqual(y - hi, 0, s)
                self.assertLessEqual(y - lo, self.height, s)
                self.assertTrue(size <= x <= self.width, s)
            else:
                self.assertGreaterEqual(x + lo, 0, s)
                self.assertLessEqual(x + hi, self.width, s)
                self.assertTrue(size <= y <= self.height, s)

    def test_shapes_inside(self):
        for m in re.finditer(r'<(line|rect) ([^>]*)/>', self.svg):
            a = dict(re.findall(r'([a-z0-9-]+)="([^"]*)"', m[2]))
            xs = [float(a[k]) for k in ("x", "x1", "x2") if k in a]
            ys = [float(a[k]) for k in ("y", "y1", "y2") if k in a]
            if "width" in a:
                xs.append(float(a["x"]) + float(a["width"]))
                ys.append(float(a["y"]) + float(a["height"]))
            self.assertTrue(all(0 <= x <= self.width for x in xs), m[0])
            self.assertTrue(all(0 <= y <= self.height for y in ys), m[0])


if __name__ == "__main__":
    unittest.main()
