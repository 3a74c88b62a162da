#!/usr/bin/env python3
"""Unit tests of the evidence scripts' parsers, on fixtures: no GPU, no cuobjdump, no ncu.

    python3 tests/scripts_test.py        (ctest: scripts.parsers, label cpu)
"""
import importlib.machinery
import importlib.util
import os
import sys
import tempfile
import unittest

ROOT = os.path.dirname(os.path.dirname(os.path.realpath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "scripts"))
import ladder  # noqa: E402


def load(script):
    """A script in scripts/ (no .py suffix) as a module."""
    path = os.path.join(ROOT, "scripts", script)
    loader = importlib.machinery.SourceFileLoader(script.replace("-", "_"), path)
    module = importlib.util.module_from_spec(importlib.util.spec_from_loader(loader.name, loader))
    loader.exec_module(module)
    return module


sass = load("sass")
profile = load("profile")
docs_diffs = load("docs-diffs")

# The shape of `cuobjdump -sass` output: encodings on every line and on a line of their own.
SASS = """
Fatbin elf code:
================
arch = sm_90
code version = [1,8]

\tcode for sm_90
\t\tFunction : _ZN5sgemm10vectorized16sgemm_vectorizedILb1EEEviiifPKfiS3_ifPfi
\t.headerflags\t@"EF_CUDA_TEXMODE_INDEPENDENT"
        /*0000*/                   LDC R1, c[0x0][0x28] ;                 /* 0x00000a00ff017b82 */
                                                                          /* 0x000fe20000000800 */
        /*0010*/              @!P0 LDG.E.128 R4, desc[UR8][R2.64] ;       /* 0x0000000802048981 */
                                                                          /* 0x000fe20000000800 */
        /*0020*/                   LDG.E.128.CONSTANT R8, desc[UR8][R2.64+0x10] ;  /* 0x0 */
        /*0030*/                   LDG.E.LTC128B R12, desc[UR8][R2.64+0x20] ;  /* 0x0 */
        /*0040*/                   STS [R0], R4 ;                         /* 0x0 */
        /*0050*/                   STS.128 [R0+0x200], R8 ;               /* 0x0 */
        /*0060*/                   BAR.SYNC.DEFER_BLOCKING 0x0 ;          /* 0x0 */
        /*0070*/                   LDS.U.128 R16, [R0] ;                  /* 0x0 */
        /*0080*/                   LDS.128 R20, [R0+0x10] ;               /* 0x0 */
        /*0090*/                   FFMA R24, R16, R20, R24 ;              /* 0x0 */
        /*00a0*/                   FFMA R25, R17.reuse, R21, R25 ;        /* 0x0 */
        /*00b0*/               @P1 BRA 0x70 ;                             /* 0x0 */
        /*00c0*/                   LDS R26, [R0+0x20] ;                   /* 0x0 */
        /*00d0*/               @P2 BRA 0x10 ;                             /* 0x0 */
        /*00e0*/                   FFMA R24, R24, c[0x0][0x1c], RZ ;      /* 0x0 */
        /*00f0*/                   STG.E.128 desc[UR8][R2.64], R24 ;      /* 0x0 */
        /*0100*/                   LDL.64 R2, [R1] ;                      /* 0x0 */
        /*0110*/                   EXIT ;                                 /* 0x0 */
        /*0120*/                   BRA 0x120;                             /* 0x0 */
        ..........
"""

RES_USAGE = """
Fatbin elf code:
================
arch = sm_90
code version = [1,8]
identifier = kernels/06_vectorized.cu

Resource usage:
 Common:
  GLOBAL:0
 Function _ZN5sgemm10vectorized16sgemm_vectorizedILb1EEEviiifPKfiS3_ifPfi:
  REG:92 STACK:8 SHARED:9216 LOCAL:0 CONSTANT[0]:588 TEXTURE:0 SURFACE:0 SAMPLER:0
"""


