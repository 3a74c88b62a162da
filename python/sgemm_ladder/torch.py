"""PyTorch: the one call as custom operators, differentiable and traceable, and a switch that
sends an existing model's float32 CUDA matrix products to them.

    torch.ops.sgemm_ladder.mm(a, b)                      # = sgemm_ladder.torch.mm
    torch.ops.sgemm_ladder.addmm(c, a, b, beta, alpha)   # beta c + alpha a @ b, c broadcasts
    torch.ops.sgemm_ladder.bmm(a, b)                     # 3-D, equal batch sizes

    with sgemm_ladder.torch.fp32_matmul():   # or enable() ... disable()
        loss = model(x).sum(); loss.backward()

The ops are torch.library.custom_op's (no aliasing, no mutation) with fake implementations
(shape, dtype, device, C-contiguous strides), so torch.compile(fullgraph=True) traces them,
and autograd formulas made of the same ops (grad_a = grad @ b^T, grad_b = a^T @ grad on
transposed views, no copies): training stays FP32-accurate. They queue work on the current
stream of the tensors' device and allocate with torch.empty (the caching allocator), so CUDA
graph capture works; nothing synchronises the host.

fp32_matmul() routes, for float32 CUDA tensors on one device with no out=:
torch.mm / Tensor.mm, torch.matmul / Tensor.matmul / the @ operator (2-D @ 2-D, 3-D @ 3-D with
equal or one-sided batch of one, 3-D @ 2-D, 2-D @ 3-D), torch.bmm / Tensor.bmm,
torch.addmm / Tensor.addmm (2-D), torch.nn.functional.linear (so nn.Linear; any input of two
or more dimensions). Everything else (other dtypes, CPU tensors, 1-D or 4-D matmul, baddbmm,
einsum, attention, convolutions) runs as before. The mode is a TorchFunctionMode: it applies
to the thread that entered it, and sits above torch.autocast (float32 products it routes stay
FP32 there too).
"""
import threading

import torch
from torch import Tensor
from torch.overrides import TorchFunctionMode

from . import _core

__all__ = ["mm", "addmm", "bmm", "matmul", "fp32_matmul", "enable", "disable", "is_enabled"]


def _need(ok, message):
    if not ok:
        raise ValueError(f"sgemm_ladder: {message}")


@torch.library.custom_op("sgemm_ladder::mm", mutates_args=())
def mm(a: Tensor, b: Tensor) -> Tensor:
    """a @ b at FP32 accuracy: float32 CUDA matrices, any strides."""
    _need(a.dim() == 2 and b.dim() == 2, f"mm takes 2-D tensors, not {a.dim()}-D and {b.dim()}-D")
    return _core.gemm("mm", a, b, None, 1.0, 0.0, None)


@torch.library.custom_op("sgemm_ladder::addmm", mutates_args=())
def addmm(c: Tensor, a: Tensor, b: Tensor, beta: float = 1.0, alpha: float = 1.0) -> Tensor:
    """beta c + alpha a @ b, c broadcast to the product's shape; beta == 0 ignores c."""
    _need(a.dim() == 2 and b.dim() == 2,
          f"addmm takes 2-D a and b, not {a.dim()}-D and {b.dim()}-D")
    return _core.gemm("addmm", a, b, None, alpha, beta, None, c=c)


@torch.library.custom_op("sgemm_ladder::bmm", mutates_args=())
def bmm(a: Tensor, b: Tensor) -> Tensor:
    """a @ b for batches of matrices (3-D, equal batch sizes), one strided-batched call."""
    _need(a.dim() == 3 and b.dim() == 3, f"bmm takes 3-D tensors, not {a.dim()}-D and {b.dim()}-D")
    _need(a.shape[0] == b.shape[0], f"bmm: batch sizes {a.shape[0]} and {b.shape[0]} differ")
    return _core.gemm("bmm", a, b, None, 1.0, 0.0, None, batched_only=True)


