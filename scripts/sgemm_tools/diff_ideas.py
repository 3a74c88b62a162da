"""Ideas tables: which changes of a rung's diff serve which of the ideas its doc teaches
(scripts/diff --idea, --ideas, --check).

A doc maps them between `<!-- ideas:begin FROM TO changes=N fingerprint=HEX -->` and
`<!-- ideas:end -->`, a table row per idea: | `name` | 1-3, 7 | what they change |. The
changes are the hunks of `diff -U0 --minimal -p` between the two kernel files, numbered in
order; the fingerprint hashes them, so a table made for other kernels no longer passes, nor
does one that leaves a change out or gives it to two ideas.
"""
import hashlib
import os
import re
import shlex
import shutil
import subprocess
import tempfile

import ladder

BEGIN = re.compile(r"^<!--\s*ideas:begin\b(.*?)-->\s*$")
END = re.compile(r"^<!--\s*ideas:end\s*-->\s*$")
ROW = re.compile(r"^\|\s*`([a-z0-9-]+)`\s*\|([^|]*)\|")
HUNK = re.compile(r"^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@")
# The rungs whose diff from their parent carries several ideas: each doc maps them in an ideas
# table, so that a reader can take the diff one idea at a time (scripts/diff N --idea NAME).
SEVERAL_IDEAS = (8, 10, 15, 16, 17, 18, 19)


def gnu_diff(old_path, new_path, labels, context, minimal=False):
    """GNU diff -U<context> -p of two files (paths relative to the repository), as text."""
    if not shutil.which("diff"):
        raise ladder.Error("needs the 'diff' program (GNU diffutils)")
    cmd = ["diff", f"-U{context}", "-p", *["--minimal"][:minimal], "--label", labels[0],
           "--label", labels[1], old_path, new_path]
    p = subprocess.run(cmd, cwd=ladder.ROOT, capture_output=True, text=True)
    if p.returncode > 1:
        raise ladder.Error(f"{' '.join(cmd)} failed: {p.stderr.strip()}")
    return p.stdout


def changes(old, new):
    """The numbered units of an idea map: the hunks of diff -U0 --minimal, old -> new."""
    return ladder.split_hunks(gnu_diff(old.kernel, new.kernel, (old.kernel, new.kernel), 0,
                                       minimal=True))[1]


def fingerprint(hunks):
    return hashlib.sha256("\n".join("\n".join(h) for h in hunks).encode()).hexdigest()[:12]


def parse_numbers(text, where):
    out = []
    for part in filter(None, (p.strip() for p in text.split(","))):
        m = re.fullmatch(r"(\d+)(?:\s*-\s*(\d+))?", part)
        if not m or int(m[1]) < 1 or (m[2] and int(m[2]) < int(m[1])):
            raise ladder.Error(f"{where}: cannot read '{part}' (change numbers: 1-3, 7)")
        out += range(int(m[1]), int(m[2] or m[1]) + 1)
    return out


class IdeaMap:
    """The ideas table of one doc: which changes of diff FROM -> TO serve which idea."""

    def __init__(self, path, lineno, args, rows):
        self.file = os.path.relpath(path, ladder.ROOT)
        self.where = f"{self.file}:{lineno}"
        words = shlex.split(args)
        options = dict(w.split("=", 1) for w in words if "=" in w)
        positional = [w for w in words if "=" not in w]
        if len(positional) != 2 or set(options) != {"changes", "fingerprint"}:
            raise ladder.Error(f"{self.where}: expected '<!-- ideas:begin FROM TO changes=N "
                               f"fingerprint=HEX -->', got '{args.strip()}'")
        self.old, self.new = (ladder.rung(p) for p in positional)
        self.count, self.fingerprint = int(options["changes"]), options["fingerprint"]
        self.ideas = {}  # name -> [change numbers], in table order
        for lineno, line in rows:
            m = ROW.match(line)
            if m:
                self.ideas[m[1]] = parse_numbers(m[2], f"{self.file}:{lineno}")
        if not self.ideas:
            raise ladder.Error(f"{self.where}: the ideas table has no rows like "
                               "'| `name` | 1-3, 7 | what they change |'")

    def problems(self):
        """What no longer fits the current diff: [] when the map is in step."""
        n, now = len(hunks := changes(self.old, self.new)), fingerprint(hunks)
        if (n, now) != (self.count, self.fingerprint):
            return [f"{self.where}: the diff {self.old.stem} -> {self.new.stem} is not the one "
                    f"this table maps ({self.count} changes, fingerprint {self.fingerprint}): "
                    f"give each of its {n} changes (scripts/diff {self.old.number} "
                    f"{self.new.number} --ideas) to one idea, then write changes={n} "
                    f"fingerprint={now}"]
        out, owner = [], {}
        for name, numbers in self.ideas.items():
            out += [f"{self.where}: idea {name}: there is no change {i} ({n} changes)"
                    for i in numbers if i > n]
            out += [f"{self.where}: change {i} is in ideas {owner[i]} and {name}"
                    for i in numbers if i in owner]
            owner.update((i, owner.get(i, name)) for i in numbers)
        missing = [str(i) for i in range(1, n + 1) if i not in owner]
        return out + ([f"{self.where}: changes {', '.join(missing)} are in no idea"]
                      if missing else [])

    def owner(self, number):
        return next((name for name, ns in self.ideas.items() if number in ns), "?")


