"""The argparse set-up every script shares: its name as the user typed it, the first
paragraph of its docstring as the description and the rest as the epilog, and the options
more than one script has."""
import argparse
import os

import ladder

DEFAULT_BINARY = os.path.join(ladder.ROOT, "build", "sgemm")


class _Parser(argparse.ArgumentParser):
    """Bad usage is one sentence and exit status 2, as in the C++ programs; --help has the
    rest."""

    def error(self, message):
        self.exit(2, f"{self.prog}: {message} (see --help)\n")


def parser(doc):
    """An ArgumentParser for a script whose module docstring is `doc`."""
    description, _, epilog = doc.partition("\n\n")
    return _Parser(prog=ladder.prog(), description=description, epilog=epilog or None,
                   formatter_class=argparse.RawDescriptionHelpFormatter)


def add_rungs(ap):
    ap.add_argument("rungs", nargs="*", help="rung numbers (default: every rung)")


def add_binary(ap, what="the sgemm CLI"):
    ap.add_argument("--binary", default=DEFAULT_BINARY, help=f"{what} (default build/sgemm)")
