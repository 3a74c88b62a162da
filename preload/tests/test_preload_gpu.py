#!/usr/bin/env python3
"""The preload library on a GPU (ctest label gpu). Programs run as child processes with
LD_PRELOAD=libsgemm_preload.so and SGEMM_PRELOAD_LOG=1, and the same programs without it:

  * PyTorch FP32 (TF32 off): torch.mm on odd shapes and every transpose (.t() views make cuBLAS
    calls with op T), nn.Linear forward and backward, torch.bmm; CuPy cupy.matmul (2-D and
    batched) and cupy.cublas.gemm with alpha and beta in device memory: every result within
    FP32's componentwise bound, |c - c64| <= gamma_K |A| |B| (gamma_K = K u / (1 - K u),
    u = 2^-24, c64 the float64 product on the GPU), and the log shows the calls were taken.
  * Forwarded: TF32 on (torch sets CUBLAS_TF32_TENSOR_OP_MATH), float16, bfloat16 and float64
    torch.mm: bitwise the results of the run without the library.
  * alpha = 0, beta = 0 with NaN in A and C, and beta = 0 with NaN in C (torch.addmm(out=...)).
  * tests/probe.cpp, a C++ program linked to cuBLAS: every entry point, host and device
    pointer modes, with and without the library and with SGEMM_PRELOAD=0.

A child skips (and its test reports skipped) where torch or cupy is not installed.

  python3 preload/tests/test_preload_gpu.py --lib build/preload/libsgemm_preload.so \
      --probe build/preload/sgemm_preload_probe
"""
import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
import unittest

ARGS = None
HERE = os.path.abspath(__file__)

# ---------------------------------------------------------------- the children (one per run)


def bound_ratio(c, a, b, k):
    """max |c - a@b| / (gamma_{k+2} |a|@|b|), in float64 on the GPU (torch or cupy); inf where c
    has Inf or NaN. gamma_k = k u / (1 - k u), u = 2^-24; k + 2: room for alpha's rounding."""
    u = 2.0 ** -24
    gamma = (k + 2) * u / (1 - (k + 2) * u)
    if type(c).__module__.startswith("torch"):
        exact = a.double() @ b.double()
        scale = a.double().abs() @ b.double().abs()
        err = (c.double() - exact).abs()
        ratio = (err / (gamma * scale).clamp_min(1e-300)).max().item()
        finite = bool(c.isfinite().all().item())
    else:
        import cupy
        exact = a.astype("float64") @ b.astype("float64")
        scale = cupy.abs(a.astype("float64")) @ cupy.abs(b.astype("float64"))
        err = cupy.abs(c.astype("float64") - exact)
        ratio = float((err / cupy.maximum(gamma * scale, 1e-300)).max())
        finite = bool(cupy.isfinite(c).all())
    return ratio if finite else float("inf")


def save(out, name, array):
    """The raw bytes of a torch tensor or cupy array, for bitwise comparisons between runs."""
    if hasattr(array, "cpu"):
        data = array.contiguous().view(-1).view(__import__("torch").uint8).cpu().numpy()
    else:
        data = array.get()
    with open(os.path.join(out, name + ".bin"), "wb") as f:
        f.write(data.tobytes())


SHAPES = [(131, 77, 293), (1000, 513, 257), (64, 64, 64), (3, 5, 1031), (1, 7, 9)]


def operand(torch, rows, cols, transposed, gen):
    """A rows x cols operand: a contiguous tensor, or the .t() view of its transpose."""
    if transposed:
        return torch.randn(cols, rows, device="cuda", generator=gen).t()
    return torch.randn(rows, cols, device="cuda", generator=gen)


def child_torch_mm(out):
    import torch
    torch.backends.cuda.matmul.allow_tf32 = False
    gen = torch.Generator(device="cuda").manual_seed(1)
    ratios = {}
    for m, n, k in SHAPES:
        for ta in (False, True):
            for tb in (False, True):
                a, b = operand(torch, m, k, ta, gen), operand(torch, k, n, tb, gen)
                c = torch.mm(a, b)
                name = f"mm_{m}x{n}x{k}_{'T' if ta else 'N'}{'T' if tb else 'N'}"
                ratios[name] = bound_ratio(c, a, b, k)
                save(out, name, c)
    return {"ratios": ratios}


