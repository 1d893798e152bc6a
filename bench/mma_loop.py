"""How many instructions one step of a kernel's tensor-core loop issues, compiled for sm_90 on the CPU as Triton's JIT
compiles it for a problem (bench/ptxas_usage.py jit_specialisation): the integer work beside the MMAs, where a loop
of eight warps is issue-bound (bench/results/tap-walk/). --choice renders a twin (generator/render.py CHOICES).

    python -m bench.mma_loop KERNEL PROBLEM_KEY [--choice NAME=VALUE ...] [--arch sm_90]
"""
from __future__ import annotations

import argparse
import tempfile
from pathlib import Path

from gconv.generator.render import Provenance, render
from gconv.schemas import KernelConfig, Problem

from .choice_args import parse_choice
from .ptxas_usage import mma_loop_ops, specialised_cubin


def mma_loop(kernel: str, problem: Problem, choices: dict[str, str], arch: str = "sm_90") -> dict[str, int]:
    """The opcodes of kernel's tensor-core loop (rendered with choices) compiled for problem, most frequent first."""
    config = KernelConfig.from_name(kernel)
    with tempfile.TemporaryDirectory() as folder:
        source = Path(folder) / f"{kernel}.py"
        source.write_text(render(config, Provenance(("bench/mma_loop.py",), "mma_loop", (), "twin"), choices))
        return dict(mma_loop_ops(specialised_cubin(str(source), problem, arch)).most_common())


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("kernel")
    parser.add_argument("problem",
                        help="a problem key, e.g. bwd_data_bf16_n8_g4_c256_k256_hi64_wi64_y3_x3_s1x1_p1x1_d1x1")
    parser.add_argument("--choice", action="append", default=[], metavar="NAME=VALUE")
    parser.add_argument("--arch", default="sm_90")
    args = parser.parse_args(argv)
    choices = {key: value for text in args.choice for key, value in parse_choice(text).items()}
    try:
        ops = mma_loop(args.kernel, Problem.from_key(args.problem), choices, args.arch)
    except ValueError as error:
        parser.error(str(error))
    print(f"{args.kernel} {' '.join(args.choice)}: {sum(ops.values())} instructions a step; "
          + ", ".join(f"{op} {count}" for op, count in ops.items()))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
