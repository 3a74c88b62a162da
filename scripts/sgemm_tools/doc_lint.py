"""The checks that keep the lessons of docs 00-19 on one template and their numbers true
(scripts/docs-lint; each returns [(path, line, message)], empty when the doc passes).

    template(root, path)       the template: title, the seven headings in order, the try-it box
                               after `## Next`, a picture of the doc's own number that exists,
                               a lesson of at most LESSON_LINES lines; from doc SHORT_BLOCKS_FROM
                               on, no fenced block over BLOCK_LINES lines and no ```diff block
                               over DIFF_LINES anywhere in the doc (a lesson shows the lines that
                               carry the idea; scripts/diff N --idea X shows the rest); no issue
                               numbers and no sessions (when work was done) anywhere in the doc,
                               no dates in the lesson (generated blocks and facts apart)
    excerpts(path, sources)    every code line of a ```cpp / ```cuda / ```c block is a line of the
                               repository's C++ and CUDA sources (whitespace and a trailing //
                               comment aside), unless it says it is abridged ('...' or '…'):
                               a quoted kernel that moved on fails
    numbers(root, path, data)  every percentage ('82.6%') and speed ratio ('2.12×') of the
                               lesson's prose is one that a committed results JSON holds, at the
                               precision written (data = Measured(root); measured_numbers.py
                               says which values count for which doc and line)
    comment_share(diff_text)   (comment lines, changed lines) of a unified diff
    diff_report_line(n, comments, changed)  a row of `scripts/docs-lint comments`, the report
                               of each rung's diff: its size and comment share, marked where
                               past the reading bar (BAR_LINES, BAR_SHARE), never a problem

The lesson is every line above the first `## Appendix` heading (all lines if none). The
number check reads only its prose: code blocks, inline code, HTML comments, fact markers and
generated blocks (<!-- NAME:begin ... --> .. <!-- NAME:end -->) are masked. A line that
carries <!-- number-ok: why --> is not checked (a percentage that is no measurement: a share
of the changed lines, a model's prediction, ...).
"""
import os
import re

from .measured_numbers import Measured, named_rungs  # noqa: F401 (scripts/docs-lint)

LESSON_LINES = 300  # above the first '## Appendix'
# From doc 10 on (the rungs whose diffs run to hundreds of lines) the doc shows hunks, not the
# diff: at most BLOCK_LINES lines of code or DIFF_LINES of diff in one fenced block. Docs 03-09
# embed their whole diffs (88-121 lines), which are the lesson there.
SHORT_BLOCKS_FROM = 10
BLOCK_LINES = 40
DIFF_LINES = 60

HEADINGS = ["What you know", "The idea", "Napkin math", "The code", "Evidence", "Caveat", "Next"]
TRY_IT = "> **Try it.**"

_FENCE = re.compile(r"^(```|~~~)[^\n]*\n.*?^\1[^\n]*$", re.M | re.S)
_BLOCK = re.compile(r"<!-- (?P<name>[a-z0-9-]+):begin\b.*?<!-- (?P=name):end -->", re.S)
_FACT = re.compile(r"<!-- fact:.*?<!-- /fact -->", re.S)
_COMMENT = re.compile(r"<!--.*?-->", re.S)
_INLINE = re.compile(r"`[^`\n]*`")
_NUMBER_OK = re.compile(r"<!-- number-ok:\s*\S[^>]*-->")
# 'issue 21.', '(issues 27 and 28)', '#28'; not the verb: 'a thread issues 4 global loads'
_ISSUE = re.compile(r"\bissues?\s+#\d+|\bissues?\s+\d+(?=\s*(?:[.,;:)'’]|\band\b|\bor\b|$))"
                    r"|(?<![&\w/])#\d+\b", re.I | re.M)
_SESSION = re.compile(r"\b(?:this|last|earlier|previous|later|next|that|same|one|an? "
                      r"(?:earlier|later|previous))\s+sessions?\b", re.I)
_DATE = re.compile(r"\b20\d\d-[01]\d-[0-3]\d\b")
_PERCENT = re.compile(r"(?<![\w.])(?:(\d+(?:\.\d+)?)\s?[–-]\s?)?(\d+(?:\.\d+)?)\s?%")
_RATIO = re.compile(r"(?<![\w.])(\d+\.\d+)\s?×(?![\w(])")


def _blank(m):
    return "".join(c if c == "\n" else " " for c in m.group(0))