def child_torch_linear(out):
    import torch
    torch.backends.cuda.matmul.allow_tf32 = False
    torch.manual_seed(2)
    batch, fin, fout = 77, 257, 131
    linear = torch.nn.Linear(fin, fout).cuda()
    x = torch.randn(batch, fin, device="cuda", requires_grad=True)
    g = torch.randn(batch, fout, device="cuda")
    y = linear(x)
    y.backward(g)
    w, bias = linear.weight.detach(), linear.bias.detach()
    ones = torch.ones(batch, 1, device="cuda")
    ratios = {
        # y = x w^T + bias: bias as one more column of the product
        "forward": bound_ratio(y.detach(), torch.cat([x.detach(), ones], 1),
                               torch.cat([w.t(), bias[None]], 0), fin + 1),
        "grad_input": bound_ratio(x.grad, g, w, fout),
        "grad_weight": bound_ratio(linear.weight.grad, g.t(), x.detach(), batch),
    }
    return {"ratios": ratios}


def child_torch_bmm(out):
    import torch
    torch.backends.cuda.matmul.allow_tf32 = False
    gen = torch.Generator(device="cuda").manual_seed(3)
    ratios = {}
    batch, m, n, k = 5, 131, 77, 293
    for ta in (False, True):
        for tb in (False, True):
            a = torch.randn(batch, k, m, device="cuda", generator=gen).transpose(1, 2) if ta \
                else torch.randn(batch, m, k, device="cuda", generator=gen)
            b = torch.randn(batch, n, k, device="cuda", generator=gen).transpose(1, 2) if tb \
                else torch.randn(batch, k, n, device="cuda", generator=gen)
            c = torch.bmm(a, b)
            name = f"bmm_{'T' if ta else 'N'}{'T' if tb else 'N'}"
            ratios[name] = max(bound_ratio(c[i], a[i], b[i], k) for i in range(batch))
    return {"ratios": ratios}


def child_torch_addmm_zero(out):
    """BLAS's rules: beta == 0 does not read C; alpha == 0 does not read A or B."""
    import torch
    torch.backends.cuda.matmul.allow_tf32 = False
    gen = torch.Generator(device="cuda").manual_seed(4)
    m, n, k = 131, 77, 293
    a, b = torch.randn(m, k, device="cuda", generator=gen), torch.randn(k, n, device="cuda",
                                                                         generator=gen)
    nan = torch.full((m, n), float("nan"), device="cuda")
    out1 = torch.full((m, n), float("nan"), device="cuda")
    torch.addmm(nan, a, b, beta=0, alpha=1, out=out1)
    a_nan = a.clone()
    a_nan[5, 7] = float("nan")
    out2 = torch.full((m, n), float("nan"), device="cuda")
    torch.addmm(nan, a_nan, b, beta=0, alpha=0, out=out2)
    save(out, "beta0", out1)
    save(out, "alpha0_beta0", out2)
    return {"ratios": {"beta0_nan_c": bound_ratio(out1, a, b, k)},
            "alpha0_beta0_zero": bool((out2 == 0).all().item())}


def child_torch_forwarded(out):
    """Calls the library forwards: TF32 on, and other data types."""
    import torch
    gen = torch.Generator(device="cuda").manual_seed(5)
    a = torch.randn(1000, 513, device="cuda", generator=gen)
    b = torch.randn(513, 257, device="cuda", generator=gen)
    torch.backends.cuda.matmul.allow_tf32 = True
    save(out, "tf32_mm", torch.mm(a, b))
    save(out, "tf32_mm_TN", torch.mm(b.t(), a.t()))
    torch.backends.cuda.matmul.allow_tf32 = False
    for dtype in (torch.float16, torch.bfloat16, torch.float64):
        save(out, f"mm_{str(dtype).split('.')[1]}", torch.mm(a.to(dtype), b.to(dtype)))
    save(out, "bmm_float16", torch.bmm(a[None].half().expand(3, -1, -1),
                                       b[None].half().expand(3, -1, -1)))
    return {}


