#!/usr/bin/env python3
"""The Python package on a GPU (unittest): results against float64 within FP32's componentwise
bound on odd shapes, strided views, alpha/beta, Inf/NaN; batches; gradients; torch.compile;
CUDA graphs; streams; a second GPU; CuPy and JAX round trips; JAX inside jit, grad and vmap
(the FFI custom call, libsgemm_jax_ffi.so); errors with the library's sentence. Needs torch
with CUDA and libsgemm_ladder.so ($SGEMM_LADDER_LIBRARY, else the package's search). Without
them every test skips, saying why; with SGEMM_REQUIRE_GPU=1 that is a failure instead (as are
a missing CuPy, JAX or libsgemm_jax_ffi.so).

    SGEMM_LADDER_LIBRARY=build/libsgemm_ladder.so python3 python/tests/test_gpu.py
"""
import os
import sys
import unittest

# JAX must not take 75% of the GPU before torch allocates (set before jax is imported).
os.environ.setdefault("XLA_PYTHON_CLIENT_PREALLOCATE", "false")

PYTHON_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, PYTHON_DIR)

import sgemm_ladder  # noqa: E402

REQUIRE = os.environ.get("SGEMM_REQUIRE_GPU") == "1"
U = 2.0 ** -24

try:
    import torch
except ImportError as e:
    torch, WHY = None, f"torch cannot be imported ({e})"
else:
    WHY = None if torch.cuda.is_available() else "torch sees no CUDA device"
if WHY is None:
    try:
        sgemm_ladder.library_path()
    except sgemm_ladder.LibraryNotFound as e:
        WHY = str(e)
if WHY is None:
    import sgemm_ladder.torch as st
    import torch.nn.functional as F


def _absent(test, reason):
    """Skip, or fail under SGEMM_REQUIRE_GPU=1."""
    if REQUIRE:
        test.fail(f"SGEMM_REQUIRE_GPU=1: {reason}")
    test.skipTest(reason)


class GpuTest(unittest.TestCase):
    def setUp(self):
        if WHY is not None:
            _absent(self, WHY)
        torch.manual_seed(1234)
        torch.backends.cuda.matmul.allow_tf32 = False
        self.dev = torch.device("cuda", 0)

    def rand(self, *shape, device=None):
        return torch.rand(*shape, device=device or self.dev) * 2 - 1

    def check(self, c, a, b, alpha=1.0, beta=0.0, c0=None, what=""):
        """c within gamma_{K+2} (|alpha| |a||b| + |beta| |c0|) of the float64 result."""
        a64, b64 = a.double(), b.double()
        c64 = alpha * (a64 @ b64)
        scale = abs(alpha) * (a64.abs() @ b64.abs())
        if c0 is not None and beta != 0:
            c64 = c64 + beta * c0.double()
            scale = scale + abs(beta) * c0.double().abs()
        self.assertEqual(c.dtype, torch.float32)
        self.assertEqual(tuple(c.shape), tuple(c64.shape), what)
        k = a.shape[-1] + 2
        gamma = k * U / (1 - k * U)
        err = (c.double() - c64).abs()
        bad = ~(err <= gamma * scale)  # NaN counts as bad
        if bool(bad.any()):
            ratio = (err / (U * scale)).nan_to_num(float("inf")).max().item()
            self.fail(f"{what}: {int(bad.sum())} elements outside gamma_K, worst "
                      f"{ratio:.3g} u|a||b| (K = {a.shape[-1]})")


SHAPES = [(1, 1, 1), (1, 7, 3), (129, 65, 33), (1000, 3, 1001), (3, 1000, 1001),
          (257, 511, 1025)]  # M, N, K


