#!/usr/bin/env python3
"""The pictures read on a repository page at 1:1: every SVG under docs/pictures/ and every
picture the README or a doc embeds, at the size the page shows it (its width and height, or its
viewBox without them), has no text under 11 px and nothing outside the image; every PNG the
README or a doc embeds is drawn by a script whose font sizes give text of 11 px or more at the
DPI it saves with. Planted pictures and scripts show the checks fail.

    python3 tests/pictures_legible_test.py    (ctest: docs.pictures_legible, label cpu;docs)

A text's extent is estimated, never rendered: from x, y, text-anchor, its size and its number
of characters times a conservative average glyph width (0.6 em sans, 0.65 em bold, 0.62 em
monospace), ascent 0.8 em and descent 0.25 em, through every transform above it; the size
inherits through <g> and scales with the transforms and with width/height over the viewBox.
A rect, line, path, polyline, polygon, circle or ellipse counts its stroke and its end marker.
"""
import glob
import math
import os
import re
import sys
import unittest
import xml.etree.ElementTree as ET

ROOT = os.path.dirname(os.path.dirname(os.path.realpath(__file__)))
MIN_PX = 11
SVG_NS = "{http://www.w3.org/2000/svg}"
EM = {"sans": 0.6, "bold": 0.65, "mono": 0.62}  # average glyph width, conservative
ASCENT, DESCENT = 0.8, 0.25
SLACK = 0.01  # rounding of coordinates written with one decimal
SKIPPED = {"defs", "marker", "title", "desc", "metadata", "clipPath", "mask", "symbol",
           "pattern", "linearGradient", "radialGradient", "style", "script"}
UNITS = {"px": 1, "pt": 4 / 3, "pc": 16, "in": 96, "cm": 96 / 2.54, "mm": 96 / 25.4}
NAMED_SIZES = {"xx-small": 9, "x-small": 10, "small": 13, "medium": 16, "large": 18,
               "x-large": 24, "xx-large": 32}


# ---- SVG ------------------------------------------------------------------------------------

def length(text, em=16.0):
    """An SVG length as user units (px); em and % relative to `em`."""
    text = text.strip()
    if text in NAMED_SIZES:
        return float(NAMED_SIZES[text])
    m = re.fullmatch(r"([-+]?[\d.]+(?:e[-+]?\d+)?)\s*(px|pt|pc|in|cm|mm|em|%)?", text)
    if not m:
        raise ValueError(f"unreadable length {text!r}")
    v, unit = float(m.group(1)), m.group(2)
    if unit == "em":
        return v * em
    if unit == "%":
        return v * em / 100
    return v * UNITS.get(unit, 1)


def numbers(text):
    return [float(v) for v in re.findall(r"[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?", text)]


def multiply(m, n):
    """The affine matrix m · n, each (a, b, c, d, e, f) as SVG writes them."""
    a, b, c, d, e, f = m
    A, B, C, D, E, F = n
    return (a * A + c * B, b * A + d * B, a * C + c * D, b * C + d * D,
            a * E + c * F + e, b * E + d * F + f)


IDENTITY = (1, 0, 0, 1, 0, 0)


def transform(text):
    """The matrix of an SVG transform attribute."""
    m = IDENTITY
    for name, args in re.findall(r"(matrix|translate|scale|rotate|skewX|skewY)\s*\(([^)]*)\)",
                                 text or ""):
        v = numbers(args)
        if name == "matrix":
            n = tuple(v)
        elif name == "translate":
            n = (1, 0, 0, 1, v[0], v[1] if len(v) > 1 else 0)
        elif name == "scale":
            n = (v[0], 0, 0, v[1] if len(v) > 1 else v[0], 0, 0)
        elif name == "rotate":
            t = math.radians(v[0])
            n = (math.cos(t), math.sin(t), -math.sin(t), math.cos(t), 0, 0)
            if len(v) == 3:
                n = multiply(multiply((1, 0, 0, 1, v[1], v[2]), n), (1, 0, 0, 1, -v[1], -v[2]))
        elif name == "skewX":
            n = (1, 0, math.tan(math.radians(v[0])), 1, 0, 0)
        else:
            n = (1, math.tan(math.radians(v[0])), 0, 1, 0, 0)
        m = multiply(m, n)
    return m


def apply(m, x, y):
    a, b, c, d, e, f = m
    return a * x + c * y + e, b * x + d * y + f


