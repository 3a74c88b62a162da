"""A small SVG writer for scripts/pictures: plain SVG that GitHub renders (no scripts, no
external fonts, font-family sans-serif), and byte-for-byte the same output for the same
drawing, so that a committed picture can be compared with a fresh one."""
from xml.sax.saxutils import escape

WIDTH = 700
FONT = "sans-serif"
INK = "#222222"
GREY = "#9a9a9a"
LIGHT = "#eeeeee"
# Warps (or threads) in turn: light tones that black text reads on, and a strong one for the
# thread or warp a picture follows.
PALETTE = ["#a6cee3", "#b2df8a", "#fdbf6f", "#cab2d6", "#ffff99", "#fb9a99", "#8dd3c7",
           "#bebada"]
STRONG = "#e31a1c"
BLUE = "#1f78b4"
GREEN = "#33a02c"
ORANGE = "#ff7f00"
# Legible on a repository page at 1:1 (tests/pictures_legible_test.py checks every picture with
# the same estimate): no text under MIN_TEXT px, and a line of text is taken to be as wide as
# its characters at GLYPH_EM (GLYPH_EM_BOLD for bold) of its size, a conservative average.
MIN_TEXT = 11
GLYPH_EM = 0.6
GLYPH_EM_BOLD = 0.65
MARGIN = 12  # between text and the picture's edges
TITLE_SIZES = (16, 15, 14, 13)  # the title's size: the largest at which it fits on one line


def num(v):
    """A coordinate as text: at most one decimal, no trailing zeros."""
    text = f"{round(v, 1):.1f}".rstrip("0").rstrip(".")
    return "0" if text == "-0" else text


def text_width(s, size, bold=False):
    """The width a line of text is taken to need (see GLYPH_EM)."""
    return len(str(s)) * size * (GLYPH_EM_BOLD if bold else GLYPH_EM)


def wrap(s, size, width, bold=False):
    """`s` cut at spaces into lines that each fit in `width` (a word longer stays whole)."""
    rows, row = [], ""
    for word in str(s).split(" "):
        longer = f"{row} {word}" if row else word
        if row and text_width(longer, size, bold) > width:
            rows.append(row)
            row = word
        else:
            row = longer
    return rows + [row]


