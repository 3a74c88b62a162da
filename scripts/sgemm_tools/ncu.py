"""The Nsight Compute metrics behind the worklog's profiles, and ncu's CSV export read into
them.

METRICS lists (key, ncu metric, label) of what the summary shows, in order; a label of
None is read for a derived value only. summarise() turns one profiled launch into
{key: value in base units (seconds, Hz, bytes/s, %), or None where ncu had none}.
"""
import csv
import io
import re

import ladder

STALLS = ["mio_throttle", "long_scoreboard", "short_scoreboard", "barrier", "math_pipe_throttle",
          "lg_throttle", "wait", "not_selected", "selected", "dispatch_stall", "no_instruction",
          "branch_resolving", "membar", "drain", "sleeping", "tex_throttle", "imc_miss", "misc"]


def stall_metric(reason):
    return f"smsp__average_warps_issue_stalled_{reason}_per_issue_active.ratio"


def loads_and_stores(key, metric, label=None):
    """A shared-memory metric's (key, metric, label) for loads, then for stores: {op} is
    ld or st, {access} load or store."""
    return [(key.format(op=op), metric.format(op=op), label and label.format(access=access))
            for op, access in (("ld", "load"), ("st", "store"))]


# (key, metric, label) of what the summary shows, in order. Derived rows are computed below.
METRICS = [
    ("duration_s", "gpu__time_duration.sum", "kernel time"),
    ("sm_clock_hz", "sm__cycles_elapsed.avg.per_second", "SM clock (not locked)"),
    ("issue_active_pct", "smsp__issue_active.avg.pct_of_peak_sustained_active",
     "SM issue active (% of cycles)"),
    ("issue_slots_pct", "sm__inst_issued.avg.pct_of_peak_sustained_active",
     "issue slots busy (%)"),
    ("fma_pipe_pct", "sm__pipe_fma_cycles_active.avg.pct_of_peak_sustained_active",
     "FMA pipe busy (% of cycles)"),
    ("fma_inst_pct", "sm__inst_executed_pipe_fma.avg.pct_of_peak_sustained_active",
     "FMA pipe instructions (% of peak)"),
    ("tensor_pipe_pct", "sm__pipe_tensor_cycles_active.avg.pct_of_peak_sustained_active",
     "tensor pipe busy (% of cycles)"),
    ("lsu_inst_pct", "sm__inst_executed_pipe_lsu.avg.pct_of_peak_sustained_active",
     "LSU pipe instructions (% of peak)"),
    ("lsu_inst", "sm__inst_executed_pipe_lsu.sum", None),
    ("inst", "sm__inst_executed.sum", None),
    ("cycles_per_issue", "smsp__average_warp_latency_per_inst_issued.ratio",
     "warp cycles per issued instruction"),
    *[(f"stall_{r}", stall_metric(r), f"  stall {r.replace('_', ' ')}") for r in STALLS],
    ("occupancy_pct", "sm__warps_active.avg.pct_of_peak_sustained_active",
     "achieved occupancy (%)"),
    ("theoretical_occupancy_pct", "sm__maximum_warps_per_active_cycle_pct",
     "theoretical occupancy (%)"),
    *loads_and_stores("smem_{op}_conflicts",
                      "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_{op}.sum",
                      "shared {access} bank conflicts"),
    *loads_and_stores("smem_{op}_wavefronts",
                      "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_{op}.sum"),
    *loads_and_stores("smem_{op}_inst", "smsp__inst_executed_op_shared_{op}.sum"),
    ("dram_pct", "dram__throughput.avg.pct_of_peak_sustained_elapsed",
     "DRAM throughput (% of peak)"),
    ("dram_bytes_per_s", "dram__bytes.sum.per_second", "DRAM bandwidth"),
    ("l2_pct", "lts__throughput.avg.pct_of_peak_sustained_elapsed", "L2 throughput (% of peak)"),
    ("l2_bytes_per_s", "lts__t_bytes.sum.per_second", "L2 bandwidth"),
    ("sm_pct", "sm__throughput.avg.pct_of_peak_sustained_elapsed", "SM throughput (% of peak)"),
    ("registers", "launch__registers_per_thread", "registers per thread"),
    ("smem_static", "launch__shared_mem_per_block_static", "static shared memory per block"),
    ("block_size", "launch__block_size", "threads per block"),
    ("grid_size", "launch__grid_size", "blocks"),
    ("gpu", "device__attribute_display_name", None),
]
# The report's sections (ncu --section ...), for reading it in ncu-ui.
SECTIONS = ["SpeedOfLight", "ComputeWorkloadAnalysis", "MemoryWorkloadAnalysis", "Occupancy",
            "LaunchStats", "SchedulerStats", "WarpStateStats", "InstructionStats",
            "SourceCounters"]


