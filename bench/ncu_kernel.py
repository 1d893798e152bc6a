"""Launch one registry kernel on one problem a few times, for a profiler to attach (Nsight Compute on the device):

    ncu --launch-skip 2 --launch-count 1 --section SpeedOfLight ... \
        python -m bench.ncu_kernel --kernel NAME --problem PROBLEM_KEY [--rule-set default] [--launches 4]

PROBLEM_KEY is a sweep row's problem column (e.g. fwd_bf16_n32_g16_c24_k24_hi128_wi128_y3_x3_s1x1_p1x1_d1x1). The
first launch compiles (Triton's JIT) and warms up; no timing or checking here (the sweep and bench/verify_device.py
do those).
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
from gconv.schemas import Problem


def problem_of(key: str) -> Problem:
    """Problem.from_key, with SystemExit for a string that is not a key."""
    try:
        return Problem.from_key(key)
    except ValueError as error:
        raise SystemExit(str(error)) from None


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--kernel", required=True)
    parser.add_argument("--problem", required=True, help="a sweep row's problem key")
    parser.add_argument("--rule-set", default="default")
    parser.add_argument("--launches", type=int, default=4)
    args = parser.parse_args(argv)
    problem = problem_of(args.problem)
    entry = entries_by_name(args.rule_set).get(args.kernel)
    if entry is None:
        raise SystemExit(f"no kernel {args.kernel!r} in rule set {args.rule_set!r}")
    reason = unsupported_reason(entry.config, problem)
    if reason is not None:
        raise SystemExit(f"{args.kernel} does not run {args.problem}: {reason}")
    module = load_kernel_module(REPO_ROOT / entry.source)
    a, b = random_operands(problem, seed=0, device="cuda")
    out = poisoned_output(problem, device="cuda")
    for _ in range(args.launches):
        run(module, entry.config, problem, a, b, out)
    torch.cuda.synchronize()


if __name__ == "__main__":
    main()