class Accuracy(GpuTest):
    def test_shapes(self):
        for m, n, k in SHAPES:
            a, b = self.rand(m, k), self.rand(k, n)
            self.check(sgemm_ladder.matmul(a, b), a, b, what=f"{m}x{n}x{k}")

    def test_transposed_and_padded_views(self):
        for m, n, k in SHAPES:
            at = self.rand(k, m).t()  # op T
            bt = self.rand(n, k).t()
            ap = self.rand(m, k + 5)[:, :k]  # padded leading dimension
            bp = self.rand(k, n + 3)[:, 1:n + 1]
            for (a, b, what) in ((at, bt, "a.t() @ b.t()"), (at, bp, "a.t() @ padded b"),
                                 (ap, bt, "padded a @ b.t()"), (ap, bp, "padded @ padded")):
                self.check(sgemm_ladder.matmul(a, b), a, b, what=f"{what} {m}x{n}x{k}")

    def test_non_blas_views_are_copied(self):
        a = self.rand(64, 1).expand(64, 40)  # stride 0
        b = self.rand(40, 80)[:, ::2]  # column stride 2
        self.check(sgemm_ladder.matmul(a, b), a, b, what="broadcast and strided")

    def test_out_column_major_and_padded(self):
        m, n, k = 129, 65, 33
        a, b = self.rand(m, k), self.rand(k, n)
        out = torch.empty(n, m, device=self.dev).t()  # column-major
        self.assertIs(sgemm_ladder.matmul(a, b, out=out), out)
        self.check(out, a, b, what="column-major out")
        big = torch.empty(m, n + 7, device=self.dev)
        out = big[:, 2:n + 2]
        sgemm_ladder.matmul(a, b, out=out)
        self.check(out, a, b, what="padded out")

    def test_alpha_beta(self):
        m, n, k = 257, 511, 1025
        a, b, c0 = self.rand(m, k), self.rand(k, n), self.rand(m, n)
        for alpha, beta in ((1.0, 1.0), (-0.5, 2.0), (3.0, -0.25)):
            c = c0.clone()
            sgemm_ladder.matmul(a, b, out=c, alpha=alpha, beta=beta)
            self.check(c, a, b, alpha, beta, c0, what=f"alpha {alpha} beta {beta}")
        c = sgemm_ladder.addmm(c0, a, b, alpha=0.5, beta=-1.5)
        self.check(c, a, b, 0.5, -1.5, c0, what="addmm")
        bias = self.rand(n)
        self.check(sgemm_ladder.addmm(bias, a, b), a, b, 1.0, 1.0, bias.expand(m, n),
                   what="addmm, broadcast bias")

    def test_beta_zero_ignores_nan_in_c(self):
        for m, n, k in ((129, 65, 33), (257, 511, 1025)):
            a, b = self.rand(m, k), self.rand(k, n)
            c = torch.full((m, n), float("nan"), device=self.dev)
            sgemm_ladder.matmul(a, b, out=c, beta=0.0)
            self.check(c, a, b, what="beta 0, NaN in C")
            nan_c = torch.full((m, n), float("nan"), device=self.dev)
            self.check(sgemm_ladder.addmm(nan_c, a, b, beta=0.0), a, b, what="addmm beta 0")

    def test_alpha_zero_reads_neither_a_nor_b(self):
        for m, n, k in ((129, 65, 33), (257, 511, 1025)):
            a, b, c0 = self.rand(m, k), self.rand(k, n), self.rand(m, n)
            a[0, 0], a[3, 1], b[2, 2] = float("inf"), float("nan"), float("-inf")
            c = c0.clone()
            sgemm_ladder.matmul(a, b, out=c, alpha=0.0, beta=0.75)
            self.assertTrue(torch.equal(c, c0 * 0.75), "alpha 0: C = beta C")

    def test_k_zero_and_empty(self):
        a, b = self.rand(5, 0), self.rand(0, 7)
        self.assertTrue(torch.equal(sgemm_ladder.matmul(a, b), torch.zeros(5, 7, device=self.dev)))
        self.assertEqual(tuple(sgemm_ladder.matmul(self.rand(0, 4), self.rand(4, 7)).shape),
                         (0, 7))

    def test_inf_nan_as_torch_fp32(self):
        for m, n, k in ((129, 65, 33), (257, 511, 1025)):
            a, b = self.rand(m, k), self.rand(k, n)
            a[1, 2], a[5, 0], a[7, :] = float("inf"), float("nan"), float("-inf")
            b[3, 4], b[:, 9] = float("-inf"), float("inf")
            c = sgemm_ladder.matmul(a, b)
            ref = torch.mm(a, b)  # IEEE FP32 (allow_tf32 False)
            self.assertTrue(torch.equal(c.isnan(), ref.isnan()), f"NaN positions {m}x{n}x{k}")
            self.assertTrue(torch.equal(c.isposinf(), ref.isposinf()), "+Inf positions")
            self.assertTrue(torch.equal(c.isneginf(), ref.isneginf()), "-Inf positions")