def box_through(m, x0, y0, x1, y1):
    """The axis-aligned box of the box (x0, y0)-(x1, y1) after the matrix m."""
    pts = [apply(m, x, y) for x in (x0, x1) for y in (y0, y1)]
    return (min(p[0] for p in pts), min(p[1] for p in pts),
            max(p[0] for p in pts), max(p[1] for p in pts))


def path_points(d):
    """Every point a path's data names (control points too: a curve lies inside their box)."""
    pts, x, y, start = [], 0.0, 0.0, (0.0, 0.0)
    for cmd, args in re.findall(r"([MmLlHhVvCcSsQqTtAaZz])([^MmLlHhVvCcSsQqTtAaZz]*)", d):
        v = numbers(args)
        rel = cmd.islower()
        c = cmd.upper()
        if c == "Z":
            x, y = start
            continue
        step = {"M": 2, "L": 2, "T": 2, "H": 1, "V": 1, "C": 6, "S": 4, "Q": 4, "A": 7}[c]
        for i in range(0, len(v) - step + 1, step):
            g = v[i:i + step]
            if c == "H":
                x = x + g[0] if rel else g[0]
            elif c == "V":
                y = y + g[0] if rel else g[0]
            elif c == "A":
                nx, ny = (x + g[5], y + g[6]) if rel else (g[5], g[6])
                r = max(abs(g[0]), abs(g[1]))  # the arc lies within r of both ends
                pts += [(min(x, nx) - r, min(y, ny) - r), (max(x, nx) + r, max(y, ny) + r)]
                x, y = nx, ny
            else:
                for j in range(0, step, 2):
                    px, py = (x + g[j], y + g[j + 1]) if rel else (g[j], g[j + 1])
                    pts.append((px, py))
                x, y = pts[-1]
            pts.append((x, y))
            if c == "M" and i == 0:
                start = (x, y)
    return pts


def glyph_em(style):
    if "mono" in style["font-family"].lower() or "courier" in style["font-family"].lower():
        return EM["mono"]
    weight = style["font-weight"]
    return EM["bold"] if weight in ("bold", "bolder") or weight.isdigit() and int(weight) >= 600 \
        else EM["sans"]


def attributes(el, parent):
    """The presentation attributes `el` sets or inherits (its style attribute too)."""
    own = dict(el.attrib)
    for decl in own.pop("style", "").split(";"):
        if ":" in decl:
            k, v = decl.split(":", 1)
            own[k.strip()] = v.strip()
    style = dict(parent)
    for k in ("font-family", "font-weight", "text-anchor", "stroke", "stroke-width",
              "marker-end", "marker-start"):
        if k in own and own[k] != "inherit":
            style[k] = own[k]
    if "font-size" in own and own["font-size"] != "inherit":
        style["font-size"] = length(own["font-size"], parent["font-size"])
    return style


def text_of(el):
    return re.sub(r"\s+", " ", "".join(el.itertext())).strip()


def describe(el, tag, text):
    at = ", ".join(f"{k}={el.get(k)}" for k in ("x", "y", "x1", "y1", "cx", "cy", "d")
                   if el.get(k) is not None)
    words = f" {text!r}" if text else ""
    return f"<{tag}>{words} ({at[:60]})"


