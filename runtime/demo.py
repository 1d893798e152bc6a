"""`gconv demo`: select and run a few grouped convolutions per direction, check them against PyTorch, print a table.

On a GPU: bf16 problems of real-network size, timed with CUDA events. Without one: fp32 and fp16 problems small
enough for the Triton interpreter (timings there say nothing about performance).
"""
from __future__ import annotations

import time

import torch

from gconv.schemas import Direction, DType, Problem
from gconv.tables import table

from .api import choose, execute
from .reference import RELATIVE_ERROR_BOUND, INTERPRETER_ERROR_BOUND, random_operands, reference, relative_error

GPU_PROBLEMS = [
    dict(N=32, G=2, C=112, K=112, Hi=112, Wi=112, Y=3, X=3, stride_h=2, stride_w=2, pad_h=1, pad_w=1),
    dict(N=32, G=32, C=4, K=4, Hi=56, Wi=56, Y=3, X=3, pad_h=1, pad_w=1),
    dict(N=32, G=256, C=1, K=1, Hi=28, Wi=28, Y=3, X=3, pad_h=1, pad_w=1),
    dict(N=8, G=8, C=64, K=64, Hi=28, Wi=28, Y=1, X=1),
]
CPU_PROBLEMS = [
    dict(N=2, G=2, C=8, K=8, Hi=10, Wi=10, Y=3, X=3, stride_h=2, stride_w=2, pad_h=1, pad_w=1),
    dict(N=2, G=4, C=3, K=5, Hi=9, Wi=9, Y=3, X=3, pad_h=1, pad_w=1, dil_h=2, dil_w=2),
    dict(N=2, G=16, C=1, K=1, Hi=8, Wi=8, Y=3, X=3, pad_h=1, pad_w=1),
]


def describe(problem: Problem) -> str:
    p = problem
    extra = "".join([f" s{p.stride_h}" if p.stride_h > 1 else "", f" d{p.dil_h}" if p.dil_h > 1 else ""])
    return f"N{p.N} G{p.G} C{p.C} K{p.K} {p.Hi}x{p.Wi} {p.Y}x{p.X}{extra} {p.dtype.value}"


def timed_run(problem: Problem, a, b, choice, repeats: int):
    """(result, median milliseconds of GPU time) on the GPU -- bench/timing.py's median_ms: warm-up, then repeats queued
    behind a GPU sleep, so host launch cost is not counted -- or (result, None) elsewhere."""
    out = execute(problem, a, b, choice=choice)
    if a.device.type != "cuda":
        return out, None
    from gconv.bench.timing import median_ms

    return out, median_ms(lambda _: execute(problem, a, b, choice=choice), repeats=repeats)


def demo() -> int:
    on_gpu = torch.cuda.is_available()
    device = "cuda" if on_gpu else "cpu"
    shapes, dtypes = (GPU_PROBLEMS, [DType.bf16]) if on_gpu else (CPU_PROBLEMS, [DType.fp32, DType.fp16])
    where = torch.cuda.get_device_name() if on_gpu else "CPU, Triton interpreter (timings not meaningful)"
    print(f"gconv demo on {where}; rule set 'default'; no trained models yet: the analytic fallback rule selects")
    rows, failures = [], 0
    for dtype in dtypes:
        bounds = RELATIVE_ERROR_BOUND if on_gpu else INTERPRETER_ERROR_BOUND
        for shape in shapes:
            for direction in Direction:
                problem = Problem(direction=direction, dtype=dtype, **shape)
                a, b = random_operands(problem, device=device)
                started = time.perf_counter()
                choice = choose(problem, a.device, None, None)
                out, ms = timed_run(problem, a, b, choice, repeats=10)
                wall = (time.perf_counter() - started) * 1e3
                error = relative_error(out, reference(problem, a, b))
                ok = error <= bounds[dtype]
                failures += not ok
                why = choice.source + (f", {choice.padding}" if choice.padding else "")
                timing = f"{ms:.3f} ms" if ms is not None else f"{wall:.0f} ms wall"
                tflops = f"{problem.flops / ms / 1e9:.1f}" if ms else "-"
                rows.append([direction.value, describe(problem), choice.name, why, timing, tflops, f"{error:.2e}",
                             "ok" if ok else "FAIL"])
                print(f"  {direction.value:<10} {describe(problem)}: {choice.name} ({error:.1e})", flush=True)
    print()
    print(table(["direction", "problem", "kernel", "why", "time", "TFLOP/s", "max rel. error", "check"], rows))
    print(f"\n{len(rows) - failures}/{len(rows)} results match PyTorch's float64 reference")
    return 1 if failures else 0