def child_cupy(out):
    import cupy
    cupy.random.seed(6)
    ratios = {}
    for m, n, k in SHAPES:
        for ta in (False, True):
            for tb in (False, True):
                a = (cupy.random.standard_normal((k, m), dtype="float32").T if ta
                     else cupy.random.standard_normal((m, k), dtype="float32"))
                b = (cupy.random.standard_normal((n, k), dtype="float32").T if tb
                     else cupy.random.standard_normal((k, n), dtype="float32"))
                c = cupy.matmul(a, b)
                ratios[f"matmul_{m}x{n}x{k}_{'T' if ta else 'N'}{'T' if tb else 'N'}"] = \
                    bound_ratio(c, a, b, k)
    a3 = cupy.random.standard_normal((4, 131, 293), dtype="float32")
    b3 = cupy.random.standard_normal((4, 293, 77), dtype="float32")
    c3 = cupy.matmul(a3, b3)
    ratios["matmul_batched"] = max(bound_ratio(c3[i], a3[i], b3[i], 293) for i in range(4))
    result = {"ratios": ratios}
    # Alpha and beta in device memory: cupy.cublas.gemm sets CUBLAS_POINTER_MODE_DEVICE for
    # scalars that are arrays. NaN in C (beta == 0: not read), then in A too (alpha == 0).
    try:
        from cupy import cublas
        a = cupy.random.standard_normal((131, 293), dtype="float32")
        b = cupy.random.standard_normal((293, 77), dtype="float32")
        c = cupy.full((131, 77), cupy.nan, dtype="float32", order="F")
        cublas.gemm("N", "N", a, b, out=c, alpha=cupy.array(1.5, "float32"),
                    beta=cupy.array(0, "float32"))
        ratios["device_scalars_beta0_nan_c"] = bound_ratio(c, 1.5 * a, b, 293)
        a[3, 4] = cupy.nan
        c = cupy.full((131, 77), cupy.nan, dtype="float32", order="F")
        cublas.gemm("N", "N", a, b, out=c, alpha=cupy.array(0, "float32"),
                    beta=cupy.array(0, "float32"))
        result["device_alpha0_beta0_zero"] = bool((c == 0).all())
    except Exception as error:  # an older or newer cupy.cublas: the probe covers device scalars
        result["device_scalars_skipped"] = f"{type(error).__name__}: {error}"
    return result


CHILDREN = {name[len("child_"):]: fn for name, fn in globals().items()
            if name.startswith("child_")}


def child_main(name, out):
    try:
        if name.startswith("torch"):
            import torch
            if not torch.cuda.is_available():
                raise ImportError("torch has no CUDA device")
        else:
            import cupy  # noqa: F401
    except ImportError as error:
        print(json.dumps({"skipped": str(error)}))
        return 0
    result = CHILDREN[name](out)
    print(json.dumps(result))
    return 0

# ---------------------------------------------------------------- the tests (the parent)


def run(args, preload, out=None, **env):
    """Runs a child (a list: the command) with or without the library; stdout, stderr."""
    environment = dict(os.environ)
    environment.pop("LD_PRELOAD", None)
    environment.update(env)
    if preload:
        environment["LD_PRELOAD"] = os.path.abspath(ARGS.lib)
        environment.setdefault("SGEMM_PRELOAD_LOG", "1")
    done = subprocess.run(args, env=environment, capture_output=True, text=True, timeout=600)
    return done


def run_child(test, name, preload, out, **env):
    done = run([sys.executable, HERE, "--child", name, "--out", out], preload, **env)
    test.assertEqual(done.returncode, 0, done.stdout + done.stderr)
    result = json.loads(done.stdout.strip().splitlines()[-1])
    if "skipped" in result:
        test.skipTest(result["skipped"])
    return result, done.stderr


def files(directory):
    return {name: open(os.path.join(directory, name), "rb").read()
            for name in sorted(os.listdir(directory))}


