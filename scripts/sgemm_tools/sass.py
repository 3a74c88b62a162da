"""SASS as text from cuobjdump, read into instructions and resources, and counted.

Counts: FFMA and every other opcode base; LDS/LDG/STS/... also by access width in bits (LDS.32
is plain `LDS` in SASS, LDS.128 is `LDS.128` or `LDS.U.128`). A loop is a backward branch,
except from the out-of-line code after the kernel's last EXIT; the main loop is the loop whose
body holds the most FFMA, HMMA and HGMMA, the innermost one on a tie. Counts are static: one
pass through the code as written.
"""
import re
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
    """Counts of one stretch of SASS: 'instructions', opcode bases ('LDS' = all widths) and,
    for memory operations, base.width ('LDS.128')."""
    counts = Counter(instructions=len(instructions))
    for _, opcode, _ in instructions:
        base = opcode.split(".")[0]
        counts[base] += 1
        if base in MEMORY_OPS:
            counts[f"{base}.{width(opcode)}"] += 1
    return dict(counts)


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
    counts, _body}: addresses as '0x0070' text, `_body` its instructions (not for JSON)."""
    whole = mix(instructions)
    described = []
    for start, end in loops(instructions):
        body = [i for i in instructions if start <= i[0] <= end]
        described.append({"start": f"0x{start:04x}", "end": f"0x{end:04x}", "counts": mix(body),
                          "_body": body})
    hot = max(described, default=None,
              key=lambda lp: (arithmetic(lp["counts"]), -lp["counts"]["instructions"]))
    if hot and not arithmetic(hot["counts"]):
        hot = None
    return whole, hot, described


# What a GEMM's main loop is made of: FFMA on the CUDA cores, HMMA (mma.sync) or HGMMA
# (wgmma) on the tensor cores.
ARITHMETIC = ("FFMA", "HMMA", "HGMMA")


def arithmetic(counts):
    return sum(counts.get(op, 0) for op in ARITHMETIC)
