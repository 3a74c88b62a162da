"""The Nsight Compute summary as text: one labelled line per metric of ncu.METRICS, the
largest stall reasons sorted under MIO throttle, and the derived rows beside their inputs."""
from .ncu import METRICS, STALLS


def fmt(value, kind=""):
    if value is None:
        return "n/a"
    if isinstance(value, str):
        return value
    if kind == "time":
        return f"{value * 1e3:.3f} ms"
    if kind == "hz":
        return f"{value / 1e9:.3f} GHz"
    if kind == "bw":
        return f"{value / 1e9:.1f} GB/s"
    if kind == "count":
        return f"{value:,.0f}"
    return f"{value:.2f}"


def summary_table(s, title, flops=None):
    kinds = {"duration_s": "time", "sm_clock_hz": "hz", "dram_bytes_per_s": "bw",
             "l2_bytes_per_s": "bw", "smem_ld_conflicts": "count", "smem_st_conflicts": "count",
             "registers": "count", "smem_static": "count", "block_size": "count",
             "grid_size": "count"}
    rows = []
    for key, _, label in METRICS:
        if label is None:
            continue
        if key.startswith("stall_") and key != "stall_mio_throttle":
            continue  # the largest others are listed below, sorted
        rows.append((label, fmt(s.get(key), kinds.get(key, ""))))
        if key == "duration_s" and flops and isinstance(s.get(key), float):
            rows.append(("  GFLOP/s (this launch)", f"{flops / s[key] / 1e9:,.0f}"))
        if key == "lsu_inst_pct":
            rows.append(("LSU share of executed instructions (%)", fmt(s.get("lsu_share_pct"))))
        if key == "stall_mio_throttle":
            others = sorted(((s.get(f"stall_{r}"), r) for r in STALLS[1:]
                             if r != "selected"  # the issuing cycle itself, not a stall
                             and isinstance(s.get(f"stall_{r}"), float)), reverse=True)
            for value, r in others[:6]:
                rows.append((f"  stall {r.replace('_', ' ')}", fmt(value)))
        if key == "smem_ld_conflicts":
            rows.append(("  shared load wavefronts per instruction",
                         fmt(s.get("smem_ld_wavefronts_per_inst"))))
        if key == "smem_st_conflicts":
            rows.append(("  shared store wavefronts per instruction",
                         fmt(s.get("smem_st_wavefronts_per_inst"))))
    width = max(len(label) for label, _ in rows)
    lines = [title, ""] + [f"{label.ljust(width)}  {value}" for label, value in rows]
    lines.append("\nstalls: cycles per issued instruction that warps spent stalled for each "
                 "reason (Warp State Statistics)")
    return "\n".join(lines)
