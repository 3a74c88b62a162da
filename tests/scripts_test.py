#!/usr/bin/env python3
"""Unit tests of the evidence scripts' package (scripts/sgemm_tools) and of the commands over
it, on fixtures: no GPU, no cuobjdump, no ncu (stand-ins made here play those).

    python3 tests/scripts_test.py        (ctest: scripts.parsers, label cpu)
"""
import importlib.machinery
import importlib.util
import io
import json
import os
import shutil
import stat
import subprocess
import sys
import tempfile
import unittest
from contextlib import redirect_stdout
from unittest import mock

ROOT = os.path.dirname(os.path.dirname(os.path.realpath(__file__)))
SCRIPTS = os.path.join(ROOT, "scripts")
sys.path.insert(0, SCRIPTS)
import ladder  # noqa: E402
from sgemm_tools import (autotune_search, cli, ctest_outcomes, expectations,  # noqa: E402
                         kernel_names, ncu, ncu_report, sass, sass_report, tools)

NCU_CSV = os.path.join(ROOT, "tests", "data", "ncu_raw_rung6.csv")


def load(script):
    """A script in scripts/ (no .py suffix) as a module: only scripts/docs-diffs, whose
    logic has not moved into sgemm_tools."""
    path = os.path.join(SCRIPTS, script)
    loader = importlib.machinery.SourceFileLoader(script.replace("-", "_"), path)
    module = importlib.util.module_from_spec(importlib.util.spec_from_loader(loader.name, loader))
    loader.exec_module(module)
    return module


def run(script, *args, env=None):
    return subprocess.run([sys.executable, os.path.join(SCRIPTS, script), *args],
                          capture_output=True, text=True, env=env)


def write_tool(folder, name, python_body):
    """An executable stand-in for a tool: a Python script (run by this interpreter)."""
    path = os.path.join(folder, name)
    with open(path, "w") as f:
        f.write(f"#!{sys.executable}\nimport sys\n{python_body}\n")
    os.chmod(path, os.stat(path).st_mode | stat.S_IXUSR)
    return path


docs_diffs = load("docs-diffs")
test_counts = load("test-counts")
from sgemm_tools import diff_ideas  # noqa: E402

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

# An sm_90a kernel as cuobjdump 12 shows it: -sass says sm_90, -res-usage says sm_90a. ptxas
# puts the retry of an mbarrier wait out of line, after the last EXIT, from where it jumps
# back into the loop: not a loop of its own.
SASS_90A = """
\tcode for sm_90
\t\tFunction : _ZN5sgemm15tma_specialized21sgemm_tma_specializedEv
        /*0000*/                   S2R R0, SR_TID.X ;
        /*0010*/                   SYNCS.PHASECHK.TRANS64.TRYWAIT P0, [UR4], R2 ;
        /*0020*/              @!P0 BRA 0x90 ;
        /*0030*/                   LDS.128 R4, [R0] ;
        /*0040*/                   FFMA R8, R4, R5, R8 ;
        /*0050*/                   SYNCS.ARRIVE.TRANS64.A1T0 RZ, [UR5], RZ ;
        /*0060*/               @P1 BRA 0x10 ;
        /*0070*/                   STG.E desc[UR8][R2.64], R8 ;
        /*0080*/                   EXIT ;
        /*0090*/                   SYNCS.PHASECHK.TRANS64.TRYWAIT P0, [UR4], R2 ;
        /*00a0*/              @!P0 BRA 0x90 ;
        /*00b0*/                   BRA 0x30 ;
        /*00c0*/                   BRA 0xc0;
"""
RES_USAGE_90A = """
arch = sm_90a
 Function _ZN5sgemm15tma_specialized21sgemm_tma_specializedEv:
  REG:168 STACK:0 SHARED:1088 LOCAL:0 CONSTANT[0]:917 TEXTURE:0 SURFACE:0 SAMPLER:0
arch = sm_90
 Function _ZN5sgemm10vectorized16sgemm_vectorizedILb1EEEviiifPKfiS3_ifPfi:
  REG:92 STACK:8 SHARED:9216 LOCAL:0 CONSTANT[0]:588 TEXTURE:0 SURFACE:0 SAMPLER:0
arch = sm_90a
 Function _ZN5sgemm10vectorized16sgemm_vectorizedILb1EEEviiifPKfiS3_ifPfi:
  REG:90 STACK:0 SHARED:9216 LOCAL:0 CONSTANT[0]:588 TEXTURE:0 SURFACE:0 SAMPLER:0
"""


