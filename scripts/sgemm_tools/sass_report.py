"""What scripts/sass prints: the main-loop and whole-kernel tables, the FFMA operands of each
main loop, the SASS listing of each main loop, and the kernel records as JSON.

A kernel record (scripts/sass collects them) has rung, name, variant, arch, function,
mangled, the resources of sass.parse_res_usage, and kernel / main_loop / loops from
sass.analyse. A kernel of no rung (scripts/sass --function) has rung None and its function
name as name.
"""
from .kernel_names import short_labels
from .sass import SLOTS

COLUMNS = ["instructions", "FFMA", "LDS.32", "LDS.64", "LDS.128", "LDG.32", "LDG.64", "LDG.128",
           "STS.32", "STS.64", "STS.128", "BAR", "LDL", "STL", "LDGSTS", "UTMALDG", "SYNCS",
           "USETMAXREG", "HGMMA", "IGMMA"]
ALWAYS = {"instructions", "FFMA", "LDS.32", "LDS.128", "LDG.32", "LDG.128", "STS.32", "BAR",
          "LDL", "STL"}  # shown even when every count is 0; the others only when one is not


def table(rows, headers):
    """Aligned text: the first column to the left, the others to the right."""
    widths = [max(len(str(x)) for x in col) for col in zip(headers, *rows)]
    line = lambda cells: "  ".join(str(c).ljust(w) if i == 0 else str(c).rjust(w)  # noqa: E731
                                   for i, (c, w) in enumerate(zip(cells, widths)))
    return "\n".join([line(headers), line(["-" * w for w in widths])] + [line(r) for r in rows])


def print_tables(kernels, binary):
    archs = {k["arch"] for k in kernels}
    labels, notes = short_labels(kernels)
    counts = [k["kernel"] for k in kernels] + [k["main_loop"]["counts"] for k in kernels
                                                if k["main_loop"]]
    columns = [c for c in COLUMNS if c in ALWAYS or any(x.get(c) for x in counts)]
    short = {"instructions": "instr"}
    heads = [short.get(c, c) for c in columns]
    print(f"SASS of {binary} ({', '.join(sorted(archs))})\n")
    print("Main loop: the loop holding the most FFMA, HMMA, HGMMA and IGMMA; "
          "one pass through its body")
    rows = []
    for k in kernels:
        lp = k["main_loop"]
        if lp:
            rows.append([labels[id(k)], f"{lp['start'][2:]}-{lp['end'][2:]}"]
                        + [lp["counts"].get(c, 0) for c in columns])
        else:
            rows.append([labels[id(k)], "none"] + ["-"] * len(columns))
    print(table(rows, ["kernel", "loop"] + heads))
    print("\nWhole kernel, and resources per thread (regs) and per block (static smem bytes)")
    rows = [[labels[id(k)], k.get("registers", "?"), k.get("shared_bytes", "?"),
             k.get("stack_bytes", "?")] + [k["kernel"].get(c, 0) for c in columns]
            for k in kernels]
    print(table(rows, ["kernel", "regs", "smem", "stack"] + heads))
    if notes:
        print("\nTemplate arguments of every instantiation:\n  " + "\n  ".join(notes))


def percent(part, whole):
    """'1113 (87%)': a count and its share."""
    return f"{part} ({100 * part / whole:.0f}%)" if whole else str(part)


def per_slot(counts, what):
    """'1024/441/0': a count for slots a, b and c of the FFMAs."""
    return "/".join(str(counts.get(f"FFMA.{what}.{slot}", 0)) for slot in SLOTS)


def per_count(counts, what):
    """'33/517/474/0': the FFMAs for which `what` is 0, 1, 2 and 3."""
    return "/".join(str(counts.get(f"FFMA.{what}.{n}", 0)) for n in range(4))


def print_operands(kernels):
    """How each main loop's FFMAs read their operands (sass.operand_counts), and how its
    LDS are spread among them."""
    labels, _ = short_labels(kernels)
    rows = []
    for k in kernels:
        lp = k["main_loop"]
        c = lp["counts"] if lp else {}
        n = c.get("FFMA", 0)
        if not n:
            continue
        gaps = lp["ffma_between_lds"]
        rows.append([labels[id(k)], n, percent(c["FFMA.reuse"], n), per_slot(c, "reuse"),
                     per_slot(c, "cached"), per_count(c, "from_cache"),
                     f"{c['FFMA.reads'] / n:.2f}", per_count(c, "bank_reads"),
                     percent(c["FFMA.conflict"], n), c.get("LDS", 0),
                     "/".join(str(gaps[x]) for x in ("min", "median", "max")) if gaps else "-"])
    print("\nFFMA operands in each main loop: the reuse cache and the register banks (an "
          "estimate\nfrom the SASS, not a counter: docs/10_tma_specialized.md says how)")
    if not rows:
        print("  (no main loop with FFMA)")
        return
    print(table(rows, ["kernel", "FFMA", "with .reuse", "flags a/b/c", "cached a/b/c",
                       "from cache 0/1/2/3", "reads/FFMA", "busiest bank 0/1/2/3",
                       "conflicts", "LDS",
                       "FFMA between LDS min/med/max"]))


def title(k):
    """'rung 6 vectorized<kVectorized=true>', or a named function's name."""
    return f"rung {k['rung']} {k['name']}{k['variant']}" if k["rung"] is not None else k["function"]


def print_listing(kernels):
    for k in kernels:
        lp = k["main_loop"]
        print(f"\nMain loop of {title(k)} ({k['arch']}):")
        if not lp:
            print("  (no loop with FFMA, HMMA, HGMMA or IGMMA)")
            continue
        for address, opcode, operands in lp["_body"]:
            print(f"  /*{address:04x}*/  {opcode} {operands}".rstrip())


def public(kernels):
    """The records without their private fields (a loop's `_body`), for JSON."""
    strip = lambda lp: {k: v for k, v in lp.items() if not k.startswith("_")}  # noqa: E731
    out = []
    for k in kernels:
        k = dict(k)
        k["main_loop"] = strip(k["main_loop"]) if k["main_loop"] else None
        k["loops"] = [strip(lp) for lp in k["loops"]]
        out.append(k)
    return out
