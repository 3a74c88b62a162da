#!/usr/bin/env python3
"""What a Python user gets: speed and componentwise error of FP32-class matrix products on one
GPU, in one process, written as JSON for python/bench_table.py.

    python3 python/bench.py --out results/<gpu>/python_bench.json
    python3 python/bench.py --sizes 1024,2048 --dists uniform --out /tmp/b.json   # quicker

For each square size (default 1024, 2048, 4096, 8192) and input distribution (uniform in
[-1, 1), normal, heavy-tailed (rand - 0.5) * exp(phi * randn) with phi = 2), on the same
inputs: torch.matmul in IEEE FP32 (allow_tf32=False) and in TF32, JAX's jax.lax.dot with the
presets TF32_TF32_F32_X3, BF16_BF16_F32_X6 and BF16_BF16_F32_X9 (a preset JAX refuses here is
recorded with JAX's reason), sgemm_ladder.matmul, torch.ops.sgemm_ladder.mm and
sgemm_ladder.jax.matmul inside jax.jit (through jax.ffi; where it is built). Time: the
median of --reps timed blocks after warm-up, each block enough calls for about 25 ms, a
method's blocks alternating with torch.matmul FP32's, its ratio over the reference's blocks
beside it; torch and ours by CUDA events on the current stream, JAX by wall clock to
block_until_ready (its own streams). Error: max over C of |c - c64| / (u (|A| @ |B|)),
u = 2^-24, c64 and |A| @ |B| in float64 on the GPU. Needs torch with CUDA and
libsgemm_ladder.so; JAX is optional (--no-jax). Memory at 8192: about 6 GB.
"""
import argparse
import datetime
import json
import os
import statistics
import subprocess
import sys
import time

os.environ.setdefault("XLA_PYTHON_CLIENT_PREALLOCATE", "false")  # torch and JAX share the GPU
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import torch  # noqa: E402

import sgemm_ladder  # noqa: E402
import sgemm_ladder.torch  # noqa: E402,F401  (registers torch.ops.sgemm_ladder)

U = 2.0 ** -24
LABELS = {
    "torch_fp32": "torch.matmul, FP32 (allow_tf32=False)",
    "torch_tf32": "torch.matmul, TF32 (allow_tf32=True)",
    "jax_tf32_x3": "JAX dot, TF32_TF32_F32_X3",
    "jax_bf16_x6": "JAX dot, BF16_BF16_F32_X6",
    "jax_bf16_x9": "JAX dot, BF16_BF16_F32_X9",
    "sgemm_ladder": "sgemm_ladder.matmul",
    "sgemm_op": "torch.ops.sgemm_ladder.mm",
    "sgemm_jax_jit": "sgemm_ladder.jax.matmul in jax.jit",
}
JAX_PRESETS = {"jax_tf32_x3": "TF32_TF32_F32_X3", "jax_bf16_x6": "BF16_BF16_F32_X6",
               "jax_bf16_x9": "BF16_BF16_F32_X9"}


def inputs(dist, n, phi, device):
    shape = (n, n)
    if dist == "uniform":
        return torch.rand(shape, device=device) * 2 - 1
    if dist == "normal":
        return torch.randn(shape, device=device)
    if dist == "heavy":
        return (torch.rand(shape, device=device) - 0.5) * torch.exp(
            phi * torch.randn(shape, device=device))
    raise SystemExit(f"bench.py: unknown distribution {dist!r} (uniform, normal, heavy)")


def block_events(fn, calls):
    """Milliseconds per call of a block of calls, by CUDA events on the current stream."""
    start, stop = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    start.record()
    for _ in range(calls):
        fn()
    stop.record()
    stop.synchronize()
    return start.elapsed_time(stop) / calls


def block_wall(fn, calls):
    """The same by wall clock, for JAX (its own streams): dispatch, wait for the last result."""
    t = time.perf_counter()
    for _ in range(calls):
        r = fn()
    r.block_until_ready()
    return (time.perf_counter() - t) * 1e3 / calls


def set_tf32(on):
    torch.backends.cuda.matmul.allow_tf32 = on


