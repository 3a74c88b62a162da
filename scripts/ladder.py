"""The ladder as the scripts see it: rungs read from kernels/ladder.inc (the one list),
their kernel and doc files, and the code diff between two rungs.

    import ladder
    for rung in ladder.rungs(): print(rung.number, rung.name, rung.kernel)
"""
import os
import re
import shutil
import subprocess
import sys
from dataclasses import dataclass

ROOT = os.path.dirname(os.path.dirname(os.path.realpath(__file__)))
LIST = "kernels/ladder.inc"

# The cuBLAS each precision class is compared with, by its name in the runner and the bench
# (runner/runnables.cpp's table of runnables).
REFERENCES = {"fp32": "cublas", "tf32": "cublas_tf32"}

_RUNG = re.compile(r'^RUNG\(\s*(\d+)\s*,\s*([a-z0-9_]+)\s*,\s*(\d+)\s*,\s*(fp32|tf32)\s*,'
                  r'\s*"((?:[^"\\]|\\.)*)"\s*\)\s*$')


@dataclass(frozen=True)
class Rung:
    number: int
    name: str  # kernel sgemm_<name> in namespace sgemm::<name>
    precision: str  # "fp32" or "tf32": its checks and its cuBLAS reference
    summary: str
    parent: int = 0  # the rung it grew from (0 for the first): scripts/diff N diffs against it

    @property
    def reference(self):  # the cuBLAS it is compared with (benchmark name)
        return REFERENCES[self.precision]

    @property
    def stem(self):  # "06_vectorized"
        return f"{self.number:02d}_{self.name}"

    @property
    def kernel(self):  # relative to ROOT
        return f"kernels/{self.stem}.cu"

    @property
    def doc(self):
        return f"docs/{self.stem}.md"

    @property
    def function(self):
        return f"sgemm_{self.name}"

    @property
    def dispatches(self):
        """True for a rung with no kernel of its own (its file defines no __global__
        function): it runs other rungs' kernels, so the binary has no sgemm_<name> to check."""
        with open(os.path.join(ROOT, self.kernel)) as f:
            return re.search(r"^\s*__global__\b", f.read(), re.M) is None


class Error(Exception):
    """A problem the user can fix; the scripts print it and exit with 1."""


class UsageError(Error):
    """A bad command line (a rung that does not exist, ...): the scripts print it and exit
    with 2, as they and the programs do for any bad usage."""


def rungs():
    """Every rung in ladder order."""
    out = []
    with open(os.path.join(ROOT, LIST)) as f:
        for lineno, line in enumerate(f, 1):
            if not line.startswith("RUNG("):
                continue
            m = _RUNG.match(line.strip())
            if not m:
                raise Error(f"{LIST}:{lineno}: cannot read '{line.strip()}'")
            out.append(Rung(int(m[1]), m[2], m[4], m[5], int(m[3])))
            before = [r.number for r in out[:-1]] or [0]  # the first rung's parent is 0
            if out[-1].parent not in before:
                raise Error(f"{LIST}:{lineno}: rung {m[1]} grew from rung {m[3]}, which is not "
                            "a rung listed before it")
    if not out:
        raise Error(f"{LIST} lists no rungs")
    return out


def rung(number):
    """The rung with this number (an int or a string such as '06')."""
    try:
        n = int(number)
    except ValueError:
        raise UsageError(f"'{number}' is not a rung number") from None
    for r in rungs():
        if r.number == n:
            return r
    raise UsageError(f"no rung {n} in {LIST} (rungs: "
                     f"{', '.join(str(r.number) for r in rungs())})")


def previous(r):
    """The rung before `r` in the ladder, or None for the first."""
    order = rungs()
    i = order.index(r)
    return order[i - 1] if i > 0 else None


def parent(r):
    """The rung `r` grew from (its parent column in the list), or None for the first."""
    return rung(r.parent) if r.parent else None


def kernel_diff(old, new, context=3):
    """The unified diff from rung `old`'s kernel file to rung `new`'s, as text.

    Plain GNU `diff -U<context> -p` (unified) with the repository-relative paths as labels and
    no timestamps, so the output is the same on every machine; hunk headers name the enclosing
    function.
    """
    diff = shutil.which("diff")
    if not diff:
        raise Error("needs the 'diff' program (GNU diffutils)")
    for r in (old, new):
        if not os.path.exists(os.path.join(ROOT, r.kernel)):
            raise Error(f"{r.kernel} does not exist (rung {r.number} is in {LIST})")
    # -U alone, not -u -U: GNU diff takes the largest context it is given, and -u means 3
    cmd = [diff, f"-U{context}", "-p", "--label", old.kernel, "--label", new.kernel,
           old.kernel, new.kernel]
    p = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True)
    if p.returncode > 1:
        raise Error(f"{' '.join(cmd)} failed: {p.stderr.strip()}")
    return p.stdout


def split_hunks(diff_text):
    """(file header lines, [hunk lines, ...]) of a unified diff."""
    header, hunks = [], []
    for line in diff_text.splitlines():
        if line.startswith("@@"):
            hunks.append([line])
        elif hunks:
            hunks[-1].append(line)
        else:
            header.append(line)
    return header, hunks


def main_guard(main):
    """Runs main() and turns Error into a message and exit status 1 (2 for a UsageError)."""
    try:
        sys.exit(main())
    except Error as e:
        print(f"{prog()}: {e}", file=sys.stderr)
        sys.exit(2 if isinstance(e, UsageError) else 1)
    except BrokenPipeError:  # `scripts/x | head`: not an error
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        sys.exit(0)


def prog():
    """'scripts/diff' for messages: a bare 'diff' would read as GNU diff."""
    return "scripts/" + os.path.basename(sys.argv[0])
