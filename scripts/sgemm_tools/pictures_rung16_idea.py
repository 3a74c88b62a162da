"""Rung 16's idea in one picture: the bits of one element of C on its way through the Ozaki
scheme II, bars to scale (a bit a fixed width): an FP32 element scaled and rounded to an
integer (crt_of's target T), its residues as signed bytes modulo the moduli in use (kModuli,
kLadderModuli), a product of two residues and its INT32 sum over a chunk of K (kChunkDepth),
the one byte a modulus leaves of C, the Chinese remainder theorem's P, weights cut at
kSplitBits and their sum beside FP64's 53 bits, and the one rounding to FP32. Every number is
computed from kernels/ozaki/ozaki_bits.cuh and kernels/16_ozaki_int8.cu; the lines it computes
again (crt_of's T, the residue's centring, the chunk's reduction, the bound plane's limit) are
checked to be in the code, so that a change to them fails here until the picture follows."""
import math

from sgemm_tools.pictures_rung16 import BITS, Rung16
from sgemm_tools.pictures_svg import (BLUE, GREY, INK, LIGHT, PALETTE, STRONG, Svg, text_width,
                                      wrap)

K = 4096  # the K of the example (a row's integers keep T - log2(K)/2 bits an element)
UNIT = 6.2  # px a bit (8 moduli: the widest bar, 74.6 bits, still fits)
X0 = 200  # where bit 0 of every bar starts
FP64_BITS, INT32_BITS, FP32_BITS = 53, 32, 24  # significands and INT32: the formats' own

# Lines of the code this picture computes again.
CHECKED = [
    (r"crt\.T = std::log2\(std::sqrt\(crt\.P_hi / 2\) - 0\.5 \* std::sqrt\("
     r"static_cast<double>\(K\)\)\) - 1e-3;", "crt_of's T"),
    (r"crt\.T = std::min\(crt\.T, kScaledBits - 0\.1\);", "crt_of's cap on T"),
    (r"kHalf = \(P - 1\) / 2;", "the centred residue of an odd modulus"),
    (r"return static_cast<uint32_t>\(v\) & 0xff;", "the residue mod 256: the low byte"),
    (r"\(kt \+ 1\) % T::kChunkStages == 0", "the reduction mod p_l where a chunk of K ends"),
    (r"kChunkStages = kChunkDepth / BK;", "the chunk in stages"),
    (r"WgmmaS8N256::mma\(", "the INT8 wgmma"),
    (r"crt\.weightHi\[l\] = static_cast<double>\(weight >> kSplitBits << kSplitBits\);",
     "the weights' high parts"),
    (r"if \(K > kBoundMaxK\) return", "the bound plane's limit on K"),
]


