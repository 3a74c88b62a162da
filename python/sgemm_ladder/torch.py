"""PyTorch: the one call as custom operators, differentiable and traceable, and a switch that
sends an existing model's float32 CUDA matrix products to them.

    torch.ops.sgemm_ladder.mm(a, b)                      # = sgemm_ladder.torch.mm
    torch.ops.sgemm_ladder.addmm(c, a, b, beta, alpha)   # beta c + alpha a @ b, c broadcasts
    torch.ops.sgemm_ladder.bmm(a, b)                     # 3-D, equal batch sizes

    with sgemm_ladder.torch.fp32_matmul():   # or enable() ... disable()
        loss = model(x).sum(); loss.backward()

The ops are torch.library ops (no aliasing, no mutation) with fake implementations
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


# The ops through torch.library's lower layer: Library.define, a Python kernel for every
# backend, register_fake and an Autograd kernel of our own (below). torch.library.custom_op
# would add per call a wrapper that switches Dynamo off and on and an aliasing check:
# microseconds at every call.
_lib = torch.library.Library("sgemm_ladder", "DEF")
for _schema in ("mm(Tensor a, Tensor b) -> Tensor",
                "addmm(Tensor c, Tensor a, Tensor b, float beta=1.0, float alpha=1.0) -> Tensor",
                "bmm(Tensor a, Tensor b) -> Tensor"):
    _lib.define(_schema, tags=(torch.Tag.pt2_compliant_tag,))


def _mm_kernel(a, b):
    _need(a.dim() == 2 and b.dim() == 2, f"mm takes 2-D tensors, not {a.dim()}-D and {b.dim()}-D")
    return _core.gemm("mm", a, b, None, 1.0, 0.0, None)


def _addmm_kernel(c, a, b, beta=1.0, alpha=1.0):
    _need(a.dim() == 2 and b.dim() == 2,
          f"addmm takes 2-D a and b, not {a.dim()}-D and {b.dim()}-D")
    return _core.gemm("addmm", a, b, None, alpha, beta, None, c=c)


def _bmm_kernel(a, b):
    _need(a.dim() == 3 and b.dim() == 3, f"bmm takes 3-D tensors, not {a.dim()}-D and {b.dim()}-D")
    _need(a.shape[0] == b.shape[0], f"bmm: batch sizes {a.shape[0]} and {b.shape[0]} differ")
    return _core.gemm("bmm", a, b, None, 1.0, 0.0, None, batched_only=True)


# Every backend, as custom_op's: a CPU tensor gets the package's own TypeError.
_lib.impl("mm", _mm_kernel, "CompositeExplicitAutograd")
_lib.impl("addmm", _addmm_kernel, "CompositeExplicitAutograd")
_lib.impl("bmm", _bmm_kernel, "CompositeExplicitAutograd")


def _check_fake(a, b, dims):
    torch._check(a.dim() == dims and b.dim() == dims,
                 lambda: f"sgemm_ladder: {dims}-D tensors expected, not {a.dim()}-D and "
                         f"{b.dim()}-D")
    torch._check(a.dtype == torch.float32 and b.dtype == torch.float32,
                 lambda: f"sgemm_ladder: float32 expected, not {a.dtype} and {b.dtype}")
    torch._check(a.shape[-1] == b.shape[-2],
                 lambda: f"sgemm_ladder: shapes {tuple(a.shape)} and {tuple(b.shape)} cannot be "
                         "multiplied")


@torch.library.register_fake("sgemm_ladder::mm", lib=_lib)
def _mm_fake(a, b):
    _check_fake(a, b, 2)
    return a.new_empty((a.shape[0], b.shape[1]))


@torch.library.register_fake("sgemm_ladder::addmm", lib=_lib)
def _addmm_fake(c, a, b, beta=1.0, alpha=1.0):
    _check_fake(a, b, 2)
    return a.new_empty((a.shape[0], b.shape[1]))


@torch.library.register_fake("sgemm_ladder::bmm", lib=_lib)
def _bmm_fake(a, b):
    _check_fake(a, b, 3)
    torch._check(a.shape[0] == b.shape[0], lambda: "sgemm_ladder: bmm batch sizes differ")
    return a.new_empty((a.shape[0], a.shape[1], b.shape[2]))


# The ops as the dispatcher has them: what users, the backward formulas and the switch call
# (plain OpOverloads, which torch.compile traces directly).
mm = _mm = torch.ops.sgemm_ladder.mm.default
addmm = _addmm = torch.ops.sgemm_ladder.addmm.default
bmm = _bmm = torch.ops.sgemm_ladder.bmm.default


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


def _function(name, op, setup, backward):
    """An autograd.Function whose forward is the op itself (under Function.apply grad mode is
    off, so the op's Autograd kernel below passes it on)."""
    def forward(*args):
        return op(*args)

    return type(name, (torch.autograd.Function,), {
        "forward": staticmethod(forward), "setup_context": staticmethod(setup),
        "backward": staticmethod(backward)})


_MmGrad = _function("SgemmLadderMm", _mm, _save_ab, _mm_backward)
_AddmmGrad = _function("SgemmLadderAddmm", _addmm, _addmm_setup, _addmm_backward)
_BmmGrad = _function("SgemmLadderBmm", _bmm, _save_ab, _bmm_backward)
_AFTER_AUTOGRAD = torch._C._after_autograd_keyset
_CUDA = torch._C.DispatchKey.CUDA
_grad_enabled = torch.is_grad_enabled


def _plain_cuda(keyset):
    """Whether, below autograd, the next stop is the CUDA kernel itself: dense CUDA tensors with
    no dispatch mode (fake tensors, torch.compile's and opcheck's tracing), no tensor subclass,
    no functorch transform (grad, jvp) and no lazy negation or conjugation, all of which put a
    key of their own above it in the operands' keys or the thread's."""
    return (keyset & _AFTER_AUTOGRAD).highestPriorityTypeId() == _CUDA


# The ops' Autograd kernels: the dispatcher's stop before the kernel. A product that needs a
# gradient goes through the Function; one whose next stop is the CUDA kernel goes straight to
# it; anything else on down the dispatcher (the fake implementation, the mode, the transform,
# the materialised negation). torch.library's register_autograd would cost per call a pytree
# walk and a second trip from the dispatcher into Python: together about as much as the
# kernel's own host work. Not supported, as with register_autograd on torch 2.11: forward-mode
# AD (dual tensors: the result carries no tangent) and a gradient through the ops inside
# torch.func transforms (no kernel for the Function at the Autograd key there).
def _two_operand_autograd(op, kernel, function):
    """mm's and bmm's Autograd kernel: the same three ways for two operands."""
    def autograd(keyset, a, b):
        if _grad_enabled() and (a.requires_grad or b.requires_grad):
            return function.apply(a, b)
        if _plain_cuda(keyset):
            return kernel(a, b)
        return op.redispatch(keyset & _AFTER_AUTOGRAD, a, b)

    return autograd


def _addmm_autograd(keyset, c, a, b, beta=1.0, alpha=1.0):
    if _grad_enabled() and (c.requires_grad or a.requires_grad or b.requires_grad):
        return _AddmmGrad.apply(c, a, b, beta, alpha)
    if _plain_cuda(keyset):
        return _addmm_kernel(c, a, b, beta, alpha)
    return _addmm.redispatch(keyset & _AFTER_AUTOGRAD, c, a, b, beta, alpha)


_lib.impl("mm", _two_operand_autograd(_mm, _mm_kernel, _MmGrad), "Autograd", with_keyset=True)
_lib.impl("addmm", _addmm_autograd, "Autograd", with_keyset=True)
_lib.impl("bmm", _two_operand_autograd(_bmm, _bmm_kernel, _BmmGrad), "Autograd", with_keyset=True)


def matmul(a, b, alpha=1.0):
    """alpha a @ b through the ops (2-D or 3-D, as the fp32_matmul switch routes torch.matmul;
    other ranks: ValueError)."""
    out = _matmul(a, b, _OPS)
    if out is None:
        raise ValueError(f"sgemm_ladder: matmul of {a.dim()}-D and {b.dim()}-D tensors "
                         f"{tuple(a.shape)} and {tuple(b.shape)} is not supported (2-D or 3-D)")
    return out if alpha == 1 else out * alpha


# ---- the switch ----------------------------------------------------------------------------

# What the switch calls: the ops, whose Autograd kernels take the short way where they may.
_OPS = (_mm, _addmm, _bmm)


def _ours(t):
    return isinstance(t, Tensor) and t.dtype == torch.float32 and t.is_cuda


def _pair(a, b):
    return _ours(a) and _ours(b) and a.device == b.device


def _matmul(a, b, ops):
    """torch.matmul of 2-D/3-D operands through ops (mm, addmm, bmm), or None (not covered)."""
    mm, _, bmm = ops
    da, db = a.dim(), b.dim()
    if da == 2 and db == 2:
        return mm(a, b)
    if da == 3 and db == 3:
        if a.shape[0] == b.shape[0]:
            return bmm(a, b)
        if a.shape[0] == 1:
            return bmm(a.expand(b.shape[0], -1, -1), b)
        if b.shape[0] == 1:
            return bmm(a, b.expand(a.shape[0], -1, -1))
        return None
    if da == 3 and db == 2:  # fold the batch into M: one large product
        return mm(a.flatten(0, 1), b).view(a.shape[0], a.shape[1], b.shape[1])
    if da == 2 and db == 3:
        return bmm(a.expand(b.shape[0], -1, -1), b)
    return None


def _linear(x, w, bias, ops):
    if x.dim() < 2 or w.dim() != 2:
        return None
    mm, addmm, _ = ops
    x2 = x.flatten(0, -2)
    if bias is None:
        y = mm(x2, w.t())
    else:
        y = addmm(bias, x2, w.t(), 1.0, 1.0)
    return y.view(*x.shape[:-1], w.shape[0])


def _number(v):
    return isinstance(v, (int, float)) and not isinstance(v, bool)


def _route(func, args, kwargs):
    """The result for a call the switch covers, or None."""
    if kwargs.get("out") is not None or len(args) < 2:
        return None
    if func is torch.nn.functional.linear:
        x, w = args[0], args[1]
        bias = args[2] if len(args) > 2 else kwargs.get("bias")
        if not _pair(x, w) or (bias is not None and not (_ours(bias) and bias.device == x.device)):
            return None
        return _linear(x, w, bias, _OPS)
    if func is torch.matmul or func is Tensor.matmul or func is Tensor.__matmul__:
        a, b = args[0], args[1]
        if not _pair(a, b):
            return None
        return _matmul(a, b, _OPS)
    if func is torch.mm or func is Tensor.mm:
        a, b = args[0], args[1]
        if not (_pair(a, b) and a.dim() == 2 and b.dim() == 2):
            return None
        return _mm(a, b)
    if func is torch.bmm or func is Tensor.bmm:
        a, b = args[0], args[1]
        if not (_pair(a, b) and a.dim() == 3 and b.dim() == 3 and a.shape[0] == b.shape[0]):
            return None
        return _bmm(a, b)
    if func is torch.addmm or func is Tensor.addmm:
        if len(args) < 3:
            return None
        c, a, b = args[0], args[1], args[2]
        beta, alpha = kwargs.get("beta", 1), kwargs.get("alpha", 1)
        if not (_pair(a, b) and _ours(c) and c.device == a.device and a.dim() == 2 and
                b.dim() == 2 and _number(beta) and _number(alpha)):
            return None
        return _addmm(c, a, b, float(beta), float(alpha))
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
