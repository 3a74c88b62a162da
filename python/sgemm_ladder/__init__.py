"""FP32-accurate matrix multiplication on NVIDIA GPUs from Python: the SGEMM ladder's one call
(include/sgemm/sgemm_c.h, libsgemm_ladder.so) through ctypes, on torch tensors, CuPy arrays,
JAX arrays and any object with __cuda_array_interface__ or __dlpack__.

    import torch, sgemm_ladder
    c = sgemm_ladder.matmul(a, b)            # a, b: float32 CUDA tensors, 2-D or 3-D
    with sgemm_ladder.torch.fp32_matmul():   # torch.mm, matmul, bmm, addmm, nn.Linear
        y = model(x)

Every call is asynchronous on the caller's current stream (torch's or CuPy's of the arrays'
device; `stream=` for other arrays) and never synchronises the host. Strided operands are
passed as they are (op T for a transposed view, the leading dimension for padded rows); only
an operand with neither stride 1 (broadcast, negative or overlapping strides) is copied.
Inside jax.jit, grad and vmap, matmul and bmm of JAX arrays are an XLA FFI custom call
(sgemm_ladder.jax, libsgemm_jax_ffi.so); outside, JAX arrays pass through DLPack.
Only the standard library is imported here; torch, CuPy and JAX when an array of theirs
arrives. The library is loaded on the first call ($SGEMM_LADDER_LIBRARY, else a copy beside
the package, else the repository's build/, else the loader's path).
"""
import sys as _sys

from . import _core
from ._library import (LibraryNotFound, SgemmError, SgemmRuntimeError, SgemmValueError,
                       library as _load)

__all__ = ["matmul", "addmm", "bmm", "SgemmError", "SgemmValueError", "SgemmRuntimeError",
           "LibraryNotFound", "version", "rungs", "one_call_rung", "library_path",
           "workspace_limit", "set_workspace_limit", "release_workspace"]
__version__ = "0.1.0"


def _torch_op_needed(a, b):
    """For torch tensors with no out=: whether autograd, torch.compile or a functorch transform
    (torch.func.grad, vmap) needs the custom ops (sgemm_ladder.torch) rather than the direct
    call."""
    torch = _sys.modules.get("torch")
    if torch is None or not isinstance(a, torch.Tensor) or not isinstance(b, torch.Tensor):
        return False
    if torch.compiler.is_compiling() or torch._C._are_functorch_transforms_active():
        return True  # Dynamo traces the op; functorch's wrappers have no memory to pass
    return torch.is_grad_enabled() and (a.requires_grad or b.requires_grad)


def _jax_traced(a, b):
    """Whether a or b is a JAX tracer (inside jax.jit, grad, vmap): no memory to pass through
    DLPack, so the call must be the FFI custom call (sgemm_ladder.jax)."""
    jax = _sys.modules.get("jax")
    return jax is not None and any(isinstance(x, jax.core.Tracer) for x in (a, b))


def _jax_matmul(what, a, b, out, alpha, beta, stream):
    if out is not None or alpha != 1 or beta != 0 or stream is not None:
        raise TypeError(f"sgemm_ladder.{what}: inside jax.jit, grad or vmap only {what}(a, b) "
                        "runs (no out, alpha, beta or stream); scale the result in JAX")
    from . import jax as _jax
    return _jax.matmul(a, b)


def matmul(a, b, out=None, *, alpha=1.0, beta=0.0, stream=None):
    """out = alpha a @ b + beta out, at FP32 accuracy. a, b: float32 device arrays, 2-D
    (M x K, K x N) or 3-D (a batch; a 2-D operand or a batch of one is shared by every
    problem). out=None allocates the product (C-contiguous, the first operand's framework and
    device; beta must then be 0); otherwise out is written in place and returned. beta == 0
    never reads out (NaN there does not propagate); alpha == 0 reads neither a nor b.
    Torch tensors that need gradients, and calls inside torch.compile, go through the
    differentiable custom ops (sgemm_ladder.torch); JAX tracers (inside jax.jit, grad, vmap)
    through the FFI custom call (sgemm_ladder.jax.matmul: equal batch dimensions, no out,
    alpha or beta)."""
    if _jax_traced(a, b):
        return _jax_matmul("matmul", a, b, out, alpha, beta, stream)
    if out is None and stream is None and beta == 0 and _torch_op_needed(a, b):
        from . import torch as _ops
        return _ops.matmul(a, b, alpha)
    return _core.gemm("matmul", a, b, out, float(alpha), float(beta), stream)


def addmm(c, a, b, *, alpha=1.0, beta=1.0, stream=None):
    """beta c + alpha a @ b as a new array (torch.addmm's semantics): c broadcasts to the
    product's shape and is not changed; beta == 0 ignores c (NaN there does not propagate)."""
    if stream is None and _torch_op_needed(a, b) and a.dim() == 2 and b.dim() == 2:
        from . import torch as _ops
        return _ops.addmm(c, a, b, beta=float(beta), alpha=float(alpha))
    return _core.gemm("addmm", a, b, None, float(alpha), float(beta), stream, c=c)


def bmm(a, b, out=None, *, alpha=1.0, beta=0.0, stream=None):
    """matmul for two 3-D arrays (batch x M x K, batch x K x N), one
    sgemm_gemm_strided_batched call; a batch of one (or a stride of 0) is shared. JAX tracers
    go through sgemm_ladder.jax.matmul (equal batch sizes)."""
    if _jax_traced(a, b):
        if len(a.shape) != 3 or len(b.shape) != 3:
            raise ValueError(f"sgemm_ladder.bmm: a {a.shape} and b {b.shape} must both be 3-D")
        return _jax_matmul("bmm", a, b, out, alpha, beta, stream)
    if out is None and stream is None and beta == 0 and alpha == 1 and _torch_op_needed(a, b):
        from . import torch as _ops
        return _ops.bmm(a, b)
    return _core.gemm("bmm", a, b, out, float(alpha), float(beta), stream, batched_only=True)


def _text(p):
    return p.decode("utf-8", "replace") if p is not None else ""


def version():
    """The library's version, "0.1.0" (loads the library)."""
    return _text(_load().version())


def library_path():
    """The path (or name) libsgemm_ladder.so was loaded from."""
    return _load().path


def rungs():
    """[(number, name, summary)] of every rung, in ladder order."""
    lib = _load()
    return [(lib.rung_number(i), _text(lib.rung_name(i)), _text(lib.rung_summary(i)))
            for i in range(lib.rung_count())]


def one_call_rung():
    """The rung number the one call runs (18)."""
    return _load().one_call_rung()


def workspace_limit():
    """The workspace limit, bytes, on the current device."""
    return _load().workspace_limit()


def set_workspace_limit(nbytes):
    """Sets the workspace limit for every device (0 restores the default)."""
    _load().set_workspace_limit(int(nbytes))


def release_workspace():
    """Waits for the library's work on every device, then frees the workspace pools (a host
    synchronisation: call it between phases, never per step)."""
    lib = _load()
    status = lib.release_workspace()
    if status:
        raise lib.error(status, "sgemm_ladder.release_workspace")


def __getattr__(name):
    if name in ("torch", "jax"):  # sgemm_ladder.torch, .jax without importing them first
        import importlib
        return importlib.import_module("." + name, __name__)
    raise AttributeError(f"module 'sgemm_ladder' has no attribute '{name}'")