def time_in_turn(methods, reps, block_ms=25.0):
    """{name: (median ms per call, the reference's median ms beside it)} for methods
    [(name, fn, block, before)], the first being the reference (torch.matmul in FP32); block is
    block_events or block_wall, before None or called ahead of each of the method's blocks
    (torch's TF32 switch). As the C++ bench times a rung and cuBLAS: after warm-up, each method
    in `reps` rounds of a reference block then its own block (enough calls for about block_ms
    each), so that a slow spell of the host or the GPU, or the power a method draws, falls on
    the pair alike. The reference's own row: the median of all its blocks."""
    calls = {}
    for name, fn, block, before in methods:
        if before:
            before()
        for _ in range(3):
            block(fn, 1)
        calls[name] = max(1, min(2000, int(block_ms / max(block(fn, 1), 1e-3))))
    (ref_name, ref_fn, ref_block, ref_before), out, all_ref = methods[0], {}, []
    for name, fn, block, before in methods[1:]:
        ref, own = [], []
        for _ in range(reps):
            ref_before()
            ref.append(ref_block(ref_fn, calls[ref_name]))
            if before:
                before()
            own.append(block(fn, calls[name]))
        out[name] = (statistics.median(own), statistics.median(ref))
        all_ref += ref
    set_tf32(False)
    out[ref_name] = (statistics.median(all_ref),) * 2
    return out


def componentwise_error(c, c64, scale):
    """max |c - c64| / (u scale); an element whose scale is 0 counts 0 if exact, else inf."""
    diff = (c.double() - c64).abs()
    ratio = diff / (U * scale)
    ratio = torch.where(scale > 0, ratio, torch.where(diff == 0, 0.0, float("inf")))
    return float(ratio.nan_to_num(float("inf")).max())


def driver_version():
    try:
        out = subprocess.run(["nvidia-smi", "--query-gpu=driver_version", "--format=csv,noheader"],
                             capture_output=True, text=True, timeout=30)
        return out.stdout.strip().splitlines()[0] if out.returncode == 0 else "?"
    except (OSError, IndexError, subprocess.SubprocessError):
        return "?"