class Batched(GpuTest):
    def test_bmm(self):
        for batch, m, n, k in ((4, 129, 65, 33), (3, 257, 511, 1025), (5, 1, 7, 3)):
            a, b = self.rand(batch, m, k), self.rand(batch, k, n)
            self.check(sgemm_ladder.bmm(a, b), a, b, what=f"bmm {batch}x{m}x{n}x{k}")
            at = self.rand(batch, k, m).transpose(1, 2)
            self.check(sgemm_ladder.bmm(at, b), at, b, what="bmm of transposed a")
            self.check(torch.ops.sgemm_ladder.bmm(a, b), a, b, what="op bmm")

    def test_broadcast(self):
        a, b = self.rand(6, 129, 33), self.rand(33, 65)
        self.check(sgemm_ladder.matmul(a, b), a, b.expand(6, 33, 65), what="3-D @ 2-D")
        a2, b3 = self.rand(129, 33), self.rand(6, 33, 65)
        self.check(sgemm_ladder.matmul(a2, b3), a2.expand(6, 129, 33), b3, what="2-D @ 3-D")
        a1 = self.rand(1, 129, 33)
        self.check(sgemm_ladder.bmm(a1, b3), a1.expand(6, 129, 33), b3, what="batch of one")


class Gradients(GpuTest):
    def test_mm_gradients(self):
        for m, n, k in ((129, 65, 33), (257, 511, 1025)):
            a = self.rand(m, k).requires_grad_()
            b = self.rand(k, n).requires_grad_()
            g = self.rand(m, n)
            c = torch.ops.sgemm_ladder.mm(a, b)
            self.check(c.detach(), a.detach(), b.detach(), what="forward")
            c.backward(g)
            self.check(a.grad, g, b.detach().t(), what="grad a = g b^T")
            self.check(b.grad, a.detach().t(), g, what="grad b = a^T g")

    def test_matmul_routes_to_the_op_for_autograd(self):
        a = self.rand(129, 33).requires_grad_()
        b = self.rand(33, 65).requires_grad_()
        (sgemm_ladder.matmul(a, b) * 2).sum().backward()  # sum: an expanded (stride 0) grad
        ones = torch.full((129, 65), 2.0, device=self.dev)
        self.check(a.grad, ones, b.detach().t(), what="grad a through matmul")
        self.check(b.grad, a.detach().t(), ones, what="grad b through matmul")

    def test_addmm_gradients(self):
        m, n, k = 257, 511, 1025
        c = self.rand(n).requires_grad_()
        a = self.rand(m, k).requires_grad_()
        b = self.rand(k, n).requires_grad_()
        g = self.rand(m, n)
        out = torch.ops.sgemm_ladder.addmm(c, a, b, 0.5, 2.0)
        out.backward(g)
        self.check(a.grad, g, b.detach().t(), alpha=2.0, what="addmm grad a")
        self.check(b.grad, a.detach().t(), g, alpha=2.0, what="addmm grad b")
        torch.testing.assert_close(c.grad, (0.5 * g).sum(0))

    def test_bmm_gradients(self):
        a = self.rand(3, 129, 33).requires_grad_()
        b = self.rand(3, 33, 65).requires_grad_()
        g = self.rand(3, 129, 65)
        torch.ops.sgemm_ladder.bmm(a, b).backward(g)
        self.check(a.grad, g, b.detach().transpose(1, 2), what="bmm grad a")
        self.check(b.grad, a.detach().transpose(1, 2), g, what="bmm grad b")

    def test_opcheck(self):
        a, b, c = self.rand(33, 17), self.rand(17, 9), self.rand(9)
        torch.library.opcheck(torch.ops.sgemm_ladder.mm.default, (a, b))
        torch.library.opcheck(torch.ops.sgemm_ladder.addmm.default, (c, a, b, 0.5, 2.0))
        torch.library.opcheck(torch.ops.sgemm_ladder.bmm.default,
                              (self.rand(2, 33, 17), self.rand(2, 17, 9)))


class Transforms(GpuTest):
    """What the ops' Autograd kernel must send on down the dispatcher rather than straight to
    the CUDA kernel: functorch's wrappers, lazily negated views, meta tensors."""

    def test_func_grad_with_an_operand_that_needs_none(self):
        # functorch wraps y too, needing no gradient: the op must hand it on, not read it.
        # (A gradient through the ops inside torch.func.grad is not supported: torch 2.11 has
        # no kernel for an autograd.Function applied at the Autograd key under functorch.)
        x, y = self.rand(17, 17), self.rand(17, 17)
        got = torch.func.grad(lambda x, y: (torch.ops.sgemm_ladder.mm(y, y) * x).sum())(x, y)
        self.check(got, y, y, what="grad of sum(x * (y @ y)) by x is y @ y")
        got = torch.func.grad(lambda x, y: (sgemm_ladder.matmul(y, y) * x).sum())(x, y)
        self.check(got, y, y, what="the same through sgemm_ladder.matmul")

    def test_negated_views(self):
        r, b = self.rand(65, 33), self.rand(33, 17)
        a = torch._neg_view(r)
        self.assertTrue(a.is_neg())
        for name, got in (("op", torch.ops.sgemm_ladder.mm(a, b)),
                          ("matmul", sgemm_ladder.matmul(a, b)),
                          ("bmm", torch.ops.sgemm_ladder.bmm(a[None], b[None])[0])):
            self.check(got, -r, b, what=f"{name} of a negated view")
        out = torch._neg_view(torch.empty(65, 17, device=self.dev))
        with self.assertRaisesRegex(ValueError, "negated view"):
            sgemm_ladder.matmul(r, b, out=out)

    def test_meta_tensors(self):
        a, b = torch.empty(2, 3, device="meta"), torch.empty(3, 4, device="meta")
        c = torch.ops.sgemm_ladder.mm(a, b)
        self.assertEqual((c.device.type, tuple(c.shape)), ("meta", (2, 4)))


