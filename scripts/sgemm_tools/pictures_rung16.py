"""Rung 16's pictures. The dataflow of its passes in the order the launcher (launch_moduli)
queues them: each box names the kernels the step launches (read from the launcher's body and
the queue_* functions of kernels/ozaki_*.cuh), the Plan field that gates them (their
`if (!plan->...) return;`) and the workspace parts it writes (Layout's fields, checked), with
the sizes of the large ones at 8192^3 from Layout's formulas; a change to the order, a new
launch or a renamed part fails (SystemExit) until STEPS is updated. And the bits each count of
moduli leaves a row (kModuli, crt_of's T), with the prediction's verdict on uniform inputs."""
import math
import re

from sgemm_tools.pictures_src import Source, rung_source
from sgemm_tools.pictures_svg import (BLUE, GLYPH_EM, GREEN, GREY, INK, LIGHT, PALETTE, STRONG,
                                      Svg)
from sgemm_tools.pictures_svg import wrap as wrap_text

HEADERS = ["kernels/ozaki/ozaki_statistics.cuh", "kernels/ozaki/ozaki_certificate.cuh",
           "kernels/ozaki/ozaki_workspace.cuh", "kernels/ozaki/ozaki_residues.cuh",
           "kernels/ozaki/ozaki_slow_path.cuh", "kernels/ozaki/ozaki_bits.cuh"]
BITS = 5  # HEADERS[BITS]: the moduli and the CRT's constants
SHAPE = 8192  # M = N = K of the sizes printed

# The launcher's steps in the order the picture expects them: (how the launcher's body names
# the step, title, what it writes: Layout's fields in {braces}, Plan's fields as plan.x).
STEPS = [
    (r"queue_statistics\(g, Lines::sampled", "statistics of the sampled rows and columns",
     "{stats}: the sampled rows' Σx², Σ|x|, exponent range, Inf or NaN; {partial}: the "
     "sampled columns', by slices of K"),
    (r"queue_prediction\(", "prediction: heavy sampled lines, the certificate on the sample",
     "{sampleRows}, {sampleColumns}: sampled lines' bytes; {G}, {rowFails}, {columnFails}; "
     "plan.heavy, plan.integer, plan.wholePath"),
    (r"queue_statistics\(g, Lines::all", "statistics of every row of A and column of B",
     "{stats}: every line's; {partial}: the columns', by slices of K"),
    (r"sgemm_ozaki_int8_rows<<<", "rows' pass: scales, residues, magnitude bytes of A",
     "{a}: count + 1 planes of A [M][Kp], residues mod p_l then magnitude bytes; {lines}: "
     "the rows'"),
    (r"queue_columns\(", "columns' pass: the same for B, through a transpose",
     "{b}: count + 1 planes of Bᵀ [N][Kp], K-major; {lines}: the columns'"),
    (r"multiply<[^>]*true>\(", "bound plane: INT8 GEMM of the magnitude bytes",
     "{fails}: the rows and columns holding an element its epilogue cannot certify"),
    (r"sgemm_ozaki_int8_list<<<", "the flagged lists (a scan over a block a side)",
     "{lists}: the flagged rows, then columns; plan.flagged"),
    (r"multiply<[^>]*false>\(", "INT8 GEMM over the moduli: A'_l B'_l mod p_l",
     "{r}: count planes [M][ldr], one byte a residue of C"),
    (r"sgemm_ozaki_int8_assign<<<", "assign: slow path by rows, by columns, or whole",
     "plan.reconstruct, plan.rowsPath, plan.columnsPath, plan.latePath"),
    (r"queue_reconstruction\(", "CRT reconstruction, scale back, alpha and beta",
     "C: every element the slow path does not own"),
    (r"queue_slow_path\(", "slow path: rung 15 on the flagged rows or columns, or all of C",
     "C: the flagged rows or columns (gathered, multiplied by rung 15, scattered back)"),
]
# A step's colour: the file that defines the first kernel it launches.
COLOURS = {"kernels/16_ozaki_int8.cu": PALETTE[1], "kernels/ozaki/ozaki_statistics.cuh": PALETTE[0],
           "kernels/ozaki/ozaki_certificate.cuh": PALETTE[3],
           "kernels/ozaki/ozaki_workspace.cuh": LIGHT, "kernels/ozaki/ozaki_residues.cuh": LIGHT,
           "kernels/ozaki/ozaki_slow_path.cuh": LIGHT, "kernels/ozaki/ozaki_bits.cuh": LIGHT}
FP32 = PALETTE[2]  # rung 15's
PREFIX = "sgemm_ozaki_int8_"