def _check_fake(a, b, dims):
    torch._check(a.dim() == dims and b.dim() == dims,
                 lambda: f"sgemm_ladder: {dims}-D tensors expected, not {a.dim()}-D and "
                         f"{b.dim()}-D")
    torch._check(a.dtype == torch.float32 and b.dtype == torch.float32,
                 lambda: f"sgemm_ladder: float32 expected, not {a.dtype} and {b.dtype}")
    torch._check(a.shape[-1] == b.shape[-2],
                 lambda: f"sgemm_ladder: shapes {tuple(a.shape)} and {tuple(b.shape)} cannot be "
                         "multiplied")


@mm.register_fake
def _mm_fake(a, b):
    _check_fake(a, b, 2)
    return a.new_empty((a.shape[0], b.shape[1]))


@addmm.register_fake
def _addmm_fake(c, a, b, beta=1.0, alpha=1.0):
    _check_fake(a, b, 2)
    return a.new_empty((a.shape[0], b.shape[1]))


@bmm.register_fake
def _bmm_fake(a, b):
    _check_fake(a, b, 3)
    torch._check(a.shape[0] == b.shape[0], lambda: "sgemm_ladder: bmm batch sizes differ")
    return a.new_empty((a.shape[0], a.shape[1], b.shape[2]))


# The ops as the dispatcher has them: what the backward formulas and the switch call (plain
# OpOverloads, which torch.compile traces directly).
_mm = torch.ops.sgemm_ladder.mm.default
_addmm = torch.ops.sgemm_ladder.addmm.default
_bmm = torch.ops.sgemm_ladder.bmm.default


# ---- autograd: the backward is made of the same ops, on transposed views -------------------

def _save_ab(ctx, inputs, output):
    a, b = inputs[-2], inputs[-1]
    ctx.save_for_backward(a, b)


def _scaled(x, s):
    return x if s == 1 else x * s


def _mm_backward(ctx, grad):
    a, b = ctx.saved_tensors
    ga = _mm(grad, b.t()) if ctx.needs_input_grad[0] else None
    gb = _mm(a.t(), grad) if ctx.needs_input_grad[1] else None
    return ga, gb


def _addmm_setup(ctx, inputs, output):
    c, a, b, beta, alpha = inputs
    ctx.save_for_backward(a, b)
    ctx.c_shape, ctx.beta, ctx.alpha = c.shape, beta, alpha


def _addmm_backward(ctx, grad):
    a, b = ctx.saved_tensors
    gc = ga = gb = None
    if ctx.needs_input_grad[0]:
        gc = _scaled(grad, ctx.beta).sum_to_size(ctx.c_shape)
    if ctx.needs_input_grad[1]:
        ga = _scaled(_mm(grad, b.t()), ctx.alpha)
    if ctx.needs_input_grad[2]:
        gb = _scaled(_mm(a.t(), grad), ctx.alpha)
    return gc, ga, gb, None, None


def _bmm_backward(ctx, grad):
    a, b = ctx.saved_tensors
    ga = _bmm(grad, b.transpose(1, 2)) if ctx.needs_input_grad[0] else None
    gb = _bmm(a.transpose(1, 2), grad) if ctx.needs_input_grad[1] else None
    return ga, gb


mm.register_autograd(_mm_backward, setup_context=_save_ab)
addmm.register_autograd(_addmm_backward, setup_context=_addmm_setup)
bmm.register_autograd(_bmm_backward, setup_context=_save_ab)


def matmul(a, b, alpha=1.0):
    """alpha a @ b through the ops (2-D or 3-D, as the fp32_matmul switch routes torch.matmul;
    other ranks: ValueError)."""
    out = _matmul(a, b)
    if out is None:
        raise ValueError(f"sgemm_ladder: matmul of {a.dim()}-D and {b.dim()}-D tensors "
                         f"{tuple(a.shape)} and {tuple(b.shape)} is not supported (2-D or 3-D)")
    return out if alpha == 1 else out * alpha


# ---- the switch ----------------------------------------------------------------------------

def _ours(t):
    return isinstance(t, Tensor) and t.dtype == torch.float32 and t.is_cuda