def svg_problems(text, name):
    """Why the SVG `text` (shown as `name`) is not legible at 1:1, one line each; [] if it is."""
    root = ET.fromstring(text)
    view = numbers(root.get("viewBox", ""))
    width = length(root.get("width")) if root.get("width") else None
    height = length(root.get("height")) if root.get("height") else None
    if len(view) != 4:
        if width is None or height is None:
            return [f"{name}: neither a viewBox nor width and height: no size to check at"]
        view = [0, 0, width, height]
    vx, vy, vw, vh = view
    # width/height over the viewBox (preserveAspectRatio's default "meet": the smaller).
    page = min((width or vw) / vw, (height or vh) / vh)
    markers = {m.get("id"): m for m in root.iter(SVG_NS + "marker")}
    problems = []

    def outside(el, tag, label, box):
        x0, y0, x1, y1 = box
        edges = [(x0 < vx - SLACK, f"left edge {vx:g}", f"x = {x0:.1f}"),
                 (x1 > vx + vw + SLACK, f"right edge {vx + vw:g}", f"x = {x1:.1f}"),
                 (y0 < vy - SLACK, f"top edge {vy:g}", f"y = {y0:.1f}"),
                 (y1 > vy + vh + SLACK, f"bottom edge {vy + vh:g}", f"y = {y1:.1f}")]
        for past, edge, reach in edges:
            if past:
                problems.append(f"{name}: {describe(el, tag, label)} reaches {reach}"
                                f", past the {edge}")

    def marker_reach(style, sw):
        """How far an end marker may reach around its point, in the element's units."""
        reach = 0.0
        for key in ("marker-end", "marker-start"):
            m = re.fullmatch(r"url\(#([^)]+)\)", style.get(key, "none"))
            if m and m.group(1) in markers:
                mk = markers[m.group(1)]
                size = max(length(mk.get("markerWidth", "3")), length(mk.get("markerHeight", "3")))
                if mk.get("markerUnits", "strokeWidth") == "strokeWidth":
                    size *= sw
                reach = max(reach, size / 2)
        return reach

    def walk(el, ctm, parent):
        tag = el.tag.replace(SVG_NS, "")
        if tag in SKIPPED or el.get("display") == "none":
            return
        ctm = multiply(ctm, transform(el.get("transform")))
        style = attributes(el, parent)
        stroke = style.get("stroke", "none") != "none"
        sw = length(style.get("stroke-width", "1")) if stroke else 0.0
        pad = sw / 2
        num = lambda k, d=0.0: length(el.get(k)) if el.get(k) else d  # noqa: E731
        if tag == "text":
            words = text_of(el)
            size = style["font-size"]
            shown = size * math.sqrt(abs(ctm[0] * ctm[3] - ctm[1] * ctm[2])) * page
            if words and shown < MIN_PX - 1e-9:
                problems.append(f"{name}: {describe(el, tag, words)} is {shown:.1f} px on the "
                                f"page, under {MIN_PX} px")
            w = len(words) * glyph_em(style) * size
            x, y = num("x"), num("y")
            left = x - {"start": 0, "middle": 0.5, "end": 1}.get(style["text-anchor"], 0) * w
            if words:
                outside(el, tag, words, box_through(ctm, left, y - ASCENT * size, left + w,
                                                    y + DESCENT * size))
            return  # a tspan is read with its text
        box, points = None, []
        if tag == "rect":
            x, y, w, h = num("x"), num("y"), num("width"), num("height")
            box = (x - pad, y - pad, x + w + pad, y + h + pad)
        elif tag == "circle":
            cx, cy, r = num("cx"), num("cy"), num("r")
            box = (cx - r - pad, cy - r - pad, cx + r + pad, cy + r + pad)
        elif tag == "ellipse":
            cx, cy, rx, ry = num("cx"), num("cy"), num("rx"), num("ry")
            box = (cx - rx - pad, cy - ry - pad, cx + rx + pad, cy + ry + pad)
        elif tag == "line":
            points = [(num("x1"), num("y1")), (num("x2"), num("y2"))]
        elif tag in ("polyline", "polygon"):
            v = numbers(el.get("points", ""))
            points = list(zip(v[0::2], v[1::2]))
        elif tag == "path":
            points = path_points(el.get("d", ""))
        if points:
            xs, ys = [p[0] for p in points], [p[1] for p in points]
            box = (min(xs) - pad, min(ys) - pad, max(xs) + pad, max(ys) + pad)
            reach = marker_reach(style, length(style.get("stroke-width", "1")))
            if reach:
                for px, py in (points[0], points[-1]):
                    box = (min(box[0], px - reach), min(box[1], py - reach),
                           max(box[2], px + reach), max(box[3], py + reach))
        if box:
            outside(el, tag, "", box_through(ctm, *box))
        for child in el:
            walk(child, ctm, style)

    top = {"font-size": 16.0, "font-family": "serif", "font-weight": "normal",
           "text-anchor": "start", "stroke": "none", "stroke-width": "1"}
    walk(root, IDENTITY, top)
    return problems


def embedded(kind):
    """Every local picture ending .`kind` that the README or a doc embeds: {path: [embedders]}."""
    found = {}
    pages = [os.path.join(ROOT, "README.md")] + sorted(
        glob.glob(os.path.join(ROOT, "docs", "**", "*.md"), recursive=True))
    for page in pages:
        with open(page, encoding="utf-8") as f:
            text = f.read()
        links = re.findall(r"!\[[^\]]*\]\(\s*<?([^)\s>]+)", text) + \
            re.findall(r"<img\b[^>]*\bsrc=[\"']([^\"']+)", text)
        for link in links:
            link = link.split("#")[0].split("?")[0]
            if "://" in link or not link.lower().endswith("." + kind):
                continue
            path = os.path.normpath(os.path.join(os.path.dirname(page), link))
            found.setdefault(path, []).append(os.path.relpath(page, ROOT))
    return found


