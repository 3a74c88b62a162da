"""The calls on arrays: matmul, addmm, bmm for torch tensors, CuPy arrays, objects with
__cuda_array_interface__ and DLPack producers (JAX). Frameworks are imported only when an
array of theirs arrives (sys.modules tells whether one could have), never at import."""
import ctypes
import importlib
import sys

from . import _layout as L
from ._library import CALLER_VOUCHES, CHECK_POINTERS, library, set_pointer_checks

INT_MAX = L.INT_MAX


class _Arr:
    """One operand as the call sees it: its framework ('torch', 'cupy' or 'cai'), the object,
    its device pointer, shape, element strides, device (None: not known, a bare CAI) and, for
    a bare CAI, the stream it names and whether it is read-only."""
    __slots__ = ("kind", "obj", "ptr", "shape", "strides", "device", "stream", "readonly")

    def __init__(self, kind, obj, ptr, shape, strides, device, stream=None, readonly=False):
        self.kind, self.obj, self.ptr, self.shape, self.strides = kind, obj, ptr, shape, strides
        self.device, self.stream, self.readonly = device, stream, readonly


def _module(name):
    """The framework's module if it is already imported (an array of it can exist only then)."""
    return sys.modules.get(name)


def _import(name, why):
    try:
        return importlib.import_module(name)
    except ImportError as e:
        raise TypeError(f"sgemm_ladder: {why} needs {name}, which cannot be imported ({e})") \
            from None


def _describe(x, name):
    """(_Arr, back) for an input or output; back converts the result to the caller's
    framework (JAX) or is None."""
    torch = _module("torch")
    if torch is not None and isinstance(x, torch.Tensor):
        return _from_torch(torch, x, name), None
    cupy = _module("cupy")
    if cupy is not None and isinstance(x, cupy.ndarray):
        return _from_cupy(x, name), None
    jax = _module("jax")
    if jax is not None and isinstance(x, jax.core.Tracer):
        raise TypeError(f"sgemm_ladder: {name} is a JAX tracer (inside jax.jit, grad or vmap), "
                        "which has no memory to pass: use sgemm_ladder.matmul(a, b) or "
                        "sgemm_ladder.jax.matmul there")
    if jax is not None and isinstance(x, jax.Array):
        return _from_dlpack(x, name), _to_jax
    cai = getattr(x, "__cuda_array_interface__", None)
    if cai is not None:
        i = L.parse_cuda_array_interface(cai, name)
        return _Arr("cai", x, i.ptr, i.shape, i.strides, None, i.stream, i.readonly), None
    if hasattr(x, "__dlpack__"):
        return _from_dlpack(x, name), None
    raise TypeError(f"sgemm_ladder: {name} is a {type(x).__module__}.{type(x).__name__}: "
                    "pass a CUDA torch tensor, a CuPy array, a JAX array or an object with "
                    "__cuda_array_interface__ or __dlpack__")


def _from_torch(torch, x, name):
    if x.dtype is not torch.float32:
        raise TypeError(f"sgemm_ladder: {name} is {x.dtype}: the library multiplies float32")
    if x.device.type != "cuda":
        raise TypeError(f"sgemm_ladder: {name} is on {x.device}: the library multiplies CUDA "
                        "tensors (device memory)")
    if x.is_neg():  # a lazily negated view (torch._neg_view, z.conj().imag): memory is -x
        if name == "out":
            raise ValueError("sgemm_ladder: out is a negated view (its memory holds -out): "
                             "pass a tensor whose memory it is")
        x = x.resolve_neg()
    return _Arr("torch", x, x.data_ptr(), tuple(x.shape), x.stride(), x.device.index)