class Switch(GpuTest):
    """fp32_matmul(): with allow_tf32 on, torch's own float32 products are TF32 (far outside
    FP32's bound), so a result within it shows the library ran."""

    def setUp(self):
        super().setUp()
        torch.backends.cuda.matmul.allow_tf32 = True

    def tearDown(self):
        torch.backends.cuda.matmul.allow_tf32 = False
        st.disable()

    def test_functions(self):
        m, n, k = 257, 511, 1025
        a, b, c = self.rand(m, k), self.rand(k, n), self.rand(m, n)
        a3, b3 = self.rand(4, m, k), self.rand(4, k, n)
        w, bias = self.rand(n, k), self.rand(n)
        with st.fp32_matmul():
            self.check(torch.mm(a, b), a, b, what="torch.mm")
            self.check(a.mm(b), a, b, what="Tensor.mm")
            self.check(torch.matmul(a, b), a, b, what="torch.matmul 2-D")
            self.check(a @ b, a, b, what="@")
            self.check(torch.matmul(a3, b3), a3, b3, what="torch.matmul 3-D")
            self.check(a3 @ b, a3, b.expand(4, k, n), what="3-D @ 2-D")
            self.check(a @ b3, a.expand(4, m, k), b3, what="2-D @ 3-D")
            self.check(torch.bmm(a3, b3), a3, b3, what="torch.bmm")
            self.check(torch.addmm(c, a, b, beta=0.5, alpha=2.0), a, b, 2.0, 0.5, c,
                       what="torch.addmm")
            self.check(F.linear(a, w), a, w.t(), what="linear")
            self.check(F.linear(a, w, bias), a, w.t(), 1.0, 1.0, bias.expand(m, n),
                       what="linear with bias")
            x3 = self.rand(2, m, k)
            self.check(F.linear(x3, w, bias), x3, w.t().expand(2, k, n), 1.0, 1.0,
                       bias.expand(2, m, n), what="linear on 3-D input")
            # untouched: other dtypes, devices, ranks
            self.assertEqual(torch.mm(a.double(), b.double()).dtype, torch.float64)
            self.assertEqual(torch.mm(a.cpu(), b.cpu()).device.type, "cpu")
            v = self.rand(k)
            self.assertEqual(tuple((a @ v).shape), (m,))

    def test_linear_model_and_training(self):
        model = torch.nn.Sequential(torch.nn.Linear(1025, 257), torch.nn.ReLU(),
                                    torch.nn.Linear(257, 65)).to(self.dev)
        x = self.rand(129, 1025)
        st.enable()
        try:
            self.assertTrue(st.is_enabled())
            y = model(x)
            y.sum().backward()
        finally:
            st.disable()
        self.assertFalse(st.is_enabled())
        self.assertIsNotNone(model[0].weight.grad)
        x64 = x.double()
        w0, b0 = model[0].weight.detach().double(), model[0].bias.detach().double()
        w1, b1 = model[2].weight.detach().double(), model[2].bias.detach().double()
        h64 = torch.relu(x64 @ w0.t() + b0)
        y64 = h64 @ w1.t() + b1
        # layer 2's own rounding, plus layer 1's carried through |w1| (ReLU is 1-Lipschitz)
        k1, k2 = 1025 + 2, 257 + 2
        bound = (k2 * U * (h64.abs() @ w1.abs().t() + b1.abs()) +
                 k1 * U * ((x64.abs() @ w0.abs().t() + b0.abs()) @ w1.abs().t()))
        err = (y.detach().double() - y64).abs()
        self.assertTrue(bool((err <= bound * (1 + 1e-6)).all()),
                        f"model output: worst {(err / bound).max().item():.3g} of the bound")


