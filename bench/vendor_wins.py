"""Where cuDNN still beats every gconv kernel: a kernel gap, not a selection loss (bench/cv_losses.py has those).

    python -m bench.vendor_wins --direction fwd --dtype bf16 [--measurements FILE ...] [--worst 10]
        [--tile 128x64] [--deep 1024] [--bucket "C/G>16" "under 1 wave" deep --problems-out FILE]

Each problem with cuDNN rows and gconv rows goes to a bucket: its shape class, whether its output tiles fill a wave of
sm_90's SMs (tiles = G x ceil(M / tile M) x ceil(N / tile N) of the per-group GEMM view, Problem.gemm), and whether its
reduction is deep (GEMM-K >= --deep). Per bucket: how many problems the best cuDNN mode beats the fastest measured
gconv kernel on, the geometric mean of fastest gconv / best cuDNN over all its problems and over those cuDNN wins.
A bucket where cuDNN wins often and by much wants a kernel gconv lacks (e.g. a split reduction where few tiles leave
SMs idle). The measurements default to the shipped model's training files (heuristics/models/sm_90/DIRECTION_DTYPE/
metadata.json data_files), never a held-out one.

--problems-out writes the problems of one bucket (all of them, cuDNN's wins or not) as a problems CSV: an A/B's
problems for the kernel the bucket lacks, drawn from training files only.
"""
from __future__ import annotations

import argparse
import math
import sys
from pathlib import Path
from typing import NamedTuple

from gconv.bench.problems import shape_class, write_problems
from gconv.bench.summary import geomean
from gconv.heuristics.dataset import ProblemMeasurements, group_by_target, read_measurements
from gconv.heuristics.model import shipped_data_files
from gconv.runtime.registry import load_arch_spec
from gconv.schemas import Problem
from gconv.tables import table


class Gap(NamedTuple):
    """One problem's fastest gconv kernel against its best cuDNN mode."""

    problem: Problem
    kernel: str
    kernel_ms: float
    cudnn_ms: float

    @property
    def ratio(self) -> float:
        """Fastest gconv time / best cuDNN time: above 1 where cuDNN wins."""
        return self.kernel_ms / self.cudnn_ms


def output_tiles(problem: Problem, tile_m: int, tile_n: int) -> int:
    """The output tiles of tile_m x tile_n over every group's GEMM view."""
    gemm = problem.gemm
    return problem.G * math.ceil(gemm.M / tile_m) * math.ceil(gemm.N / tile_n)


def bucket(problem: Problem, sm_count: int, tile: tuple[int, int], deep: int) -> tuple[str, str, str]:
    """(shape class, 'under 1 wave' or '1+ waves', 'deep' or 'shallow')."""
    waves = "under 1 wave" if output_tiles(problem, *tile) < sm_count else "1+ waves"
    return shape_class(problem), waves, "deep" if problem.gemm.K >= deep else "shallow"


def gaps(measured: list[ProblemMeasurements]) -> list[Gap]:
    """The problems with both cuDNN and gconv rows, in order."""
    found = []
    for m in measured:
        if m.cudnn_ms is not None and m.kernels:
            kernel = min(m.kernels, key=lambda k: (m.kernels[k], k))
            found.append(Gap(m.problem, kernel, m.kernels[kernel], m.cudnn_ms))
    return found


def summary(found: list[Gap], sm_count: int, tile: tuple[int, int], deep: int) -> list[list[object]]:
    """A row per bucket (sorted): class, waves, depth, problems, cuDNN wins, geomean gconv / cuDNN over all and over
    the wins ('-' without any)."""
    buckets: dict[tuple[str, str, str], list[Gap]] = {}
    for gap in found:
        buckets.setdefault(bucket(gap.problem, sm_count, tile, deep), []).append(gap)
    rows = []
    for key in sorted(buckets):
        ratios = [gap.ratio for gap in buckets[key]]
        wins = [r for r in ratios if r > 1]
        rows.append([*key, len(ratios), len(wins), f"{geomean(ratios):.2f}", f"{geomean(wins):.2f}" if wins else "-"])
    return rows


def parse_tile(text: str) -> tuple[int, int]:
    m, _, n = text.partition("x")
    if not (m.isdigit() and n.isdigit() and int(m) > 0 and int(n) > 0):
        raise argparse.ArgumentTypeError(f"--tile wants MxN with positive M and N (e.g. 128x64), got {text!r}")
    return int(m), int(n)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--direction", required=True, choices=["fwd", "bwd_data", "bwd_weight"])
    parser.add_argument("--dtype", required=True, choices=["bf16", "fp16"])
    parser.add_argument("--measurements", nargs="+", type=Path,
                        help="sweep CSVs (default: the shipped model's training files)")
    parser.add_argument("--tile", type=parse_tile, default=(128, 64), help="the output tile, MxN (default 128x64)")
    parser.add_argument("--deep", type=int, default=1024, help="GEMM-K from which a reduction is deep (default 1024)")
    parser.add_argument("--worst", type=int, default=0, help="also list the N problems cuDNN wins by most")
    parser.add_argument("--bucket", nargs=3, metavar=("CLASS", "WAVES", "REDUCTION"),
                        help="with --problems-out: the bucket whose problems to write, as the table names it")
    parser.add_argument("--problems-out", type=Path, help="write the --bucket's problems to this CSV")
    args = parser.parse_args(argv)
    if (args.bucket is None) != (args.problems_out is None):
        parser.error("--bucket and --problems-out go together")
    try:
        measurements = read_measurements(args.measurements or shipped_data_files(args.direction, args.dtype))
    except (FileNotFoundError, ValueError) as error:
        parser.error(str(error))
    found = gaps(group_by_target(measurements).get((args.direction, args.dtype), []))
    if not found:
        parser.error(f"no {args.direction} {args.dtype} problem has both cuDNN and gconv rows")
    sm_count = load_arch_spec("sm_90").sm_count
    wins = sum(gap.ratio > 1 for gap in found)
    print(f"{args.direction}/{args.dtype}: cuDNN beats every gconv kernel on {wins} of {len(found)} problems "
          f"(output tiles of {args.tile[0]}x{args.tile[1]} against {sm_count} SMs; deep: GEMM-K >= {args.deep})")
    print(table(["class", "waves", "reduction", "problems", "cuDNN wins", "gconv / cuDNN", "on its wins"],
                summary(found, sm_count, args.tile, args.deep)))
    if args.worst:
        worst = sorted((gap for gap in found if gap.ratio > 1), key=lambda gap: -gap.ratio)[:args.worst]
        print(table(["problem", "tiles", "GEMM-K", "fastest gconv kernel", "gconv / cuDNN", "cuDNN ms"],
                    [[gap.problem.key, output_tiles(gap.problem, *args.tile), gap.problem.gemm.K, gap.kernel,
                      f"{gap.ratio:.2f}", f"{gap.cudnn_ms:.4f}"] for gap in worst]))
    if args.problems_out:
        wanted = tuple(args.bucket)
        chosen = [gap.problem for gap in found if bucket(gap.problem, sm_count, args.tile, args.deep) == wanted]
        if not chosen:
            parser.error(f"no problem in the bucket {' / '.join(args.bucket)}")
        write_problems(args.problems_out, chosen, f"python -m bench.vendor_wins --direction {args.direction} --dtype "
                       f"{args.dtype} --bucket {' '.join(repr(b) for b in args.bucket)} (training files only)")
        print(f"wrote {len(chosen)} problems to {args.problems_out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
