"""Host overhead of one gconv call, layer by layer (GPU): where the microseconds of a small problem go.

    python bench/overhead.py [--kernel NAME] [--calls 2000]

Each layer is timed with the host clock over many calls on a problem whose kernel takes a few microseconds, after
a synchronize, so the numbers are what the CPU spends issuing one call.
"""
from __future__ import annotations

import argparse
import time

import torch

from gconv.paths import REPO_ROOT
from gconv.runtime.api import conv_fwd, execute
from gconv.runtime.kernels import load_kernel_module
from gconv.runtime.launch import launch
from gconv.runtime.registry import entries_by_name
from gconv.runtime.selection import forced_choice, select
from gconv.schemas import Problem
from gconv.tables import table


def per_call_us(fn, calls: int) -> float:
    for _ in range(20):
        fn()
    torch.cuda.synchronize()
    started = time.perf_counter()
    for _ in range(calls):
        fn()
    torch.cuda.synchronize()
    return (time.perf_counter() - started) / calls * 1e6


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--kernel", default="fwd_bf16_igemm_m64n64k32_w4_s3_ms_g8_v8_mg1")
    parser.add_argument("--calls", type=int, default=2000)
    args = parser.parse_args()
    problem = Problem(direction="fwd", dtype="bf16", N=1, G=2, C=16, K=16, Hi=8, Wi=8, Y=3, X=3, pad_h=1, pad_w=1)
    x = torch.randn(problem.input_shape, device="cuda", dtype=torch.bfloat16).contiguous(
        memory_format=torch.channels_last)
    w = torch.randn(problem.weight_shape, device="cuda", dtype=torch.bfloat16).contiguous(
        memory_format=torch.channels_last)
    y = torch.empty(problem.output_shape, device="cuda", dtype=torch.bfloat16).contiguous(
        memory_format=torch.channels_last)
    entry = entries_by_name("full")[args.kernel]
    module = load_kernel_module(REPO_ROOT / entry.source)
    choice = forced_choice(args.kernel, problem, "full")
    launch(module, entry.config, problem, x, w, y)
    grid = (4, 2, 1)
    p = problem
    raw_args = [x, w, y, p.N, p.G, p.C, p.K, p.Hi, p.Wi, p.Ho, p.Wo, p.Y, p.X, 1, 1, 1, 1, 1, 1,
                *x.stride(), *w.stride(), *y.stride()]
    rows = [
        ["torch.empty channels_last", per_call_us(
            lambda: torch.empty(problem.output_shape, device="cuda", dtype=torch.bfloat16).contiguous(
                memory_format=torch.channels_last), args.calls)],
        ["torch conv2d (cuDNN)", per_call_us(lambda: torch.nn.functional.conv2d(x, w, padding=1, groups=2),
                                             args.calls)],
        ["triton kernel[grid](...)", per_call_us(
            lambda: module.kernel[grid](*raw_args, num_warps=entry.config.num_warps,
                                        num_stages=entry.config.num_stages), args.calls)],
        ["runtime.launch", per_call_us(lambda: launch(module, entry.config, problem, x, w, y), args.calls)],
        ["runtime.execute(choice=)", per_call_us(lambda: execute(problem, x, w, choice=choice), args.calls)],
        ["select (cached)", per_call_us(lambda: select(problem), args.calls)],
        ["Problem(...) construction", per_call_us(lambda: Problem(**problem.model_dump()), args.calls)],
        ["gconv.conv_fwd(kernel=)", per_call_us(lambda: conv_fwd(x, w, padding=1, groups=2, kernel=args.kernel,
                                                                 rule_set="full"), args.calls)],
        ["gconv.conv_fwd (selected)", per_call_us(lambda: conv_fwd(x, w, padding=1, groups=2), args.calls)],
    ]
    import triton

    print(f"{torch.cuda.get_device_name()}, torch {torch.__version__}, triton {triton.__version__}; "
          f"{args.calls} calls each")
    print(table(["layer", "host us per call"], [[name, f"{us:.1f}"] for name, us in rows]))


if __name__ == "__main__":
    main()