class Compile(GpuTest):
    def test_op_fullgraph(self):
        def f(a, b):
            return torch.ops.sgemm_ladder.mm(a, b).relu() * 2 + 1
        compiled = torch.compile(f, fullgraph=True)
        a, b = self.rand(129, 33), self.rand(33, 65)
        torch.testing.assert_close(compiled(a, b), f(a, b), rtol=0, atol=0)
        a2, b2 = self.rand(257, 1025), self.rand(1025, 511)
        torch.testing.assert_close(compiled(a2, b2), f(a2, b2), rtol=0, atol=0)

    def test_linear_model_fullgraph_under_switch(self):
        torch.backends.cuda.matmul.allow_tf32 = True  # torch's own path would be TF32
        try:
            model = torch.nn.Linear(1025, 511).to(self.dev)
            compiled = torch.compile(model, fullgraph=True)
            x = self.rand(257, 1025)
            with st.fp32_matmul():
                y = compiled(x)
                y.sum().backward()
            w, bias = model.weight.detach(), model.bias.detach()
            self.check(y.detach(), x, w.t(), 1.0, 1.0, bias.expand(257, 511),
                       what="compiled Linear under fp32_matmul")
            ones = torch.ones(257, 511, device=self.dev)
            self.check(model.weight.grad, ones.t(), x, what="compiled weight grad")
        finally:
            torch.backends.cuda.matmul.allow_tf32 = False


class Graphs(GpuTest):
    def capture(self, fn, *args):
        s = torch.cuda.Stream()
        s.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(s):  # warm up: load the library, fill the workspace
            for _ in range(2):
                fn(*args)
        torch.cuda.current_stream().wait_stream(s)
        g = torch.cuda.CUDAGraph()
        with torch.cuda.graph(g):
            out = fn(*args)
        return g, out

    def test_capture_and_replay_on_new_data(self):
        for m, n, k in ((129, 65, 33), (1024, 1024, 1024), (257, 511, 1025)):
            a, b = self.rand(m, k), self.rand(k, n)
            g, c = self.capture(torch.ops.sgemm_ladder.mm, a, b)
            for _ in range(2):
                a.copy_(self.rand(m, k))
                b.copy_(self.rand(k, n))
                g.replay()
                torch.cuda.synchronize()
                self.check(c, a, b, what=f"graph replay {m}x{n}x{k}")

    def test_capture_matmul_bmm_and_switch(self):
        a, b = self.rand(4, 129, 33), self.rand(4, 33, 65)
        g, c = self.capture(sgemm_ladder.bmm, a, b)
        a.copy_(self.rand(4, 129, 33))
        g.replay()
        torch.cuda.synchronize()
        self.check(c, a, b, what="graph replay bmm")
        model = torch.nn.Linear(1025, 511).to(self.dev)
        x = self.rand(257, 1025)

        def forward(x):
            with st.fp32_matmul():
                return model(x)
        with torch.no_grad():
            g, y = self.capture(forward, x)
            x.copy_(self.rand(257, 1025))
            g.replay()
        torch.cuda.synchronize()
        self.check(y, x, model.weight.detach().t(), 1.0, 1.0,
                   model.bias.detach().expand(257, 511), what="graph replay Linear")

    def test_no_host_synchronisation(self):
        a, b, c = self.rand(257, 1025), self.rand(1025, 511), self.rand(257, 511)
        a.requires_grad_()
        sgemm_ladder.matmul(a.detach(), b)  # the library loaded, the ops registered
        torch.cuda.synchronize()
        torch.cuda.set_sync_debug_mode("error")
        try:
            sgemm_ladder.matmul(a.detach(), b)
            sgemm_ladder.matmul(a.detach(), b, out=c, beta=1.0)
            sgemm_ladder.addmm(c, a.detach(), b)
            torch.ops.sgemm_ladder.mm(a, b).sum().backward()
            with st.fp32_matmul():
                torch.nn.functional.linear(a, b.t(), c[0]).sum().backward()
        finally:
            torch.cuda.set_sync_debug_mode(0)