# A kernel of no rung (as scripts/sass --function reports one) whose loop exercises the FFMA
# operand model of sass.operand_counts; each line says what the model makes of it. Banks:
# even and odd register numbers. The cache: one register per (slot, bank).
SASS_OPERANDS = """
\tcode for sm_90
\t\tFunction : sm80_like_ffma_kernel
        /*0000*/                   LDS.128 R4, [R0] ;
        /*0010*/                   FFMA R9, R2.reuse, R5, RZ ;
        /*0020*/                   FFMA R11, R2.reuse, R4, R11 ;
        /*0030*/                   FFMA R13, R2, R7, R13 ;
        /*0040*/                   LDS R20, [R0+0x10] ;
        /*0050*/                   FFMA R14, R2, R6.reuse, R14 ;
        /*0060*/                   FFMA R16, R3.reuse, R6.reuse, R16 ;
        /*0070*/                   FFMA R18, R8.reuse, R6, R19 ;
        /*0080*/                   FFMA R21, R3, R10, RZ ;
        /*0090*/                   FFMA R22, R8, R3, R22 ;
        /*00a0*/                   FFMA R24, R12.reuse, R14.reuse, RZ ;
        /*00b0*/                   FFMA R25, R12, R14, RZ ;
        /*00c0*/                   LDS R28, [R0+0x20] ;
        /*00d0*/                   FFMA R26, -R27, c[0x0][0x1c], UR4 ;
        /*00e0*/               @P0 BRA 0x0 ;
        /*00f0*/                   EXIT ;
        /*0100*/                   BRA 0x100;
"""
#   0010  reads R2 (even), R5 (odd): no conflict; R2 flagged in slot a
#   0020  R2 from the cache; reads R4 (even), R11 (odd): no conflict; R2 flagged again
#   0030  R2 from the cache; reads R7, R13, both odd: a conflict. R2 read unflagged: gone
#   0040  an LDS: other instructions leave the cache alone
#   0050  R2 read again (not cached), R6, R14: three reads in the even bank; R6 flagged in b
#   0060  R6 from the cache; reads R3 (odd), R16 (even): no conflict; R3, R6 flagged
#   0070  R6 from the cache; reads R8 (even), R19 (odd); R8 flagged: slot a now holds R8 in
#         its even entry and R3 in its odd one
#   0080  R3 from the cache (R8 took the other entry); reads R10 only
#   0090  R8 from the cache; R3 in slot b is read (the cache is per slot) with R22: no conflict
#   00a0  reads R12, R14, both even: a conflict; both flagged
#   00b0  both from the cache: no read at all
#   00d0  reads R27 only: a constant and a uniform register use no bank
RES_USAGE_OPERANDS = RES_USAGE + """ Function sm80_like_ffma_kernel:
  REG:32 STACK:0 SHARED:0 LOCAL:0 CONSTANT[0]:400 TEXTURE:0 SURFACE:0 SAMPLER:0
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

    def test_out_of_line_code_after_exit_makes_no_loop(self):
        [(arch, name, instructions)] = sass.parse_sass(SASS_90A)
        self.assertEqual(sass.loops(instructions), [(0x10, 0x60)])
        whole, hot, loops = sass.analyse(instructions)
        self.assertEqual((hot["start"], hot["end"]), ("0x0010", "0x0060"))
        self.assertEqual((hot["counts"]["SYNCS"], hot["counts"]["FFMA"]), (2, 1))
        self.assertEqual(whole["SYNCS"], 3)

    def test_resources_of_an_arch_specific_cubin(self):
        usage = sass.parse_res_usage(RES_USAGE_90A)
        [(arch, name, _)] = sass.parse_sass(SASS_90A)
        self.assertEqual(usage[(arch, name)], usage[("sm_90a", name)])  # found as -sass names it
        self.assertEqual(usage[(arch, name)]["registers"], 168)
        # a kernel built for both keeps its own sm_90 entry
        self.assertEqual(usage[("sm_90", self.name)]["registers"], 92)
        self.assertEqual(usage[("sm_90a", self.name)]["registers"], 90)

    def test_names(self):
        r = ladder.Rung(6, "vectorized", "fp32", "")
        for demangled in ("void sgemm::vectorized::sgemm_vectorized<true>(int, int)",
                          "void sgemm::vectorized::sgemm_vectorized<(bool)1>(int, int)"):
            self.assertIn(kernel_names.variant_of(r, demangled, self.name),
                          ("<kVectorized=true>", "<true>"))  # names from the kernel source
        # another kernel of the rung whose name begins with the rung's own is that kernel
        fused = "void sgemm::vectorized::sgemm_vectorized_fused<4, true>(int)"
        self.assertEqual(kernel_names.variant_of(r, fused, self.name),
                         " (sgemm_vectorized_fused<4, true>)")
        self.assertEqual(kernel_names.template_args("<128, Tile<1, 2>, (bool)0>"),
                         ["128", "Tile<1, 2>", "(bool)0"])
        self.assertEqual([kernel_names.readable(a) for a in ("(bool)0", "(int)128", "16u",
                                                     "(sgemm::x::Access)1")],
                         ["false", "128", "16", "Access(1)"])
        self.assertIs(kernel_names.rung_of("sgemm::(anonymous namespace)::fill(float*)",
                                           "_ZN5sgemm12_GLOBAL__N_14fillEPf", ladder.rungs()),
                      None)

    def test_expectations(self):
        whole, hot, loops = sass.analyse(self.instructions)
        k = {"name": "vectorized", "variant": "<kVectorized=true>", "kernel": whole,
             "main_loop": hot, "registers": 92}
        labels = {id(k): "vectorized<kVectorized=true>"}
        where = {"main_loop": "main loop", "kernel": "kernel"}
        rule = {"where": "main_loop", "expect": {"LDS.128": ">= 2", "FFMA/LDS": "== 1"}}
        [(ok, text)] = expectations.check_rule(rule, [k], where, labels)
        self.assertTrue(ok, text)
        rule = {"where": "kernel", "instances": "kVectorized=true",
                "expect": {"LDG.128": "== 0", "registers": "< 100"}}
        [(ok, text)] = expectations.check_rule(rule, [k], where, labels)
        self.assertFalse(ok)
        self.assertIn("LDG.128 = 2 (== 0)", text)
        [(ok, text)] = expectations.check_rule(dict(rule, instances="kVectorized=false"), [k],
                                               where, labels)
        self.assertFalse(ok)
        self.assertIn("no instantiation matches", text)


class Operands(unittest.TestCase):
    """The estimate of how FFMAs read their operands: reuse flags, the reuse cache, banks."""

    def setUp(self):
        [(_, self.name, self.instructions)] = sass.parse_sass(SASS_OPERANDS)

    def test_source_slots(self):
        self.assertEqual(sass.sources("R26, -R27, c[0x0][0x1c], UR4"),
                         [(27, False), (None, False), (None, False)])
        self.assertEqual(sass.sources("R1, |R2|.reuse, R3.reuse, -RZ"),
                         [(2, True), (3, True), (None, False)])
        self.assertEqual(sass.sources("R1, R2, 0.5, R4"), [(2, False), (None, False), (4, False)])

    def test_counts_worked_by_hand(self):
        c = sass.operand_counts(self.instructions)
        self.assertEqual(c["FFMA.reuse"], 6)  # 0010 0020 0050 0060 0070 00a0
        self.assertEqual([c[f"FFMA.reuse.{s}"] for s in "abc"], [5, 3, 0])
        self.assertEqual([c[f"FFMA.cached.{s}"] for s in "abc"], [5, 3, 0])
        self.assertEqual([c[f"FFMA.from_cache.{n}"] for n in range(4)], [4, 6, 1, 0])
        self.assertEqual(c["FFMA.reads"], 2 + 2 + 2 + 3 + 2 + 2 + 1 + 2 + 2 + 0 + 1)
        self.assertEqual([c[f"FFMA.bank_reads.{n}"] for n in range(4)], [1, 7, 2, 1])
        self.assertEqual(c["FFMA.conflict"], 3)  # 0030 0050 00a0

    def test_reuse_cache_rule(self):
        def cached(lines):
            text = "".join(f"/*{16 * i:04x}*/ FFMA {ops} ;\n" for i, ops in enumerate(lines))
            [(_, _, instructions)] = sass.parse_sass("code for sm_90\nFunction : k\n" + text)
            c = sass.operand_counts(instructions)
            return [c[f"FFMA.cached.{s}"] for s in "abc"], c["FFMA.conflict"]
        # flagged, then read in the same slot: served from the cache, and no conflict left
        self.assertEqual(cached(["R9, R2.reuse, R4, R7", "R10, R2, R5, R6"]), ([1, 0, 0], 1))
        # the same pair without the flag: R2 read again, in the even bank with R6: two
        # conflicts
        self.assertEqual(cached(["R9, R2, R4, R7", "R10, R2, R5, R6"]), ([0, 0, 0], 2))
        # flagged in slot a, read in slot b: not cached
        self.assertEqual(cached(["R9, R2.reuse, R4, R7", "R10, R5, R2, R6"])[0], [0, 0, 0])
        # another even register read in slot a, unflagged, empties the even entry
        self.assertEqual(cached(["R9, R2.reuse, R5, R7", "R10, R4, R5, R6",
                                 "R11, R2, R5, R6"])[0], [0, 0, 0])
        # an odd register there leaves it: one entry per bank
        self.assertEqual(cached(["R9, R2.reuse, R5, R7", "R10, R3, R5, R6",
                                 "R11, R2, R5, R6"])[0], [1, 0, 0])

    def test_ffma_between_lds_and_the_loop(self):
        self.assertEqual(sass.ffma_between_lds(self.instructions),
                         {"min": 3, "median": 3, "max": 7})
        whole, hot, _ = sass.analyse(self.instructions)
        self.assertEqual((hot["start"], hot["end"]), ("0x0000", "0x00e0"))
        self.assertEqual(hot["counts"]["FFMA.conflict"], 3)
        self.assertEqual(hot["ffma_between_lds"]["max"], 7)
        self.assertEqual(whole["FFMA.reads"], 19)
        self.assertNotIn("FFMA.reads", sass.mix(self.instructions[:1]))  # no FFMA, no counts
        self.assertIsNone(sass.ffma_between_lds(self.instructions[:3]))

    def test_expectations_read_the_counts(self):
        whole, hot, _ = sass.analyse(self.instructions)
        k = {"name": "k", "variant": "", "kernel": whole, "main_loop": hot}
        rule = {"expect": {"FFMA.conflict/FFMA": "< 0.3", "FFMA.reuse.a": "== 5"}}
        [(ok, text)] = expectations.check_rule(rule, [k], expectations.WHERE, {id(k): "k"})
        self.assertTrue(ok, text)


class Profile(unittest.TestCase):
    def test_raw_csv_fixture(self):
        with open(NCU_CSV) as f:
            [launch] = ncu.parse_csv(f.read())
        s = ncu.summarise(launch)
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
        text = ncu_report.summary_table(s, "title", 2.0 * 4096 ** 3)
        self.assertIn("n/a", ncu_report.fmt(None))
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
        [launch] = ncu.parse_csv(text)
        self.assertEqual(launch["Kernel Name"], "k(int, int)")
        self.assertAlmostEqual(launch["gpu__time_duration.sum"], 1.5e-3)
        self.assertAlmostEqual(launch["dram__bytes.sum.per_second"], 1200.5e9)
        self.assertIsNone(ncu.summarise(launch)["occupancy_pct"])
        self.assertAlmostEqual(ncu.to_base(1.2, "cycle/nsecond"), 1.2e9)
        with self.assertRaises(ladder.Error):
            ncu.parse_csv("no csv here")


def vectorized():
    """The rung whose kernel the SASS fixture holds."""
    return next(r for r in ladder.rungs() if r.name == "vectorized")


def record(variant="<kVectorized=true>", **resources):
    """A kernel record of the SASS fixture, as scripts/sass makes them."""
    [(arch, mangled, instructions)] = sass.parse_sass(SASS)
    whole, hot, loops = sass.analyse(instructions)
    r = vectorized()
    return dict(rung=r.number, name=r.name, variant=variant, arch=arch, function=mangled,
                mangled=mangled, kernel=whole, main_loop=hot, loops=loops, **resources)


class Expectations(unittest.TestCase):
    def check(self, spec, kernels, wanted):
        with tempfile.TemporaryDirectory() as tmp:
            path = os.path.join(tmp, "expect.json")
            with open(path, "w") as f:
                json.dump(spec, f)
            out = io.StringIO()
            code = expectations.check(kernels, path, wanted, "the-binary", out)
        return code, out.getvalue()

    def test_the_report(self):
        spec = {"no_local_memory_from_rung": 1, "rungs": {"vectorized": [
            {"expect": {"FFMA": "== 2"}, "why": "two FMAs"},
            {"where": "kernel", "expect": {"registers": "< 64"}, "why": "few registers"}],
            "not_a_rung": []}}
        k = record(registers=92, stack_bytes=8)
        code, text = self.check(spec, [k], {vectorized().number})
        self.assertEqual(code, 1)
        tag = f"rung {vectorized().number:2d}"
        self.assertIn(f"FAIL  {tag}  vectorized: no local memory -- but {{'LDL': 1, "
                      "'stack_bytes': 8}", text)  # the fixture's LDL.64
        self.assertIn(f"PASS  {tag}  vectorized: main loop FFMA = 2 (== 2) -- two FMAs", text)
        self.assertIn(f"FAIL  {tag}  vectorized: kernel registers = 92 (< 64) -- few registers",
                      text)
        self.assertIn("has expectations for 'not_a_rung', not a rung", text)
        self.assertTrue(text.endswith("\n1 of 3 SASS checks passed; 2 FAILED\n"), text)

    def test_all_pass_and_rungs_from_the_local_memory_limit(self):
        spec = {"no_local_memory_from_rung": vectorized().number + 1,
                "rungs": {"vectorized": [{"expect": {"LDS": ">= 3"}, "where": "kernel"}]}}
        code, text = self.check(spec, [record()], {vectorized().number})
        self.assertEqual(code, 0, text)
        self.assertNotIn("local memory", text)
        self.assertIn("1 of 1 SASS checks passed\n", text)

    def test_a_rung_without_its_kernel_fails(self):
        first = ladder.rungs()[0]
        code, text = self.check({"rungs": {}}, [record()], {first.number})
        self.assertEqual(code, 1)
        self.assertIn(f"no kernel sgemm::{first.name}::{first.function} in the-binary; "
                      f"is {first.kernel} built into it?", text)

    def test_any_instance_ratios_and_bad_conditions(self):
        a, b = record("<kVectorized=true>"), record("<kVectorized=false>")
        labels = {id(a): "a", id(b): "b"}
        rule = {"instances": "any", "expect": {"FFMA/BAR": "== 2"}}  # no BAR in the loop
        [(ok, text)] = expectations.check_rule(rule, [a, b], expectations.WHERE, labels)
        self.assertFalse(ok)
        self.assertIn("none of 2 instantiations, e.g. a: main loop FFMA/BAR = inf", text)
        rule["expect"] = {"FFMA/LDS": "== 1"}
        [(ok, text)] = expectations.check_rule(rule, [a, b], expectations.WHERE, labels)
        self.assertTrue(ok)
        self.assertTrue(text.startswith("some instantiation: a: "), text)
        with self.assertRaisesRegex(ladder.Error, "is not like '>= 4'"):
            expectations.check_rule({"expect": {"FFMA": "about 2"}}, [a], expectations.WHERE,
                                    labels)
        a["main_loop"] = None
        [(ok, text)] = expectations.check_rule({"expect": {"FFMA": ">= 1"}}, [a],
                                               expectations.WHERE, labels)
        self.assertFalse(ok)
        self.assertIn("no main loop", text)


class SassReport(unittest.TestCase):
    def test_tables_listing_and_json(self):
        kernels = [record("<kVectorized=false>", registers=90, shared_bytes=9216, stack_bytes=0),
                   record("<kVectorized=true>", registers=92, shared_bytes=9216, stack_bytes=8)]
        out = io.StringIO()
        with redirect_stdout(out):
            sass_report.print_tables(kernels, "the-binary")
            sass_report.print_listing(kernels)
        text = out.getvalue()
        n = vectorized().number
        self.assertTrue(text.startswith("SASS of the-binary (sm_90)\n"))
        self.assertRegex(text, rf"{n} vectorized<kVectorized=true> +0070-00b0 +5 +2 ")
        self.assertRegex(text, rf"{n} vectorized<kVectorized=true> +92 +9216 +8 +19 +3 ")
        for head in ("instr", "FFMA", "LDS.32", "LDS.128", "LDG.128", "STS.128", "LDL", "STL"):
            self.assertIn(head, text.split("\n")[3])
        self.assertNotIn("LDS.64", text)  # a column of zeros that is not always shown
        self.assertIn("Main loop of rung 6 vectorized<kVectorized=true> (sm_90):\n"
                      "  /*0070*/  LDS.U.128 R16, [R0]\n", text.replace(f"rung {n} ", "rung 6 "))
        public = sass_report.public(kernels)
        self.assertNotIn("_body", json.dumps(public))
        self.assertIn("_body", kernels[0]["main_loop"])  # the records themselves are unchanged
        self.assertEqual(public[0]["main_loop"]["counts"]["FFMA"], 2)

    def test_operands_table_and_a_kernel_of_no_rung(self):
        [(arch, mangled, instructions)] = sass.parse_sass(SASS_OPERANDS)
        whole, hot, loops = sass.analyse(instructions)
        other = dict(rung=None, name=mangled, variant="", arch=arch, function=mangled,
                     mangled=mangled, kernel=whole, main_loop=hot, loops=loops)
        kernels = [record(), other]
        out = io.StringIO()
        with redirect_stdout(out):
            sass_report.print_operands(kernels)
            sass_report.print_listing([other])
        text = out.getvalue()
        n = vectorized().number
        # rung 6's loop: FFMA R24, R16, R20, R24 (all even), FFMA R25, R17.reuse, R21, R25 (all
        # odd, and the flag is for nothing: no FFMA follows)
        self.assertRegex(text, rf"\n *{n} vectorized +2 +1 \(50%\) +1/0/0 +0/0/0 +2/0/0/0 "
                               r"+3\.00 +0/0/0/2 +2 \(100%\) +2 +0/0/0\n")
        self.assertRegex(text, r"\nsm80_like_ffma_kernel +11 +6 \(55%\) +5/3/0 +5/3/0 +4/6/1/0 "
                               r"+1\.73 +1/7/2/1 +3 \(27%\) +3 +3/3/7\n")
        self.assertIn("Main loop of sm80_like_ffma_kernel (sm_90):\n  /*0000*/  LDS.128 R4, [R0]",
                      text)
        labels, _ = kernel_names.short_labels(kernels)
        self.assertEqual(labels[id(other)], "sm80_like_ffma_kernel")


class Tools(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.mkdtemp()
        self.addCleanup(shutil.rmtree, self.tmp)
        self.tool = write_tool(self.tmp, "sometool", "print('hello')")
        env = {k: v for k, v in os.environ.items() if k not in ("SOMETOOL", "CUOBJDUMP")}
        patch = mock.patch.dict(os.environ, dict(env, PATH="/nonexistent",
                                                 CUDA_HOME="/nonexistent"), clear=True)
        patch.start()
        self.addCleanup(patch.stop)

    def test_the_one_asked_for_or_an_error(self):
        self.assertEqual(tools.find("sometool", self.tool, "SOMETOOL"), self.tool)
        os.environ["SOMETOOL"] = self.tool
        self.assertEqual(tools.find("sometool", None, "SOMETOOL"), self.tool)
        os.environ["PATH"] = self.tmp  # found there too, but never instead of the one asked for
        with self.assertRaisesRegex(ladder.Error, "sometool '/no/such' is not an executable"):
            tools.find("sometool", "/no/such", "SOMETOOL")  # the command line's beats $SOMETOOL
        os.environ["SOMETOOL"] = "/no/such/either"
        with self.assertRaisesRegex(ladder.Error, "'/no/such/either' is not an executable"):
            tools.find("sometool", None, "SOMETOOL")

    def test_path_the_toolkit_then_its_places(self):
        with self.assertRaisesRegex(ladder.Error, "^how to get it$"):
            tools.find("sometool", None, "SOMETOOL", [], "how to get it")
        self.assertEqual(tools.find("sometool", None, "SOMETOOL", ["/x", self.tool]), self.tool)
        os.makedirs(os.path.join(self.tmp, "bin"))
        cuda = write_tool(os.path.join(self.tmp, "bin"), "sometool", "")
        os.environ["CUDA_HOME"] = self.tmp
        self.assertEqual(tools.find("sometool", None, "SOMETOOL", [self.tool]), cuda)
        os.environ["PATH"] = self.tmp
        self.assertEqual(tools.find("sometool", None, "SOMETOOL", []), self.tool)

    def test_cuobjdump(self):
        binary = os.path.join(self.tmp, "build", "sgemm")
        fetched = os.path.join(self.tmp, "build", "tools", "bin")
        os.makedirs(fetched)
        open(binary, "w").close()
        fetched = write_tool(fetched, "cuobjdump", "")
        self.assertEqual(tools.cuobjdump(None, binary), fetched)  # beside the binary's build
        with self.assertRaisesRegex(ladder.Error, "cmake found no cuobjdump .* re-run cmake"):
            tools.cuobjdump("cuobjdump-NOTFOUND", binary)  # what tests/sass.cmake passes
        os.environ["CUOBJDUMP"] = fetched  # the environment's beats cmake's NOTFOUND
        self.assertEqual(tools.cuobjdump("cuobjdump-NOTFOUND", binary), fetched)

    def test_the_other_tools_say_how_to_get_them(self):
        with mock.patch("glob.glob", return_value=[]):
            with self.assertRaisesRegex(ladder.Error, "ncu .* set NCU, or pass --ncu"):
                tools.ncu(None)
            with self.assertRaisesRegex(ladder.Error, "COMPUTE_SANITIZER, or pass --sanitizer"):
                tools.sanitizer(None)
            self.assertEqual(tools.ncu(self.tool), self.tool)

    def test_output_and_the_binary(self):
        self.assertEqual(tools.output([self.tool]), "hello\n")
        failing = [sys.executable, "-c", "import sys; sys.exit('broken')"]
        with self.assertRaisesRegex(ladder.Error, r"^running it failed \(exit 1\): broken$"):
            tools.output(failing, "running it")
        tools.require_binary(self.tool)
        with self.assertRaisesRegex(ladder.Error, "/no/sgemm does not exist; build it first"):
            tools.require_binary("/no/sgemm")


class Cli(unittest.TestCase):
    def test_parser(self):
        ap = cli.parser("What it does.\n\n    how to run it\n")
        cli.add_rungs(ap)
        cli.add_binary(ap, "the thing")
        self.assertTrue(ap.prog.startswith("scripts/"))
        self.assertEqual((ap.description, ap.epilog), ("What it does.", "    how to run it\n"))
        args = ap.parse_args(["5", "6"])
        self.assertEqual((args.rungs, args.binary),
                         (["5", "6"], os.path.join(ROOT, "build", "sgemm")))
        self.assertIn("the thing (default build/sgemm)", ap.format_help())
        self.assertIsNone(cli.parser("Only a description.").epilog)


class NcuMetrics(unittest.TestCase):
    def test_what_to_ask_ncu_for(self):
        everything = [metric for _, metric, _ in ncu.METRICS]
        self.assertEqual(ncu.requestable(None), (everything, []))
        metrics, lacking = ncu.requestable({"gpu__time_duration"})
        self.assertIn("gpu__time_duration.sum", metrics)
        self.assertIn("launch__block_size", metrics)  # attributes are always there
        self.assertIn("sm__maximum_warps_per_active_cycle_pct", metrics)  # derived
        self.assertIn("sm__inst_executed.sum", lacking)
        self.assertEqual(sorted(metrics + lacking), sorted(everything))
        self.assertEqual(len({key for key, _, _ in ncu.METRICS}), len(ncu.METRICS))
        self.assertEqual(ncu_report.fmt(1.5e-3, "time"), "1.500 ms")
        self.assertEqual(ncu_report.fmt(1.98e9, "hz"), "1.980 GHz")
        self.assertEqual(ncu_report.fmt(1234567.0, "count"), "1,234,567")


class Commands(unittest.TestCase):
    """scripts/sass and scripts/profile as users run them, with stand-ins for the tools."""

    def setUp(self):
        self.tmp = tempfile.mkdtemp()
        self.addCleanup(shutil.rmtree, self.tmp)
        self.binary = os.path.join(self.tmp, "sgemm")
        open(self.binary, "w").close()
        for name, text in (("sass.txt", SASS), ("res.txt", RES_USAGE)):
            with open(os.path.join(self.tmp, name), "w") as f:
                f.write(text)
        self.cuobjdump = write_tool(self.tmp, "cuobjdump", (
            "import os\n"
            "name = 'sass.txt' if '-sass' in sys.argv else 'res.txt'\n"
            "print(open(os.path.join(os.path.dirname(sys.argv[0]), name)).read())"))
        self.n = str(vectorized().number)

    def sass(self, *args):
        return run("sass", *args, "--binary", self.binary, "--cuobjdump", self.cuobjdump)

    def test_sass_tables_and_json(self):
        p = self.sass(self.n, "--listing")
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertIn(f"SASS of {self.binary} (sm_90)", p.stdout)
        self.assertIn("vectorized", p.stdout)
        self.assertIn("/*0070*/  LDS.U.128 R16, [R0]", p.stdout)
        p = self.sass(self.n, "--json")
        self.assertEqual(p.returncode, 0, p.stderr)
        out = json.loads(p.stdout)
        self.assertEqual(out["cuobjdump"], self.cuobjdump)
        [k] = out["kernels"]
        self.assertEqual((k["registers"], k["main_loop"]["counts"]["FFMA"]), (92, 2))
        self.assertNotIn("_body", k["main_loop"])

    def test_sass_expect(self):
        path = os.path.join(self.tmp, "expect.json")
        for rule, code in (({"FFMA": ">= 2"}, 0), ({"FFMA": ">= 3"}, 1)):
            with open(path, "w") as f:
                json.dump({"no_local_memory_from_rung": 99,
                           "rungs": {"vectorized": [{"expect": rule}]}}, f)
            p = self.sass(self.n, "--expect", path)
            self.assertEqual(p.returncode, code, p.stdout + p.stderr)
            self.assertIn("PASS  rung" if code == 0 else "FAIL  rung", p.stdout)
        p = self.sass(self.n, "--json", "--expect", path)  # the report goes to stderr
        self.assertEqual(p.returncode, 1)
        self.assertIn("0 of 1 SASS checks passed; 1 FAILED", p.stderr)
        json.loads(p.stdout)

    def test_sass_function(self):
        for name, text in (("sass.txt", SASS + SASS_OPERANDS), ("res.txt", RES_USAGE_OPERANDS)):
            with open(os.path.join(self.tmp, name), "w") as f:
                f.write(text)
        p = self.sass("--function", "sm80_like_ffma_kernel", "--operands")
        self.assertEqual(p.returncode, 0, p.stderr)  # no rung asked for, none missing
        self.assertIn("FFMA operands in each main loop", p.stdout)
        self.assertRegex(p.stdout, r"\nsm80_like_ffma_kernel +11 +6 \(55%\) ")
        self.assertNotIn("vectorized", p.stdout)
        p = self.sass(self.n, "--function", "sm80_like_ffma_kernel", "--json")
        self.assertEqual(p.returncode, 0, p.stderr)
        rung, other = json.loads(p.stdout)["kernels"]
        self.assertEqual((rung["name"], other["rung"], other["registers"]),
                         ("vectorized", None, 32))
        self.assertEqual(other["main_loop"]["counts"]["FFMA.conflict"], 3)
        self.assertEqual(other["main_loop"]["ffma_between_lds"], {"min": 3, "median": 3, "max": 7})
        p = self.sass("--function", "no_such_kernel")
        self.assertEqual(p.returncode, 1)
        self.assertIn("no kernel named no_such_kernel in", p.stderr)

    def test_sass_problems(self):
        p = self.sass()  # every rung: the binary holds rung 6 only
        self.assertEqual(p.returncode, 1)
        self.assertIn(f"no kernel in {self.binary} for rung(s) ", p.stderr)
        with open(os.path.join(self.tmp, "res.txt"), "w") as f:
            f.write("no functions\n")
        p = self.sass(self.n)
        self.assertEqual(p.returncode, 1)
        self.assertIn("no device code (SASS)", p.stderr)
        p = run("sass", "--binary", os.path.join(self.tmp, "missing"))
        self.assertEqual(p.returncode, 1)
        self.assertIn("missing does not exist; build it first", p.stderr)

    def test_profile(self):
        p = run("profile", "--from-csv", NCU_CSV)
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertIn("stall mio throttle", p.stdout)
        p = run("profile", "--from-csv", NCU_CSV, "--json")
        self.assertAlmostEqual(json.loads(p.stdout)["issue_active_pct"], 66.0)
        out = os.path.join(self.tmp, "profile")
        p = run("profile", self.n, "1024", "--dry-run", "--ncu", self.cuobjdump, "--binary",
                self.binary, "--out", out)
        self.assertEqual(p.returncode, 0, p.stderr)
        r = vectorized()
        for part in ("--clock-control none", f"regex:sgemm::{r.name}::{r.function}[<(]",
                     "--section WarpStateStats", f"{self.binary} {r.number} --sizes 1024"):
            self.assertIn(part, p.stdout)
        self.assertFalse(os.path.exists(out))  # a dry run writes nothing
        p = run("profile")
        self.assertEqual(p.returncode, 1)
        self.assertIn("which rung?", p.stderr)


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


class DiffIdeas(unittest.TestCase):
    """scripts/diff N --idea NAME: rung 8's ideas table (docs/08_warptiling.md) in step with
    the kernels, and each idea's view made of that idea's changes only."""

    def setUp(self):
        maps = diff_ideas.all_maps()
        self.assertTrue(maps, "docs/08_warptiling.md holds an ideas table")
        self.map = next((m for m in maps if m.new.number == 8), maps[0])

    def test_tables_in_step(self):
        p = run("diff", "--check")
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertEqual(self.map.problems(), [])

    def test_all_ideas_make_the_rung(self):
        m = self.map
        whole = diff_ideas.only_ideas(m, list(m.ideas), 3)
        self.assertEqual(ladder.split_hunks(whole)[1],
                         ladder.split_hunks(ladder.kernel_diff(m.old, m.new))[1])

    def test_one_idea(self):
        p = run("diff", str(self.map.new.number), "--idea", "swizzle", "--no-color")
        self.assertEqual(p.returncode, 0, p.stderr)
        changed = [line for line in p.stdout.splitlines()[2:] if line[:1] in "+-"]
        self.assertTrue(any("int swizzle(" in line for line in changed))
        self.assertFalse(any("warpIdx" in line or "nextA" in line for line in changed))
        for bad in (["--idea", "no-such-idea"], ["--idea", ","], ["--check"]):
            p = run("diff", str(self.map.new.number), *bad)
            self.assertEqual(p.returncode, 2, bad)

    def planted(self, rows, changes=None, fingerprint=None):
        m = self.map
        text = (f"<!-- ideas:begin {m.old.number} {m.new.number} changes={changes or m.count} "
                f"fingerprint={fingerprint or m.fingerprint} -->\n| idea | changes | what |\n"
                + "".join(f"| `{name}` | {numbers} | x |\n" for name, numbers in rows)
                + "<!-- ideas:end -->\n")
        with tempfile.TemporaryDirectory() as tmp:
            path = os.path.join(tmp, "doc.md")
            with open(path, "w") as f:
                f.write(text)
            [planted] = diff_ideas.idea_maps(path)
            return " ".join(planted.problems())

    def test_rungs_of_several_ideas_have_tables(self):
        maps = diff_ideas.all_maps()
        self.assertEqual(diff_ideas.missing(maps), [])
        # planted: rung 8's table gone
        said = diff_ideas.missing([m for m in maps if m.new.number != 8])
        self.assertEqual(len(said), 1)
        self.assertIn("docs/08_warptiling.md has no ideas table", said[0])

    def test_planted_tables_fail(self):
        n = self.map.count
        self.assertEqual(self.planted([("all", f"1-{n}")]), "")
        self.assertIn("change 1 is in ideas a and b",
                      self.planted([("a", f"1-{n}"), ("b", "1")]))
        self.assertIn(f"changes {n} are in no idea", self.planted([("a", f"1-{n - 1}")]))
        self.assertIn(f"no change {n + 1}", self.planted([("a", f"1-{n + 1}")]))
        self.assertIn("not the one this table maps",
                      self.planted([("a", f"1-{n}")], fingerprint="0" * 12))
        self.assertIn("not the one this table maps",
                      self.planted([("a", f"1-{n + 1}")], changes=n + 1))


class Ladder(unittest.TestCase):
    def test_list(self):
        rungs = ladder.rungs()
        self.assertEqual(len({r.name for r in rungs}), len(rungs))
        for r in rungs:
            self.assertTrue(os.path.exists(os.path.join(ROOT, r.kernel)), r.kernel)
        self.assertIsNone(ladder.previous(rungs[0]))
        self.assertEqual(ladder.rung(f"{rungs[-1].number:02d}"), rungs[-1])

    def test_diff_takes_names_as_sgemm_does(self):
        r = ladder.rungs()[5]
        by_number = run("diff", str(r.number), "--no-color")
        self.assertEqual(by_number.returncode, 0, by_number.stderr)
        for spelling in (r.name, r.stem):
            p = run("diff", spelling, "--no-color")
            self.assertEqual((p.returncode, p.stdout), (0, by_number.stdout), p.stderr)
        p = run("diff", "no_such_rung")
        self.assertEqual(p.returncode, 2)
        self.assertIn("no rung 'no_such_rung'", p.stderr)


class AutotuneSearch(unittest.TestCase):
    def test_spaces_keep_each_rungs_rules(self):
        for c in autotune_search.rung7_space():
            threads = (c["BM"] // c["TM"]) * (c["BN"] // c["TN"])
            self.assertTrue(64 <= threads <= 512, c)
            self.assertTrue(autotune_search.loads_fit(threads, c["BM"], c["BN"], c["BK"]), c)
        configs = list(autotune_search.rung8_space())
        self.assertTrue(configs)
        for c in configs:
            threads = (c["BM"] // c["WM"]) * (c["BN"] // c["WN"]) * 32
            self.assertTrue(autotune_search.loads_fit(threads, c["BM"], c["BN"], c["BK"], 2), c)
        self.assertEqual(sorted(autotune_search.SPACES), [7, 8])

    def test_candidate_files_and_why_one_failed(self):
        config = next(autotune_search.rung7_space())
        with tempfile.TemporaryDirectory() as tmp:
            [(path, what)] = autotune_search.write_candidates(tmp, 7, [config]).items()
            with open(path) as f:
                text = f.read()
        self.assertIn(f'#include "{os.path.basename(ladder.rung(7).kernel)}"', text)
        self.assertIn(f"launch_tile<{', '.join(str(v) for v in config.values())}>", text)
        self.assertEqual(what, f"rung 7 {autotune_search.describe(config)}")
        log = ("FAILED: CMakeFiles/sgemm_autotune.dir/candidates/rung7_003.cu.o\n"
               "/usr/bin/nvcc -c rung7_003.cu\n"
               "07_autotuned.cu(40): error: static assertion failed with \"whole float4s\"\n")
        self.assertEqual(autotune_search.failure_reasons(log),
                         {"rung7_003.cu": '07_autotuned.cu(40): error: static assertion failed '
                                          'with "whole float4s"'})


# ctest --show-only=json-v1 of a build: host, slow and GPU tests, one only registered as skipped.
CTEST_JSON = json.dumps({"kind": "ctestInfo", "tests": [
    {"name": "cli.help", "command": ["sgemm", "--help"],
     "properties": [{"name": "LABELS", "value": ["cpu"]}]},
    {"name": "deps.fetched", "command": ["cmake", "-P", "x.cmake"],
     "properties": [{"name": "LABELS", "value": ["network", "slow"]}]},
    {"name": "Ladder/Exact.Pass/1_naive", "command": ["gpu_test"],
     "properties": [{"name": "LABELS", "value": ["gpu", "rung01"]}]},
    {"name": "gpu_planted_test", "command": ["cmake", "-E", "echo", "SGEMM-SKIPPED: no 90"],
     "properties": [{"name": "LABELS", "value": ["gpu"]}]}]})


class TestCounts(unittest.TestCase):
    def test_counts_by_label(self):
        tests = test_counts.listed(CTEST_JSON)
        self.assertEqual(test_counts.counts(tests),
                         {"host": 1, "slow": 1, "run": 2, "gpu": 2, "all": 4})
        self.assertEqual(test_counts.left_out(tests), ["gpu_planted_test"])
        self.assertEqual(test_counts.unlabelled(tests), [])
        self.assertEqual(test_counts.unlabelled(test_counts.listed(
            '{"tests": [{"name": "docs.new", "command": ["x"]}]}')), ["docs.new"])
        with self.assertRaises(ladder.Error):
            test_counts.listed("not json")

    def test_a_suite_counts_its_tests(self):
        # SGEMM_GPU_TESTS=suite: one ctest test runs a whole GoogleTest executable; it counts as
        # the tests the executable lists, as SGEMM_GPU_TESTS=each would register them.
        with tempfile.TemporaryDirectory() as tmp:
            program = os.path.join(tmp, "gpu_fake_test")
            with open(program, "w") as f:
                f.write("#!/bin/sh\nprintf 'Exact.\\n  One\\n  Two\\nRungs/Run.\\n"
                        "  Pass/1_naive  # GetParam() = 1\\n'\n")
            os.chmod(program, 0o755)
            suite = {"name": "gpu_fake_test", "command": [
                "cmake", f"-DPROGRAM={program}", "-P", "/src/tests/gtest_suite.cmake"],
                "properties": [{"name": "LABELS", "value": ["gpu"]}]}
            data = json.loads(CTEST_JSON)
            data["tests"].append(suite)
            self.assertEqual(test_counts.counts(test_counts.listed(json.dumps(data))),
                             {"host": 1, "slow": 1, "run": 2, "gpu": 5, "all": 7})
            suite["command"][1] = "-DPROGRAM=" + os.path.join(tmp, "not_built")
            with self.assertRaisesRegex(ladder.Error, "build it first"):
                test_counts.counts(test_counts.listed(json.dumps(data)))

    def test_rewrite_the_markers(self):
        text = "ran <!-- tests:run -->1<!-- /tests --> of <!-- tests:all -->9<!-- /tests -->\n"
        self.assertEqual(test_counts.rewrite(text, {"run": 2, "all": 4}, "README.md"),
                         text.replace("->1<", "->2<").replace("->9<", "->4<"))
        with self.assertRaisesRegex(ladder.Error, "no count 'bogus'"):
            test_counts.rewrite("<!-- tests:bogus -->1<!-- /tests -->", {}, "README.md")


# ctest's JUnit report (ctest --output-junit) of a passed, a failed and a skipped test.
JUNIT = """<?xml version="1.0" encoding="UTF-8"?>
<testsuite name="Linux-c++" tests="3" failures="1" skipped="1" timestamp="2026-11-21T20:43:32">
	<testcase name="gpu.pass" classname="gpu.pass" time="0.1" status="run">
	</testcase>
	<testcase name="gpu.fail" classname="gpu.fail" time="0.1" status="fail">
		<failure message=""/>
	</testcase>
	<testcase name="gpu.skip" classname="gpu.skip" time="0.1" status="notrun">
		<skipped message="SKIP_REGULAR_EXPRESSION_MATCHED"/>
	</testcase>
	<testcase name="cpu.other" classname="cpu.other" time="0.1" status="run">
	</testcase>
</testsuite>
"""
CTEST_N = """Test project /build
  Test  #1: gpu.pass
  Test  #2: gpu.fail
  Test #13: gpu.skip
  Test #14: gpu.left_out

Total Tests: 4
"""


class CtestOutcomes(unittest.TestCase):
    def test_each_gpu_test_and_its_outcome(self):
        names = ctest_outcomes.listed_tests(CTEST_N)
        self.assertEqual(names, ["gpu.pass", "gpu.fail", "gpu.skip", "gpu.left_out"])
        lines = ctest_outcomes.report(names, JUNIT, "NVIDIA H100").splitlines()
        self.assertIn("2026-11-21T20:43:32, on NVIDIA H100", lines[0])
        self.assertEqual(lines[1], "# pass 1, fail 1, skip 1, not run 1")
        self.assertEqual([line.split() for line in lines[2:]],
                         [["pass", "gpu.pass"], ["fail", "gpu.fail"], ["skip", "gpu.skip"],
                          ["not", "run", "gpu.left_out"]])  # a test the run left out shows

    def test_not_a_report(self):
        with self.assertRaisesRegex(ladder.Error, "not XML"):
            ctest_outcomes.outcomes("ctest crashed")


if __name__ == "__main__":
    unittest.main()
