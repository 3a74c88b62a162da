#!/usr/bin/env python3
"""Where a call's host time goes: microseconds per call, by wall clock, of torch.mm, the ops and
sgemm_ladder.matmul against a bare ctypes call of the C ABI with its arguments fixed (the floor:
ctypes and the library's own host work), then the Python pieces of one call timed alone.

    SGEMM_LADDER_LIBRARY=build/libsgemm_ladder.so python3 python/host_overhead.py [--json PATH]

Each figure is the median over --reps blocks of --calls calls after warm-up, the time to queue
them (no synchronisation inside a block). On a host-bound shape (the default 256 x 256 x 16:
a few microseconds of GPU work) that is host time; on 1024^3 it is the larger of host and
GPU time, which is what a loop of products runs at. Needs torch with CUDA and the library.
"""
import argparse
import contextlib
import ctypes
import json
import os
import statistics
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import torch  # noqa: E402

import sgemm_ladder  # noqa: E402
import sgemm_ladder.torch as st  # noqa: E402
from sgemm_ladder import _core, _library, _layout as L  # noqa: E402


def per_call_us(fn, calls, reps):
    for _ in range(calls // 10 + 3):
        fn()
    torch.cuda.synchronize()
    times = []
    for _ in range(reps):
        t = time.perf_counter()
        for _ in range(calls):
            fn()
        times.append((time.perf_counter() - t) / calls * 1e6)
        torch.cuda.synchronize()  # the next block starts on an idle GPU
    return round(statistics.median(times), 2)


def methods(a, b):
    """The calls compared, each returning a product of a and b."""
    lib = sgemm_ladder._load()
    m, k = a.shape
    n = b.shape[1]
    c = torch.empty(m, n, device=a.device)
    stream = torch.cuda.current_stream().cuda_stream
    pa, pb, pc = a.data_ptr(), b.data_ptr(), c.data_ptr()
    args = (L.ROW_MAJOR, L.OP_N, L.OP_N, m, n, k, 1.0, pa, k, pb, n, 0.0, pc, n, stream)
    _library.set_pointer_checks(lib, _library.CALLER_VOUCHES)
    plan = (L.ROW_MAJOR, L.OP_N, k, L.OP_N, n, n)
    return {
        "ctypes sgemm_gemm, prototyped (fixed args)": lambda: lib.gemm(*args),
        "ctypes sgemm_gemm, unprototyped (_launch)": lambda: _core._launch(
            "probe", _library.CALLER_VOUCHES, plan, m, n, k, 1.0, pa, 0, pb, 0, 0.0, pc, 0, 0,
            stream),
        "sgemm_ladder.matmul": lambda: sgemm_ladder.matmul(a, b),
        "torch.ops.sgemm_ladder.mm": lambda: torch.ops.sgemm_ladder.mm(a, b),
        "a @ b under fp32_matmul()": lambda: a @ b,  # timed inside the mode
        "torch.mm": lambda: torch.mm(a, b),
    }


def pieces(a, b):
    """The Python pieces of one sgemm_ladder.matmul, each alone (none of them launches)."""
    m, k = a.shape
    n = b.shape[1]
    arr, index = _core._describe(a, "a")[0], a.get_device()
    get_device = torch._C._cuda_getDevice
    raw_stream = torch._C._cuda_getCurrentRawStream

    def reads():
        return (a.dtype, a.is_cuda, a.get_device(), a.shape, a.stride(), a.data_ptr())
    return {
        "general path: _describe(a)": lambda: _core._describe(a, "a"),
        "general path: _device_and_stream": lambda: _core._device_and_stream((arr,) * 3, None),
        "general path: L.plan": lambda: L.plan(m, n, k, (k, 1), (n, 1), (n, 1)),
        "fast path: one tensor's reads": reads,
        "fast path: 2 x L.row_major_op": lambda: (L.row_major_op(m, k, k, 1),
                                                   L.row_major_op(k, n, n, 1)),
        "current device (_cuda_getDevice)": get_device,
        "current stream (_cuda_getCurrentRawStream)": lambda: raw_stream(index),
        "torch.empty(shape, dtype, device=a.device)": lambda: torch.empty(
            (m, n), dtype=torch.float32, device=a.device),
        "a.new_empty(shape)": lambda: a.new_empty((m, n)),
        "torch.is_grad_enabled + requires_grad x2": lambda: (
            torch.is_grad_enabled() and (a.requires_grad or b.requires_grad)),
        "torch.compiler.is_compiling()": torch.compiler.is_compiling,
        "ctypes.c_void_p(ptr)": lambda: ctypes.c_void_p(a.data_ptr()),
    }


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--shapes", default="256x256x16,1024x1024x1024", help="MxNxK,...")
    p.add_argument("--calls", type=int, default=2000)
    p.add_argument("--reps", type=int, default=7)
    p.add_argument("--json", help="also write the figures here")
    args = p.parse_args()
    torch.backends.cuda.matmul.allow_tf32 = False
    device = torch.device("cuda", torch.cuda.current_device())
    out = {"context": {"gpu": torch.cuda.get_device_name(device), "torch": torch.__version__,
                       "python": sys.version.split()[0], "library": sgemm_ladder.library_path(),
                       "calls": args.calls, "reps": args.reps},
           "us_per_call": {}, "pieces_us": {}}
    first = None
    for shape in args.shapes.split(","):
        m, n, k = (int(x) for x in shape.split("x"))
        a, b = torch.rand(m, k, device=device), torch.rand(k, n, device=device)
        first = first or (a, b)
        row = out["us_per_call"][shape] = {}
        print(f"\n{shape}: microseconds per call (median of {args.reps} blocks of {args.calls})")
        for name, fn in methods(a, b).items():
            with st.fp32_matmul() if "fp32_matmul" in name else contextlib.nullcontext():
                row[name] = per_call_us(fn, args.calls, args.reps)
            print(f"  {name:46s} {row[name]:8.2f}", flush=True)
    print(f"\nPython pieces at {args.shapes.split(',')[0]}, each alone")
    for name, fn in pieces(*first).items():
        out["pieces_us"][name] = per_call_us(fn, args.calls, args.reps)
        print(f"  {name:46s} {out['pieces_us'][name]:8.2f}", flush=True)
    if args.json:
        with open(args.json, "w") as f:
            json.dump(out, f, indent=1)
            f.write("\n")
        print(f"wrote {args.json}")


if __name__ == "__main__":
    main()