class Idea:
    """The constants the picture draws, read from rung 16's files."""

    def __init__(self, root):
        r = Rung16(root)
        for regex, what in CHECKED:
            r.find_in(regex, what)
        top = {**r.src.constants(), **r.headers[BITS].constants()}
        self.path, self.bits_path = r.src.path, r.headers[BITS].path
        self.count, self.moduli = r.count, r.moduli
        self.max_count, self.split = top["kMaxModuli"], top["kSplitBits"]
        self.scaled, self.chunk, self.bound_k = top["kScaledBits"], top["kChunkDepth"], \
            top["kBoundMaxK"]
        used = self.moduli[:self.count]
        self.P = math.prod(used)
        P_hi = self.P >> self.split << self.split
        self.T = min(math.log2(math.sqrt(P_hi / 2) - 0.5 * math.sqrt(K)) - 1e-3,
                     self.scaled - 0.1)
        self.keep = self.T - math.log2(K) / 2  # an element of a row of even magnitudes
        self.largest_residue = max(128 if p == 256 else (p - 1) // 2 for p in used)
        self.product = 2 * math.log2(self.largest_residue)  # |r r'| <= 2^14
        self.chunk_sum = self.product + math.log2(self.chunk)  # a chunk's INT32 sum
        self.weighted = math.log2(self.count * max(used) * self.P)  # sum r_l w_l < this

    def constants(self):
        return {"kModuli": ",".join(map(str, self.moduli)), "kLadderModuli": self.count,
                "kSplitBits": self.split, "kScaledBits": self.scaled,
                "kChunkDepth": self.chunk, "kBoundMaxK": self.bound_k, "K": K}


def bar(s, y, bits, fill, label=None, height=16, x=X0, **kw):
    """A bar `bits` wide from bit 0 (or from x), its label inside when it fits."""
    s.rect(x, y, bits * UNIT, height, fill=fill, stroke=INK, **kw)
    if label and 8 + len(label) * 11 * 0.6 <= bits * UNIT:
        s.text(x + 4, y + 12, label, size=11)


def ozaki_idea(root):
    d = Idea(root)
    used = d.moduli[:d.count]
    log2P = math.log2(d.P)
    s = Svg("16 · The Ozaki scheme II: one element of C, bit by bit",
            f"{d.path}, {d.bits_path}", d.constants(), 0)
    y = s.lines(12, 44, [f"{d.count} moduli (kLadderModuli), K = {K}. Bars to scale: "
                         f"{UNIT:g} px a bit; dashed: INT32's {INT32_BITS} bits (grey) and FP64's "
                         f"{FP64_BITS}-bit significand (red)."], size=11, step=14) + 14
    ruler_top = y - 4
    for b in range(0, 72, 8):
        s.text(X0 + b * UNIT, y + 6, f"{b}", size=11, anchor="middle", fill=GREY)
    y += 18
    behind = len(s.items)  # the format lines go under the rows, drawn once y is known

    def section(title):
        nonlocal y
        s.rect(10, y, text_width(title, 12, bold=True) + 4, 16, fill="white", stroke="none")
        s.text(12, y + 12, title, size=12, bold=True, fill=BLUE)
        y += 22

    def row(label, draw, notes):
        nonlocal y
        s.text(12, y + 12, label, size=11)
        draw(y)
        lines = [part for note in notes for part in wrap(note, 11, 700 - 12 - X0)]
        s.rect(X0 - 2, y + 19, max(text_width(t, 11) for t in lines) + 4, 13 * len(lines) + 2,
               fill="white", stroke="none")  # the notes stay legible over the format lines
        s.lines(X0, y + 30, lines, size=11, step=13)
        y += 22 + 13 * len(lines) + 8

    section("1. Scale each row of A by 2^s_i, each column of B by 2^t_j; round")
    row("a_ik, FP32", lambda y: bar(s, y, FP32_BITS, PALETTE[0], "24-bit significand"),
        ["its exponent anywhere in FP32's range: the scale takes it out"])
    row("a'_ik = round(2^s_i a_ik)",
        lambda y: (bar(s, y, d.T, LIGHT), bar(s, y, d.keep, PALETTE[1], f"{d.keep:.1f} bits")),
        [f"‖a'_i‖ ≤ 2^T, T = {d.T:.2f} (crt_of), so that |a'_i · b'_j| < P/2; an element of a "
         f"row of even magnitudes keeps T − ½ log2 K = {d.keep:.1f} bits (green): the only "
         "rounding of the scheme"])

    section(f"2. Residues modulo {d.count} moduli, as signed bytes")

    def residues(y):
        for i, p in enumerate(d.moduli):
            x = X0 + i * (8 * UNIT + 4)
            extra = i >= d.count
            s.rect(x, y, 8 * UNIT, 16, fill="white" if extra else PALETTE[3],
                   stroke=GREY if extra else INK, dash="3,2" if extra else None)
            s.text(x + 4 * UNIT, y + 12, f"{p}", size=11, anchor="middle",
                   fill=GREY if extra else INK)
    row("a'_ik mod p_l", residues,
        [f"8 bits each, −128…127: p_l = {', '.join(map(str, used))}, pairwise coprime, the "
         f"largest that fit a byte" + (f" ({', '.join(map(str, d.moduli[d.count:]))}, dashed: "
                                       f"up to kMaxModuli = {d.max_count})" if d.count <
                                       d.max_count else "") +
         f"; {d.count} × 8 = {8 * d.count} bits hold P = Π p_l ≈ 2^{log2P:.1f}"])

    section("3. One INT8 GEMM per modulus: exact integer products on the tensor cores")
    row("r_l(a'_ik) · r_l(b'_kj)",
        lambda y: bar(s, y, d.product, PALETTE[2], f"{d.product:.0f} bits"),
        [f"|r| ≤ {d.largest_residue}: a product is at most 2^{d.product:.0f}, exact"])

    def int32(y):
        s.rect(X0, y, INT32_BITS * UNIT, 16, fill="white", stroke=INK, dash="4,2")
        bar(s, y, d.chunk_sum, PALETTE[2], f"{d.chunk_sum:.0f} bits of 32")
    row("Σ_k, in INT32", int32,
        [f"a chunk is kChunkDepth = {d.chunk} k: below 2^{d.chunk_sum:.0f} < 2^31, then "
         f"reduced mod p_l; the bound plane (magnitude bytes ≤ 127) sums up to kBoundMaxK = "
         f"{d.bound_k} k"])
    row("(A'B')_ij mod p_l",
        lambda y: bar(s, y, 8, PALETTE[3], "1 byte"),
        [f"all the next step needs: {d.count} bytes an element of C, one per modulus"])

    section("4. The Chinese remainder theorem, in FP64")
    row("P = Π p_l", lambda y: bar(s, y, log2P, PALETTE[4], f"log2 P = {log2P:.1f}"),
        ["X = Σ_l r_l w_l − nP, n = rint(Σ_l r_l w_l / P): the one integer in (−P/2, P/2] "
         "with these residues, so (A'B')_ij itself"])

    def weights(y):
        hi = log2P - d.split
        bar(s, y, d.split, PALETTE[6], "low")
        bar(s, y, hi, PALETTE[5], "high part", x=X0 + d.split * UNIT)
    row("w_l, cut in two", weights,
        [f"w_l < P: a high part (its low kSplitBits = {d.split} bits cleared) and a low part "
         f"(< 2^{d.split}); each part's products and sums stay within 53 bits, exact"])
    row("Σ_l r_l w_l", lambda y: bar(s, y, d.weighted, LIGHT, f"up to {d.weighted:.1f} bits"),
        [f"whole, more than FP64's {FP64_BITS} bits (red): so the high parts and the low "
         "parts are summed apart, each exactly, X = (high − n P_hi) + (low − n P_lo)"])

    section("5. Back to FP32")
    row("c_ij", lambda y: bar(s, y, FP32_BITS, PALETTE[0], "24-bit significand"),
        ["alpha 2^−(s_i + t_j) X (+ beta c_ij) in FP64, rounded once to FP32"])

    under = Svg("", "", {}, 0)
    for bits, colour in ((INT32_BITS, GREY), (FP64_BITS, STRONG)):
        under.line(X0 + bits * UNIT, ruler_top + 14, X0 + bits * UNIT, y - 8, stroke=colour,
                   dash="4,3")
    s.items[behind:behind] = under.items
    s.height = y + 26
    s.caption([f"Constants from {d.bits_path} (kModuli, kSplitBits, kScaledBits) and {d.path} "
               "(kLadderModuli, kChunkDepth, kBoundMaxK, crt_of's T)."])
    return s


def draw(root):
    return {"16_ozaki_idea.svg": lambda: ozaki_idea(root)}