def requestable(offered):
    """(the METRICS to ask ncu for, the ones it lacks), given the base metric names it
    offers (ncu --query-metrics), or None when it could not say: then all of them."""
    wanted = [metric for _, metric, _ in METRICS]
    # Launch and device attributes and derived metrics (no .sum/.avg/...) are not in ncu's
    # list but always exist; the hardware counters vary by GPU and ncu version.
    metrics = [m for m in wanted if offered is None or m.split(".")[0] in offered
               or m.startswith(("launch__", "device__")) or "." not in m]
    return metrics, sorted(set(wanted) - set(metrics))


# ---- reading ncu's CSV -----------------------------------------------------------------

_SCALE = {"": 1, "K": 1e3, "M": 1e6, "G": 1e9, "T": 1e12, "n": 1e-9, "u": 1e-6, "m": 1e-3}
_TIME = {"nsecond": 1e-9, "ns": 1e-9, "usecond": 1e-6, "us": 1e-6, "msecond": 1e-3,
         "ms": 1e-3, "second": 1, "s": 1}


def to_base(value, unit):
    """A number in base units (bytes, seconds, Hz, ...) from ncu's value and unit text."""
    unit = (unit or "").strip()
    if unit in _TIME:
        return value * _TIME[unit]
    num, _, den = unit.partition("/")
    m = re.match(r"^([KMGTnum]?)(byte|hz|Hz|cycle|inst|sector|request|warp|thread|block)s?$",
                 num)
    if m:
        value *= _SCALE[m[1]]
    if den:
        value /= _TIME.get(den, 1)
    return value


def parse_number(text):
    """A float ('1,234.5' -> 1234.5), None for n/a, or the text itself (a name)."""
    text = (text or "").strip()
    if text in ("", "n/a", "N/A", "nan"):
        return None
    try:
        return float(text.replace(",", ""))
    except ValueError:
        return text


def parse_csv(text):
    """[{metric: value in base units, 'Kernel Name': ...}, ...] from `ncu --csv` output, in
    the raw layout (a column per metric, a row of units) or the long layout (a row per
    metric: "Metric Name", "Metric Unit", "Metric Value"). Lines before the header (the
    profiled program's output, ==PROF== lines) are skipped."""
    lines = text.splitlines()
    start = next((i for i, line in enumerate(lines) if line.startswith('"ID"')), None)
    if start is None:
        raise ladder.Error("no ncu CSV header (a line starting with \"ID\") in the export")
    rows = list(csv.reader(io.StringIO("\n".join(lines[start:]))))
    header, body = rows[0], [r for r in rows[1:] if len(r) == len(rows[0])]
    if "Metric Name" in header:
        at = {name: header.index(name) for name in ("ID", "Kernel Name", "Metric Name",
                                                      "Metric Unit", "Metric Value")}
        launches = {}
        for r in body:
            launch = launches.setdefault(r[at["ID"]], {"Kernel Name": r[at["Kernel Name"]]})
            value = parse_number(r[at["Metric Value"]])
            if isinstance(value, float):
                value = to_base(value, r[at["Metric Unit"]])
            launch[r[at["Metric Name"]]] = value
        return list(launches.values())
    has_units = bool(body) and body[0][0] == ""  # the raw page's second row: units
    units = body[0] if has_units else [""] * len(header)
    launches = []
    for r in body[1:] if has_units else body:
        launch = {}
        for name, unit, cell in zip(header, units, r):
            value = parse_number(cell)
            launch[name] = to_base(value, unit) if isinstance(value, float) else value
        launches.append(launch)
    return launches


def summarise(launch):
    """{key: value or None} for one profiled launch, with the derived rows."""
    out = {key: launch.get(metric) for key, metric, _ in METRICS}
    out["kernel"] = launch.get("Kernel Name")

    def ratio(a, b):
        return a / b if isinstance(a, float) and isinstance(b, float) and b else None

    share = ratio(out["lsu_inst"], out["inst"])
    out["lsu_share_pct"] = share * 100 if share is not None else None
    out["smem_ld_wavefronts_per_inst"] = ratio(out["smem_ld_wavefronts"], out["smem_ld_inst"])
    out["smem_st_wavefronts_per_inst"] = ratio(out["smem_st_wavefronts"], out["smem_st_inst"])
    return out