class Streams(GpuTest):
    def test_two_streams(self):
        s1, s2 = torch.cuda.Stream(), torch.cuda.Stream()
        work = [(self.rand(1024, 1024), self.rand(1024, 1024)) for _ in range(4)]
        outs = []
        torch.cuda.synchronize()
        for i, (a, b) in enumerate(work):
            s = s1 if i % 2 else s2
            s.wait_stream(torch.cuda.current_stream())
            with torch.cuda.stream(s):
                outs.append((s, sgemm_ladder.matmul(a, b), torch.ops.sgemm_ladder.mm(b, a)))
        for s, c, d in outs:
            torch.cuda.current_stream().wait_stream(s)
        for (a, b), (s, c, d) in zip(work, outs):
            self.check(c, a, b, what="stream a @ b")
            self.check(d, b, a, what="stream b @ a")

    def test_explicit_stream_argument(self):
        s = torch.cuda.Stream()
        a, b = self.rand(129, 33), self.rand(33, 65)
        c = torch.empty(129, 65, device=self.dev)
        s.wait_stream(torch.cuda.current_stream())
        sgemm_ladder.matmul(a, b, out=c, stream=s)
        torch.cuda.current_stream().wait_stream(s)
        self.check(c, a, b, what="stream=")


class Devices(GpuTest):
    def setUp(self):
        super().setUp()
        if torch.cuda.device_count() < 2:
            self.skipTest(f"one GPU ({torch.cuda.device_count()}): the second-device tests "
                          "need two")

    def test_second_device(self):
        d1 = torch.device("cuda", 1)
        a, b = self.rand(257, 1025, device=d1), self.rand(1025, 511, device=d1)
        with torch.cuda.device(0):
            c = sgemm_ladder.matmul(a, b)
            self.assertEqual(torch.cuda.current_device(), 0)
        self.assertEqual(c.device, d1)
        self.check(c, a, b, what="cuda:1")
        with torch.cuda.device(0), st.fp32_matmul():
            self.check(a @ b, a, b, what="cuda:1 switch")

    def test_different_devices(self):
        a, b = self.rand(8, 8), self.rand(8, 8, device=torch.device("cuda", 1))
        with self.assertRaisesRegex(ValueError, "different devices"):
            sgemm_ladder.matmul(a, b)


class Errors(GpuTest):
    def test_cpu_tensor(self):
        with self.assertRaisesRegex(TypeError, "is on cpu"):
            sgemm_ladder.matmul(torch.ones(4, 4), torch.ones(4, 4, device=self.dev))

    def test_float64(self):
        with self.assertRaisesRegex(TypeError, "torch.float64: the library multiplies float32"):
            sgemm_ladder.matmul(self.rand(4, 4).double(), self.rand(4, 4))
        with self.assertRaises((TypeError, RuntimeError)):  # through the op: raised inside it
            torch.ops.sgemm_ladder.mm(self.rand(4, 4).double(), self.rand(4, 4))

    def test_mismatched_shapes(self):
        with self.assertRaisesRegex(ValueError, "cannot be multiplied"):
            sgemm_ladder.matmul(self.rand(4, 5), self.rand(6, 4))
        with self.assertRaises((ValueError, RuntimeError)):
            torch.ops.sgemm_ladder.mm(self.rand(4, 5), self.rand(6, 4))

    def test_library_sentence(self):
        k = (1 << 20) + 1  # beyond the library's limit: its own sentence
        with self.assertRaisesRegex(sgemm_ladder.SgemmValueError,
                                    r"K = 1048577 is larger than the limit 1048576 \(bad_size\)"):
            sgemm_ladder.matmul(self.rand(1, k), self.rand(k, 1))


class CuPy(GpuTest):
    def setUp(self):
        super().setUp()
        try:
            import cupy
        except ImportError as e:
            _absent(self, f"cupy cannot be imported ({e})")
        self.cp = cupy

    def test_round_trip(self):
        cp = self.cp
        with cp.cuda.Device(0):
            a = cp.random.uniform(-1, 1, (257, 1025)).astype(cp.float32)
            b = cp.random.uniform(-1, 1, (1025, 511)).astype(cp.float32)
            c = sgemm_ladder.matmul(a, b)
            self.assertIsInstance(c, cp.ndarray)
            cp.cuda.Device(0).synchronize()
            self.check(torch.as_tensor(c, device=self.dev), torch.as_tensor(a, device=self.dev),
                       torch.as_tensor(b, device=self.dev), what="cupy")
            at = cp.ascontiguousarray(a.T).T  # a column-major view
            out = cp.empty((257, 511), dtype=cp.float32)
            cp.cuda.Device(0).synchronize()  # at and out are ready for any stream
            with cp.cuda.Stream():  # a CuPy stream of its own: the call runs on it
                self.assertIs(sgemm_ladder.matmul(at, b, out=out), out)
            cp.cuda.Device(0).synchronize()
            self.check(torch.as_tensor(out, device=self.dev), torch.as_tensor(a, device=self.dev),
                       torch.as_tensor(b, device=self.dev), what="cupy transposed, out=")
            c3 = sgemm_ladder.bmm(cp.stack([a[:, :33]] * 3), cp.stack([b[:33]] * 3))
            self.assertEqual(c3.shape, (3, 257, 511))
            with self.assertRaisesRegex(TypeError, "float32"):
                sgemm_ladder.matmul(a.astype(cp.float64), b)


