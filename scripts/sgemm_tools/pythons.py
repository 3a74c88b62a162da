"""A Python that can import a module, for scripts that need one the python3 first on PATH may
lack: matplotlib for scripts/plot and its test (tests/results_scripts_test.py --pictures).
Debian's python3-matplotlib goes to /usr/bin/python3, while pyenv, conda or a virtual
environment often put another python3 first on PATH.

    python, tried = pythons.find("matplotlib")   # None when no Python has it
    pythons.run_under(python, script)            # the script again, under that Python
"""
import glob
import os
import re
import subprocess
import sys

SYSTEM_PYTHON = "/usr/bin/python3"  # where Debian's and Ubuntu's python3-* packages go
# Set for the script run again under another Python, which then does not look further.
RERUN = "SGEMM_PYTHON_RERUN"


def _version(path):  # python3.12 -> (3, 12)
    return tuple(int(n) for n in re.findall(r"\d+", os.path.basename(path)))


def _place(path):
    """The file a path names, through linked folders (/bin -> /usr/bin) but not a linked file:
    a virtual environment's python3 links to its base Python and has other packages."""
    return os.path.join(os.path.realpath(os.path.dirname(path)), os.path.basename(path))


def candidates(path=None):
    """The Pythons to try, in order: every python3 on PATH, /usr/bin/python3, then every
    python3.N on PATH, newest first. Executable files only, each once."""
    dirs = [d for d in (os.environ.get("PATH", "") if path is None else path).split(os.pathsep)
            if d]
    versioned = [p for d in dirs for p in glob.glob(os.path.join(d, "python3.*"))
                 if re.fullmatch(r"python3\.\d+", os.path.basename(p))]
    versioned.sort(key=_version, reverse=True)
    found = []
    for p in [os.path.join(d, "python3") for d in dirs] + [SYSTEM_PYTHON] + versioned:
        if os.path.isfile(p) and os.access(p, os.X_OK) and _place(p) not in map(_place, found):
            found.append(p)
    return found


def can_import(python, module):
    """True when `python -c "import module"` succeeds."""
    try:
        return subprocess.run([python, "-c", f"import {module}"], stdin=subprocess.DEVNULL,
                              capture_output=True, timeout=120).returncode == 0
    except (OSError, subprocess.TimeoutExpired):
        return False


def importable_here(module):
    try:
        __import__(module)
        return True
    except ImportError:
        return False


def find(module, path=None):
    """(python, tried): the Python running this when it can import `module`, else the first of
    candidates() that can (None when none can), and every one tried, for a message. A script
    run again by run_under() does not look further than itself."""
    rerun = os.environ.pop(RERUN, None)  # not for the programs this one runs
    if importable_here(module):
        return sys.executable, []
    tried = [sys.executable or "this python3"]
    if rerun:
        return None, tried
    for python in candidates(path):
        if sys.executable and _place(python) == _place(sys.executable):
            continue  # the one running: it has just failed
        tried.append(python)
        if can_import(python, module):
            return python, tried
    return None, tried


def run_under(python, script, args=None):
    """Replaces this process with `script` run by `python` (the same arguments by default)."""
    os.environ[RERUN] = python
    sys.stdout.flush()
    sys.stderr.flush()
    args = sys.argv[1:] if args is None else args
    os.execv(python, [python, os.path.realpath(script), *args])
