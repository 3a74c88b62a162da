#!/usr/bin/env python3
"""The Python package without a GPU and without torch, CuPy or JAX (plain python3, unittest):
the stride -> (layout, op, ld) mapping, the JAX FFI call's shape checks,
__cuda_array_interface__ parsing, argument checks, the library's search and its not-found
message, every ctypes call's arguments (through a stub library compiled here when a C
compiler exists), the real library's statuses and sentences when it was built (skipped,
saying so, when it was not), and python/bench_table.py.

    python3 python/tests/test_cpu.py        # ctest: python.cpu
"""
import json
import os
import shutil
import subprocess
import sys
import tempfile
import unittest

PYTHON_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
ROOT = os.path.dirname(PYTHON_DIR)
sys.path.insert(0, PYTHON_DIR)

import sgemm_ladder  # noqa: E402
from sgemm_ladder import _library  # noqa: E402
from sgemm_ladder import _layout as L  # noqa: E402
import bench_table  # noqa: E402

ROW, COL, N, T = L.ROW_MAJOR, L.COL_MAJOR, L.OP_N, L.OP_T


def cstrides(shape):
    return L.contiguous_strides(shape)


class FakeArray:
    """An object with a __cuda_array_interface__ (no memory behind it: pointers are numbers)."""

    def __init__(self, shape, strides=None, ptr=0x10000, typestr="<f4", readonly=False,
                 version=3, stream=None, **extra):
        self.__cuda_array_interface__ = dict(shape=tuple(shape), typestr=typestr,
                                             data=(ptr, readonly), version=version,
                                             strides=None if strides is None else
                                             tuple(4 * s for s in strides), **extra)
        if version >= 3:
            self.__cuda_array_interface__["stream"] = stream

    def t(self):
        """The transposed view (2-D), as torch's .t()."""
        cai = self.__cuda_array_interface__
        shape = cai["shape"]
        strides = [s // 4 for s in cai["strides"]] if cai["strides"] else cstrides(shape)
        return FakeArray(shape[::-1], strides[::-1], ptr=cai["data"][0])


class Storage(unittest.TestCase):
    def test_row_major(self):
        self.assertEqual(L.storage(3, 5, 5, 1), {ROW: 5})

    def test_padded_rows(self):
        self.assertEqual(L.storage(3, 5, 8, 1), {ROW: 8})

    def test_column_major(self):
        self.assertEqual(L.storage(3, 5, 1, 3), {COL: 3})
        self.assertEqual(L.storage(3, 5, 1, 7), {COL: 7})

    def test_vectors_and_scalars_are_both(self):
        self.assertEqual(L.storage(1, 5, 5, 1), {ROW: 5, COL: 1})
        self.assertEqual(L.storage(1, 5, 99, 1), {ROW: 5, COL: 1})  # a row of a larger matrix
        self.assertEqual(L.storage(4, 1, 1, 1), {ROW: 1, COL: 4})
        self.assertEqual(L.storage(1, 1, 0, 0), {ROW: 1, COL: 1})

    def test_column_slice_of_row_major(self):
        self.assertEqual(L.storage(4, 1, 9, 1), {ROW: 9})  # x[:, 2:3] of a 4 x 9 matrix

    def test_not_blas(self):
        self.assertEqual(L.storage(3, 5, 0, 1), {})  # broadcast rows
        self.assertEqual(L.storage(3, 5, 10, 2), {})  # every other column
        self.assertEqual(L.storage(3, 5, 2, 1), {})  # overlapping rows
        self.assertEqual(L.storage(3, 5, -5, 1), {})  # flipped rows
        self.assertEqual(L.storage(3, 5, 0, 0), {})  # expanded scalar

    def test_leading_dimension_beyond_int(self):
        self.assertEqual(L.storage(2, 5, 2**31, 1), {})


class Plans(unittest.TestCase):
    def test_row_major_nn(self):
        self.assertEqual(L.plan(4, 6, 5, (5, 1), (6, 1), (6, 1)), (ROW, N, 5, N, 6, 6))

    def test_transposed_views_are_op_t(self):
        # a.t() of a contiguous 5 x 4 is 4 x 5 with strides (1, 4); b.t() of 6 x 5 likewise
        self.assertEqual(L.plan(4, 6, 5, (1, 4), (1, 5), (6, 1)), (ROW, T, 4, T, 5, 6))
        self.assertEqual(L.plan(4, 6, 5, (1, 4), (6, 1), (6, 1)), (ROW, T, 4, N, 6, 6))

    def test_column_major_output_sets_the_layout(self):
        self.assertEqual(L.plan(4, 6, 5, (1, 4), (1, 5), (1, 4)), (COL, N, 4, N, 5, 4))
        self.assertEqual(L.plan(4, 6, 5, (5, 1), (1, 5), (1, 4)), (COL, T, 5, N, 5, 4))

    def test_padded_leading_dimensions(self):
        self.assertEqual(L.plan(4, 6, 5, (8, 1), (7, 1), (9, 1)), (ROW, N, 8, N, 7, 9))
        self.assertEqual(L.plan(4, 6, 5, (1, 8), (7, 1), (9, 1)), (ROW, T, 8, N, 7, 9))

    def test_vector_output_takes_the_operands_order(self):
        # C is 1 x 6: both orders; A and B column-major: layout COL leaves both op N
        self.assertEqual(L.plan(1, 6, 5, (1, 1), (1, 5), (6, 1)), (COL, N, 1, N, 5, 1))
        # and row-major operands keep ROW (ties go to ROW)
        self.assertEqual(L.plan(1, 6, 5, (5, 1), (6, 1), (6, 1)), (ROW, N, 5, N, 6, 6))

    def test_operand_to_copy(self):
        p = L.plan(4, 6, 5, (0, 1), (6, 1), (6, 1))
        self.assertIsNone(p.op_a)
        self.assertEqual((p.layout, p.op_b, p.ldb, p.ldc), (ROW, N, 6, 6))
        self.assertIsNone(L.plan(4, 6, 5, (5, 1), (12, 2), (6, 1)).op_b)

    def test_row_major_op_is_plans(self):
        # the fast path's inlined storage: plan's own answer for every operand it can meet
        values = (-3, 0, 1, 2, 3, 5, 7, 2**31)
        for rows in (1, 2, 5):
            for cols in (1, 3, 5):
                for s_row in values:
                    for s_col in values:
                        op, ld = L._op(L.storage(rows, cols, s_row, s_col), ROW)
                        self.assertEqual(L.row_major_op(rows, cols, s_row, s_col),
                                         None if op is None else (op, ld),
                                         (rows, cols, s_row, s_col))

    def test_output_not_blas_raises(self):
        with self.assertRaisesRegex(ValueError, "output .* not BLAS-compatible"):
            L.plan(4, 6, 5, (5, 1), (6, 1), (12, 2))

    def test_plan_fields(self):
        p = L.plan(2, 3, 4, (4, 1), (3, 1), (3, 1))
        self.assertEqual((p.layout, p.op_a, p.lda, p.op_b, p.ldb, p.ldc), tuple(p))

    def test_batch_strides(self):
        self.assertEqual(L.batch_stride(1, 12345, "a"), 0)
        self.assertEqual(L.batch_stride(7, 0, "a"), 0)  # broadcast: shared
        self.assertEqual(L.batch_stride(7, 30, "a"), 30)
        self.assertIsNone(L.batch_stride(7, -30, "a"))
        with self.assertRaisesRegex(ValueError, "must not overlap"):
            L.batch_stride(7, 0, "out", shared_ok=False)



class DenseProductShape(unittest.TestCase):
    """The shapes sgemm_ladder.jax.matmul accepts, checked before XLA sees the custom call."""

    def test_products(self):
        self.assertEqual(L.dense_product_shape((257, 1025), (1025, 129), "f"), (257, 129))
        self.assertEqual(L.dense_product_shape((3, 5, 0), (3, 0, 7), "f"), (3, 5, 7))
        self.assertEqual(L.dense_product_shape((2, 3, 4, 5), (2, 3, 5, 6), "f"), (2, 3, 4, 6))

    def test_refusals(self):
        for a, b, message in (((4,), (4, 4), r"f: a has shape \(4,\): 2-D"),
                              ((2, 3, 4), (4, 5), "batch dimensions .* differ"),
                              ((2, 3, 4), (3, 4, 5), "batch dimensions .* differ"),
                              ((3, 4), (5, 6), "cannot be multiplied .a has 4 columns, b has 5"),
                              ((1, 2**31), (2**31, 1), "K = 2147483648 does not fit"),
                              ((2**16, 2**15, 1, 1), (2**16, 2**15, 1, 1),
                               "the batch = 2147483648 does not fit")):
            with self.assertRaisesRegex(ValueError, message):
                L.dense_product_shape(a, b, "f")

class CudaArrayInterface(unittest.TestCase):
    def cai(self, **kw):
        d = dict(shape=(3, 4), typestr="<f4", data=(4096, False), version=3)
        d.update(kw)
        return d

    def test_contiguous_default_strides(self):
        i = L.parse_cuda_array_interface(self.cai())
        self.assertEqual(i, (4096, (3, 4), (4, 1), False, None))
        self.assertEqual((i.ptr, i.shape, i.strides, i.readonly, i.stream),
                         (4096, (3, 4), (4, 1), False, None))

    def test_byte_strides_become_elements(self):
        i = L.parse_cuda_array_interface(self.cai(strides=(4, 12)))
        self.assertEqual(i.strides, (1, 3))

    def test_versions_and_stream(self):
        self.assertEqual(L.parse_cuda_array_interface(self.cai(stream=1)).stream, 1)
        self.assertEqual(L.parse_cuda_array_interface(self.cai(stream=0xabc)).stream, 0xabc)
        self.assertIsNone(L.parse_cuda_array_interface(self.cai(version=2, stream=5)).stream)
        with self.assertRaisesRegex(ValueError, "forbids 0"):
            L.parse_cuda_array_interface(self.cai(stream=0))
        with self.assertRaisesRegex(ValueError, "version 4"):
            L.parse_cuda_array_interface(self.cai(version=4))

    def test_readonly(self):
        self.assertTrue(L.parse_cuda_array_interface(self.cai(data=(4096, True))).readonly)

    def test_bad_typestr(self):
        for typestr in ("<f8", "<f2", ">f4", "<i4", "|b1"):
            with self.assertRaisesRegex(TypeError, "float32"):
                L.parse_cuda_array_interface(self.cai(typestr=typestr), "a")

    def test_missing_fields(self):
        for field in ("shape", "typestr", "data", "version"):
            d = self.cai()
            del d[field]
            with self.assertRaisesRegex(ValueError, f"no '{field}'"):
                L.parse_cuda_array_interface(d)

    def test_malformed(self):
        bad = [dict(shape=(3, -1)), dict(shape="3x4"), dict(data=4096), dict(data=(None, False)),
               dict(strides=(16,)), dict(strides=(16, 2)), dict(data=(0, False)),
               dict(mask=object())]
        for kw in bad:
            with self.subTest(kw=kw), self.assertRaises(ValueError):
                L.parse_cuda_array_interface(self.cai(**kw))
        self.assertEqual(L.parse_cuda_array_interface(self.cai(shape=(0, 4),
                                                               data=(0, False))).ptr, 0)
        with self.assertRaises(TypeError):
            L.parse_cuda_array_interface([1, 2])


class ImportAlone(unittest.TestCase):
    def test_no_framework_imported(self):
        code = ("import sys, sgemm_ladder, sgemm_ladder._core; "
                "print(sorted(m for m in ('torch', 'cupy', 'jax', 'numpy') if m in sys.modules))")
        out = subprocess.run([sys.executable, "-c", code], env=dict(os.environ,
                             PYTHONPATH=PYTHON_DIR), capture_output=True, text=True, check=True)
        self.assertEqual(out.stdout.strip(), "[]")


class Arguments(unittest.TestCase):
    """Checks that fail before any library call or framework."""

    def test_not_an_array(self):
        with self.assertRaisesRegex(TypeError, "builtins.list"):
            sgemm_ladder.matmul([[1.0]], [[1.0]])

    def test_float64(self):
        with self.assertRaisesRegex(TypeError, "float32"):
            sgemm_ladder.matmul(FakeArray((2, 2), typestr="<f8"), FakeArray((2, 2)))

    def test_shapes(self):
        with self.assertRaisesRegex(ValueError, r"cannot be multiplied \(a has 3 columns, b has 4"):
            sgemm_ladder.matmul(FakeArray((2, 3)), FakeArray((4, 5)), out=FakeArray((2, 5)))
        with self.assertRaisesRegex(ValueError, "2-D .* or 3-D"):
            sgemm_ladder.matmul(FakeArray((3,)), FakeArray((3, 5)))
        with self.assertRaisesRegex(ValueError, "2-D .* or 3-D"):
            sgemm_ladder.matmul(FakeArray((2, 2, 2, 2)), FakeArray((2, 2)))
        with self.assertRaisesRegex(ValueError, "batch sizes 2 and 3"):
            sgemm_ladder.bmm(FakeArray((2, 4, 4)), FakeArray((3, 4, 4)))
        with self.assertRaisesRegex(ValueError, "both be 3-D"):
            sgemm_ladder.bmm(FakeArray((4, 4)), FakeArray((3, 4, 4)))

    def test_out(self):
        with self.assertRaisesRegex(ValueError, r"out has shape \(2, 4\), the product \(2, 5\)"):
            sgemm_ladder.matmul(FakeArray((2, 3)), FakeArray((3, 5)), out=FakeArray((2, 4)))
        with self.assertRaisesRegex(ValueError, "read-only"):
            sgemm_ladder.matmul(FakeArray((2, 3)), FakeArray((3, 5)),
                                out=FakeArray((2, 5), readonly=True))
        with self.assertRaisesRegex(ValueError, "beta = 0.5 needs out"):
            sgemm_ladder.matmul(FakeArray((2, 3)), FakeArray((3, 5)), beta=0.5)

    def test_bad_stream(self):
        with self.assertRaisesRegex(TypeError, "stream"):
            sgemm_ladder.matmul(FakeArray((2, 3)), FakeArray((3, 5)), out=FakeArray((2, 5)),
                                stream="fast")

    def test_empty_product_calls_nothing(self):
        out = FakeArray((0, 5))
        self.assertIs(sgemm_ladder.matmul(FakeArray((0, 3)), FakeArray((3, 5)), out=out), out)


class LibrarySearch(unittest.TestCase):
    def setUp(self):
        self.saved = (os.environ.get(_library.ENV), _library._PACKAGED, _library._REPO_BUILD,
                      _library._library)
        _library._library = None

    def tearDown(self):
        env, _library._PACKAGED, _library._REPO_BUILD, _library._library = self.saved
        if env is None:
            os.environ.pop(_library.ENV, None)
        else:
            os.environ[_library.ENV] = env

    def test_env_names_the_only_place(self):
        os.environ[_library.ENV] = "/no/such/libsgemm_ladder.so"
        with self.assertRaises(_library.LibraryNotFound) as e:
            sgemm_ladder.version()
        text = str(e.exception)
        self.assertIn("$SGEMM_LADDER_LIBRARY: /no/such/libsgemm_ladder.so (no such file)", text)
        self.assertIn("cmake --build build", text)
        self.assertIsInstance(e.exception, OSError)

    def test_every_place_in_order(self):
        os.environ.pop(_library.ENV, None)
        _library._PACKAGED = "/no/package/lib/libsgemm_ladder.so"
        _library._REPO_BUILD = "/no/repo/build/libsgemm_ladder.so"
        places = [p for _, p in _library.candidates()]
        self.assertEqual(places[:2], [_library._PACKAGED, _library._REPO_BUILD])
        self.assertEqual(places[-1], "libsgemm_ladder.so")
        try:
            _library.find_and_load()
        except _library.LibraryNotFound as e:
            text = str(e)
            for where in ("beside the package: /no/package/lib/libsgemm_ladder.so (no such file)",
                          "the repository's build folder: /no/repo/build/libsgemm_ladder.so",
                          "the loader's path"):
                self.assertIn(where, text)
        else:
            self.skipTest("a libsgemm_ladder.so is on the loader's path")

    def test_another_library(self):
        import ctypes
        import ctypes.util
        libc = ctypes.util.find_library("c")
        if libc is None:
            self.skipTest("no libc to stand in for another library")
        with self.assertRaisesRegex(_library.LibraryNotFound, "has no sgemm_gemm: it is not"):
            _library.Library(ctypes.CDLL(libc), libc)

    def test_default_places(self):
        self.assertTrue(self.saved[1].endswith(os.path.join("sgemm_ladder", "lib",
                                                            "libsgemm_ladder.so")))
        self.assertEqual(self.saved[2], os.path.join(ROOT, "build", "libsgemm_ladder.so"))


STUB = r"""
#include <stddef.h>
static long long rec[24]; static double frec[2]; static int count, which, status, checks = -1;
static const char* message = "";
int stub_count(void) { return count; }
int stub_which(void) { return which; }
long long stub_arg(int i) { return rec[i]; }
double stub_farg(int i) { return frec[i]; }
int stub_checks(void) { return checks; }
void stub_fail(int s, const char* m) { status = s; message = m; }
int sgemm_gemm(int layout, int opa, int opb, int m, int n, int k, float alpha, const void* a,
               int lda, const void* b, int ldb, float beta, void* c, int ldc, void* stream) {
  long long v[] = {layout, opa, opb, m, n, k, (long long)a, lda, (long long)b, ldb,
                   (long long)c, ldc, (long long)stream};
  for (int i = 0; i < 13; ++i) rec[i] = v[i];
  frec[0] = alpha; frec[1] = beta; ++count; which = 1; return status;
}
int sgemm_gemm_strided_batched(int layout, int opa, int opb, int m, int n, int k, float alpha,
                               const void* a, int lda, long long sa, const void* b, int ldb,
                               long long sb, float beta, void* c, int ldc, long long sc,
                               int batch, void* stream) {
  long long v[] = {layout, opa, opb, m, n, k, (long long)a, lda, sa, (long long)b, ldb, sb,
                   (long long)c, ldc, sc, batch, (long long)stream};
  for (int i = 0; i < 17; ++i) rec[i] = v[i];
  frec[0] = alpha; frec[1] = beta; ++count; which = 2; return status;
}
void sgemm_set_pointer_checks(int c) { checks = c; }
const char* sgemm_last_error(void) { return message; }
const char* sgemm_status_string(int s) { return s == 2 ? "bad_size" : "?"; }
int sgemm_rung_count(void) { return 2; }
int sgemm_rung_number(int i) { return i + 17; }
const char* sgemm_rung_name(int i) { return i ? "best" : "cluster_splitk"; }
const char* sgemm_rung_summary(int i) { return "summary"; }
int sgemm_one_call_rung(void) { return 18; }
size_t sgemm_workspace_limit(void) { return 1u << 30; }
void sgemm_set_workspace_limit(size_t b) {}
int sgemm_release_workspace(void) { return status; }
const char* sgemm_version(void) { return "stub"; }
"""


def _compile_stub(folder):
    cc = shutil.which("cc") or shutil.which("gcc")
    if cc is None:
        return None
    src, lib = os.path.join(folder, "stub.c"), os.path.join(folder, "libsgemm_ladder.so")
    with open(src, "w") as f:
        f.write(STUB)
    r = subprocess.run([cc, "-shared", "-fPIC", "-O1", "-o", lib, src], capture_output=True,
                       text=True)
    return lib if r.returncode == 0 else None


class StubCalls(unittest.TestCase):
    """Every argument the package hands the C ABI, read back from a stub library."""

    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.mkdtemp()
        cls.lib = _compile_stub(cls.tmp)
        if cls.lib is None:
            raise unittest.SkipTest("no C compiler (cc) to build the stub library")
        import ctypes
        cls.stub = ctypes.CDLL(cls.lib)
        cls.stub.stub_arg.restype = ctypes.c_longlong
        cls.stub.stub_farg.restype = ctypes.c_double
        cls.stub.stub_fail.argtypes = [ctypes.c_int, ctypes.c_char_p]
        cls.saved = (os.environ.get(_library.ENV), _library._library, _library._thread.checks)
        os.environ[_library.ENV] = cls.lib
        _library._library = None
        _library._thread.checks = None

    @classmethod
    def tearDownClass(cls):
        env, _library._library, _library._thread.checks = cls.saved
        if env is None:
            os.environ.pop(_library.ENV, None)
        else:
            os.environ[_library.ENV] = env
        shutil.rmtree(cls.tmp, ignore_errors=True)

    def setUp(self):
        self.stub.stub_fail(0, b"")

    def args(self, n):
        return [self.stub.stub_arg(i) for i in range(n)]

    def test_row_major(self):
        # pointers past 2^32, as device memory is: the unprototyped call passes them whole
        a, b, c = FakeArray((4, 5), ptr=0x7f0000001000), FakeArray((5, 6), ptr=0x2000), FakeArray(
            (4, 6), ptr=0x3000)
        self.assertIs(sgemm_ladder.matmul(a, b, out=c, alpha=2.0, beta=0.5), c)
        self.assertEqual(self.stub.stub_which(), 1)
        self.assertEqual(self.args(13),
                         [ROW, N, N, 4, 6, 5, 0x7f0000001000, 5, 0x2000, 6, 0x3000, 6, 0])
        self.assertEqual((self.stub.stub_farg(0), self.stub.stub_farg(1)), (2.0, 0.5))
        self.assertEqual(self.stub.stub_checks(), _library.CHECK_POINTERS)  # a bare CAI

    def test_transposed_views_and_padding(self):
        a = FakeArray((5, 4), ptr=0x1000).t()  # 4 x 5, op T, lda 4
        b = FakeArray((5, 6), (8, 1), ptr=0x2000)  # padded rows: ldb 8
        c = FakeArray((4, 6), (1, 4), ptr=0x3000)  # column-major output
        sgemm_ladder.matmul(a, b, out=c)
        # layout COL: A (col-stored) op N lda 4; B (row-stored) op T ldb 8
        self.assertEqual(self.args(12), [COL, N, T, 4, 6, 5, 0x1000, 4, 0x2000, 8, 0x3000, 4])

    def test_stream(self):
        a, b, c = FakeArray((4, 5)), FakeArray((5, 6)), FakeArray((4, 6))
        sgemm_ladder.matmul(a, b, out=c, stream=0x5eed0000beef)
        self.assertEqual(self.stub.stub_arg(12), 0x5eed0000beef)

        class TorchLikeStream:
            cuda_stream = 0xbeef
        sgemm_ladder.matmul(a, b, out=c, stream=TorchLikeStream())
        self.assertEqual(self.stub.stub_arg(12), 0xbeef)
        # the stream a version-3 interface names, when none is given
        sgemm_ladder.matmul(FakeArray((4, 5), stream=2), b, out=c)
        self.assertEqual(self.stub.stub_arg(12), 2)

    def test_batched_and_broadcast(self):
        a = FakeArray((3, 4, 5), ptr=0x1000)
        b = FakeArray((5, 6), ptr=0x2000)  # shared by the batch: stride 0
        c = FakeArray((3, 4, 6), ptr=0x3000)
        sgemm_ladder.matmul(a, b, out=c)
        self.assertEqual(self.stub.stub_which(), 2)
        self.assertEqual(self.args(17), [ROW, N, N, 4, 6, 5, 0x1000, 5, 20, 0x2000, 6, 0,
                                         0x3000, 6, 24, 3, 0])
        b1 = FakeArray((1, 5, 6), ptr=0x2000)  # a batch of one: stride 0
        sgemm_ladder.bmm(a, b1, out=c)
        self.assertEqual(self.stub.stub_arg(11), 0)
        expanded = FakeArray((3, 5, 6), (0, 6, 1), ptr=0x2000)  # stride 0: shared
        sgemm_ladder.bmm(a, expanded, out=c)
        self.assertEqual(self.stub.stub_arg(11), 0)
        # a batch of transposed matrices: op T, its own batch stride
        at = FakeArray((3, 4, 5), (20, 1, 4), ptr=0x1000)
        sgemm_ladder.bmm(at, FakeArray((3, 5, 6)), out=c)
        self.assertEqual(self.args(9)[:9], [ROW, T, N, 4, 6, 5, 0x1000, 4, 20])

    def test_output_batch_stride_zero(self):
        with self.assertRaisesRegex(ValueError, "must not overlap"):
            sgemm_ladder.bmm(FakeArray((3, 4, 5)), FakeArray((3, 5, 6)),
                             out=FakeArray((3, 4, 6), (0, 6, 1)))

    def test_k_zero_is_beta_c(self):
        c = FakeArray((4, 6), ptr=0x3000)
        sgemm_ladder.matmul(FakeArray((4, 0)), FakeArray((0, 6)), out=c, alpha=3.0, beta=0.25)
        # alpha = 0 reads neither A nor B: C stands in for them, K = 1
        self.assertEqual(self.args(12), [ROW, N, N, 4, 6, 1, 0x3000, 1, 0x3000, 6, 0x3000, 6])
        self.assertEqual((self.stub.stub_farg(0), self.stub.stub_farg(1)), (0.0, 0.25))

    def test_copy_needs_a_framework(self):
        broadcast = FakeArray((4, 5), (0, 1))
        if sys.modules.get("torch") or sys.modules.get("cupy"):
            self.skipTest("torch or CuPy is here")
        with self.assertRaisesRegex(TypeError, "needs torch"):
            sgemm_ladder.matmul(broadcast, FakeArray((5, 6)), out=FakeArray((4, 6)))

    def test_failure_carries_the_sentence(self):
        self.stub.stub_fail(3, b"lda = 7 is smaller than K = 8")
        with self.assertRaises(sgemm_ladder.SgemmValueError) as e:
            sgemm_ladder.matmul(FakeArray((4, 5)), FakeArray((5, 6)), out=FakeArray((4, 6)))
        self.assertEqual(str(e.exception),
                         "sgemm_ladder.matmul: lda = 7 is smaller than K = 8 (bad_leading_dim)")
        self.assertEqual((e.exception.status, e.exception.code), ("bad_leading_dim", 3))
        self.assertIsInstance(e.exception, ValueError)
        self.stub.stub_fail(8, b"cudaErrorLaunchFailure: unspecified launch failure")
        with self.assertRaises(RuntimeError) as e:
            sgemm_ladder.matmul(FakeArray((4, 5)), FakeArray((5, 6)), out=FakeArray((4, 6)))
        self.assertIn("unspecified launch failure (cuda_error)", str(e.exception))
        self.assertIsInstance(e.exception, sgemm_ladder.SgemmError)

    def test_info(self):
        self.assertEqual(sgemm_ladder.version(), "stub")
        self.assertEqual(sgemm_ladder.rungs(), [(17, "cluster_splitk", "summary"),
                                                (18, "best", "summary")])
        self.assertEqual(sgemm_ladder.one_call_rung(), 18)
        self.assertEqual(sgemm_ladder.workspace_limit(), 1 << 30)
        self.assertEqual(sgemm_ladder.library_path(), self.lib)


def _built_library():
    """The real library: $SGEMM_LADDER_LIBRARY (ctest sets it), else the package's search."""
    try:
        return _library.find_and_load()
    except _library.LibraryNotFound:
        return None, None


class RealLibrary(unittest.TestCase):
    """The built libsgemm_ladder.so through ctypes, on statuses decided before any CUDA call."""

    @classmethod
    def setUpClass(cls):
        cdll, path = _built_library()
        if cdll is None:
            raise unittest.SkipTest("libsgemm_ladder.so is not built (target sgemm_ladder_shared;"
                                    " or set SGEMM_LADDER_LIBRARY)")
        cls.lib = _library.Library(cdll, path)

    def test_bad_size(self):
        lib = self.lib
        status = lib.gemm(ROW, N, N, 0, 8, 8, 1.0, 0x1000, 8, 0x1000, 8, 0.0, 0x1000, 8, None)
        self.assertEqual(status, 2)
        self.assertEqual(lib.last_error(), b"M = 0: sizes must be >= 1")
        self.assertEqual(lib.status_string(status), b"bad size")
        e = lib.error(status, "sgemm_ladder.matmul")
        self.assertIsInstance(e, ValueError)
        self.assertEqual(str(e), "sgemm_ladder.matmul: M = 0: sizes must be >= 1 (bad_size)")

    def test_bad_leading_dimension(self):
        status = self.lib.gemm(ROW, N, N, 8, 8, 8, 1.0, 0x1000, 7, 0x1000, 8, 0.0, 0x1000, 8, None)
        self.assertEqual(status, 3)
        self.assertEqual(self.lib.last_error(), b"lda = 7 is smaller than K = 8")

    def test_strided_batched_bad_batch(self):
        status = self.lib.gemm_strided_batched(ROW, N, N, 8, 8, 8, 1.0, 0x1000, 8, 64, 0x1000, 8,
                                               64, 0.0, 0x1000, 8, 64, -1, None)
        self.assertEqual(status, 2)
        self.assertTrue(self.lib.last_error())

    def test_too_large_through_the_package(self):
        saved = (os.environ.get(_library.ENV), _library._library)
        os.environ[_library.ENV] = self.lib.path
        _library._library = self.lib
        try:
            with self.assertRaisesRegex(
                    sgemm_ladder.SgemmValueError,
                    r"K = 2097152 is larger than the limit 1048576 \(bad_size\)"):
                sgemm_ladder.matmul(FakeArray((4, 2**21)), FakeArray((2**21, 4)),
                                    out=FakeArray((4, 4)))
        finally:
            if saved[0] is None:
                os.environ.pop(_library.ENV, None)
            else:
                os.environ[_library.ENV] = saved[0]
            _library._library = saved[1]

    def test_info(self):
        self.assertGreater(self.lib.rung_count(), 0)
        self.assertEqual(self.lib.one_call_rung(), 18)
        self.assertTrue(self.lib.version())


BENCH = {
    "context": {"gpu": "NVIDIA H100 80GB HBM3", "driver": "580.1", "cuda": "13.0",
                "torch": "2.11.0", "jax": "0.11.0", "reps": 7, "command": "python/bench.py"},
    "rows": [
        {"method": "torch_fp32", "label": "torch FP32", "shape": [1024, 1024, 1024],
         "distribution": "uniform", "ms": 0.05, "speedup": 1.0, "error": 0.5},
        {"method": "torch_fp32", "label": "torch FP32", "shape": [1024, 1024, 1024],
         "distribution": "heavy", "ms": 0.051, "speedup": 1.0, "error": 0.25},
        {"method": "sgemm_ladder", "label": "sgemm_ladder.matmul", "shape": [1024, 1024, 1024],
         "distribution": "uniform", "ms": 0.025, "speedup": 2.0, "error": 0.125},
        {"method": "sgemm_ladder", "label": "sgemm_ladder.matmul", "shape": [1024, 1024, 1024],
         "distribution": "heavy", "ms": 0.034, "speedup": 1.5, "error": 1234.0}],
    "skipped": [{"method": "jax_bf16_x9", "label": "JAX BF16_BF16_F32_X9",
                 "reason": "jax refused it"}],
}


class BenchTable(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.mkdtemp()
        os.makedirs(os.path.join(self.tmp, "results", "h100"))
        with open(os.path.join(self.tmp, "results", "h100", "python_bench.json"), "w") as f:
            json.dump(BENCH, f)
        self.readme = os.path.join(self.tmp, "README.md")
        with open(self.readme, "w") as f:
            f.write("# T\n\n<!-- python-table:begin results/h100/python_bench.json -->\nold\n"
                    "<!-- python-table:end -->\n\nafter\n")

    def tearDown(self):
        shutil.rmtree(self.tmp, ignore_errors=True)

    def run_main(self, *args):
        import contextlib
        import io
        out, err = io.StringIO(), io.StringIO()
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            code = bench_table.main(list(args) + [self.readme], root=self.tmp)
        return code, out.getvalue() + err.getvalue()

    def test_table(self):
        text = bench_table.table(BENCH, "[x](x)")
        self.assertIn("| method | 1024³ | error, uniform | error, heavy-tailed |", text)
        self.assertIn("| torch FP32 | 0.05 / 0.051 ms | 0.50 | 0.25 |", text)
        self.assertIn("| sgemm_ladder.matmul | 2.00× / 1.50× | 0.12 | 1.2e+03 |", text)
        self.assertIn("JAX BF16_BF16_F32_X9: not measured (jax refused it).", text)

    def test_table_says_how_blocks_were_ordered(self):
        plain = bench_table.table(BENCH, "[x](x)")
        self.assertNotIn("alternating", plain)
        paired = dict(BENCH, context=dict(BENCH["context"], timing="in_turn_with_reference"))
        self.assertIn("each method's blocks alternating with torch.matmul FP32's",
                      bench_table.table(paired, "[x](x)"))
        rounds = dict(BENCH, context=dict(BENCH["context"], timing="in_turn"))
        self.assertIn("every method in turn in each round", bench_table.table(rounds, "[x](x)"))

    def test_check_then_write_then_check(self):
        code, out = self.run_main("--check")
        self.assertEqual(code, 1)
        self.assertIn("-old", out)
        with open(self.readme) as f:
            self.assertIn("old", f.read())  # --check changes nothing
        self.assertEqual(self.run_main()[0], 0)
        code, out = self.run_main("--check")
        self.assertEqual((code, out), (0, ""))
        with open(self.readme) as f:
            text = f.read()
        self.assertIn("[results/h100/python_bench.json](results/h100/python_bench.json)", text)
        self.assertTrue(text.endswith("<!-- python-table:end -->\n\nafter\n"))

    def test_missing_json(self):
        os.remove(os.path.join(self.tmp, "results", "h100", "python_bench.json"))
        code, out = self.run_main("--check")
        self.assertEqual(code, 2)
        self.assertIn("cannot read", out)

    def test_repository_readme_is_current(self):
        code = bench_table.main(["--check"])
        self.assertEqual(code, 0, "README.md's Python table is stale: run python/bench_table.py")


if __name__ == "__main__":
    unittest.main(verbosity=2)