class Jax(GpuTest):
    def setUp(self):
        super().setUp()
        try:
            import jax
            import jax.numpy as jnp
        except ImportError as e:
            _absent(self, f"jax cannot be imported ({e})")
        if not any(d.platform == "gpu" for d in jax.devices()):
            _absent(self, "JAX sees no GPU")
        self.jax, self.jnp = jax, jnp

    def test_round_trip(self):
        jax, jnp = self.jax, self.jnp
        key = jax.random.PRNGKey(0)
        ka, kb = jax.random.split(key)
        a = jax.random.uniform(ka, (257, 1025), jnp.float32, -1, 1)
        b = jax.random.uniform(kb, (1025, 511), jnp.float32, -1, 1)
        c = sgemm_ladder.matmul(a, b)
        self.assertIsInstance(c, jax.Array)
        self.assertEqual(c.shape, (257, 511))
        ta = torch.from_dlpack(a)
        tb = torch.from_dlpack(b)
        self.check(torch.from_dlpack(c), ta, tb, what="jax")
        c2 = sgemm_ladder.matmul(a.T.T, b) + 0  # used by JAX afterwards
        self.assertEqual(float(jnp.max(jnp.abs(c2 - c))), 0.0)
        with self.assertRaisesRegex(TypeError, "immutable"):
            sgemm_ladder.matmul(a, b, out=c)



