#!/usr/bin/env python3
"""The preload library's speed and error on PyTorch and CuPy, FP32 (TF32 off): torch.mm at
4096^3 and 8192^3 and cupy.matmul at 8192^3, each in a child process with
LD_PRELOAD=libsgemm_preload.so and in one without it. Time: CUDA events around each call after
a warm-up, the median. Error: against the float64 product of the same FP32 inputs, computed in
float64 on the GPU: the normwise relative error ||c - c64||_F / ||c64||_F and the largest
componentwise ratio |c - c64| / (|A| |B|). The target (issue 50): under the library, torch.mm
FP32 at 8192^3 at least 2.5 times as fast as without it, its error no larger.

  python3 preload/bench_preload.py --lib build/preload/libsgemm_preload.so
      [--out results/h100/preload.json]   (default: results/<gpu>/preload.json)
"""
import argparse
import json
import os
import re
import statistics
import subprocess
import sys

HERE = os.path.abspath(__file__)
ROOT = os.path.dirname(os.path.dirname(HERE))
CASES = [("torch", 4096), ("torch", 8192), ("cupy", 8192)]


def child(framework, n, reps):
    """One framework, one size, in this process: JSON on stdout."""
    if framework == "torch":
        import torch
        torch.backends.cuda.matmul.allow_tf32 = False
        gen = torch.Generator(device="cuda").manual_seed(n)
        a = torch.randn(n, n, device="cuda", generator=gen)
        b = torch.randn(n, n, device="cuda", generator=gen)
        mm, sync = torch.mm, torch.cuda.synchronize
        event = lambda: torch.cuda.Event(enable_timing=True)  # noqa: E731
        to64 = lambda x: x.double()  # noqa: E731
        norm = lambda x: x.norm().item()  # noqa: E731
        vmax = lambda x: x.max().item()  # noqa: E731
        gpu = torch.cuda.get_device_name()
        version = "torch " + torch.__version__
    else:
        import cupy
        cupy.random.seed(n)
        a = cupy.random.standard_normal((n, n), dtype="float32")
        b = cupy.random.standard_normal((n, n), dtype="float32")
        mm, sync = cupy.matmul, cupy.cuda.runtime.deviceSynchronize
        event = cupy.cuda.Event
        to64 = lambda x: x.astype("float64")  # noqa: E731
        norm = lambda x: float(cupy.linalg.norm(x))  # noqa: E731
        vmax = lambda x: float(x.max())  # noqa: E731
        props = cupy.cuda.runtime.getDeviceProperties(cupy.cuda.Device().id)
        gpu = props["name"].decode() if isinstance(props["name"], bytes) else props["name"]
        version = "cupy " + cupy.__version__
    for _ in range(3):  # warm-up: the library's workspace, cuBLAS's heuristics
        c = mm(a, b)
    sync()
    times = []
    for _ in range(reps):
        start, stop = event(), event()
        start.record()
        c = mm(a, b)
        stop.record()
        stop.synchronize()
        times.append(start.elapsed_time(stop) if framework == "torch"
                     else __import__("cupy").cuda.get_elapsed_time(start, stop))
    ms = statistics.median(times)
    a64, b64 = to64(a), to64(b)
    c64 = a64 @ b64
    diff = abs(to64(c) - c64)
    normwise = norm(diff) / norm(c64)
    scale = abs(a64) @ abs(b64)
    componentwise = vmax(diff / scale)
    return {"gpu": gpu, "version": version, "ms": ms, "times_ms": times,
            "tflops": 2.0 * n ** 3 / (ms * 1e-3) / 1e12, "normwise_error": normwise,
            "componentwise_error": componentwise}


def run_child(lib, framework, n, reps, preload):
    env = dict(os.environ)
    env.pop("LD_PRELOAD", None)
    if preload:
        env.update(LD_PRELOAD=os.path.abspath(lib), SGEMM_PRELOAD_LOG="1")
    done = subprocess.run([sys.executable, HERE, "--child", framework, "--n", str(n),
                           "--reps", str(reps)], env=env, capture_output=True, text=True,
                          timeout=600)
    if done.returncode != 0:
        return {"error": (done.stdout + done.stderr)[-2000:]}
    result = json.loads(done.stdout.strip().splitlines()[-1])
    result["log"] = [line for line in done.stderr.splitlines() if "sgemm_preload" in line]
    return result


def gpu_folder(name):
    for short in ("h100", "h200", "b200", "a100"):
        if short in name.lower():
            return short
    return re.sub(r"[^a-z0-9]+", "_", name.lower()).strip("_") or "gpu"


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--lib", default=os.path.join(ROOT, "build/preload/libsgemm_preload.so"))
    parser.add_argument("--out", help="JSON file (default: results/<gpu>/preload.json)")
    parser.add_argument("--reps", type=int, default=20, help="timed calls per case (median)")
    parser.add_argument("--child", choices=("torch", "cupy"))
    parser.add_argument("--n", type=int)
    args = parser.parse_args()
    if args.child:
        print(json.dumps(child(args.child, args.n, args.reps)))
        return 0
    if not os.path.exists(args.lib):
        parser.error(f"no {args.lib}: build it (cmake --build build --target sgemm_preload)")
    cases, gpu = [], None
    for framework, n in CASES:
        plain = run_child(args.lib, framework, n, args.reps, False)
        hooked = run_child(args.lib, framework, n, args.reps, True)
        case = {"framework": framework, "m": n, "n": n, "k": n, "without": plain,
                "with_preload": hooked}
        if "ms" in plain and "ms" in hooked:
            gpu = gpu or plain["gpu"]
            case["speedup"] = plain["ms"] / hooked["ms"]
            case["error_no_larger"] = (hooked["normwise_error"] <= plain["normwise_error"] and
                                       hooked["componentwise_error"] <=
                                       plain["componentwise_error"])
            case["taken"] = any(": taken" in line for line in hooked["log"])
            print(f"{framework} {n}^3: {plain['ms']:.3f} ms -> {hooked['ms']:.3f} ms "
                  f"({case['speedup']:.2f}x), normwise error {plain['normwise_error']:.2e} -> "
                  f"{hooked['normwise_error']:.2e}, componentwise {plain['componentwise_error']:.2e}"
                  f" -> {hooked['componentwise_error']:.2e}, taken: {case['taken']}")
        else:
            print(f"{framework} {n}^3: skipped or failed: "
                  f"{(plain.get('error') or hooked.get('error') or '')[-300:]}")
        cases.append(case)
    target = next((c for c in cases if c["framework"] == "torch" and c["n"] == 8192
                   and "speedup" in c), None)
    report = {
        "what": "torch.mm / cupy.matmul FP32 (TF32 off) with and without "
                "LD_PRELOAD=libsgemm_preload.so; median of CUDA-event times after warm-up; "
                "errors against the float64 product on the GPU",
        "gpu": gpu, "reps": args.reps, "cases": cases,
        "target": {"torch_8192_speedup_at_least": 2.5, "error_no_larger": True,
                   "met": bool(target and target["speedup"] >= 2.5
                               and target["error_no_larger"])},
    }
    out = args.out or os.path.join(ROOT, "results", gpu_folder(gpu or "unknown"), "preload.json")
    os.makedirs(os.path.dirname(os.path.abspath(out)), exist_ok=True)
    with open(out, "w") as f:
        json.dump(report, f, indent=2)
        f.write("\n")
    print(f"target met: {report['target']['met']}; wrote {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