class PreloadOnTheGpu(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory(prefix="sgemm_preload_")
        self.hooked = os.path.join(self.tmp.name, "hooked")
        self.plain = os.path.join(self.tmp.name, "plain")
        os.makedirs(self.hooked), os.makedirs(self.plain)

    def tearDown(self):
        self.tmp.cleanup()

    def assert_within_bound(self, result):
        bad = {name: r for name, r in result["ratios"].items() if not r <= 1.0}
        self.assertFalse(bad, f"over FP32's bound (error / bound): {bad}")

    def assert_taken(self, log, entry):
        self.assertRegex(log, rf"sgemm_preload: {entry}: taken", log)

    def test_torch_mm_all_transposes(self):
        result, log = run_child(self, "torch_mm", True, self.hooked)
        self.assert_within_bound(result)
        self.assert_taken(log, "cublasSgemm_v2")
        self.assertNotIn("forwarded", log)

    def test_torch_linear(self):
        for lt in ("0", "1"):  # DISABLE_ADDMM_CUDA_LT=1: the forward's addmm on cublasSgemm too
            with self.subTest(DISABLE_ADDMM_CUDA_LT=lt):
                result, log = run_child(self, "torch_linear", True, self.hooked,
                                        DISABLE_ADDMM_CUDA_LT=lt)
                self.assert_within_bound(result)
                self.assert_taken(log, "cublasSgemm_v2")  # the backward's mm at least

    def test_torch_bmm(self):
        result, log = run_child(self, "torch_bmm", True, self.hooked)
        self.assert_within_bound(result)
        self.assert_taken(log, "cublasSgemmStridedBatched")

    def test_torch_addmm_alpha_beta_zero(self):
        result, log = run_child(self, "torch_addmm_zero", True, self.hooked)
        self.assert_within_bound(result)
        self.assertTrue(result["alpha0_beta0_zero"], "alpha = beta = 0 did not give zeros")
        self.assert_taken(log, "cublasSgemm_v2")

    def test_torch_forwarded_calls_are_cublas_bitwise(self):
        _, log = run_child(self, "torch_forwarded", True, self.hooked)
        run_child(self, "torch_forwarded", False, self.plain)
        self.assertEqual(files(self.hooked).keys(), files(self.plain).keys())
        for name, data in files(self.hooked).items():
            self.assertEqual(data, files(self.plain)[name], f"{name} differs from unhooked")
        self.assertRegex(log, r"forwarded \(math mode CUBLAS_TF32_TENSOR_OP_MATH")
        self.assertNotRegex(log, r": taken")

    def test_switch_off_is_cublas_bitwise(self):
        _, log = run_child(self, "torch_mm", True, self.hooked, SGEMM_PRELOAD="0")
        run_child(self, "torch_mm", False, self.plain)
        self.assertEqual(files(self.hooked), files(self.plain))
        self.assertIn("forwarded (switched off by SGEMM_PRELOAD)", log)
        self.assertNotRegex(log, r": taken")

    def test_cupy(self):
        result, log = run_child(self, "cupy", True, self.hooked)
        self.assert_within_bound(result)
        self.assert_taken(log, "cublasGemmEx")
        if "device_scalars_skipped" not in result:
            self.assertTrue(result["device_alpha0_beta0_zero"], log)
            self.assertRegex(log, r"taken \(alpha and beta in device memory\)")

    def test_probe_every_entry_point(self):
        hooked = run([ARGS.probe, "gpu", self.hooked], True)
        plain = run([ARGS.probe, "gpu", self.plain], False)
        self.assertEqual(hooked.returncode, 0, hooked.stdout + hooked.stderr)
        statuses = lambda out: dict(re.findall(r"case (\S+) status (\d+)", out))  # noqa: E731
        self.assertEqual(statuses(hooked.stdout), statuses(plain.stdout),
                         "statuses differ from unhooked cuBLAS")
        mine, theirs = files(self.hooked), files(self.plain)
        for name in mine:
            if name.startswith("forwarded_"):
                self.assertEqual(mine[name], theirs[name], f"{name}: not cuBLAS's bits")
        log = hooked.stderr
        for entry in ("cublasSgemm_v2", "cublasSgemm_v2_64", "cublasSgemmEx", "cublasSgemmEx_64",
                      "cublasGemmEx", "cublasGemmEx_64", "cublasSgemmStridedBatched",
                      "cublasSgemmStridedBatched_64", "cublasGemmStridedBatchedEx",
                      "cublasGemmStridedBatchedEx_64", "cublasSgemmBatched",
                      "cublasSgemmBatched_64", "cublasGemmBatchedEx", "cublasGemmBatchedEx_64"):
            self.assert_taken(log, entry)
        self.assertIn("cublasSgemm_v2: taken (alpha and beta in device memory)", log)
        self.assertIn("cublasSgemmStridedBatched: taken (alpha and beta in device memory)", log)
        self.assertIn("cublasSgemmBatched: taken (alpha and beta in device memory)", log)
        self.assertIn("cublasGemmEx: forwarded (compute type CUBLAS_COMPUTE_32F_FAST_TF32)", log)
        self.assertIn("cublasGemmEx: forwarded (data types CUDA_R_16F, CUDA_R_16F, CUDA_R_32F)",
                      log)
        self.assertIn("cublasSgemm_v2: forwarded (math mode CUBLAS_TF32_TENSOR_OP_MATH)", log)
        # Switched off: every result is cuBLAS's, bit for bit.
        off = os.path.join(self.tmp.name, "off")
        os.makedirs(off)
        run([ARGS.probe, "gpu", off], True, SGEMM_PRELOAD="0")
        self.assertEqual(files(off), theirs)


def main():
    global ARGS
    parser = argparse.ArgumentParser()
    parser.add_argument("--lib")
    parser.add_argument("--probe")
    parser.add_argument("--child", choices=sorted(CHILDREN))
    parser.add_argument("--out")
    ARGS, rest = parser.parse_known_args()
    if ARGS.child:
        sys.exit(child_main(ARGS.child, ARGS.out))
    if not ARGS.lib or not ARGS.probe:
        parser.error("--lib and --probe are required")
    devices = subprocess.run([ARGS.probe, "devices"], capture_output=True, text=True).stdout
    if devices.strip() in ("", "devices 0"):
        print("SGEMM-SKIPPED: no GPU (" + (devices.strip() or "the probe did not run") + ")")
        return
    unittest.main(argv=[sys.argv[0]] + rest, verbosity=2)


if __name__ == "__main__":
    main()
