#!/usr/bin/env python3
"""CPU tests of the checks that keep docs 00-19 true: scripts/docs-facts (facts computed from
the kernels, tests/sass_expectations.json and the committed sweeps) and scripts/docs-lint
(the template, the numbers, the comment share), on a fixture doc in a temporary tree.

    python3 tests/docs_checks_test.py        (ctest: docs.checks_script, label cpu)

The fixture passes every check; each test plants one error of a kind a doc can carry (a
wrong register split, a wrong instruction claim, an instruction count or a per-k-step count
the SASS facts do not hold, a number that disagrees with the committed JSON it cites, a number
in no committed JSON, a missing heading, ...) and expects the check to fail and to name the line.
"""
import contextlib
import importlib.machinery
import importlib.util
import io
import json
import os
import re
import subprocess
import sys
import tempfile
import unittest
import unittest.mock

ROOT = os.path.dirname(os.path.dirname(os.path.realpath(__file__)))
SCRIPTS = os.path.join(ROOT, "scripts")
sys.path.insert(0, SCRIPTS)
import ladder  # noqa: E402
from sgemm_tools import code_facts, data_facts, doc_lint, sass_facts  # noqa: E402

BENCH = "results/h200/bench.json"
SASS = "results/sass/sm_90.json"  # the committed SASS facts (ctest sass.facts holds them)
KSTEP_RUNG = 13  # a rung whose main loop is a number of mma k-steps
RUNG = 10
SHAPE = "4096x4096x4096"


def run(script, *args):
    return subprocess.run([sys.executable, os.path.join(SCRIPTS, script), *args],
                          capture_output=True, text=True)


def load_script(script):
    """A script of scripts/ (no .py suffix) as a module."""
    loader = importlib.machinery.SourceFileLoader(script.replace("-", "_"),
                                                  os.path.join(SCRIPTS, script))
    module = importlib.util.module_from_spec(importlib.util.spec_from_loader(loader.name, loader))
    loader.exec_module(module)
    return module


def fixture():
    """A doc 10 that follows the template, with every kind of fact and a measured number."""
    rung = ladder.rung(RUNG)
    pct = data_facts.bench(BENCH, RUNG, SHAPE)
    ffma, split = code_facts.ffma_per_pass(rung), code_facts.register_split(rung)
    claim = code_facts.sass_holds(rung, "LDGSTS")
    instructions = sass_facts.count(SASS, RUNG, "instructions")
    kstep = sass_facts.per_kstep(SASS, KSTEP_RUNG, "instructions")
    registers = sass_facts.count(SASS, KSTEP_RUNG, "registers", "kernel")
    return f"""# {RUNG:02d} · A fixture

One line on what this rung changes.

## What you know

The rung before.

## The idea

![the ring](pictures/{RUNG:02d}_fixture.svg)

## Napkin math

Each consumer thread issues <!-- fact:ffma-per-pass {RUNG} -->{ffma}<!-- /fact -->
FFMA a pass of the main loop.

## The code

The producer keeps <!-- fact:register-split {RUNG} -->{split}<!-- /fact -->
registers (producer/consumer).

## Evidence

The SASS tests require <!-- fact:sass-holds {RUNG} LDGSTS -->{claim}<!-- /fact -->.
A pass of the main loop is <!-- fact:sass {SASS} {RUNG} instructions -->{instructions}<!-- /fact -->
instructions ([{SASS}](../{SASS})); rung {KSTEP_RUNG}'s k-step is
<!-- fact:sass-kstep {SASS} {KSTEP_RUNG} instructions -->{kstep}<!-- /fact --> instructions, in
<!-- fact:sass {SASS} {KSTEP_RUNG} registers kernel -->{registers}<!-- /fact --> registers.
On the H200 rung {RUNG} reached <!-- fact:bench {BENCH} {RUNG} {SHAPE} -->{pct}<!-- /fact -->
of cuBLAS at 4096³, and in prose: rung {RUNG} at {pct} of cuBLAS ({BENCH}).
A share that is no measurement: 12.5% of the lanes. <!-- number-ok: arithmetic -->

```
a code block may say 12.3456% and ## Heading
```

## Caveat

The limit.

## Next

The bridge.

> **Try it.** A knob, a command, what to expect.

## Appendix: history

Anything: 12.3456% here is not checked.
"""


