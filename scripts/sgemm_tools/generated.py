"""Text generated from committed data (tables in the README and docs): the one way a script
rewrites it, or, with --check, shows how it differs and changes nothing."""
import difflib
import sys


def update(path, where, now, wanted, check, what, source="the JSON"):
    """Brings the file at `path` (named `where` to the user) from `now` to `wanted`, which
    comes from `source`: with `check`, prints the unified diff instead. Returns True when they
    differed."""
    if now == wanted:
        return False
    if check:
        sys.stdout.writelines(difflib.unified_diff(
            now.splitlines(keepends=True), wanted.splitlines(keepends=True),
            f"{where} (now)", f"{where} (from {source})"))
    else:
        with open(path, "w") as f:
            f.write(wanted)
        print(f"{where}: {what} rewritten")
    return True