def _from_cupy(x, name):
    if x.dtype.char != "f":
        raise TypeError(f"sgemm_ladder: {name} is {x.dtype}: the library multiplies float32")
    strides = x.strides
    if any(s % 4 for s in strides):
        raise ValueError(f"sgemm_ladder: {name}'s byte strides {strides} are not whole float32 "
                         "elements")
    return _Arr("cupy", x, x.data.ptr, x.shape, tuple(s // 4 for s in strides), x.device.id)


def _bridge():
    """The framework that takes DLPack producers and bare CAI objects, and allocates for them:
    torch if imported, else CuPy if importable, else torch."""
    if _module("torch") is not None:
        return "torch"
    try:
        importlib.import_module("cupy")
        return "cupy"
    except ImportError:
        _import("torch", "an array that is not a torch tensor or CuPy array")
        return "torch"


def _from_dlpack(x, name):
    """Through DLPack into torch or CuPy, zero-copy; the producer orders its work before the
    consumer's current stream (the DLPack protocol's stream argument)."""
    if _bridge() == "torch":
        torch = _module("torch")
        return _from_torch(torch, torch.from_dlpack(x), name)
    return _from_cupy(_module("cupy").from_dlpack(x), name)


def _to_jax(arr):
    import jax.dlpack
    return jax.dlpack.from_dlpack(arr)


# ---- framework operations: copy, allocate, stream, device ---------------------------------

def _contiguous(a, name):
    if a.kind == "torch":
        return _from_torch(_module("torch"), a.obj.contiguous(), name)
    if a.kind == "cupy":
        cupy = _module("cupy")
        with cupy.cuda.Device(a.device):
            return _from_cupy(cupy.ascontiguousarray(a.obj), name)
    if _bridge() == "cupy":
        cupy = _module("cupy")
        return _from_cupy(cupy.ascontiguousarray(cupy.asarray(a.obj)), name)
    torch = _module("torch")
    return _from_torch(torch, torch.as_tensor(a.obj, device="cuda").contiguous(), name)


def _empty(like, shape):
    """A new C-contiguous float32 array of `shape` on like's device, from like's framework (a
    bare CAI object's: the bridge's, on the current device)."""
    kind = like.kind if like.kind != "cai" else _bridge()
    if kind == "torch":
        torch = _module("torch")
        device = like.obj.device if like.kind == "torch" else torch.device(
            "cuda", torch.cuda.current_device())
        return _from_torch(torch, torch.empty(shape, dtype=torch.float32, device=device), "out")
    cupy = _module("cupy")
    if like.device is None:
        return _from_cupy(cupy.empty(shape, dtype=cupy.float32), "out")
    with cupy.cuda.Device(like.device):
        return _from_cupy(cupy.empty(shape, dtype=cupy.float32), "out")


def _stream_handle(stream):
    """An int handle from an int, a torch.cuda.Stream (.cuda_stream) or a CuPy stream (.ptr)."""
    if isinstance(stream, int):
        return stream
    for attr in ("cuda_stream", "ptr"):
        h = getattr(stream, attr, None)
        if isinstance(h, int):
            return h
    raise TypeError(f"sgemm_ladder: stream {stream!r} is not an int handle, a torch.cuda.Stream "
                    "or a CuPy stream")


class _NoDevice:
    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False


_NO_DEVICE = _NoDevice()


def _device_and_stream(arrays, stream):
    """(device context, stream handle, pointer-check mode) for the call: the arrays' device
    made current; the caller's stream (given, or the framework's current stream of that
    device); CALLER_VOUCHES when every array's device is known and the stream is the
    framework's."""
    devices = {a.device for a in arrays if a.device is not None}
    if len(devices) > 1:
        where = ", ".join(f"{n} on cuda:{a.device}" for n, a in zip("abc", arrays)
                          if a.device is not None)
        raise ValueError(f"sgemm_ladder: the arrays are on different devices ({where}): "
                         "put them on one")
    known = all(a.device is not None for a in arrays)
    lead = next((a for a in arrays if a.device is not None), None)
    if lead is None:
        ctx = _NO_DEVICE
    elif lead.kind == "torch":
        # Switching to the device that is current already costs microseconds a call: skip it.
        torch = _module("torch")
        current = getattr(torch._C, "_cuda_getDevice", torch.cuda.current_device)()
        ctx = _NO_DEVICE if current == lead.device else torch.cuda.device(lead.device)
    else:
        ctx = _module("cupy").cuda.Device(lead.device)
    if stream is not None:
        return ctx, _stream_handle(stream), CHECK_POINTERS
    if lead is None:  # bare CAI objects: the stream the first one names (version 3), else 0
        handle = next((a.stream for a in arrays if a.stream is not None), 0)
        return ctx, handle, CHECK_POINTERS
    if lead.kind == "torch":
        # The raw handle, as Triton reads it, without building a torch.cuda.Stream a call.
        torch = _module("torch")
        raw = getattr(torch._C, "_cuda_getCurrentRawStream", None)
        handle = raw(lead.device) if raw else torch.cuda.current_stream(lead.device).cuda_stream
    else:
        cupy = _module("cupy")
        with cupy.cuda.Device(lead.device):
            handle = cupy.cuda.get_current_stream().ptr
    return ctx, handle, (CALLER_VOUCHES if known else CHECK_POINTERS)


# ---- the call ------------------------------------------------------------------------------

def _shape3(a, name):
    """(batch or None, rows, cols, batch stride, row stride, col stride) of a 2-D or 3-D array."""
    if len(a.shape) == 2:
        return None, a.shape[0], a.shape[1], 0, a.strides[0], a.strides[1]
    if len(a.shape) == 3:
        return a.shape[0], a.shape[1], a.shape[2], a.strides[0], a.strides[1], a.strides[2]
    raise ValueError(f"sgemm_ladder: {name} has {len(a.shape)} dimensions {a.shape}: 2-D "
                     "(a matrix) or 3-D (a batch of matrices) only")


def gemm(what, a, b, out, alpha, beta, stream, c=None, batched_only=False):
    """C = alpha op(A) op(B) + beta C on arrays: the one function behind matmul, addmm and bmm.
    `out`: the C to write (read when beta != 0), or None for a new one; `c`: addmm's input,
    copied (broadcast) into the new output first. Returns the output in the caller's
    framework."""
    if out is None and stream is None and (_T.types or _T.bind()):
        if type(a) in _T.types and type(b) in _T.types:
            result = _torch_gemm(what, a, b, alpha, beta, c, batched_only)
            if result is not None:
                return result
    A, back = _describe(a, "a")
    B, _ = _describe(b, "b")
    ba, m, k, sba, sam, sak = _shape3(A, "a")
    bb, k2, n, sbb, sbk, sbn = _shape3(B, "b")
    if batched_only and (ba is None or bb is None):
        raise ValueError(f"sgemm_ladder.{what}: a {A.shape} and b {B.shape} must both be 3-D")
    if k != k2:
        raise ValueError(f"sgemm_ladder.{what}: shapes {A.shape} and {B.shape} cannot be "
                         f"multiplied (a has {k} columns, b has {k2} rows)")
    if ba is not None and bb is not None and ba != bb and 1 not in (ba, bb):
        raise ValueError(f"sgemm_ladder.{what}: batch sizes {ba} and {bb} differ (and neither "
                         "is 1)")
    batched = ba is not None or bb is not None
    batch = max(ba or 1, bb or 1) if batched else 1
    shape = (batch, m, n) if batched else (m, n)
    for size, label in ((m, "M"), (n, "N"), (k, "K"), (batch, "the batch")):
        if size > INT_MAX:
            raise ValueError(f"sgemm_ladder.{what}: {label} = {size} does not fit the C ABI's "
                             "int")
    if out is None:
        if beta != 0 and c is None:
            raise ValueError(f"sgemm_ladder.{what}: beta = {beta} needs out (the C it scales)")
        C = _empty(A, shape)
        result = C.obj
        if c is not None and beta != 0:
            _fill(C, c)
    else:
        jax = _module("jax")
        if jax is not None and isinstance(out, jax.Array):
            raise TypeError(f"sgemm_ladder.{what}: out is a JAX array, which is immutable: "
                            "leave out=None (the product comes back as a new JAX array)")
        C, _ = _describe(out, "out")
        if C.readonly:
            raise ValueError(f"sgemm_ladder.{what}: out is read-only")
        if tuple(C.shape) != shape:
            raise ValueError(f"sgemm_ladder.{what}: out has shape {tuple(C.shape)}, the product "
                             f"{shape}")
        result = out
    arrays = (A, B, C)
    ctx, handle, checks = _device_and_stream(arrays, stream)
    if m == 0 or n == 0 or batch == 0:
        return result
    bc, _, _, sbc, scm, scn = _shape3(C, "out")
    with ctx:
        if k == 0:  # C = beta C: alpha = 0 reads neither A nor B, so C stands in for them
            p = L.plan(m, n, 1, (1, 1), (n, 1), (scm, scn))
            A = B = C
            lda, ldb = (1, n) if p.layout == L.ROW_MAJOR else (m, 1)
            p = L.Plan(p.layout, L.OP_N, lda, L.OP_N, ldb, p.ldc)
            k, alpha, sba, sbb = 1, 0.0, 0, 0
        else:
            p = L.plan(m, n, k, (sam, sak), (sbk, sbn), (scm, scn))
            sba = L.batch_stride(ba or 1, sba, "a")
            sbb = L.batch_stride(bb or 1, sbb, "b")
            if p.op_a is None or p.op_b is None or sba is None or sbb is None:
                if p.op_a is None or sba is None:
                    A = _contiguous(A, "a")
                    _, _, _, sba, sam, sak = _shape3(A, "a")
                    sba = L.batch_stride(ba or 1, sba, "a")
                if p.op_b is None or sbb is None:
                    B = _contiguous(B, "b")
                    _, _, _, sbb, sbk, sbn = _shape3(B, "b")
                    sbb = L.batch_stride(bb or 1, sbb, "b")
                p = L.plan(m, n, k, (sam, sak), (sbk, sbn), (scm, scn))
        if batched:
            sbc = L.batch_stride(batch, sbc, "out", shared_ok=False)
            if sbc is None:
                raise ValueError(f"sgemm_ladder.{what}: out has a negative batch stride")
        _launch(what, checks, p, m, n, k, alpha, A.ptr, sba, B.ptr, sbb, beta, C.ptr, sbc,
                batch if batched else 0, handle)
    return back(result) if back is not None else result


_ONE, _ZERO = ctypes.c_float(1.0), ctypes.c_float(0.0)
_void_p, _float, _longlong = ctypes.c_void_p, ctypes.c_float, ctypes.c_longlong


def _launch(what, checks, p, m, n, k, alpha, a, sba, b, sbb, beta, c, sbc, batch, stream):
    """Queues the product with plan p: sgemm_gemm_strided_batched for batch > 0, else
    sgemm_gemm, through the unprototyped functions (_library): every bare int here fits C's
    int (sizes and leading dimensions are checked against INT_MAX), the rest is wrapped."""
    lib = library()
    set_pointer_checks(lib, checks)
    fa = _ONE if alpha == 1.0 else _float(alpha)
    fb = _ZERO if beta == 0.0 else _float(beta)  # -0.0 too: either way C is not read
    if batch:
        status = lib.gemm_strided_batched_unprototyped(
            p[0], p[1], p[3], m, n, k, fa, _void_p(a), p[2], _longlong(sba), _void_p(b), p[4],
            _longlong(sbb), fb, _void_p(c), p[5], _longlong(sbc), batch, _void_p(stream))
    else:
        status = lib.gemm_unprototyped(p[0], p[1], p[3], m, n, k, fa, _void_p(a), p[2],
                                       _void_p(b), p[4], fb, _void_p(c), p[5], _void_p(stream))
    if status:
        raise lib.error(status, f"sgemm_ladder.{what}")


def _fill(C, c):
    """Copies addmm's c, broadcast to C's shape, into the new output C (its framework's copy,
    queued on its current stream)."""
    if C.kind == "torch":
        _fill_torch(C.obj, c)
        return
    cupy = _module("cupy")
    with cupy.cuda.Device(C.device):
        c = c if isinstance(c, cupy.ndarray) else cupy.asarray(c) if hasattr(
            c, "__cuda_array_interface__") else cupy.from_dlpack(c)
        if c.dtype.char != "f":
            raise TypeError(f"sgemm_ladder: c is {c.dtype}: the library multiplies float32")
        C.obj[...] = c


def _fill_torch(out, c):
    torch = _module("torch")
    if not isinstance(c, torch.Tensor):
        c = torch.from_dlpack(c)
    if c.dtype is not torch.float32:
        raise TypeError(f"sgemm_ladder: c is {c.dtype}: the library multiplies float32")
    if c.device != out.device:
        raise ValueError(f"sgemm_ladder: c is on {c.device}, the product on {out.device}")
    out.copy_(c)  # broadcasts; raises for a shape that does not broadcast


# ---- the common case, fast: torch tensors on the current device, no out= or stream= --------

class _Torch:
    """What the fast path reads of torch, bound once torch is imported (never imported here).
    `types`: the classes it takes, exactly (a subclass, FakeTensor say, takes the general path)."""
    types = ()

    def bind(self):
        torch = _module("torch")
        if torch is None:
            return False
        C = torch._C
        self.float32 = torch.float32
        self.current_device = getattr(C, "_cuda_getDevice", torch.cuda.current_device)
        raw = getattr(C, "_cuda_getCurrentRawStream", None)
        self.raw_stream = raw or (lambda d: torch.cuda.current_stream(d).cuda_stream)
        self.types = (torch.Tensor, torch.nn.Parameter)
        return True


_T = _Torch()


def _torch_gemm(what, a, b, alpha, beta, c, batched_only):
    """gemm for float32 CUDA tensors on the current device, 2-D or 3-D, that need no copy, with
    as few torch calls as the checks need (each costs a fraction of a microsecond, and a
    1024^3 product is host-bound at about 30). None: anything else, which the general path
    handles and where it raises, with its message."""
    T = _T
    if (a.dtype is not T.float32 or b.dtype is not T.float32 or not a.is_cuda or
            not b.is_cuda or (beta != 0 and c is None) or a.is_neg() or b.is_neg()):
        return None
    device = a.get_device()
    if b.get_device() != device or T.current_device() != device:
        return None
    shape_a, shape_b, st_a, st_b = a.shape, b.shape, a.stride(), b.stride()
    rank_a, rank_b = len(shape_a), len(shape_b)
    if rank_a == 2:
        (m, k), (sam, sak), ba, sba = shape_a, st_a, 1, 0
    elif rank_a == 3:
        (ba, m, k), (sba, sam, sak) = shape_a, st_a
    else:
        return None
    if rank_b == 2:
        (k2, n), (sbk, sbn), bb, sbb = shape_b, st_b, 1, 0
    elif rank_b == 3:
        (bb, k2, n), (sbb, sbk, sbn) = shape_b, st_b
    else:
        return None
    batched = rank_a == 3 or rank_b == 3
    batch = ba if ba > bb else bb
    if (k != k2 or min(m, n, k, ba, bb) < 1 or max(m, n, k, batch) > INT_MAX or
            (ba != bb and 1 not in (ba, bb)) or (batched_only and not rank_a == rank_b == 3)):
        return None
    sba, sbb = (sba if ba > 1 else 0), (sbb if bb > 1 else 0)  # a batch of one is shared
    if m > 1 and n > 1:  # the new C is row-major only: the plan's layout
        op_a, op_b = L.row_major_op(m, k, sam, sak), L.row_major_op(k, n, sbk, sbn)
        if op_a is None or op_b is None or sba < 0 or sbb < 0:
            return None
        p = (L.ROW_MAJOR, op_a[0], op_a[1], op_b[0], op_b[1], n)
    else:
        p = L.plan(m, n, k, (sam, sak), (sbk, sbn), (n, 1))
        if p.op_a is None or p.op_b is None or sba < 0 or sbb < 0:
            return None
    result = a.new_empty((batch, m, n) if batched else (m, n))
    if c is not None and beta != 0:
        _fill_torch(result, c)
    _launch(what, CALLER_VOUCHES, p, m, n, k, alpha, a.data_ptr(), sba, b.data_ptr(), sbb, beta,
            result.data_ptr(), m * n if batch > 1 else 0, batch if batched else 0,
            T.raw_stream(device))
    return result
