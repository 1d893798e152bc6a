"""Launch one registry kernel, or the vendor path, on one problem a few times, for a profiler to attach (Nsight
Compute on the device):

    ncu --profile-from-start off --section SpeedOfLight ... \
        python -m bench.ncu_kernel --kernel NAME --problem PROBLEM_KEY [--rule-set default] [--launches 3]

PROBLEM_KEY is a sweep row's problem column (e.g. fwd_bf16_n32_g16_c24_k24_hi128_wi128_y3_x3_s1x1_p1x1_d1x1); NAME
`cudnn` is PyTorch's convolution (runtime/vendor.py), whose kernels a profiler then names. The first launch compiles
(Triton's JIT) or lets cuDNN choose its algorithm, and warms up; only the last launch runs between
cudaProfilerStart and cudaProfilerStop, so `--profile-from-start off` profiles exactly its kernels (the vendor path
may launch several). No timing or checking here (the sweep and bench/verify_device.py do those).
"""
from __future__ import annotations

import argparse

import torch

from gconv.paths import REPO_ROOT
from gconv.runtime.kernels import load_kernel_module
from gconv.runtime.launch import run
from gconv.runtime.reference import poisoned_output, random_operands
from gconv.runtime.registry import entries_by_name
from gconv.runtime.support import unsupported_reason
from gconv.runtime.vendor import vendor_run
from gconv.schemas import Problem


VENDOR = "cudnn"


def problem_of(key: str) -> Problem:
    """Problem.from_key, with SystemExit for a string that is not a key."""
    try:
        return Problem.from_key(key)
    except ValueError as error:
        raise SystemExit(str(error)) from None


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--kernel", required=True, help=f"a registry kernel's name, or {VENDOR!r}: the vendor path")
    parser.add_argument("--problem", required=True, help="a sweep row's problem key")
    parser.add_argument("--rule-set", default="default")
    parser.add_argument("--launches", type=int, default=3, help="the last one is profiled")
    args = parser.parse_args(argv)
    problem = problem_of(args.problem)
    launch = vendor_launch(problem) if args.kernel == VENDOR else registry_launch(args.kernel, args.rule_set, problem)
    a, b = random_operands(problem, seed=0, device="cuda")
    out = poisoned_output(problem, device="cuda")
    for launched in range(args.launches):
        if launched == args.launches - 1:
            torch.cuda.synchronize()
            torch.cuda.profiler.start()
        launch(a, b, out)
    torch.cuda.synchronize()
    torch.cuda.profiler.stop()


def vendor_launch(problem: Problem):
    """A function (a, b, out) that runs the vendor path on problem (its result is a new tensor; out is unused)."""
    return lambda a, b, out: vendor_run(problem, a, b)


def registry_launch(kernel: str, rule_set: str, problem: Problem):
    """A function (a, b, out) that runs kernel of rule_set on problem; SystemExit for a kernel the set lacks or one
    that does not run problem."""
    entry = entries_by_name(rule_set).get(kernel)
    if entry is None:
        raise SystemExit(f"no kernel {kernel!r} in rule set {rule_set!r}")
    reason = unsupported_reason(entry.config, problem)
    if reason is not None:
        raise SystemExit(f"{kernel} does not run {problem.key}: {reason}")
    module = load_kernel_module(REPO_ROOT / entry.source)
    return lambda a, b, out: run(module, entry.config, problem, a, b, out)


if __name__ == "__main__":
    main()