def wrap(items, sep, width=84):  # items joined by sep into lines of at most width characters
    lines = [""]
    for item in items:
        if lines[-1] and len(lines[-1]) + len(sep) + len(item) > width:
            lines[-1] += sep.rstrip()
            lines.append("")
        lines[-1] += (sep if lines[-1] else "") + item
    return lines


def body(src, head, what):  # a function from its head (a regex) to the first '}' at column 0
    return src.find(head + r".*?\n}", what).group(0)


class Rung16:
    def __init__(self, root):
        self.src = rung_source(root, 16)
        self.headers = [Source(root, h) for h in HEADERS]
        self.all = [self.src] + self.headers
        top = self.src.constants()
        self.count, self.moduli = top["kLadderModuli"], self.moduli_of()
        self.launcher = body(self.src, r"runtime::LaunchAnswer launch_moduli\(", "launch_moduli")
        layout = body(self.headers[2], r"struct Layout \{", "struct Layout")
        self.fields = set(re.findall(r"\b(\w+) = ", layout))
        plan = self.find_in(r"struct Plan \{.*?\n\};", "struct Plan").group(0)
        self.plan_fields = set(re.findall(r"\b(\w+)(?:\[\d\])?[,;]", plan))
        for line in [r"Kp = static_cast<int>\(round_up\(K, 16\)\);",
                     r"ldr = static_cast<int>\(round_up\(N, 16\)\);",
                     r"b = a \+ round_up\(static_cast<size_t>\(count \+ 1\) \* M \* Kp, 256\);",
                     r"r = b \+ round_up\(static_cast<size_t>\(count \+ 1\) \* N \* Kp, 256\);",
                     r"lines = r \+ round_up\(static_cast<size_t>\(count\) \* M \* ldr, 256\);"]:
            self.find_in(line, f"Layout's line /{line}/ (the sizes drawn)")

    def moduli_of(self):
        m = self.headers[BITS].find(r"constexpr int kModuli\[kMaxModuli\] = \{([^}]*)\};", "kModuli")
        return [int(v) for v in m.group(1).split(",")]

    def find_in(self, regex, what):
        for s in self.all:
            m = re.search(regex, s.code, re.S)
            if m:
                self.where = s.path
                return m
        raise SystemExit(f"scripts/pictures: no {what} (/{regex}/) in rung 16's files")

    def function(self, name):  # a host function's body, in any of rung 16's files
        return self.find_in(r"cudaError_t " + name + r"\(.*?\n}", f"function {name}").group(0)

    def gate(self, kernel, sampled=False):  # the Plan fields of `if (... !plan->x ...) return;`
        head = r"__global__[^;{]*?\b" + kernel + r"\(.*?\n}"
        text = self.find_in(head, f"kernel {kernel}").group(0)
        tests = re.findall(r"if \(([^;]*)\) return;", text)
        if sampled:  # the statistics of the sampled lines: a gate that names Lines::all is open
            tests = [t for t in tests if "Lines::all" not in t]
        return sorted(set(re.findall(r"!plan->(\w+)", " ".join(tests))))

    def launches(self, text, depth=1):
        """The kernels a piece of host code launches, in order: the rung's own by name, rung
        15 as launch_limited, and one level of its helper slow_path()."""
        found = []
        for m in re.finditer(r"\b(sgemm_ozaki_int8\w*)\b|\b(launch_limited)\(|\b(slow_path)\(",
                             text):
            found += ([m.group(1)] if m.group(1) else ["rung 15: launch_limited"] if m.group(2)
                      else self.launches(self.function("slow_path"), depth - 1) if depth else [])
        return list(dict.fromkeys(found))

    def steps(self):
        """[(title, kernels, gates, writes)] in the launcher's order; fails if it changed."""
        out, at = [], 0
        for regex, title, writes in STEPS:
            m = re.search(regex, self.launcher[at:])
            if not m:
                raise SystemExit(f"scripts/pictures: launch_moduli no longer queues /{regex}/ "
                                 "after the step before it; update pictures_rung16.py's STEPS")
            at += m.end()
            line = self.launcher[at - len(m.group(0)):].split(";", 1)[0]
            if regex.startswith("queue_"):
                text = self.function(re.match(r"queue_\w+", regex).group(0))
                if "Lines::sampled" in regex:  # what it launches before it returns for them
                    text = text.split("lines == Lines::sampled) return", 1)[0]
                kernels = self.launches(text)
            elif regex.startswith("multiply"):
                args = re.match(r"multiply<([^>]*)>", line).group(1)
                kernels = [f"sgemm_ozaki_int8<{args}>"]
            else:
                kernels = self.launches(line)
            gates = sorted({g for k in kernels if k.startswith("sgemm_ozaki_int8")
                            for g in self.gate(k.split("<")[0], "Lines::sampled" in regex)})
            self.gate(kernels[0].split("<")[0])  # sets self.where: the file of the first
            home = self.where
            for name in set(re.findall(r"\{(\w+)\}|plan\.(\w+)", writes)):
                if name[0] not in self.fields | {""} or name[1] not in self.plan_fields | {""}:
                    raise SystemExit(f"scripts/pictures: no Layout part or Plan field {name}")
            out.append((title, kernels, gates, writes, home))
        others = re.findall(r"(\w+)(?:<[^>]*>)?<<<|\b(queue_\w+)\(|\b(multiply)<", self.launcher)
        if len(others) != len(STEPS):
            raise SystemExit(f"scripts/pictures: launch_moduli queues {len(others)} steps, the "
                             f"picture knows {len(STEPS)}; update pictures_rung16.py's STEPS")
        return out

    def sizes(self):  # MiB of A's planes, B's and the products' residues at SHAPE^3
        n, c = SHAPE, self.count
        kp, ldr = -(-n // 16) * 16, -(-n // 16) * 16
        return {"a": (c + 1) * n * kp / 2**20, "b": (c + 1) * n * kp / 2**20,
                "r": c * n * ldr / 2**20}


def dataflow(root):
    r = Rung16(root)
    steps, sizes = r.steps(), r.sizes()
    k = {"steps": len(steps), "kLadderModuli": r.count,
         "moduli": ",".join(map(str, r.moduli[:r.count])),
         "MiB_8192": "{a:.0f}/{b:.0f}/{r:.0f}".format(**sizes)}
    gap, top, x0, w, right = 14, 92, 12, 478, 504
    chars = int((w - 16) / (11 * GLYPH_EM))  # what a line of 11-px text holds in a box
    names, writes = [], []  # each step's lines of kernel names and of what it writes
    for title, kernels, gates, text, home in steps:
        names.append(wrap([kk.replace(PREFIX, "") for kk in kernels], ", ", chars))
        for part, mib in sizes.items():
            text = text.replace(f"{{{part}}}", f"{part} ({mib:.0f} MiB)", 1)
        writes.append(wrap(("writes " + re.sub(r"[{}]", "", text)).split(" "), " ", chars))
    heights = [22 + 14 * (len(n) + len(w)) for n, w in zip(names, writes)]
    legend = [r.src.path] + HEADERS
    height = top + sum(heights) + gap * len(steps) + 24 + 13 * len(legend)
    s = Svg("16 · The passes, in the order the launcher queues them",
            ", ".join([r.src.path] + HEADERS), k, height)
    s.lines(12, 44, [f"{r.count} moduli ({', '.join(map(str, r.moduli[:r.count]))}), sizes at "
                     f"{SHAPE}³; in blue the kernels, without their prefix {PREFIX}.",
                     "Every kernel is queued on every call; each returns at once where its gate "
                     "(a Plan field the GPU sets) is 0."], size=11, step=14)
    y = top
    for i, (title, kernels, gates, _, home) in enumerate(steps):
        box_h = heights[i]
        s.rect(x0, y, w, box_h, fill=COLOURS[home], stroke=INK)
        s.text(x0 + 8, y + 16, f"{i + 1}. {title}", size=12, bold=True)
        s.lines(x0 + 8, y + 30, names[i], size=11, step=14, fill=BLUE)
        s.lines(x0 + 8, y + 30 + 14 * len(names[i]), writes[i], size=11, step=14)
        if gates:
            s.text(right, y + 16, "gate: " + ", ".join("plan." + g for g in gates), size=11,
                   fill=GREY)
        exits = {1: "rung 15 on the whole problem (plan.wholePath): then every gated kernel "
                    "below returns",
                 len(steps) - 1: "rung 15 on the gathered rows (plan.rowsPath) or columns "
                                 "(plan.columnsPath), or all of C (plan.latePath)"}
        if "launch_limited" in " ".join(kernels) and i in exits:
            exits[i] = wrap_text(exits[i], 11, 688 - right - 12)
            s.rect(right, y + 4, 688 - right, 10 + 13 * len(exits[i]), fill=FP32, stroke=STRONG,
                   sw=1.5)
            s.lines(right + 6, y + 18, exits[i], size=11, step=13)
            s.arrow(x0 + w, y + 24, right, y + 24, stroke=STRONG)
        if i + 1 < len(steps):
            s.arrow(x0 + 60, y + box_h, x0 + 60, y + box_h + gap)
        y += box_h + gap
    s.legend(12, height - 12 - 13 * (len(legend) - 1), [(COLOURS[p], p) for p in legend],
             size=11, step=13)
    s.legend(360, height - 12 - 13 * (len(legend) - 1), [(FP32, "rung 15 (FP32 accuracy on 3xTF32)")], size=11)
    return s


def moduli_bits(root, K=4096):
    r = Rung16(root)
    top = {**r.src.constants(), **r.headers[BITS].constants()}
    for line in [r"crt\.T = std::log2\(std::sqrt\(crt\.P_hi / 2\) - 0\.5 \* std::sqrt\("
                 r"static_cast<double>\(K\)\)\) - 1e-3;", r"crt\.T = std::min\(crt\.T, "
                 r"kScaledBits - 0\.1\);", r"std::sqrt\(static_cast<double>\(K\)\) \+ 1\) - 1\) "
                 r"\* 0x1p-24", r"K \* exp2\(-T\) \* rho > 0\.5 \* budget"]:
        r.find_in(line, f"the line /{line}/ (crt_of, certificate_budget, the prediction)")
    split, scaled = top["kSplitBits"], top["kScaledBits"]
    counts = range(top["kMinModuli"], top["kMaxModuli"] + 1)
    k = {"kModuli": ",".join(map(str, r.moduli)), "kLadderModuli": r.count, "K": K,
         "kSplitBits": split, "kScaledBits": scaled}
    s = Svg("16 · What each count of moduli leaves a row", r.src.path, k, 150 + 62 * len(counts))
    half = (min(K, math.sqrt(K) + 1) - 1) * 2 ** -24 / 2  # half the certificate's budget
    rho = 2 / math.sqrt(3 * K)  # ||x||_2 / ||x||_1 of a uniform line
    x0, unit, y0 = 130, 17, 100
    s.lines(12, 44, [f"K = {K}: a row's integers have norm 2^T (crt_of); an element of a row of "
                     "even magnitudes keeps", f"T − ½ log2 K bits (green); K costs ½ log2 K = "
                     f"{math.log2(K) / 2:g} (grey). Below each bar: the prediction on uniform "
                     "inputs,", f"a line's term K 2^−T ρ (ρ = ‖x‖₂/‖x‖₁) against half the "
                     f"certificate's budget, {half:.2g}."], size=11, step=14)
    for b in range(0, 33, 4):
        s.line(x0 + b * unit, y0 - 6, x0 + b * unit, y0 + 62 * len(counts) - 16, stroke=LIGHT)
        s.text(x0 + b * unit, y0 - 10, f"{b}", size=11, anchor="middle", fill=GREY)
    for i, c in enumerate(counts):
        P = math.prod(r.moduli[:c])
        T = min(math.log2(math.sqrt((P >> split << split) / 2) - 0.5 * math.sqrt(K)) - 1e-3,
                scaled - 0.1)
        keep, y, term = T - math.log2(K) / 2, y0 + i * 62, K * 2 ** -T * rho
        s.text(12, y + 14, f"{c} moduli", size=12, bold=c == r.count)
        s.text(12, y + 30, f"log2 P = {math.log2(P):.1f}", size=11, fill=GREY)
        s.rect(x0, y, keep * unit, 20, fill=PALETTE[1], stroke=INK, sw=2 if c == r.count else 1)
        s.rect(x0 + keep * unit, y, (T - keep) * unit, 20, fill=LIGHT, stroke=INK)
        s.text(x0 + 4, y + 14, f"{keep:.1f} bits", size=11)
        s.text(x0 + T * unit + 4, y + 14, f"T = {T:.2f}", size=11)
        s.text(x0, y + 34, f"{term:.2g} " + ("≤ half the budget: no line heavy" if term <= half
                                            else "> half the budget: every line heavy, rung 15"),
               size=11, fill=GREEN if term <= half else STRONG)
    s.caption([f"Moduli in order: {', '.join(map(str, r.moduli))}; the ladder's rung uses "
               f"{r.count} (bold).", f"T = log2(√(P/2) − ½√K) − 0.001 with P's low {split} bits "
               f"cleared, at most {scaled} − 0.1 (the integers stay in {scaled} bits)."])
    return s


def draw(root):
    return {"16_dataflow.svg": lambda: dataflow(root),
            "16_moduli_bits.svg": lambda: moduli_bits(root)}