class JaxJit(GpuTest):
    """sgemm_ladder.jax: the one call as an XLA FFI custom call inside jax.jit, grad and vmap
    (libsgemm_jax_ffi.so, built where jax was importable at configure time)."""

    def setUp(self):
        super().setUp()
        try:
            import jax
            import jax.numpy as jnp
            import numpy as np
        except ImportError as e:
            _absent(self, f"jax cannot be imported ({e})")
        if not any(d.platform == "gpu" for d in jax.devices()):
            _absent(self, "JAX sees no GPU")
        import sgemm_ladder.jax as sj
        try:
            sj._register()
        except sgemm_ladder.LibraryNotFound as e:
            _absent(self, f"no JAX FFI handler library: {e}")
        self.jax, self.jnp, self.np, self.sj = jax, jnp, np, sj
        self.key = jax.random.PRNGKey(1234)

    def uniform(self, *shape):
        self.key, key = self.jax.random.split(self.key)
        return self.jax.random.uniform(key, shape, self.jnp.float32, -1, 1)

    def host(self, x):
        """A JAX array as a CPU torch tensor (a host copy), for check()'s float64 reference."""
        return torch.from_numpy(self.np.array(x))

    def test_jit_odd_shapes(self):
        f = self.jax.jit(self.sj.matmul)
        for m, n, k in ((1, 1, 1), (257, 129, 1025), (129, 65, 33), (3, 1000, 1001)):
            a, b = self.uniform(m, k), self.uniform(k, n)
            c = f(a, b)
            self.assertEqual((c.shape, c.dtype), ((m, n), self.jnp.float32))
            self.check(self.host(c), self.host(a), self.host(b), what=f"jit {m}x{n}x{k}")

    def test_jit_batches(self):
        f = self.jax.jit(self.sj.matmul)
        a, b = self.uniform(3, 257, 1025), self.uniform(3, 1025, 129)
        self.check(self.host(f(a, b)), self.host(a), self.host(b), what="jit 3-D")
        a4, b4 = self.uniform(2, 3, 129, 33), self.uniform(2, 3, 33, 65)
        self.check(self.host(f(a4, b4)), self.host(a4), self.host(b4), what="jit 4-D")

    def test_inside_a_larger_program(self):
        jnp = self.jnp

        @self.jax.jit
        def f(a, b):  # a transposed operand: XLA lays it out row-major before the call
            c = self.sj.matmul(a.T * 2, b)
            return c, jnp.tanh(c)

        a, b = self.uniform(1025, 257), self.uniform(1025, 129)
        c, t = f(a, b)
        self.check(self.host(c), self.host(a.T * 2), self.host(b), what="a.T * 2 @ b")
        self.assertTrue(bool(jnp.allclose(t, jnp.tanh(c))), "the product used by XLA after")
        # The package's own matmul and bmm route tracers to the custom call.
        self.check(self.host(self.jax.jit(sgemm_ladder.matmul)(a.T, b)), self.host(a.T),
                   self.host(b), what="sgemm_ladder.matmul under jit")
        a3, b3 = self.uniform(2, 65, 33), self.uniform(2, 33, 17)
        self.check(self.host(self.jax.jit(sgemm_ladder.bmm)(a3, b3)), self.host(a3),
                   self.host(b3), what="sgemm_ladder.bmm under jit")

    def test_zero_sizes(self):
        f = self.jax.jit(self.sj.matmul)
        jnp = self.jnp
        c = f(jnp.ones((5, 0), jnp.float32), jnp.ones((0, 7), jnp.float32))
        self.assertEqual(c.shape, (5, 7))
        self.assertTrue(bool(jnp.all(c == 0)), "K = 0: an empty sum is 0")
        c = f(jnp.ones((2, 5, 0), jnp.float32), jnp.ones((2, 0, 7), jnp.float32))
        self.assertTrue(bool(jnp.all(c == 0)), "K = 0, batched")
        self.assertEqual(f(jnp.ones((0, 3), jnp.float32), self.uniform(3, 7)).shape, (0, 7))
        self.assertEqual(f(jnp.ones((0, 4, 3), jnp.float32),
                           jnp.ones((0, 3, 7), jnp.float32)).shape, (0, 4, 7))

    def test_grad(self):
        jax = self.jax
        for shape_a, shape_b in (((257, 1025), (1025, 129)), ((3, 129, 33), (3, 33, 65))):
            a, b = self.uniform(*shape_a), self.uniform(*shape_b)
            g = self.uniform(*(shape_a[:-1] + shape_b[-1:]))
            loss = jax.jit(lambda x, y: (self.sj.matmul(x, y) * g).sum())
            ga, gb = jax.jit(jax.grad(loss, argnums=(0, 1)))(a, b)
            self.assertEqual((ga.shape, gb.shape), (a.shape, b.shape))
            ha, hb, hg = self.host(a), self.host(b), self.host(g)
            self.check(self.host(ga), hg, hb.transpose(-1, -2), what=f"grad a {shape_a}")
            self.check(self.host(gb), ha.transpose(-1, -2), hg, what=f"grad b {shape_b}")

    def test_vmap(self):
        jax = self.jax
        a, b = self.uniform(4, 129, 33), self.uniform(4, 33, 65)
        c = jax.jit(jax.vmap(self.sj.matmul))(a, b)
        self.check(self.host(c), self.host(a), self.host(b), what="vmap")
        b2 = self.uniform(33, 65)  # unbatched: broadcast to the batch
        c = jax.jit(jax.vmap(self.sj.matmul, in_axes=(0, None)))(a, b2)
        self.check(self.host(c), self.host(a), self.host(b2).expand(4, 33, 65),
                   what="vmap, b shared")

    def test_errors(self):
        jnp, np, sj = self.jnp, self.np, self.sj
        with self.assertRaisesRegex(TypeError, "float64: the library multiplies float32"):
            sj.matmul(np.ones((4, 4)), np.ones((4, 4), np.float32))
        with self.assertRaisesRegex(TypeError, "int32: the library multiplies float32"):
            self.jax.jit(sj.matmul)(jnp.ones((4, 4), jnp.int32), jnp.ones((4, 4), jnp.float32))
        with self.assertRaisesRegex(ValueError, "cannot be multiplied"):
            self.jax.jit(sj.matmul)(self.uniform(4, 5), self.uniform(6, 4))
        with self.assertRaisesRegex(ValueError, "batch dimensions"):
            sj.matmul(self.uniform(2, 4, 5), self.uniform(5, 4))
        with self.assertRaisesRegex(TypeError, "JAX tracer"):
            self.jax.jit(lambda c, a, b: sgemm_ladder.addmm(c, a, b))(
                self.uniform(4), self.uniform(4, 4), self.uniform(4, 4))
        k = (1 << 20) + 1  # beyond the library's limit: its sentence, through XLA's error
        with self.assertRaisesRegex(Exception, r"K = 1048577 is larger than the limit 1048576"):
            self.jax.block_until_ready(self.jax.jit(sj.matmul)(self.uniform(1, k),
                                                               self.uniform(k, 1)))

if __name__ == "__main__":
    if WHY is not None:
        print(("FAILED: SGEMM_REQUIRE_GPU=1 and " if REQUIRE else "SGEMM-SKIPPED: ") + WHY)
    unittest.main(verbosity=2)