def every_svg():
    paths = set(glob.glob(os.path.join(ROOT, "docs", "pictures", "*.svg"))) | set(embedded("svg"))
    return sorted(paths)


# ---- PNG ------------------------------------------------------------------------------------

# matplotlib's relative font sizes, as fractions of font.size (10 pt unless the script sets it).
RELATIVE = {"xx-small": 0.579, "x-small": 0.694, "small": 0.833, "medium": 1.0, "large": 1.2,
            "x-large": 1.44, "xx-large": 1.728, "smaller": 0.833, "larger": 1.2}


def script_problems(text, name):
    """Why the matplotlib script `text` draws text under 11 px at its saved DPI; [] if it
    does not. Reads its savefig dpi, its rcParams font.size and every fontsize= it passes."""
    dpis = [float(v) for v in re.findall(r"savefig\([^)]*\bdpi\s*=\s*([\d.]+)", text)]
    if not dpis:
        return [f"{name}: no savefig(..., dpi=N): the size of its text is the viewer's guess"]
    base = re.search(r"rcParams\[[\"']font\.size[\"']\]\s*=\s*([\d.]+)", text)
    base = float(base.group(1)) if base else 10.0
    problems = []
    sizes = [(base, "the default font.size")]
    for m in re.finditer(r"\b(?:fontsize|size|title_fontsize|labelsize)\s*=\s*"
                         r"([\d.]+|[\"'][\w-]+[\"'])", text):
        v = m.group(1).strip("\"'")
        pt = float(v) if v[0].isdigit() else RELATIVE.get(v, 1.0) * base
        line = text.count("\n", 0, m.start()) + 1
        sizes.append((pt, f"line {line}: {m.group(0)}"))
    for dpi in dpis:
        for pt, where in sizes:
            px = pt * dpi / 72
            if px < MIN_PX - 1e-9:
                problems.append(f"{name}: {where} is {pt:g} pt, {px:.1f} px at dpi={dpi:g}, "
                                f"under {MIN_PX} px")
    return problems


def png_script(png):
    """The script that draws an embedded PNG: scripts/plot for the pictures that carry its
    data, else the experiment folder's script that names the PNG's file name."""
    with open(png, "rb") as f:
        if b"sgemm-plot-data" in f.read():
            return os.path.join(ROOT, "scripts", "plot")
    rel = os.path.relpath(png, ROOT).split(os.sep)
    if rel[0] == "experiments":
        base = os.path.splitext(os.path.basename(png))[0]
        for script in sorted(glob.glob(os.path.join(ROOT, "experiments", rel[1], "*.py"))):
            with open(script, encoding="utf-8") as f:
                if "savefig" in (text := f.read()) and base.split("_")[-1] in text:
                    return script
    return None


# ---- tests ----------------------------------------------------------------------------------

def svg(body, width=200, height=100, view=None, outer=""):
    view = view or f"0 0 {width} {height}"
    return (f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
            f'viewBox="{view}" font-family="sans-serif"{outer}>'
            '<defs><marker id="arrow" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="7" '
            'markerHeight="7" orient="auto"><path d="M0,0 L10,5 L0,10 z"/></marker></defs>'
            f"{body}</svg>")


