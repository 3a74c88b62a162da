"""Packs libsgemm_ladder.so beside the package when a built one is found, so that an installed
sgemm_ladder finds its library without $SGEMM_LADDER_LIBRARY: $SGEMM_LADDER_LIBRARY if set,
else ../build/libsgemm_ladder.so (the repository's build folder), with libsgemm_jax_ffi.so (JAX's
jit path) where it was built beside it. Without one the package installs all the same and
looks for the library at run time (sgemm_ladder/_library.py)."""
import os
import shutil

from setuptools import setup
from setuptools.command.build_py import build_py

HERE = os.path.dirname(os.path.abspath(__file__))
NAME = "libsgemm_ladder.so"
FFI_NAME = "libsgemm_jax_ffi.so"


def built_library():
    for path in (os.environ.get("SGEMM_LADDER_LIBRARY"),
                 os.path.join(HERE, os.pardir, "build", NAME)):
        if path and os.path.isfile(path):
            return os.path.realpath(path)
    return None


def built_ffi_library(lib):
    """The JAX FFI handler library built beside `lib` (CMake builds it where jax was
    importable), or None."""
    path = os.environ.get("SGEMM_JAX_FFI_LIBRARY") or os.path.join(os.path.dirname(lib),
                                                                     FFI_NAME)
    return os.path.realpath(path) if os.path.isfile(path) else None


class BuildPyWithLibrary(build_py):
    def run(self):
        super().run()
        lib = built_library()
        if lib is None:
            print(f"sgemm_ladder: no {NAME} found to pack (set SGEMM_LADDER_LIBRARY or build "
                  "the repository's build/ first); the package will look for it at run time")
            return
        target = os.path.join(self.build_lib, "sgemm_ladder", "lib")
        os.makedirs(target, exist_ok=True)
        shutil.copy2(lib, os.path.join(target, NAME))
        print(f"sgemm_ladder: packed {lib}")
        ffi = built_ffi_library(lib)
        if ffi is not None:
            shutil.copy2(ffi, os.path.join(target, FFI_NAME))
            print(f"sgemm_ladder: packed {ffi} (sgemm_ladder.jax)")


setup(cmdclass={"build_py": BuildPyWithLibrary})