def hue(i, n):
    """The i-th of n colours around the colour wheel (banks, slices)."""
    h = (i * 360 / n) % 360
    c, x = 0.55, 0.55 * (1 - abs((h / 60) % 2 - 1))
    r, g, b = [(c, x, 0), (x, c, 0), (0, c, x), (0, x, c), (x, 0, c), (c, 0, x)][int(h // 60) % 6]
    return "#" + "".join(f"{int(round((v + 0.4) * 255)):02x}" for v in (r, g, b))


class Svg:
    """Elements in drawing order; text() of the finished picture."""

    def __init__(self, title, source, constants, height, width=WIDTH):
        self.title, self.source, self.constants = title, source, constants
        self.width, self.height = width, height
        self.items = []

    def add(self, text):
        self.items.append(text)

    def rect(self, x, y, w, h, fill="none", stroke=INK, sw=1, dash=None, opacity=None):
        extra = f' stroke-dasharray="{dash}"' if dash else ""
        extra += f' fill-opacity="{opacity}"' if opacity is not None else ""
        self.add(f'<rect x="{num(x)}" y="{num(y)}" width="{num(w)}" height="{num(h)}" '
                 f'fill="{fill}" stroke="{stroke}" stroke-width="{num(sw)}"{extra}/>')

    def text(self, x, y, s, size=12, anchor="start", fill=INK, bold=False, rotate=False):
        if size < MIN_TEXT:
            raise ValueError(f"{self.title}: {s!r} at {size} px, under {MIN_TEXT} px")
        extra = ' font-weight="bold"' if bold else ""
        extra += f' transform="rotate(-90 {num(x)} {num(y)})"' if rotate else ""
        self.add(f'<text x="{num(x)}" y="{num(y)}" font-size="{size}" text-anchor="{anchor}" '
                 f'fill="{fill}"{extra}>{escape(str(s))}</text>')

    def lines(self, x, y, rows, size=12, step=None, width=None, items=False, **kw):
        """Several lines of text from (x, y) down; the y of the line after the last. Where a
        left-anchored row is wider than `width` (default: up to the right margin), the rows are
        reflowed to it as paragraphs (with `items`, each row wrapped alone)."""
        width = width or self.width - MARGIN - x
        bold = kw.get("bold", False)
        rows_given = rows
        if kw.get("anchor", "start") == "start" and any(
                text_width(row, size, bold) > width for row in rows):
            # Rows broken by hand that no longer fit: reflow each paragraph ("" between them).
            paragraphs, out = [[]], []
            for row in rows:
                if row.strip():
                    paragraphs[-1].append(row.strip())
                else:
                    paragraphs.append([])
            for i, para in enumerate(paragraphs):
                out += ([""] if i else []) + (wrap(" ".join(para), size, width, bold)
                                              if para else [])
            rows = out
            if items:  # each row a statement of its own: wrapped alone, never joined
                rows = [part for row in rows_given for part in wrap(row, size, width, bold)]
        for i, row in enumerate(rows):
            self.text(x, y + i * (step or size + 4), row, size=size, **kw)
        return y + len(rows) * (step or size + 4)

    def line(self, x1, y1, x2, y2, stroke=INK, sw=1, arrow=False, dash=None):
        extra = ' marker-end="url(#arrow)"' if arrow else ""
        extra += f' stroke-dasharray="{dash}"' if dash else ""
        self.add(f'<line x1="{num(x1)}" y1="{num(y1)}" x2="{num(x2)}" y2="{num(y2)}" '
                 f'stroke="{stroke}" stroke-width="{num(sw)}"{extra}/>')

    def path(self, points, stroke=INK, sw=1, dash=None, arrow=True):
        """A polyline through `points`, with an arrowhead at its end."""
        d = " ".join(("M" if i == 0 else "L") + f"{num(x)},{num(y)}"
                     for i, (x, y) in enumerate(points))
        extra = ' marker-end="url(#arrow)"' if arrow else ""
        extra += f' stroke-dasharray="{dash}"' if dash else ""
        self.add(f'<path d="{d}" fill="none" stroke="{stroke}" stroke-width="{num(sw)}"{extra}/>')

    def arrow(self, x1, y1, x2, y2, **kw):
        self.line(x1, y1, x2, y2, arrow=True, **kw)

    def grid(self, x, y, rows, cols, cell, fill=None, stroke=GREY, sw=0.5, cell_h=None):
        """A rows x cols grid of cells; fill(r, c) gives a cell's colour (None: none)."""
        ch = cell_h or cell
        # Cells of one colour side by side become one rectangle, and equal rows one band.
        runs = []
        for r in range(rows):
            row, start = [], 0
            for c in range(1, cols + 1):
                if c == cols or (fill and fill(r, c) != fill(r, start)):
                    row.append((start, c, fill(r, start) if fill else None))
                    start = c
            runs.append(row)
        r = 0
        while r < rows:
            end = r + 1
            while end < rows and runs[end] == runs[r]:
                end += 1
            for c0, c1, colour in runs[r]:
                if colour:
                    self.rect(x + c0 * cell, y + r * ch, (c1 - c0) * cell, (end - r) * ch,
                              fill=colour, stroke="none")
            r = end
        if stroke == "none":
            return
        for r in range(rows + 1):
            self.line(x, y + r * ch, x + cols * cell, y + r * ch, stroke=stroke, sw=sw)
        for c in range(cols + 1):
            self.line(x + c * cell, y, x + c * cell, y + rows * ch, stroke=stroke, sw=sw)

    def legend(self, x, y, entries, size=12, step=18):
        """Swatches with their meaning, one a line: [(colour, text), ...]."""
        for i, (colour, label) in enumerate(entries):
            self.rect(x, y + i * step - size + 2, size, size, fill=colour, stroke=INK, sw=0.5)
            self.text(x + size + 6, y + i * step, label, size=size)

    def caption(self, rows, y=None):
        """The caption under the picture: what it shows and whether it is to scale. Its rows
        are one paragraph, wrapped to the picture's width; at the bottom (y None), the picture grows by the
        lines that wrapping adds."""
        wrapped = wrap(" ".join(rows), 12, self.width - 2 * MARGIN)  # one paragraph, reflowed
        if y is None:
            self.height += 16 * (len(wrapped) - len(rows))
            y = self.height - 10 - 16 * (len(wrapped) - 1)
        rows = wrapped
        self.lines(12, y, rows, size=12, step=16, fill="#444444")

    def header(self):
        consts = " ".join(f"{k}={v}" for k, v in self.constants.items())
        return f"<!-- drawn by scripts/pictures from {self.source}: {consts} -->"

    def svg(self):
        room = self.width - 2 * MARGIN
        title = next((size for size in TITLE_SIZES
                      if text_width(self.title, size, bold=True) <= room), None)
        if title is None:
            raise ValueError(f"title {self.title!r} too long for {self.width} px")
        head = [self.header(),
                f'<svg xmlns="http://www.w3.org/2000/svg" width="{self.width}" '
                f'height="{self.height}" viewBox="0 0 {self.width} {self.height}" '
                f'font-family="{FONT}">',
                f"<title>{escape(self.title)}</title>",
                '<defs><marker id="arrow" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="7" '
                'markerHeight="7" orient="auto"><path d="M0,0 L10,5 L0,10 z" '
                f'fill="{INK}"/></marker></defs>',
                f'<rect x="0" y="0" width="{self.width}" height="{self.height}" fill="white"/>',
                f'<text x="12" y="24" font-size="{title}" font-weight="bold" fill="{INK}">'
                f"{escape(self.title)}</text>"]
        return "\n".join(head + self.items + ["</svg>", ""])