def host_overhead(device):
    """Host microseconds per call at 64^3 (where the GPU is not the limit), for comparison."""
    a, b = torch.rand(64, 64, device=device), torch.rand(64, 64, device=device)
    out = {}
    for name, fn in (("torch.matmul", lambda: torch.matmul(a, b)),
                     ("sgemm_ladder.matmul", lambda: sgemm_ladder.matmul(a, b)),
                     ("torch.ops.sgemm_ladder.mm", lambda: torch.ops.sgemm_ladder.mm(a, b))):
        for _ in range(20):
            fn()
        torch.cuda.synchronize()
        t = time.perf_counter()
        for _ in range(200):
            fn()
        out[name] = round((time.perf_counter() - t) / 200 * 1e6, 1)
        torch.cuda.synchronize()
    return out


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--out", required=True, help="the JSON to write")
    p.add_argument("--sizes", default="1024,2048,4096,8192")
    p.add_argument("--dists", default="uniform,normal,heavy")
    p.add_argument("--phi", type=float, default=2.0, help="heavy-tailed inputs' phi")
    p.add_argument("--reps", type=int, default=7)
    p.add_argument("--no-jax", action="store_true", help="leave JAX out")
    p.add_argument("--no-jax-ffi", action="store_true",
                   help="leave out the one call inside jax.jit (JAX's presets stay)")
    args = p.parse_args()
    sizes = [int(s) for s in args.sizes.split(",")]
    dists = args.dists.split(",")
    device = torch.device("cuda", torch.cuda.current_device())
    torch.manual_seed(0)

    jax = ours_in_jit = None
    skipped = []
    if not args.no_jax:
        try:
            import jax
            import jax.dlpack  # noqa: F401
        except ImportError as e:
            jax = None
            for m in list(JAX_PRESETS) + ["sgemm_jax_jit"]:
                skipped.append({"method": m, "label": LABELS[m],
                                "reason": f"jax cannot be imported ({e})"})
    if jax is not None and not args.no_jax_ffi:
        try:
            from sgemm_ladder import jax as sgemm_jax  # not "import sgemm_ladder.jax": a local
            ours_in_jit = jax.jit(sgemm_jax.matmul)
        except Exception as e:  # e.g. no libsgemm_jax_ffi.so in this build
            skipped.append({"method": "sgemm_jax_jit", "label": LABELS["sgemm_jax_jit"],
                            "reason": f"{type(e).__name__}: {str(e).splitlines()[0][:300]}"})
    context = {
        "gpu": torch.cuda.get_device_name(device), "driver": driver_version(),
        "cuda": torch.version.cuda, "torch": torch.__version__,
        "jax": getattr(jax, "__version__", None), "sgemm_ladder": sgemm_ladder.version(),
        "one_call_rung": sgemm_ladder.one_call_rung(), "reps": args.reps,
        "timing": "in_turn_with_reference",
        "phi": args.phi, "date": datetime.date.today().isoformat(),
        "command": "python/bench.py " + " ".join(
            a for a in sys.argv[1:] if not a.startswith("--out") and a != args.out),
        "host_us_per_call": host_overhead(device),
    }
    print(json.dumps(context, indent=1), flush=True)
    refused = {}  # JAX presets refused here: method -> reason
    rows = []
    for n in sizes:
        for dist in dists:
            a, b = inputs(dist, n, args.phi, device), inputs(dist, n, args.phi, device)
            a64, b64 = a.double(), b.double()
            c64 = a64 @ b64
            scale = a64.abs() @ b64.abs()
            a64 = b64 = None
            # (name, fn, block, before); each result is taken once more after the timing
            methods = [("torch_fp32", lambda: torch.matmul(a, b), block_events,
                        lambda: set_tf32(False)),
                       ("torch_tf32", lambda: torch.matmul(a, b), block_events,
                        lambda: set_tf32(True))]
            ja = jb = None
            if jax is not None:
                ja, jb = jax.dlpack.from_dlpack(a), jax.dlpack.from_dlpack(b)
                for method, preset in JAX_PRESETS.items():
                    if method in refused:
                        continue
                    try:
                        algorithm = getattr(jax.lax.DotAlgorithmPreset, preset)
                        f = jax.jit(lambda x, y, p=algorithm: jax.lax.dot(x, y, precision=p))
                        f(ja, jb).block_until_ready()
                    except Exception as e:  # JAX's refusal, recorded as its reason
                        refused[method] = f"{type(e).__name__}: {str(e).splitlines()[0][:300]}"
                        skipped.append({"method": method, "label": LABELS[method],
                                        "reason": refused[method]})
                        continue
                    methods.append((method, lambda f=f: f(ja, jb), block_wall, None))
                if ours_in_jit is not None:  # the one call inside jax.jit (jax.ffi), timed alike
                    methods.append(("sgemm_jax_jit", lambda: ours_in_jit(ja, jb), block_wall,
                                    None))
            methods.append(("sgemm_ladder", lambda: sgemm_ladder.matmul(a, b), block_events,
                            None))
            methods.append(("sgemm_op", lambda: torch.ops.sgemm_ladder.mm(a, b), block_events,
                            None))
            ms = time_in_turn(methods, args.reps)
            results = []
            for method, fn, block, before in methods:
                if before:
                    before()
                c = fn()
                c = torch.from_dlpack(c) if block is block_wall else c
                results.append({"method": method, "label": LABELS[method], "shape": [n, n, n],
                                "distribution": dist, "ms": ms[method][0],
                                "reference_ms": ms[method][1],
                                "timer": "cuda_events" if block is block_events
                                else "wall_block_until_ready",
                                "error": componentwise_error(c, c64, scale)})
                c = None
            set_tf32(False)
            ja = jb = None
            for r in results:
                r["speedup"] = r["reference_ms"] / r["ms"]
                print(f"{n}^3 {dist:8s} {r['label']:42s} {r['ms']:9.3f} ms "
                      f"{r['speedup']:6.2f}x  error {r['error']:.3g} u|A||B|", flush=True)
            rows += results
            a = b = c64 = scale = results = None  # free before the next size
            torch.cuda.empty_cache()
    os.makedirs(os.path.dirname(os.path.abspath(args.out)), exist_ok=True)
    with open(args.out, "w") as f:
        json.dump({"context": context, "rows": rows, "skipped": skipped}, f, indent=1)
        f.write("\n")
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