def idea_maps(path):
    """The ideas tables in one markdown file."""
    out, start, rows = [], None, []
    with open(path) as f:
        for lineno, line in enumerate(f, 1):
            if BEGIN.match(line):
                start, rows = (lineno, BEGIN.match(line)[1]), []
            elif END.match(line) and start:
                out.append(IdeaMap(path, start[0], start[1], rows))
                start = None
            elif start:
                rows.append((lineno, line))
    if start:
        raise ladder.Error(f"{path}:{start[0]}: <!-- ideas:begin --> without <!-- ideas:end -->")
    return out


def all_maps():
    """Every ideas table in the rungs' docs."""
    docs = [os.path.join(ladder.ROOT, r.doc) for r in ladder.rungs()]
    return [m for path in docs if os.path.exists(path) for m in idea_maps(path)]


def missing(maps):
    """A sentence for each rung of SEVERAL_IDEAS whose doc has no ideas table among `maps`."""
    have = {(m.old, m.new) for m in maps}
    out = []
    for number in SEVERAL_IDEAS:
        new = ladder.rung(number)
        old = ladder.parent(new)
        if (old, new) not in have:
            out.append(f"{new.doc} has no ideas table for scripts/diff {number} "
                       f"({old.number} -> {number}), whose diff carries several ideas")
    return out


def rung_map(old, new):
    """The ideas table of the diff old -> new, from new's doc."""
    path = os.path.join(ladder.ROOT, new.doc)
    maps = [m for m in (idea_maps(path) if os.path.exists(path) else [])
            if (m.old, m.new) == (old, new)]
    if not maps:
        having = ", ".join(m.new.doc for m in all_maps()) or "none"
        raise ladder.UsageError(f"{new.doc} has no ideas table for the diff {old.number} -> "
                                f"{new.number} (docs with one: {having})")
    return maps[0]


def listing(m):
    """A line per change: its number, its idea, where it is, its first telling line."""
    out = []
    for i, hunk in enumerate(changes(m.old, m.new), 1):
        where = HUNK.match(hunk[0])
        shown = [s for s in hunk[1:] if s[1:].strip() and not s[1:].startswith("#pragma")]
        line = next((s for s in shown if s[0] == "+"), shown[0] if shown else hunk[1])
        out.append(f"{i:3d}  {m.owner(i):14s} {f'-{where[1]} +{where[3]}':12s} {line[:70]}")
    return out


def only_ideas(m, names, context):
    """The diff old -> (old with only these ideas' changes made)."""
    unknown = [n for n in names if n not in m.ideas] or ([] if names else [""])
    if unknown:
        raise ladder.UsageError(f"no idea '{unknown[0]}' in {m.where} "
                                f"(ideas: {', '.join(m.ideas)})")
    chosen = {n for name in names for n in m.ideas[name]}
    with open(os.path.join(ladder.ROOT, m.old.kernel)) as f:
        old = f.read().splitlines()
    out, at = [], 0  # at: old lines copied so far
    for i, hunk in enumerate(changes(m.old, m.new), 1):
        h = HUNK.match(hunk[0])
        start, count = int(h[1]), int(h[2] if h[2] is not None else 1)
        end = start if count == 0 else start - 1  # old lines before the change
        out += old[at:end]
        at = end + count
        out += [line[1:] for line in hunk[1:] if line[:1] == "+-"[i not in chosen]]
    out += old[at:]
    with tempfile.NamedTemporaryFile("w", suffix=".cu") as tmp:
        print("\n".join(out), file=tmp, flush=True)
        return gnu_diff(m.old.kernel, tmp.name,
                        (m.old.kernel, f"{m.new.kernel} ({', '.join(names)} only)"), context)