class Sass(unittest.TestCase):
    def setUp(self):
        [(self.arch, self.name, self.instructions)] = sass.parse_sass(SASS)

    def test_functions_and_instructions(self):
        self.assertEqual(self.arch, "sm_90")
        self.assertEqual(len(self.instructions), 19)
        self.assertEqual(self.instructions[1], (0x10, "LDG.E.128", "R4, desc[UR8][R2.64]"))

    def test_widths(self):
        mix = sass.mix(self.instructions)
        self.assertEqual(mix["LDG.128"], 2)  # .CONSTANT is still 128 bits
        self.assertEqual(mix["LDG.32"], 1)  # LTC128B is an L2 prefetch hint, not a width
        self.assertEqual(mix["LDS.128"], 2)  # LDS.U.128 and LDS.128
        self.assertEqual((mix["LDS.32"], mix["LDS"]), (1, 3))
        self.assertEqual((mix["STS.32"], mix["STS.128"], mix["STG.128"]), (1, 1, 1))
        self.assertEqual((mix["FFMA"], mix["BAR"], mix["LDL.64"]), (3, 1, 1))

    def test_main_loop_is_the_innermost_loop_with_most_ffma(self):
        self.assertEqual(sass.loops(self.instructions), [(0x10, 0xd0), (0x70, 0xb0)])
        whole, hot, loops = sass.analyse(self.instructions)
        self.assertEqual((hot["start"], hot["end"]), ("0x0070", "0x00b0"))
        self.assertEqual(hot["counts"]["FFMA"], 2)
        self.assertEqual(hot["counts"]["instructions"], 5)
        self.assertEqual(len(loops), 2)  # the self-branch after EXIT is not a loop

    def test_resources(self):
        usage = sass.parse_res_usage(RES_USAGE)
        self.assertEqual(usage[("sm_90", self.name)],
                         {"registers": 92, "stack_bytes": 8, "shared_bytes": 9216,
                          "local_bytes": 0})

    def test_names(self):
        r = ladder.Rung(6, "vectorized", "")
        for demangled in ("void sgemm::vectorized::sgemm_vectorized<true>(int, int)",
                          "void sgemm::vectorized::sgemm_vectorized<(bool)1>(int, int)"):
            self.assertIn(sass.variant_of(r, demangled, self.name),
                          ("<kVectorized=true>", "<true>"))  # names from the kernel source
        self.assertEqual(sass.template_args("<128, Tile<1, 2>, (bool)0>"),
                         ["128", "Tile<1, 2>", "(bool)0"])
        self.assertEqual([sass.readable(a) for a in ("(bool)0", "(int)128", "16u",
                                                     "(sgemm::x::Access)1")],
                         ["false", "128", "16", "Access(1)"])
        self.assertIs(sass.rung_of("sgemm::(anonymous namespace)::fill(float*)",
                                   "_ZN5sgemm12_GLOBAL__N_14fillEPf", ladder.rungs()), None)

    def test_expectations(self):
        whole, hot, loops = sass.analyse(self.instructions)
        k = {"name": "vectorized", "variant": "<kVectorized=true>", "kernel": whole,
             "main_loop": hot, "registers": 92}
        labels = {id(k): "vectorized<kVectorized=true>"}
        where = {"main_loop": "main loop", "kernel": "kernel"}
        rule = {"where": "main_loop", "expect": {"LDS.128": ">= 2", "FFMA/LDS": "== 1"}}
        [(ok, text)] = sass.check_rule(rule, [k], where, labels)
        self.assertTrue(ok, text)
        rule = {"where": "kernel", "instances": "kVectorized=true",
                "expect": {"LDG.128": "== 0", "registers": "< 100"}}
        [(ok, text)] = sass.check_rule(rule, [k], where, labels)
        self.assertFalse(ok)
        self.assertIn("LDG.128 = 2 (== 0)", text)
        [(ok, text)] = sass.check_rule(dict(rule, instances="kVectorized=false"), [k], where,
                                       labels)
        self.assertFalse(ok)
        self.assertIn("no instantiation matches", text)