class Planted(unittest.TestCase):
    def test_a_legible_picture_passes(self):
        body = ('<rect x="0" y="0" width="200" height="100" fill="white"/>'
                '<text x="10" y="30" font-size="12">legible</text>'
                '<text x="190" y="60" font-size="11" text-anchor="end">at the edge</text>'
                '<line x1="10" y1="80" x2="180" y2="80" stroke="#222" marker-end="url(#arrow)"/>'
                '<g font-size="14"><text x="100" y="95" text-anchor="middle">inherited</text></g>'
                '<text x="30" y="90" font-size="12" transform="rotate(-90 30 90)">up</text>')
        self.assertEqual(svg_problems(svg(body), "fine.svg"), [])

    def test_8px_text_fails_naming_picture_element_and_text(self):
        problems = svg_problems(svg('<text x="10" y="30" font-size="8">3:p0</text>'), "small.svg")
        self.assertEqual(len(problems), 1, problems)
        self.assertRegex(problems[0], r"^small\.svg: <text> '3:p0' \(x=10, y=30\) is 8\.0 px")

    def test_inherited_and_scaled_sizes_count(self):
        inherited = svg('<g font-size="9"><text x="10" y="30">tiny</text></g>')
        self.assertIn("9.0 px", svg_problems(inherited, "g.svg")[0])
        halved = svg('<text x="10" y="30" font-size="16">halved</text>', width=200, height=100,
                     view="0 0 400 200")  # drawn at half size: 16 user units are 8 px
        self.assertIn("8.0 px", svg_problems(halved, "view.svg")[0])
        scaled = svg('<g transform="scale(0.5)"><text x="10" y="30" font-size="20">t</text></g>')
        self.assertIn("10.0 px", svg_problems(scaled, "scale.svg")[0])

    def test_text_past_the_right_edge_fails(self):
        long = "a caption that runs on past the edge"
        problems = svg_problems(svg(f'<text x="12" y="80" font-size="12">{long}</text>'),
                                "cut.svg")
        self.assertEqual(len(problems), 1, problems)
        self.assertIn(f"cut.svg: <text> {long!r}", problems[0])
        self.assertIn("past the right edge 200", problems[0])

    def test_text_past_other_edges_fails(self):
        for body, edge in [('<text x="5" y="50" font-size="12" text-anchor="end">w</text>',
                            "left"),
                           ('<text x="50" y="5" font-size="12">top</text>', "top"),
                           ('<text x="50" y="99" font-size="12">gjpq</text>', "bottom"),
                           ('<text x="20" y="20" font-size="12" transform="rotate(-90 20 20)">'
                            'rotated upward</text>', "top")]:
            problems = svg_problems(svg(body), "edge.svg")
            self.assertTrue(any(f"past the {edge} edge" in p for p in problems), (body, problems))

    def test_shapes_outside_fail(self):
        for body, edge in [('<rect x="150" y="10" width="60" height="20" fill="red"/>', "right"),
                           ('<line x1="10" y1="10" x2="10" y2="120" stroke="#000"/>', "bottom"),
                           ('<path d="M10,10 L-5,20" stroke="#000" fill="none"/>', "left"),
                           ('<circle cx="100" cy="3" r="5" fill="red"/>', "top"),
                           ('<line x1="10" y1="50" x2="198" y2="50" stroke="#000" '
                            'marker-end="url(#arrow)"/>', "right"),
                           ('<rect x="0" y="0" width="200" height="100" stroke="#000" '
                            'stroke-width="4" fill="none"/>', "right")]:
            problems = svg_problems(svg(body), "shape.svg")
            self.assertTrue(any(f"past the {edge} edge" in p for p in problems), (body, problems))

    def test_a_small_script_font_fails(self):
        script = ("fig, ax = plt.subplots(figsize=(11, 6))\nax.legend(fontsize=6)\n"
                  "fig.savefig(path, dpi=100)\n")
        problems = script_problems(script, "plot.py")
        self.assertEqual(len(problems), 1, problems)
        self.assertIn("plot.py: line 2: fontsize=6 is 6 pt, 8.3 px at dpi=100", problems[0])
        self.assertIn("x-small", script_problems(script.replace("6)", "'x-small')"), "p")[0])
        self.assertEqual(script_problems(script.replace("=6", "=8").replace("100", "120"), "p"),
                         [])
        self.assertIn("no savefig", script_problems("plt.plot([1])\n", "p.py")[0])


class Committed(unittest.TestCase):
    def test_every_picture_is_legible_at_one_to_one(self):
        paths = every_svg()
        self.assertTrue(paths)
        problems = []
        for path in paths:
            with open(path, encoding="utf-8") as f:
                problems += svg_problems(f.read(), os.path.relpath(path, ROOT))
        self.assertEqual(problems, [], "\n" + "\n".join(problems))
        print(f"{len(paths)} SVG pictures: no text under {MIN_PX} px, nothing outside",
              file=sys.stderr)

    def test_every_embedded_png_is_drawn_with_legible_text(self):
        pngs = embedded("png")
        self.assertTrue(pngs)
        problems = []
        for png, pages in sorted(pngs.items()):
            self.assertTrue(os.path.exists(png), f"{png}, embedded by {pages}, is missing")
            script = png_script(png)
            if script is None:
                problems.append(f"{os.path.relpath(png, ROOT)} (embedded by {', '.join(pages)}):"
                                " no script here draws it; this test cannot check its text")
                continue
            with open(script, encoding="utf-8") as f:
                problems += [f"{os.path.relpath(png, ROOT)}: " + p
                             for p in script_problems(f.read(), os.path.relpath(script, ROOT))]
        self.assertEqual(problems, [], "\n" + "\n".join(problems))


if __name__ == "__main__":
    unittest.main()