def _pair(a, b):
    return _ours(a) and _ours(b) and a.device == b.device


def _matmul(a, b):
    """The ops for torch.matmul of 2-D/3-D operands, or None (not covered)."""
    da, db = a.dim(), b.dim()
    if da == 2 and db == 2:
        return _mm(a, b)
    if da == 3 and db == 3:
        if a.shape[0] == b.shape[0]:
            return _bmm(a, b)
        if a.shape[0] == 1:
            return _bmm(a.expand(b.shape[0], -1, -1), b)
        if b.shape[0] == 1:
            return _bmm(a, b.expand(a.shape[0], -1, -1))
        return None
    if da == 3 and db == 2:  # fold the batch into M: one large product
        return _mm(a.flatten(0, 1), b).view(a.shape[0], a.shape[1], b.shape[1])
    if da == 2 and db == 3:
        return _bmm(a.expand(b.shape[0], -1, -1), b)
    return None


def _linear(x, w, bias):
    if x.dim() < 2 or w.dim() != 2:
        return None
    x2 = x.flatten(0, -2)
    if bias is None:
        y = _mm(x2, w.t())
    else:
        y = _addmm(bias, x2, w.t(), 1.0, 1.0)
    return y.view(*x.shape[:-1], w.shape[0])


def _number(v):
    return isinstance(v, (int, float)) and not isinstance(v, bool)


def _route(func, args, kwargs):
    """The ops' result for a call the switch covers, or None."""
    if kwargs.get("out") is not None or len(args) < 2:
        return None
    if func is torch.nn.functional.linear:
        x, w = args[0], args[1]
        bias = args[2] if len(args) > 2 else kwargs.get("bias")
        if not _pair(x, w) or (bias is not None and not (_ours(bias) and bias.device == x.device)):
            return None
        return _linear(x, w, bias)
    if func is torch.matmul or func is Tensor.matmul or func is Tensor.__matmul__:
        a, b = args[0], args[1]
        return _matmul(a, b) if _pair(a, b) else None
    if func is torch.mm or func is Tensor.mm:
        a, b = args[0], args[1]
        return _mm(a, b) if _pair(a, b) and a.dim() == 2 and b.dim() == 2 else None
    if func is torch.bmm or func is Tensor.bmm:
        a, b = args[0], args[1]
        if _pair(a, b) and a.dim() == 3 and b.dim() == 3 and a.shape[0] == b.shape[0]:
            return _bmm(a, b)
        return None
    if func is torch.addmm or func is Tensor.addmm:
        if len(args) < 3:
            return None
        c, a, b = args[0], args[1], args[2]
        beta, alpha = kwargs.get("beta", 1), kwargs.get("alpha", 1)
        if (_pair(a, b) and _ours(c) and c.device == a.device and a.dim() == 2 and
                b.dim() == 2 and _number(beta) and _number(alpha)):
            return _addmm(c, a, b, float(beta), float(alpha))
        return None
    return None


class fp32_matmul(TorchFunctionMode):
    """Within it (a context manager), float32 CUDA torch.mm, matmul, @, bmm, addmm and
    nn.functional.linear run on the library's ops; everything else as before."""

    def __torch_function__(self, func, types, args=(), kwargs=None):
        if kwargs is None:
            kwargs = {}
        out = _route(func, args, kwargs)
        if out is not None:
            return out
        return func(*args, **kwargs)


class _Enabled(threading.local):
    def __init__(self):
        self.modes = []


_enabled = _Enabled()


def enable():
    """Turns the switch on for this thread until disable() (fp32_matmul() without `with`)."""
    mode = fp32_matmul()
    mode.__enter__()
    _enabled.modes.append(mode)


def disable():
    """Turns off what enable() turned on, on this thread (nothing if it is off)."""
    if _enabled.modes:
        _enabled.modes.pop().__exit__(None, None, None)


def is_enabled():
    """Whether enable() is in force on this thread."""
    return bool(_enabled.modes)
