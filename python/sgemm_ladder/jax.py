"""JAX: the one call inside jax.jit, grad and vmap, through XLA's typed FFI.

    import jax, sgemm_ladder.jax as sj
    f = jax.jit(lambda a, b: sj.matmul(a, b) * 2)    # a: (..., M, K), b: (..., K, N) float32
    ga, gb = jax.grad(lambda a, b: sj.matmul(a, b).sum(), argnums=(0, 1))(a, b)

matmul is an XLA custom call (the FFI target "sgemm_ladder_matmul", CUDA only) to
libsgemm_jax_ffi.so (python/jax_ffi/), which runs the library's one call on XLA's stream,
inside the compiled program: no DLPack, no host synchronisation. Its gradient is made of the
same call on transposed operands (no copies), so training stays FP32-accurate; under vmap the
batch becomes one more leading dimension of one strided-batched call.

libsgemm_jax_ffi.so is built by CMake where jax was importable at configure time, beside
libsgemm_ladder.so; it is looked for beside the libsgemm_ladder.so the package loaded, or at
$SGEMM_JAX_FFI_LIBRARY. Outside jit, sgemm_ladder.matmul takes JAX arrays through DLPack as
before.
"""
import ctypes
import os
import threading

import jax
import jax.numpy as jnp

from ._layout import dense_product_shape
from ._library import LibraryNotFound, library

__all__ = ["matmul", "ffi_library_path", "TARGET"]

TARGET = "sgemm_ladder_matmul"
LIBRARY_NAME = "libsgemm_jax_ffi.so"
FFI_ENV = "SGEMM_JAX_FFI_LIBRARY"
_WHAT = "sgemm_ladder.jax.matmul"

_lock = threading.Lock()
_ffi_library = None  # the CDLL, kept loaded: XLA holds a pointer into it


def ffi_library_path():
    """Where libsgemm_jax_ffi.so is loaded from: $SGEMM_JAX_FFI_LIBRARY, else beside the
    libsgemm_ladder.so the package loaded (the loader's path when that came by name)."""
    env = os.environ.get(FFI_ENV)
    if env:
        return env
    folder = os.path.dirname(library().path)
    return os.path.join(folder, LIBRARY_NAME) if folder else LIBRARY_NAME


def _register():
    """Registers the FFI target once. libsgemm_ladder.so is loaded first, so that the handler's
    dependency on it (by soname) is the very copy the package uses."""
    global _ffi_library
    if _ffi_library is not None:
        return
    with _lock:
        if _ffi_library is not None:
            return
        library()
        path = ffi_library_path()
        how = ("build it: cmake -B build && cmake --build build --target sgemm_jax_ffi, with "
               "jax importable by the python3 that CMake finds (or "
               f"-DSGEMM_JAX_FFI_INCLUDE_DIR=...), or set {FFI_ENV}")
        if os.sep in path and not os.path.exists(path):
            raise LibraryNotFound(f"sgemm_ladder.jax: no {LIBRARY_NAME} at {path}; {how}")
        try:
            cdll = ctypes.CDLL(path)
            handler = cdll.SgemmLadderMatmul
        except (OSError, AttributeError) as e:
            raise LibraryNotFound(f"sgemm_ladder.jax: cannot load {path} ({e}); {how}") from None
        jax.ffi.register_ffi_target(TARGET, jax.ffi.pycapsule(handler), platform="CUDA")
        _ffi_library = cdll


def _float32_shape(x, name):
    """x's shape, after checking its dtype as it is (no silent casts: a float64 NumPy array is
    refused, not rounded)."""
    dtype = getattr(x, "dtype", None)
    if dtype is None:
        raise TypeError(f"{_WHAT}: {name} is a {type(x).__name__}: pass a float32 JAX array")
    if dtype != jnp.float32:
        raise TypeError(f"{_WHAT}: {name} is {dtype}: the library multiplies float32")
    return jnp.shape(x)


def _call(a, b, transpose_a, transpose_b):
    """op(a) @ op(b) as the custom call; op T swaps the last two dimensions. vmap adds a leading
    dimension to every operand (broadcast_all), which the handler takes as more batch."""
    m = a.shape[-1] if transpose_a else a.shape[-2]
    n = b.shape[-2] if transpose_b else b.shape[-1]
    out = jax.ShapeDtypeStruct(a.shape[:-2] + (m, n), jnp.float32)
    return jax.ffi.ffi_call(TARGET, out, vmap_method="broadcast_all")(
        a, b, transpose_a=bool(transpose_a), transpose_b=bool(transpose_b))


@jax.custom_vjp
def _matmul(a, b):
    return _call(a, b, False, False)


def _matmul_fwd(a, b):
    return _call(a, b, False, False), (a, b)


def _matmul_bwd(residuals, g):
    a, b = residuals
    return _call(g, b, False, True), _call(a, g, True, False)  # g b^T, a^T g


_matmul.defvjp(_matmul_fwd, _matmul_bwd)


def matmul(a, b):
    """a @ b at FP32 accuracy, usable inside jax.jit, jax.grad and jax.vmap, on CUDA devices.
    a: (..., M, K), b: (..., K, N), float32, the same leading (batch) dimensions; the result is
    (..., M, N) float32. Shapes and dtypes are checked here, before XLA sees the call."""
    dense_product_shape(_float32_shape(a, "a"), _float32_shape(b, "b"), _WHAT)
    _register()
    return _matmul(a, b)