def read(path):
    with open(path) as f:
        return f.read()


def lesson_end(lines):
    """The index of the first `## Appendix` heading outside code blocks, or len(lines)."""
    masked = _FENCE.sub(_blank, "\n".join(lines)).split("\n")
    return next((i for i, line in enumerate(masked) if line.startswith("## Appendix")),
                len(lines))


def fenced_blocks(text):
    """[(line of the opening fence, its language, lines inside)] of every fenced block."""
    out = []
    for m in _FENCE.finditer(text):
        inside = m.group(0).split("\n")[1:-1]
        opening = m.group(0).split("\n", 1)[0]
        out.append((text[:m.start()].count("\n") + 1, opening.strip("`~ ") or "text",
                    len(inside)))
    return out


_CODE_FENCE = re.compile(r"^```(?P<lang>cpp|cuda|c\+\+|c)[ \t]*\n(?P<body>.*?)^```", re.M | re.S)
SOURCE_SUFFIXES = (".cu", ".cuh", ".h", ".hpp", ".cpp", ".cc", ".inc")


def _code(line):
    """A line of C++ without its trailing // comment, its whitespace collapsed."""
    cut = re.sub(r"\s//.*$", "", line.rstrip()) if not line.lstrip().startswith("//") else ""
    return " ".join(cut.split())


def source_lines(root):
    """Every line of the C++ and CUDA sources under `root` (build folders aside), as _code
    gives it."""
    lines = set()
    for folder, dirs, files in os.walk(root):
        dirs[:] = [d for d in dirs if not d.startswith((".", "build"))]
        for name in files:
            if name.endswith(SOURCE_SUFFIXES):
                with open(os.path.join(folder, name), errors="replace") as f:
                    lines.update(_code(line) for line in f)
    return lines


def excerpts(path, sources):
    """[(path, line, message)] for each code line of the doc's C++ blocks that no source holds."""
    text = read(path)
    problems = []
    for m in _CODE_FENCE.finditer(text):
        first = text.count("\n", 0, m.start("body")) + 1
        for i, line in enumerate(m["body"].split("\n")):
            code = _code(line)
            if not code or "..." in line or "…" in line or code.startswith("#pragma"):
                continue
            if code not in sources:
                problems.append((path, first + i, f"'{code[:60]}' is in no source file: quote "
                                 "the code as it is, or mark the line abridged with '...'"))
    return problems


def prose(text):
    """The text with everything but prose blanked (line numbers kept)."""
    for pattern in (_FENCE, _BLOCK, _FACT, _COMMENT, _INLINE):
        text = pattern.sub(_blank, text)
    return text


def number_of(path):
    """'03' of docs/03_smem_tiling.md."""
    return os.path.basename(path)[:2]


def template(root, path):
    text = read(path)
    lines = text.split("\n")
    end = lesson_end(lines)
    code_free = _FENCE.sub(_blank, text).split("\n")
    problems = []

    def say(line, message):
        problems.append((path, line, message))
    nn = number_of(path)
    if not lines[0].startswith(f"# {nn} · "):
        say(1, f"the title is not '# {nn} · Title'")
    headings = [(i + 1, line[3:].strip()) for i, line in enumerate(code_free[:end])
                if line.startswith("## ")]
    names = [h for _, h in headings]
    for want in HEADINGS:
        if want not in names:
            say(1, f"no heading '## {want}' in the lesson (above any '## Appendix')")
    extra = [(n, h) for n, h in headings if h not in HEADINGS]
    for n, h in extra:
        say(n, f"'## {h}' is not a heading of the template: use ### inside a section, or "
               "move it to an '## Appendix: ...' after the lesson")
    order = [h for h in names if h in HEADINGS]
    if order != [h for h in HEADINGS if h in order]:
        say(headings[0][0] if headings else 1,
            f"the headings are in the order {', '.join(order)}; the template's is "
            f"{', '.join(HEADINGS)}")
    nxt = next((n for n, h in headings if h == "Next"), None)
    if not any(line.startswith(TRY_IT) for line in code_free[(nxt or end):end]):
        say(nxt or 1, f"no '{TRY_IT}' blockquote after '## Next' in the lesson")
    pictures = re.findall(rf"\]\((pictures/{nn}_[^)\s]*\.svg)\)", "\n".join(code_free))
    if not pictures:
        say(1, f"no picture: the template wants at least one ![...](pictures/{nn}_*.svg)")
    for picture in pictures:
        if not os.path.exists(os.path.join(os.path.dirname(path), picture)):
            say(1, f"{picture} does not exist (scripts/pictures draws them)")
    if end > LESSON_LINES:
        say(end, f"the lesson has {end} lines, more than {LESSON_LINES}: move history, "
                 "prototypes and other-GPU runs to an '## Appendix: ...' at the end, or to "
                 "the rung's experiment")
    if int(nn) >= SHORT_BLOCKS_FROM:
        for line, kind, length in fenced_blocks(text):
            limit = DIFF_LINES if kind == "diff" else BLOCK_LINES
            if length > limit:
                say(line, f"a ```{kind} block of {length} lines, more than {limit}: show the "
                          "lines that carry the idea (diff:begin ... match=REGEX) and point to "
                          "scripts/diff N --idea NAME for the rest")
    masked = _FACT.sub(_blank, _BLOCK.sub(_blank, text)).split("\n")
    for i, line in enumerate(masked):
        checks = [(_ISSUE, "an issue number"), (_SESSION, "when work was done")]
        if i < end:
            checks.append((_DATE, "a date in the lesson (history goes to the appendix)"))
        for pattern, what in checks:
            m = pattern.search(line)
            if m:
                say(i + 1, f"'{m.group(0)}' is {what}: the reader cannot see it; say what "
                           "the code or the data show")
    return problems


