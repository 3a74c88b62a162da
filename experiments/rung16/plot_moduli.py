#!/usr/bin/env python3
"""Rung 16's speed and error against its number of moduli, from `sgemm_moduli` JSON.

    experiments/rung16/plot_moduli.py experiments/rung16/results/h200/rung16_moduli.json docs/img/16_moduli.png

Left: TFLOP/s (2 M N K / time) per size, cuBLAS SGEMM and rungs 14 and 15 as horizontal lines.
Right: relative Frobenius error against FP64 on uniform inputs, cuBLAS SGEMM as a line.
Needs matplotlib (the GPU machine has it)."""
import json
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402


def main(source, target):
    data = json.load(open(source))
    rows = data["results"]
    sizes = sorted({r["size"] for r in rows})
    fig, (speed, error) = plt.subplots(1, 2, figsize=(11, 4.2))
    for size, colour in zip(sizes, ["tab:blue", "tab:orange", "tab:green"]):
        mine = sorted((int(r["name"].rsplit("moduli", 1)[1]), r) for r in rows
                      if r["size"] == size and r["name"].startswith("rung16_moduli"))
        counts = [c for c, _ in mine]
        speed.plot(counts, [r["tflops"] for _, r in mine], "o-", color=colour, label=f"rung 16, {size}³")
        error.plot(counts, [r["uniform"]["rel_frobenius"] for _, r in mine], "o-", color=colour,
                   label=f"rung 16, {size}³")
        named = {r["name"]: r for r in rows if r["size"] == size}
        speed.axhline(named["cublas"]["tflops"], color=colour, ls=":", lw=1)
        speed.axhline(named["rung14"]["tflops"], color=colour, ls="--", lw=1)
        error.axhline(named["cublas"]["uniform"]["rel_frobenius"], color=colour, ls=":", lw=1)
    speed.set_xlabel("moduli (INT8 GEMMs)")
    speed.set_ylabel("TFLOP/s (FP32-equivalent)")
    speed.set_title("speed; dotted: cuBLAS SGEMM, dashed: rung 14")
    error.set_yscale("log")
    error.set_xlabel("moduli (INT8 GEMMs)")
    error.set_ylabel("relative Frobenius error vs FP64")
    error.set_title("error, uniform inputs; dotted: cuBLAS SGEMM")
    for ax in (speed, error):
        ax.grid(alpha=0.3)
        ax.legend(fontsize=8)
    fig.suptitle(f"Rung 16 on {data['gpu']}: the number of moduli trades speed for accuracy")
    fig.tight_layout()
    fig.savefig(target, dpi=110)


if __name__ == "__main__":
    main(*sys.argv[1:3])
