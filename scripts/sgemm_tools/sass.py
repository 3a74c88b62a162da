"""SASS as text from cuobjdump, read into instructions and resources, and counted.

Counts: FFMA and every other opcode base; LDS/LDG/STS/... also by access width in bits (LDS.32
is plain `LDS` in SASS, LDS.128 is `LDS.128` or `LDS.U.128`); how the FFMAs read their operands
(the reuse cache, the register banks: an estimate, see operand_counts). A loop is a backward
branch, except from the out-of-line code after the kernel's last EXIT; the main loop is the
loop whose body holds the most HMMA, HGMMA and IGMMA (the most FFMA where it has none), the
innermost one on a tie. Counts are static: one pass through the code as written.
"""
import re
import statistics
from collections import Counter

MEMORY_OPS = ("LDS", "STS", "LDG", "STG", "LDL", "STL", "LD", "ST", "LDGSTS")
WIDTHS = {"64": 64, "128": 128, "U8": 8, "S8": 8, "U16": 16, "S16": 16}
RESOURCES = {"REG": "registers", "SHARED": "shared_bytes", "STACK": "stack_bytes",
             "LOCAL": "local_bytes"}

# ---- parsing ---------------------------------------------------------------------------

_CODE_FOR = re.compile(r"^\s*code for (sm_\w+)")
_FUNCTION = re.compile(r"^\s*Function\s*:\s*(\S+)")
_INSTR = re.compile(r"^\s*/\*([0-9a-f]{4,})\*/\s*(.*?)\s*;")
_PREDICATE = re.compile(r"^@!?U?P(?:T|\d+)\s+")


def parse_sass(text):
    """[(arch, mangled name, [(address, opcode, operands), ...])] from cuobjdump -sass."""
    functions, arch, current = [], None, None
    for line in text.splitlines():
        m = _CODE_FOR.match(line)
        if m:
            arch, current = m[1], None
            continue
        m = _FUNCTION.match(line)
        if m:
            current = (arch, m[1], [])
            functions.append(current)
            continue
        m = _INSTR.match(line)
        if m and current is not None:
            body = _PREDICATE.sub("", m[2])
            opcode, _, operands = body.partition(" ")
            current[2].append((int(m[1], 16), opcode, operands.strip()))
    return functions


_RES_ARCH = re.compile(r"^arch = (sm_\w+)")
_RES_FUNCTION = re.compile(r"^\s*Function\s+(\S+?):\s*$")
_RES_VALUE = re.compile(r"\b(REG|STACK|SHARED|LOCAL):(\d+)")


def parse_res_usage(text):
    """{(arch, mangled name): {registers, shared_bytes, stack_bytes, local_bytes}}."""
    out, arch, name = {}, None, None
    for line in text.splitlines():
        m = _RES_ARCH.match(line)
        if m:
            arch = m[1]
            continue
        m = _RES_FUNCTION.match(line)
        if m:
            name = m[1]
            continue
        if name and "REG:" in line:
            out[(arch, name)] = {RESOURCES[k]: int(v) for k, v in _RES_VALUE.findall(line)}
            # cuobjdump 12 lists an architecture-specific cubin (sm_90a) as 'sm_90' in -sass
            # and as 'sm_90a' here: also under the plain name, unless that has its own entry.
            if arch and arch[-1] in "af":
                out.setdefault((arch[:-1], name), out[(arch, name)])
            name = None
    return out


# ---- counting --------------------------------------------------------------------------


def width(opcode):
    bits = 32
    for token in opcode.split(".")[1:]:
        bits = WIDTHS.get(token, bits)
    return bits


def mix(instructions):
    """Counts of one stretch of SASS: 'instructions', opcode bases ('LDS' = all widths), for
    memory operations base.width ('LDS.128'), and the FFMA operand counts of operand_counts."""
    counts = Counter(instructions=len(instructions))
    for _, opcode, _ in instructions:
        base = opcode.split(".")[0]
        counts[base] += 1
        if base in MEMORY_OPS:
            counts[f"{base}.{width(opcode)}"] += 1
    counts.update(operand_counts(instructions))
    return dict(counts)


# ---- FFMA operands: the reuse cache and the register banks -------------------------------
#
# An estimate from the SASS text, not a hardware counter (docs/10_tma_specialized.md, "Why
# cuBLAS issues more often", gives the model and its sources). The register file has two
# banks, even and odd register numbers. Each source slot of an instruction (FFMA d, a, b, c)
# has a reuse cache holding one register per bank: an operand flagged .reuse stays there, and
# the next FFMA that reads it in the same slot takes it from the cache, not from its bank; an
# operand read without the flag leaves its bank's entry empty. Other instructions are assumed
# to leave the cache alone (ptxas flags an operand whose next FFMA comes after an LDS). A bank
# serves one read per cycle, so an FFMA whose register-file reads put two or three in one bank
# needs more than one cycle to read them: a potential conflict.
BANKS = 2
SLOTS = "abc"
_VECTOR_REGISTER = re.compile(r"^[-|]*R(\d+)\|?(\.reuse)?\|?$")  # R7, -R7, |R7|, R7.reuse


