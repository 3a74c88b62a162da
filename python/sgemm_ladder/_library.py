"""Finding and loading libsgemm_ladder.so (the C ABI, include/sgemm/sgemm_c.h) with ctypes,
its functions' prototypes, and its failures as Python exceptions. Loaded on first use, so
that importing the package needs neither the library nor a GPU."""
import ctypes
import ctypes.util
import os
import threading

LIBRARY_NAME = "libsgemm_ladder.so"
ENV = "SGEMM_LADDER_LIBRARY"

_HERE = os.path.dirname(os.path.abspath(__file__))
# python/sgemm_ladder/ -> the repository root, whose build folder `build` holds the library.
_REPO_BUILD = os.path.join(os.path.dirname(os.path.dirname(_HERE)), "build", LIBRARY_NAME)
_PACKAGED = os.path.join(_HERE, "lib", LIBRARY_NAME)

# sgemm_status, value for value, and the exception each failure raises.
STATUS_NAMES = ("ok", "unknown_rung", "bad_size", "bad_leading_dim", "bad_pointer",
                "too_large", "unsupported_gpu", "no_workspace", "cuda_error")
CHECK_POINTERS, CALLER_VOUCHES = 0, 1


class SgemmError(Exception):
    """A call the library refused or could not run. `status` is sgemm_status's name ("bad_size",
    ...), `code` its value; the message is the library's sentence (sgemm_last_error)."""

    def __init__(self, message, status=None, code=None):
        super().__init__(message)
        self.status, self.code = status, code


class SgemmValueError(SgemmError, ValueError):
    """Bad arguments: sizes, leading dimensions, strides, pointers (statuses 1 to 5)."""


class SgemmRuntimeError(SgemmError, RuntimeError):
    """The GPU, the workspace or CUDA (statuses 6 to 8)."""


class LibraryNotFound(SgemmError, OSError):
    """No libsgemm_ladder.so where the package looks; the message lists the places."""


def candidates():
    """Where the library is looked for, in order: [(what, path or name)]."""
    env = os.environ.get(ENV)
    if env:
        return [(f"${ENV}", env)]  # an explicit choice is the only one
    found = [("beside the package", _PACKAGED), ("the repository's build folder", _REPO_BUILD)]
    name = ctypes.util.find_library("sgemm_ladder")
    found.append(("the loader's path (ctypes.util.find_library)", name or "sgemm_ladder"))
    found.append(("the loader's path (LD_LIBRARY_PATH, ldconfig)", LIBRARY_NAME))
    return found


def find_and_load():
    """(ctypes.CDLL, where it came from), or LibraryNotFound naming every place looked at."""
    tried = []
    for what, path in candidates():
        is_path = os.sep in path
        if is_path and not os.path.exists(path):
            tried.append(f"{what}: {path} (no such file)")
            continue
        try:
            return ctypes.CDLL(path), path
        except OSError as e:
            tried.append(f"{what}: {path} ({e})")
    raise LibraryNotFound(
        f"sgemm_ladder: cannot load {LIBRARY_NAME}; looked at\n  " + "\n  ".join(tried) +
        f"\nBuild it (cmake -B build && cmake --build build -j, target sgemm_ladder_shared) and "
        f"set {ENV}=/path/to/{LIBRARY_NAME}, or install the package from a tree where "
        f"build/{LIBRARY_NAME} exists (pip install --no-build-isolation --no-deps ./python), "
        f"which copies it beside the package.")


_c = ctypes
_PROTOTYPES = {
    "sgemm_gemm": (_c.c_int, [_c.c_int, _c.c_int, _c.c_int, _c.c_int, _c.c_int, _c.c_int,
                              _c.c_float, _c.c_void_p, _c.c_int, _c.c_void_p, _c.c_int,
                              _c.c_float, _c.c_void_p, _c.c_int, _c.c_void_p]),
    "sgemm_gemm_strided_batched": (
        _c.c_int, [_c.c_int, _c.c_int, _c.c_int, _c.c_int, _c.c_int, _c.c_int, _c.c_float,
                   _c.c_void_p, _c.c_int, _c.c_longlong, _c.c_void_p, _c.c_int, _c.c_longlong,
                   _c.c_float, _c.c_void_p, _c.c_int, _c.c_longlong, _c.c_int, _c.c_void_p]),
    "sgemm_set_pointer_checks": (None, [_c.c_int]),
    "sgemm_last_error": (_c.c_char_p, []),
    "sgemm_status_string": (_c.c_char_p, [_c.c_int]),
    "sgemm_rung_count": (_c.c_int, []),
    "sgemm_rung_number": (_c.c_int, [_c.c_int]),
    "sgemm_rung_name": (_c.c_char_p, [_c.c_int]),
    "sgemm_rung_summary": (_c.c_char_p, [_c.c_int]),
    "sgemm_one_call_rung": (_c.c_int, []),
    "sgemm_workspace_limit": (_c.c_size_t, []),
    "sgemm_set_workspace_limit": (None, [_c.c_size_t]),
    "sgemm_release_workspace": (_c.c_int, []),
    "sgemm_version": (_c.c_char_p, []),
}


class Library:
    """The loaded library: one attribute per C function, prototypes set once."""

    def __init__(self, cdll, path):
        self.path = path
        self.cdll = cdll
        for name, (restype, argtypes) in _PROTOTYPES.items():
            try:
                fn = getattr(cdll, name)
            except AttributeError:
                raise LibraryNotFound(
                    f"sgemm_ladder: {path} has no {name}: it is not the SGEMM ladder's C ABI "
                    "(include/sgemm/sgemm_c.h), or a build older than this package") from None
            fn.restype, fn.argtypes = restype, argtypes
            setattr(self, name[len("sgemm_"):], fn)
        # The products again without argtypes, for the per-call path: ctypes converts a
        # prototyped argument with a Python call each (about a microsecond for the 15), but
        # passes an unprototyped int as C's int and a ctypes object as its type. The caller
        # wraps pointers, floats and long longs (_core._launch).
        self.gemm_unprototyped = cdll["sgemm_gemm"]
        self.gemm_strided_batched_unprototyped = cdll["sgemm_gemm_strided_batched"]
        self.gemm_unprototyped.restype = _c.c_int
        self.gemm_strided_batched_unprototyped.restype = _c.c_int

    def error(self, code, what):
        """The exception for a failed status, with the library's sentence."""
        sentence = (self.last_error() or b"").decode("utf-8", "replace")
        name = STATUS_NAMES[code] if 0 <= code < len(STATUS_NAMES) else f"status {code}"
        cls = SgemmValueError if 1 <= code <= 5 else SgemmRuntimeError
        return cls(f"{what}: {sentence} ({name})" if sentence else f"{what}: {name}", name, code)


_lock = threading.Lock()
_library = None


def library():
    """The Library, loaded on first use (thread-safe)."""
    global _library
    lib = _library
    if lib is None:
        with _lock:
            if _library is None:
                _library = Library(*find_and_load())
            lib = _library
    return lib


class _ThreadState(threading.local):
    checks = None  # the pointer-check mode last set on this thread (the library's is per thread)


_thread = _ThreadState()


def set_pointer_checks(lib, mode):
    """sgemm_set_pointer_checks(mode) on this thread, only when it changes."""
    if _thread.checks != mode:
        lib.set_pointer_checks(mode)
        _thread.checks = mode