class Profile(unittest.TestCase):
    def test_raw_csv_fixture(self):
        with open(os.path.join(ROOT, "tests", "data", "ncu_raw_rung6.csv")) as f:
            [launch] = profile.parse_csv(f.read())
        s = profile.summarise(launch)
        self.assertTrue(s["kernel"].startswith("void sgemm::vectorized::sgemm_vectorized<true>"
                                               "(int, int, int"))
        self.assertEqual(s["gpu"], "NVIDIA H100 80GB HBM3")
        self.assertAlmostEqual(s["duration_s"], 7.536224e-3)
        self.assertAlmostEqual(s["issue_active_pct"], 66.0)
        self.assertAlmostEqual(s["fma_pipe_pct"], 56.7)
        self.assertAlmostEqual(s["lsu_share_pct"], 17.1)
        self.assertAlmostEqual(s["stall_mio_throttle"], 0.02)
        self.assertIsNone(s["stall_imc_miss"])  # "n/a" in the export
        self.assertIsNone(s["stall_lg_throttle"])  # not in the export at all
        self.assertAlmostEqual(s["occupancy_pct"], 24.31)
        self.assertEqual(s["smem_ld_conflicts"], 1234567)
        self.assertAlmostEqual(s["smem_ld_wavefronts_per_inst"], 6.0)
        self.assertAlmostEqual(s["dram_bytes_per_s"], 412345678901.25)
        self.assertAlmostEqual(s["l2_pct"], 21.5)
        text = profile.summary_table(s, "title", 2.0 * 4096 ** 3)
        self.assertIn("n/a", profile.fmt(None))
        self.assertIn("stall mio throttle", text)
        self.assertIn("18,237", text)  # GFLOP/s from the duration

    def test_long_csv_and_units(self):
        text = "\n".join([
            "sgemm output line",
            '"ID","Process ID","Process Name","Host Name","Kernel Name","Context","Stream",'
            '"Section Name","Metric Name","Metric Unit","Metric Value"',
            '"0","1","sgemm","h","k(int, int)","1","7","s","gpu__time_duration.sum","msecond",'
            '"1.50"',
            '"0","1","sgemm","h","k(int, int)","1","7","s","dram__bytes.sum.per_second",'
            '"Gbyte/second","1,200.5"',
            '"0","1","sgemm","h","k(int, int)","1","7","s",'
            '"sm__warps_active.avg.pct_of_peak_sustained_active","%","n/a"'])
        [launch] = profile.parse_csv(text)
        self.assertEqual(launch["Kernel Name"], "k(int, int)")
        self.assertAlmostEqual(launch["gpu__time_duration.sum"], 1.5e-3)
        self.assertAlmostEqual(launch["dram__bytes.sum.per_second"], 1200.5e9)
        self.assertIsNone(profile.summarise(launch)["occupancy_pct"])
        self.assertAlmostEqual(profile.to_base(1.2, "cycle/nsecond"), 1.2e9)
        with self.assertRaises(ladder.Error):
            profile.parse_csv("no csv here")


class DocsDiffs(unittest.TestCase):
    def test_ranges(self):
        self.assertEqual(docs_diffs.parse_ranges("1,3-4"), {1, 3, 4})
        with self.assertRaises(ValueError):
            docs_diffs.parse_ranges("0")

    def test_regenerate_then_check(self):
        first, second = ladder.rungs()[:2]
        doc = (f"# doc\n\n<!-- diff:begin {first.number:02d} {second.number:02d} hunks=1 -->\n"
               "stale\n<!-- diff:end -->\n\nprose\n")
        text, [block] = docs_diffs.process("doc.md", doc)
        self.assertIn(f"--- {first.kernel}\n+++ {second.kernel}\n@@ ", text)
        self.assertTrue(text.endswith("<!-- diff:end -->\n\nprose\n"))
        self.assertEqual(docs_diffs.process("doc.md", text)[0], text)  # stable
        with self.assertRaises(ladder.Error):
            docs_diffs.process("doc.md", f"<!-- diff:begin {second.number} -->\nno end\n")

    def test_whole_repository_command(self):
        with tempfile.TemporaryDirectory() as tmp:
            path = os.path.join(tmp, "x.md")
            with open(path, "w") as f:
                f.write(f"<!-- diff:begin {ladder.rungs()[1].number} -->\n<!-- diff:end -->\n")
            import subprocess
            script = os.path.join(ROOT, "scripts", "docs-diffs")
            check = [sys.executable, script, "--check", path]
            self.assertEqual(subprocess.run(check, capture_output=True).returncode, 1)
            subprocess.run([sys.executable, script, path], check=True, capture_output=True)
            self.assertEqual(subprocess.run(check, capture_output=True).returncode, 0)


class Ladder(unittest.TestCase):
    def test_list(self):
        rungs = ladder.rungs()
        self.assertEqual(len({r.name for r in rungs}), len(rungs))
        for r in rungs:
            self.assertTrue(os.path.exists(os.path.join(ROOT, r.kernel)), r.kernel)
        self.assertIsNone(ladder.previous(rungs[0]))
        self.assertEqual(ladder.rung(f"{rungs[-1].number:02d}"), rungs[-1])


if __name__ == "__main__":
    unittest.main()