class Tree:
    """A temporary tree with docs/10_fixture.md, its picture, and the real results/."""

    def __init__(self, text):
        self.dir = tempfile.TemporaryDirectory()
        self.root = self.dir.name
        os.makedirs(os.path.join(self.root, "docs", "pictures"))
        os.symlink(os.path.join(ROOT, "results"), os.path.join(self.root, "results"))
        with open(os.path.join(self.root, "docs", "pictures", f"{RUNG:02d}_fixture.svg"), "w") as f:
            f.write("<svg xmlns='http://www.w3.org/2000/svg'/>\n")
        self.doc = os.path.join(self.root, "docs", f"{RUNG:02d}_fixture.md")
        with open(self.doc, "w") as f:
            f.write(text)

    def facts(self):
        return run("docs-facts", "--check", "--root", self.root)

    def lint(self, check):
        return run("docs-lint", check, "--root", self.root)


def line_of(text, needle):
    return text[:text.index(needle)].count("\n") + 1


class FixtureTest(unittest.TestCase):
    def setUp(self):
        self.text = fixture()

    def tree(self, text):
        tree = Tree(text)
        self.addCleanup(tree.dir.cleanup)
        return tree

    def assertFails(self, result, *needles):
        self.assertEqual(result.returncode, 1, result.stdout + result.stderr)
        for needle in needles:
            self.assertIn(needle, result.stderr)

    def test_good_fixture_passes(self):
        tree = self.tree(self.text)
        for result in (tree.facts(), tree.lint("template"), tree.lint("numbers")):
            self.assertEqual(result.returncode, 0, result.stdout + result.stderr)

    def test_planted_register_split(self):
        split = code_facts.register_split(ladder.rung(RUNG))
        text = self.text.replace(f"-->{split}<", "-->24/240<")
        self.assertNotEqual(text, self.text)
        self.assertFails(self.tree(text).facts(),
                         f":{line_of(text, '24/240')}: fact:register-split {RUNG} says '24/240'",
                         f"'{split}'")

    def test_planted_instruction_claim(self):
        claim = code_facts.sass_holds(ladder.rung(RUNG), "LDGSTS")
        text = self.text.replace(claim, "no `LDGSTS` in the kernel")
        self.assertNotEqual(text, self.text)
        self.assertFails(self.tree(text).facts(),
                         f"fact:sass-holds {RUNG} LDGSTS says 'no `LDGSTS`")

    def test_planted_ffma_count(self):
        count = code_facts.ffma_per_pass(ladder.rung(RUNG))
        text = self.text.replace(f"-->{count}<", f"-->{2 * int(count)}<")
        self.assertFails(self.tree(text).facts(), f"fact:ffma-per-pass {RUNG} says")

    def test_planted_instruction_count(self):
        # a count the doc states that the SASS (its committed facts) does not hold
        count = sass_facts.count(SASS, RUNG, "instructions")
        planted = str(int(count.replace(",", "")) + 7)
        text = self.text.replace(f"instructions -->{count}<", f"instructions -->{planted}<")
        self.assertNotEqual(text, self.text)
        self.assertFails(self.tree(text).facts(),
                         f":{line_of(text, planted)}: fact:sass {SASS} {RUNG} instructions says "
                         f"'{planted}'", f"'{count}'")

    def test_planted_kstep_count(self):
        # doc 13's stale "about 330 instructions" a k-step, where the SASS says otherwise
        count = sass_facts.per_kstep(SASS, KSTEP_RUNG, "instructions")
        text = self.text.replace(f"instructions -->{count}<", "instructions -->330<")
        self.assertNotEqual(text, self.text)
        self.assertFails(self.tree(text).facts(),
                         f":{line_of(text, '>330<')}: fact:sass-kstep {SASS} {KSTEP_RUNG} "
                         "instructions says '330'", f"'{count}'")

    def test_planted_number_disagreeing_with_its_json(self):
        # a number in a fact that cites a committed JSON, which says another
        registers = sass_facts.count(SASS, KSTEP_RUNG, "registers", "kernel")
        text = self.text.replace(f"kernel -->{registers}<", "kernel -->254<")
        self.assertNotEqual(text, self.text)
        self.assertFails(self.tree(text).facts(),
                         f"fact:sass {SASS} {KSTEP_RUNG} registers kernel says '254'")
        pct = data_facts.bench(BENCH, RUNG, SHAPE)
        text = self.text.replace(f"{SHAPE} -->{pct}<", f"{SHAPE} -->{pct[:-1]}1%<")
        self.assertNotEqual(text, self.text)
        self.assertFails(self.tree(text).facts(), f"fact:bench {BENCH} {RUNG} {SHAPE} says")

    def test_planted_number_not_in_the_data(self):
        pct, _ = doc_lint.Measured(ROOT).allowed(self.text, {RUNG, RUNG - 1})
        absent = next(f"{v / 10:.1f}" for v in range(500, 1000) if f"{v / 10:.1f}" not in pct)
        text = self.text.replace("The bridge.", f"The bridge: rung {RUNG} reached {absent}%.")
        self.assertFails(self.tree(text).lint("numbers"),
                         f":{line_of(text, absent)}: {absent}% is in no committed")
        allowed = text.replace(f"{absent}%.", f"{absent}%. <!-- number-ok: a prediction -->")
        self.assertEqual(self.tree(allowed).lint("numbers").returncode, 0)

    def test_planted_readme_number_not_in_the_data(self):
        # the README is checked as the docs are: a ratio in no committed JSON fails
        tree = self.tree(self.text)
        readme = os.path.join(tree.root, "README.md")
        pct = data_facts.bench(BENCH, RUNG, SHAPE)
        with open(readme, "w") as f:
            f.write(f"# A front door\n\nRung {RUNG} reaches {pct} of cuBLAS at 4096³.\n")
        self.assertEqual(tree.lint("numbers").returncode, 0)
        with open(readme, "a") as f:
            f.write("The one call runs 9.87× cuBLAS SGEMM at 128³.\n")
        self.assertFails(tree.lint("numbers"), "README.md:4: 9.87×")

    def test_planted_ratio_not_in_the_data(self):
        text = self.text.replace("The bridge.", "The bridge: 9.87× faster.")
        self.assertFails(self.tree(text).lint("numbers"), "9.87× is in no committed")

    def test_planted_missing_heading(self):
        text = self.text.replace("## Caveat\n", "")
        self.assertFails(self.tree(text).lint("template"), "no heading '## Caveat'")

    def test_planted_headings_out_of_order(self):
        text = self.text.replace("## Napkin math", "## Tmp").replace("## The idea",
                                                                     "## Napkin math")
        text = text.replace("## Tmp", "## The idea")
        self.assertFails(self.tree(text).lint("template"), "in the order")

    def test_planted_extra_heading_try_it_and_picture(self):
        text = self.text.replace("## Caveat", "## History\n\nOld.\n\n## Caveat")
        self.assertFails(self.tree(text).lint("template"), "'## History' is not a heading")
        text = self.text.replace("> **Try it.**", "> Try it:")
        self.assertFails(self.tree(text).lint("template"), "no '> **Try it.**'")
        text = self.text.replace(f"pictures/{RUNG:02d}_fixture.svg", "pictures/09_other.svg")
        self.assertFails(self.tree(text).lint("template"), "no picture")
        text = self.text.replace("_fixture.svg)", "_missing.svg)")
        self.assertFails(self.tree(text).lint("template"), "_missing.svg does not exist")

    def test_planted_issue_and_session(self):
        for planted in ("as in issue 21", "(issues 27 and 28)", "see #28", "in this session",
                        "the last session measured"):
            text = self.text.replace("The limit.", f"The limit, {planted}.")
            self.assertFails(self.tree(text).lint("template"), f":{line_of(text, planted)}:")
        text = self.text.replace("The limit.", "A thread issues 4 global loads.")
        self.assertEqual(self.tree(text).lint("template").returncode, 0)

    def test_planted_date(self):
        text = self.text.replace("The limit.", "The limit (measured 2026-11-21).")
        self.assertFails(self.tree(text).lint("template"), "a date in the lesson")
        text = self.text + "Measured 2026-11-21.\n"  # the appendix may date its history
        self.assertEqual(self.tree(text).lint("template").returncode, 0)

    def test_long_lesson(self):
        text = self.text.replace("The rung before.", "line\n" * 300)
        self.assertFails(self.tree(text).lint("template"), "more than 300")
        # the same lines in the appendix are fine
        text = self.text + "line\n" * 300
        self.assertEqual(self.tree(text).lint("template").returncode, 0)

    def test_quoted_code_must_be_the_source(self):
        # a ```cpp line that no source file holds fails; '...' marks a line abridged
        rung = ladder.rung(RUNG)
        with open(os.path.join(ROOT, rung.kernel)) as f:
            quoted = next(line.rstrip() for line in f if "__global__" in line)
        block = lambda *lines: "```cpp\n" + "\n".join(lines) + "\n```\n"  # noqa: E731
        sources = doc_lint.source_lines(ROOT)
        good = self.tree(self.text + block(quoted, "  for (...) {  // abridged"))
        self.assertEqual(doc_lint.excerpts(good.doc, sources), [])
        bad = self.tree(self.text + block(quoted.replace("__global__", "__device__ __global__")))
        said = doc_lint.excerpts(bad.doc, sources)
        self.assertEqual(len(said), 1)
        self.assertIn("is in no source file", said[0][2])
        self.assertFails(bad.lint("template"), "is in no source file")

    def test_long_code_block_and_diff(self):
        fence = lambda kind, n: f"```{kind}\n" + "x\n" * n + "```\n"  # noqa: E731
        # at the limits: passes, in the lesson and in the appendix alike
        text = self.text + fence("text", doc_lint.BLOCK_LINES) + fence("diff", doc_lint.DIFF_LINES)
        self.assertEqual(self.tree(text).lint("template").returncode, 0)
        text = self.text + fence("text", doc_lint.BLOCK_LINES + 1)
        self.assertFails(self.tree(text).lint("template"), "a ```text block of 41 lines")
        text = self.text + fence("diff", doc_lint.DIFF_LINES + 1)
        self.assertFails(self.tree(text).lint("template"), "a ```diff block of 61 lines")


