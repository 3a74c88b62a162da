"""The programs the scripts run: where to find them, how to run one for its output, and the
check that the binary they look at exists.

One policy for every tool: a path given on the command line or in the tool's environment
variable is used as it is (an error if it is not an executable file, never a silent
fallback); otherwise PATH, the CUDA toolkit ($CUDA_HOME, default /usr/local/cuda), then
the tool's own further places.
"""
import glob
import os
import shutil
import subprocess

import ladder

NOTFOUND_HELP = ("cmake found no cuobjdump when it configured this build, so the SASS tests "
                 "cannot run. Install a CUDA toolkit's cuobjdump, or configure with "
                 "-DSGEMM_FETCH_CUOBJDUMP=ON (fetches it into build/tools), or "
                 "-DSGEMM_CUOBJDUMP=/path/to/cuobjdump; then re-run cmake")


def executable(path):
    return bool(path) and os.path.isfile(path) and os.access(path, os.X_OK)


def find(name, given, env, places=(), missing=""):
    """The path of tool `name`: `given`, else $`env`, else PATH, the CUDA toolkit, `places`.
    `missing` is the message when none of them has it."""
    asked = given or os.environ.get(env)
    if asked:
        if executable(asked):
            return asked
        raise ladder.Error(f"{name} '{asked}' is not an executable file")
    cuda = os.path.join(os.environ.get("CUDA_HOME", "/usr/local/cuda"), "bin", name)
    for path in [shutil.which(name), cuda, *places]:
        if executable(path):
            return path
    raise ladder.Error(missing)


def cuobjdump(given, binary):
    """cuobjdump; beside the defaults, the tools/bin of the binary's build folder and of
    build/ (where cmake and scripts/get-cuobjdump put a fetched one). `given` may be
    cmake's 'cuobjdump-NOTFOUND' (tests/sass.cmake): then only $CUOBJDUMP can help."""
    if given and given.endswith("NOTFOUND"):
        if not os.environ.get("CUOBJDUMP"):
            raise ladder.Error(NOTFOUND_HELP)
        given = None
    return find("cuobjdump", given, "CUOBJDUMP",
                [os.path.join(os.path.dirname(os.path.abspath(binary)), "tools", "bin",
                              "cuobjdump"),
                 os.path.join(ladder.ROOT, "build", "tools", "bin", "cuobjdump")],
                "cuobjdump not found (not on PATH, not in the CUDA toolkit, not in "
                "build/tools/bin). Fetch it with: scripts/get-cuobjdump build/tools "
                "(or configure with -DSGEMM_FETCH_CUOBJDUMP=ON), or pass --cuobjdump PATH")


def ncu(given):
    """Nsight Compute's ncu; also the newest /opt/nvidia/nsight-compute/*/ncu."""
    return find("ncu", given, "NCU",
                sorted(glob.glob("/opt/nvidia/nsight-compute/*/ncu"), reverse=True),
                "ncu (Nsight Compute) not found: put it on PATH, set NCU, or pass --ncu")


def sanitizer(given):
    """compute-sanitizer; also any /usr/local/cuda*/compute-sanitizer/ folder."""
    return find("compute-sanitizer", given, "COMPUTE_SANITIZER",
                sorted(glob.glob("/usr/local/cuda*/compute-sanitizer/compute-sanitizer")),
                "compute-sanitizer not found: put it on PATH, set COMPUTE_SANITIZER, or "
                "pass --sanitizer")


def output(cmd, what=None):
    """The stdout of `cmd`, or an Error naming `what` (default: the command) and its exit."""
    p = subprocess.run(cmd, capture_output=True, text=True)
    if p.returncode != 0:
        raise ladder.Error(f"{what or ' '.join(cmd)} failed (exit {p.returncode}): "
                           f"{p.stderr.strip() or p.stdout.strip()[:500]}")
    return p.stdout


def require_binary(path, how="build it first or pass --binary"):
    """Raises an Error unless `path` (the program or library the script reads) exists."""
    if not os.path.isfile(path):
        raise ladder.Error(f"{path} does not exist; {how}")