def numbers(root, path, data):
    text = read(path)
    lines = text.split("\n")
    end = lesson_end(lines)
    masked = prose(text).split("\n")
    # README.md and doc 00 speak of every rung: their numbers may come from any rung's data
    nn = int(number_of(path)) if number_of(path).isdigit() else 0
    header, top = {}, None  # a table row's header line: its columns may name the rungs
    for i, line in enumerate(masked):
        top = (top if top is not None else i) if line.lstrip().startswith("|") else None
        if top is not None and top != i:
            header[i] = top
    problems = []
    for i in range(end):
        if _NUMBER_OK.search(lines[i]):
            continue
        found = [(w, "%") for m in _PERCENT.finditer(masked[i]) for w in (m[1], m[2]) if w]
        found += [(m[1], "×") for m in _RATIO.finditer(masked[i])]
        if not found:
            continue
        said = masked[i] + (" " + masked[header[i]] if i in header else "")
        rungs = {nn, nn - 1} | named_rungs(said)
        pct, ratio = data.allowed(text, None if nn == 0 else rungs)
        for written, sign in found:
            if written not in (pct if sign == "%" else ratio):
                problems.append((path, i + 1, f"{written}{sign} is in no committed results "
                                 "JSON of this rung, the one before or a rung the line names "
                                 "(results/h200, results/h100: bench, ladder, precision, "
                                 "profiles, and the JSONs the doc names): use a fact marker, "
                                 "or <!-- number-ok: why --> if it is no measurement"))
    return problems


def is_comment(content):
    s = content.strip()
    return s.startswith(("//", "/*", "*/")) or s == "*" or s.startswith("* ")


def comment_share(diff_text):
    """(changed lines whose content is a comment, changed lines) of a unified diff: lines
    starting with + or -, not the +++ / --- file headers."""
    comments = changed = 0
    in_hunk = False
    for line in diff_text.splitlines():
        in_hunk = in_hunk or line.startswith("@@")
        if not in_hunk or not line.startswith(("+", "-")):
            continue
        changed += 1
        comments += is_comment(line[1:])
    return comments, changed


# The reading bar of a rung's diff from its parent (scripts/diff N): a lesson a reader takes in
# one sitting, and more code than comment. Reported, not enforced: rungs may pass it.
BAR_LINES = 600
BAR_SHARE = 0.25
DIFF_REPORT_HEADER = "rung  comment lines / changed lines of scripts/diff N  (bar: 600 lines, 25%)"


def diff_report_line(number, comments, changed):
    """One rung's row of the report: 'NN  comments / changed = share', then 'past the bar: ...'
    naming what passes BAR_LINES or BAR_SHARE."""
    share = comments / changed if changed else 0.0
    past = ([f"{changed} lines > {BAR_LINES}"] if changed > BAR_LINES else []) + \
           ([f"{share:.0%} comments > {BAR_SHARE:.0%}"] if share > BAR_SHARE else [])
    return (f"{number:4d}  {comments:4d} / {changed:4d} = {share:5.1%}"
            + (f"  past the bar: {', '.join(past)}" if past else ""))