class UnitTest(unittest.TestCase):
    def test_comment_share(self):
        diff = ("--- a\n+++ b\n@@ -1,3 +1,3 @@\n-// old comment\n+// new comment\n"
                "-  *reinterpret_cast<float4*>(p) = v;\n+  x = 1;  // trailing: code\n"
                "+ * a block comment line\n+/* one */\n context\n")
        self.assertEqual(doc_lint.comment_share(diff), (4, 6))

    def test_diff_report_is_no_gate(self):
        # scripts/docs-lint comments reports each rung's diff: past the bar is marked, and is
        # no problem (it adds none, and the command exits 0 whatever the diffs' sizes).
        self.assertEqual(doc_lint.diff_report_line(15, 138, 600), "  15   138 /  600 = 23.0%")
        self.assertEqual(doc_lint.diff_report_line(16, 200, 700),
                         "  16   200 /  700 = 28.6%  past the bar: 700 lines > 600, "
                         "29% comments > 25%")
        self.assertIn("past the bar: 601 lines > 600", doc_lint.diff_report_line(3, 1, 601))
        self.assertEqual(doc_lint.diff_report_line(4, 0, 0), "   4     0 /    0 =  0.0%")
        lint = load_script("docs-lint")
        with unittest.mock.patch.object(lint.subprocess, "run", lambda *a, **k: subprocess.
                                        CompletedProcess(a, 0, "--- a\n+++ b\n@@ -1 +1 @@\n"
                                                         + "+// note\n" * 700, "")):
            out = io.StringIO()
            rows = lint.comments(out)
        self.assertTrue(rows and all(changed == 700 and notes == 700 for _, changed, notes in rows))
        self.assertIn("past the bar: 700 lines > 600, 100% comments > 25%", out.getvalue())
        with unittest.mock.patch.object(lint, "comments", lambda out: rows), \
                unittest.mock.patch.object(sys, "argv", ["docs-lint", "comments"]), \
                contextlib.redirect_stdout(io.StringIO()):
            self.assertEqual(lint.main(), 0)

    def test_ci_minutes(self):
        # fact:ci-minutes reads .ci/run's own timings (KEY_s=SECONDS), to half a minute.
        facts = load_script("docs-facts")
        with tempfile.TemporaryDirectory() as tmp:
            path = os.path.join(tmp, "timings.txt")
            with open(path, "w") as f:
                f.write("# from .ci/run\nbuild_s=343\nctest_s=29\nsm80_build_s=75\n")
            self.assertEqual(facts.ci_minutes(path, "build"), "about 5½ minutes")
            self.assertEqual(facts.ci_minutes(path, "ctest"), "about ½ minute")
            self.assertEqual(facts.ci_minutes(path, "sm80_build"), "about 1 minute")
            with self.assertRaisesRegex(ladder.Error, "no configure_s"):
                facts.ci_minutes(path, "configure")

    def test_evaluate(self):
        names = {"TM": 8, "TN": 8, "kThreads": 256}
        self.assertEqual(code_facts.evaluate("TM * TN > 64 || kThreads >= 512 ? 1 : "
                                             "512 / kThreads", names), 2)
        self.assertEqual(code_facts.evaluate("TM / (TN > 0 ? TN : 1) + T::TM", names), 9)
        self.assertIsNone(code_facts.evaluate("BM * 2", names))

    def test_register_splits_of_the_hopper_rungs(self):
        # the split the kernels' RegisterSplit gives with kernels/hopper/pipeline.cuh's formula
        for rung in ladder.rungs():
            with open(os.path.join(ROOT, rung.kernel)) as f:
                if "RegisterSplit<" not in f.read():
                    continue
            producer, consumer = map(int, code_facts.register_split(rung).split("/"))
            self.assertLess(producer, consumer, rung.kernel)
            self.assertLessEqual(consumer, 256, rung.kernel)
            self.assertEqual(consumer % 8, 0, rung.kernel)

    def test_ffma_per_pass_of_the_simt_rungs(self):
        # rungs 4-11 each have a micro-tile; the count is a whole number of FFMA per k
        for number in range(4, 12):
            rung = ladder.rung(number)
            per_pass = int(code_facts.ffma_per_pass(rung))
            per_tile = int(code_facts.ffma_per_ktile(rung))
            self.assertEqual(per_tile % per_pass, 0, rung.kernel)

    def test_sass_holds_says_what_the_json_requires(self):
        text = code_facts.sass_holds(ladder.rung(1), "LDS")
        self.assertEqual(text, "no `LDS` in the kernel")
        with self.assertRaises(ladder.Error):
            code_facts.sass_holds(ladder.rung(1), "HGMMA")

    def test_per_kstep_follows_the_unroll(self):
        # one pass of rung 13's main loop is one k-step (#pragma unroll 1); unrolled by 2, a
        # pass holds two, and the same pass's count is half as many a k-step
        rung = ladder.rung(KSTEP_RUNG)
        self.assertEqual(sass_facts.ksteps_per_pass(rung), 1)
        self.assertEqual(sass_facts.ksteps_per_pass(ladder.rung(12)), 4)  # unrolled: a k-tile
        planted, n = re.subn(r"#pragma unroll 1(\s*for \(int ks)", r"#pragma unroll 2\1",
                             code_facts.source(rung.kernel))
        self.assertEqual(n, 1)
        with unittest.mock.patch.object(code_facts, "source", lambda rel: planted):
            self.assertEqual(sass_facts.ksteps_per_pass(rung), 2)
            halves = sass_facts.per_kstep(SASS, KSTEP_RUNG, "HMMA", "WM=64")
        whole = sass_facts.per_kstep(SASS, KSTEP_RUNG, "HMMA", "WM=64")  # the 64 x 64 warps'
        self.assertEqual(int(halves) * 2, int(whole))
        with unittest.mock.patch.object(code_facts, "source", lambda rel: "no loop"):
            with self.assertRaisesRegex(ladder.Error, "no `for \\(int ks"):
                sass_facts.ksteps_per_pass(rung)

    def test_sass_facts_render(self):
        self.assertEqual(sass_facts.render([484, 487, 484], False), "484–487")
        self.assertEqual(sass_facts.render([1143, 1140], False), "1,140–1,143")
        self.assertEqual(sass_facts.render([685 / 128], True), "5.4")
        with self.assertRaisesRegex(ladder.Error, "registers is the kernel's"):
            sass_facts.count(SASS, KSTEP_RUNG, "registers")
        with self.assertRaisesRegex(ladder.Error, "no kernel of rung 13 matching nothing"):
            sass_facts.count(SASS, KSTEP_RUNG, "HMMA", "main_loop", "nothing")

    def test_planted_stale_sass_facts_file(self):
        # the committed facts against a build whose SASS moved: each moved count is named
        committed = sass_facts.load(SASS)
        self.assertEqual(sass_facts.differences(committed, committed), [])
        moved = json.loads(json.dumps(committed))
        kernel = next(k for k in moved["kernels"]  # the rung's templated main kernel
                      if k["rung"] == KSTEP_RUNG and k["main_loop"] and k["variant"][:1] == "<")
        kernel["main_loop"]["instructions"] += 1
        kernel["registers"] -= 1
        said = sass_facts.differences(committed, moved)
        self.assertEqual(len(said), 2, said)
        self.assertIn(f"rung {KSTEP_RUNG} {kernel['variant']}: registers", said[0])
        self.assertIn("main_loop instructions", said[1])
        gone = dict(moved, kernels=[k for k in moved["kernels"] if k is not kernel])
        self.assertIn("in the file, not in the build", " ".join(
            sass_facts.differences(committed, gone)))

    def test_planted_cited_count_fails_uncited_is_a_note(self):
        # sass.facts fails on a count a doc cites (rung 13's k-step, fact:sass-kstep) that moved
        # past a schedule's drift; not on one no doc cites (rung 1's whole-kernel MOV count),
        # nor on a cited one within the drift (a note)
        committed = sass_facts.load(SASS)
        folder = os.path.join(ROOT, "docs")
        docs = [os.path.join(folder, n) for n in sorted(os.listdir(folder)) if n.endswith(".md")]
        self.assertTrue(any(a[0] == SASS for _, _, _, a in sass_facts.citations(docs)))
        self.assertEqual(sass_facts.cited_differences(SASS, committed, docs), ([], []))
        moved = json.loads(json.dumps(committed))
        plain = next(k for k in moved["kernels"] if k["rung"] == 1)
        plain["kernel"]["MOV"] += 1
        self.assertEqual(sass_facts.cited_differences(SASS, moved, docs), ([], []))
        self.assertEqual(len(sass_facts.differences(committed, moved)), 1)

        def shift(by):
            out = json.loads(json.dumps(committed))
            for k in out["kernels"]:
                if k["rung"] == KSTEP_RUNG and k["main_loop"]:
                    k["main_loop"]["instructions"] += by
            return sass_facts.cited_differences(SASS, out, docs)
        problems, drifts = shift(sass_facts.DRIFT_COUNT)
        self.assertEqual(problems, [])
        self.assertTrue(drifts)
        problems, _ = shift(24)  # 5% of rung 13's main loop (484-487 instructions)
        self.assertTrue(problems)
        self.assertTrue(all("in the file" in s and "in the build" in s for s in problems))
        self.assertTrue(any(f"fact:sass-kstep {SASS} {KSTEP_RUNG} instructions" in s
                            for s in problems), problems)

    def test_every_rung_doc_is_linted(self):
        # the template and numbers checks read doc 00 and every rung's doc, the last included
        docs = [os.path.basename(p) for p in load_script("docs-lint").lesson_docs(ROOT)]
        self.assertEqual(docs[0][:2], "00")
        self.assertEqual(docs[1:], [os.path.basename(r.doc) for r in ladder.rungs()])

    def test_named_rungs(self):
        self.assertEqual(doc_lint.named_rungs("rungs 5–7 and rung 10; Rung 2"),
                         {2, 5, 6, 7, 10})
        self.assertEqual(doc_lint.named_rungs("rungs 3 to 4 beside cuBLAS TF32"), {-1, 0, 3, 4})


if __name__ == "__main__":
    unittest.main()
