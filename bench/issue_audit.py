"""Which winning kernels are bound by instruction issue: the kernels that are fastest on the most problems whose
roofline time is >= 20 us (issue 4's roofline target; implicit GEMMs, the kernels with tensor cores), each compiled for sm_90 on the CPU for its median winning
problem (bench/mma_loop.py), with the issue work of one step of its tensor-core loop beside that step's MMAs.

    python -m bench.issue_audit [--top N] [--all-sweeps | FILES ...] [--workers 2] [--choice NAME=VALUE ...]

Per kernel: the problems it wins, the geomean % of roofline it reaches there, the instructions of one loop step (one
thread's), its tensor-core instructions, the issue cycles of a step (warps x instructions / 4 schedulers, a lower
bound: one instruction a cycle per scheduler), the MMA cycles of a step at sm_90's dense rate (block_m x block_n x
block_k x 2 FLOP at MMA_FLOP_PER_CYCLE an SM; warp-level HMMA runs slower than HGMMA, so for tiles of 32 rows or fewer
this under-states the MMA time) and their ratio: above 1 the loop cannot keep the tensor cores busy even with
nothing else on the SM, and its integer work (addresses, masks, index walks) is what to cut, as `tap_walk` did
(bench/results/tap-walk/). A problem that is memory-bound is bound by issue too when the loop's issue time exceeds
the time its loads take; the ratio does not show that, the instruction count does. With --choice, each loop is also
compiled as its twin with those template choices (generator/render.py CHOICES), in a last column: which winners a
choice reaches, and by how much, before its device A/B.
"""
from __future__ import annotations

import argparse
import math
import multiprocessing
import sys
from collections import Counter, defaultdict
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from pathlib import Path

from gconv.schemas import Algorithm, KernelConfig, Problem
from gconv.tables import table

from .choice_args import parse_choice
from .profile import best_per_problem
from .summarise_sweeps import DEVICE_SETUP, all_sweep_files, sweep_rows

# Dense bf16 / fp16 tensor-core FLOP a cycle of one sm_90 SM: 989 TFLOP/s over 132 SMs at 1.98 GHz.
MMA_FLOP_PER_CYCLE = 3800
SCHEDULERS = 4  # warp schedulers of an SM, each issuing one instruction a cycle


@dataclass(frozen=True)
class Winner:
    """A kernel fastest on some problems (roofline time >= 20 us): how many, their geomean % of roofline, and the
    problem of median time among them (the one its loop is compiled for)."""
    kernel: str
    wins: int
    roofline_pct: float
    problem: str


def winners(rows: list[dict], top: int) -> list[Winner]:
    """The top implicit-GEMM kernels by problems won (ties: by name), over the problems whose roofline time is >= 20
    us (the direct and depthwise kernels have no tensor-core loop)."""
    won: dict[str, list[tuple[float, str, float]]] = defaultdict(list)
    for key, best in best_per_problem(rows).items():
        kernel = best.row["kernel"]
        if best.roofline_pct is not None and KernelConfig.from_name(kernel).algorithm is Algorithm.igemm:
            won[kernel].append((best.ms, key, best.roofline_pct))
    ranked = sorted(won.items(), key=lambda item: (-len(item[1]), item[0]))[:top]
    result = []
    for kernel, problems in ranked:
        problems.sort()
        geomean = math.exp(sum(math.log(pct) for _, _, pct in problems) / len(problems))
        result.append(Winner(kernel, len(problems), geomean, problems[len(problems) // 2][1]))
    return result


def issue_estimate(config: KernelConfig, ops: dict[str, int]) -> dict[str, float]:
    """One loop step's instructions (a thread's), tensor-core instructions, issue cycles, MMA cycles and their ratio."""
    instructions = sum(ops.values())
    issue = config.num_warps * instructions / SCHEDULERS
    mma = config.block_m * config.block_n * config.block_k * 2 / MMA_FLOP_PER_CYCLE
    return {"instructions": instructions, "mma_instructions": ops.get("HGMMA", 0) + ops.get("HMMA", 0),
            "issue_cycles": issue, "mma_cycles": mma, "ratio": issue / mma}


def loop_ops(winner: Winner, choices: dict[str, str] | None = None) -> dict[str, int]:
    """The winner's loop opcodes (rendered with choices: a twin), compiled for its median problem (a worker process:
    Triton compiles there)."""
    from .mma_loop import mma_loop

    return mma_loop(winner.kernel, Problem.from_key(winner.problem), choices or {})


def audit_table(found: list[Winner], ops: list[dict[str, int]], twin_ops: list[dict[str, int]] | None = None,
                choice: str = "") -> str:
    """The audit, one row a winner; with twin_ops, a last column of the twins' instructions a step (choice names
    them)."""
    body = []
    for index, (winner, counts) in enumerate(zip(found, ops)):
        estimate = issue_estimate(KernelConfig.from_name(winner.kernel), counts)
        common = ", ".join(f"{op} {count}" for op, count in Counter(counts).most_common(4))
        body.append([winner.wins, winner.kernel, f"{winner.roofline_pct:.1f}%", estimate["instructions"],
                     estimate["mma_instructions"], f"{estimate['issue_cycles']:.0f}", f"{estimate['mma_cycles']:.0f}",
                     f"{estimate['ratio']:.2f}", common])
        if twin_ops is not None:
            twin = sum(twin_ops[index].values())
            body[-1].append("same" if twin_ops[index] == counts else twin)
    header = ["wins", "kernel", "% roofline", "instr/step", "MMA instr", "issue cyc", "MMA cyc", "issue/MMA",
              "most issued"]
    return table(header + ([f"instr/step with {choice}"] if twin_ops is not None else []), body)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("files", nargs="*", type=Path)
    parser.add_argument("--all-sweeps", action="store_true", help="every file of bench/device_setup.sh's ALL_SWEEPS")
    parser.add_argument("--top", type=int, default=20, help="how many winning kernels (default 20)")
    parser.add_argument("--workers", type=int, default=2, help="compiling processes (default 2)")
    parser.add_argument("--choice", action="append", default=[], metavar="NAME=VALUE",
                        help="also compile each loop as its twin with this template choice")
    args = parser.parse_args(argv)
    choices = {key: value for text in args.choice for key, value in parse_choice(text).items()}
    if args.all_sweeps == bool(args.files):
        parser.error("give sweep CSVs or --all-sweeps, not both or neither")
    if args.top < 1:
        parser.error("--top takes at least 1")
    files = all_sweep_files(DEVICE_SETUP.read_text()) if args.all_sweeps else args.files
    for path in files:
        if not path.exists():
            parser.error(f"{path} does not exist")
    found = winners(sweep_rows(files), args.top)
    print(f"compiling the loops of {len(found)} kernels for sm_90 ...", file=sys.stderr)
    with ProcessPoolExecutor(args.workers, mp_context=multiprocessing.get_context("spawn")) as pool:
        ops = list(pool.map(loop_ops, found))
        twin_ops = list(pool.map(loop_ops, found, [choices] * len(found))) if choices else None
    print(audit_table(found, ops, twin_ops, " ".join(args.choice)))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