def sources(operands):
    """An FFMA's source slots a, b, c as [(register number or None, reuse flag)]; None for
    RZ, a uniform register, a constant or an immediate: no bank is read for them."""
    out = []
    for text in operands.split(",")[1:4]:
        m = _VECTOR_REGISTER.match(text.strip())
        out.append((int(m[1]), bool(m[2])) if m else (None, False))
    return out


def operand_counts(instructions):
    """How the FFMAs of one stretch of SASS, in order, read their operands: 'FFMA.reuse'
    (FFMAs with at least one .reuse flag), 'FFMA.reuse.<slot>' (flags), 'FFMA.cached.<slot>'
    (operands the reuse cache serves), 'FFMA.from_cache.<n>' (FFMAs that take n of their
    operands from it), 'FFMA.reads' (register-file reads, a register read in
    two slots counted once), 'FFMA.bank_reads.<n>' (FFMAs whose busiest bank serves n of
    them) and 'FFMA.conflict' (n >= 2). Empty without FFMA. The cache starts empty: at the
    top of a loop, what the previous pass leaves in it is not counted."""
    cache, counts = {}, Counter()
    for _, opcode, operands in instructions:
        if opcode.split(".")[0] != "FFMA":
            continue
        slots = [(slot, reg, reuse) for slot, (reg, reuse) in zip(SLOTS, sources(operands))
                 if reg is not None]
        reads, cached = set(), 0
        for slot, reg, _ in slots:
            if cache.get((slot, reg % BANKS)) == reg:
                counts[f"FFMA.cached.{slot}"] += 1
                cached += 1
            else:
                reads.add(reg)
        for slot, reg, reuse in slots:
            if reuse:
                cache[(slot, reg % BANKS)] = reg
                counts[f"FFMA.reuse.{slot}"] += 1
            else:
                cache.pop((slot, reg % BANKS), None)
        busiest = max(Counter(reg % BANKS for reg in reads).values(), default=0)
        counts["FFMA.reuse"] += any(reuse for _, _, reuse in slots)
        counts[f"FFMA.from_cache.{cached}"] += 1
        counts["FFMA.reads"] += len(reads)
        counts[f"FFMA.bank_reads.{busiest}"] += 1
        counts["FFMA.conflict"] += busiest >= 2
    return counts


def ffma_between_lds(instructions):
    """{min, median, max} of the FFMAs between one LDS and the next, or None with fewer
    than two LDS: how the shared-memory reads are spread among the FFMAs."""
    gaps, since = [], None
    for _, opcode, _ in instructions:
        base = opcode.split(".")[0]
        if base == "LDS":
            if since is not None:
                gaps.append(since)
            since = 0
        elif base == "FFMA" and since is not None:
            since += 1
    if not gaps:
        return None
    return {"min": min(gaps), "median": statistics.median_low(gaps), "max": max(gaps)}


_TARGET = re.compile(r"0x([0-9a-f]+)\s*$")


def loops(instructions):
    """[(start, end)] address ranges of loops: a backward branch from `end` to `start`.
    Back edges to the same start make one loop. ptxas places slow paths out of line, after
    the last EXIT (a wait's retry: try again, then jump back into the loop); their jumps
    back are not loops, and their address ranges would swallow the rest of the kernel."""
    exits = [address for address, opcode, _ in instructions if opcode.split(".")[0] == "EXIT"]
    last_exit = max(exits, default=float("inf"))
    found = {}
    for address, opcode, operands in instructions:
        if address > last_exit:
            break
        m = _TARGET.search(operands)
        if opcode.split(".")[0] == "BRA" and m and int(m[1], 16) < address:
            start = int(m[1], 16)
            found[start] = max(found.get(start, 0), address)
    return sorted(found.items())


def analyse(instructions):
    """(whole-kernel counts, the main loop or None, every loop). A loop is {start, end,
    counts, ffma_between_lds, _body}: addresses as '0x0070' text, `_body` its instructions
    (not for JSON)."""
    whole = mix(instructions)
    described = []
    for start, end in loops(instructions):
        body = [i for i in instructions if start <= i[0] <= end]
        described.append({"start": f"0x{start:04x}", "end": f"0x{end:04x}", "counts": mix(body),
                          "ffma_between_lds": ffma_between_lds(body), "_body": body})
    hot = max(described, default=None,
              key=lambda lp: (tensor(lp["counts"]) or arithmetic(lp["counts"]),
                              -lp["counts"]["instructions"]))
    if hot and not arithmetic(hot["counts"]):
        hot = None
    return whole, hot, described


# What a GEMM's main loop is made of: FFMA on the CUDA cores, HMMA (mma.sync) or HGMMA
# (wgmma, floating point) or IGMMA (wgmma, integer) on the tensor cores.
ARITHMETIC = ("FFMA", "HMMA", "HGMMA", "IGMMA")


def arithmetic(counts):
    return sum(counts.get(op, 0) for op in ARITHMETIC)


def tensor(counts):
    """The tensor-core part of `arithmetic`: where a kernel has any, it alone ranks loops, so
    that a loop over tiles whose epilogue adds FFMAs (a guard path) does not outrank the k loop
    inside it."""
    return sum(counts.get(op, 0) for op in ARITHMETIC if op != "FFMA")
