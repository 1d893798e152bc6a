"""Measurements of one kernel on one layer that disagree between dtypes, found and (--drop) dropped for re-measuring.

    python bench/dtype_twins.py bench/results/fp16/heldout-default-fp16.csv \
        --twins bench/results/baseline-default-bf16-gputime.csv bench/results/depthwise-family/depthwise-default-bf16.csv \
        [--factor 2] [--drop]

An instance's fp16 and bf16 kernels are one source with the dtype swapped: compiled for sm_90 they have the same
registers and the same memory instructions (bench/ptxas_usage.py), so on one layer they run alike (the held-out files:
fp16 / bf16 time 1.003 in geomean, median 0.999, over 2,369 pairs). A pair further apart than --factor is a
measurement that went wrong in one of the two, and nothing says which: --drop removes both rows (a resumed sweep
measures them again), whichever way the ratio points. The vendor rows are left out: cuDNN chooses its algorithms per
dtype, and its fp16 and bf16 times differ for real.
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import NamedTuple

from gconv.bench.rows import CUDNN_MODES, existing_rows
from gconv.heuristics.model import as_dtype
from gconv.schemas import Problem
from gconv.tables import table

sys.path.insert(0, str(Path(__file__).parent))
from drop_rows import drop_rows_if  # noqa: E402

Key = tuple[str, str]
COMMON_DTYPE = "fp16"  # both files' rows are named in it to find the pairs


def timed_rows(path: Path, dtype: str) -> dict[Key, tuple[Key, float]]:
    """(problem, kernel) named in dtype (Problem.with_dtype, heuristics.model.as_dtype) -> the row's own (problem,
    kernel) and time, for the "ok" rows of the gconv instances (no vendor rows)."""
    out = {}
    for row in existing_rows(path):
        if row["status"] != "ok" or row["kernel"] in CUDNN_MODES:
            continue
        common = (Problem.from_key(row["problem"]).with_dtype(dtype).key, as_dtype(row["kernel"], dtype))
        out[common] = ((row["problem"], row["kernel"]), float(row["time_ms"]))
    return out


class Disagreement(NamedTuple):
    """A row of the checked file and its dtype twin, further apart than the factor."""
    ratio: float  # the row's time over its twin's
    key: Key  # the row's (problem, kernel)
    twin: Path  # the file the twin is in
    twin_key: Key
    ms: float
    twin_ms: float


def disagreements(path: Path, twins: list[Path], factor: float) -> list[Disagreement]:
    """Every row of path and its dtype twin in one of twins whose times differ by more than factor, furthest first."""
    if factor <= 1:
        raise ValueError(f"--factor must be above 1, got {factor}")
    rows = timed_rows(path, COMMON_DTYPE)
    found = []
    for twin in twins:
        for common, (twin_key, twin_ms) in timed_rows(twin, COMMON_DTYPE).items():
            if common not in rows:
                continue
            key, ms = rows[common]
            ratio = ms / twin_ms
            if ratio > factor or ratio < 1 / factor:
                found.append(Disagreement(ratio, key, twin, twin_key, ms, twin_ms))
    return sorted(found, key=lambda d: -max(d.ratio, 1 / d.ratio))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("path", type=Path, help="a sweep CSV of one dtype")
    parser.add_argument("--twins", nargs="+", type=Path, required=True, help="sweep CSVs of the other dtype")
    parser.add_argument("--factor", type=float, default=2.0, help="how far apart a pair may be (default 2)")
    parser.add_argument("--drop", action="store_true", help="drop both rows of every such pair")
    args = parser.parse_args(argv)
    found = disagreements(args.path, args.twins, args.factor)
    print(table(["ratio", "problem", "kernel", "ms", "twin ms", "twin file"],
                [[f"{d.ratio:.2f}", d.key[0], d.key[1], f"{d.ms:.4f}", f"{d.twin_ms:.4f}", str(d.twin)] for d in found]))
    print(f"{len(found)} pairs apart by more than {args.factor:g}x")
    if args.drop and found:
        doomed = {args.path: {d.key for d in found}}
        for d in found:
            doomed.setdefault(d.twin, set()).add(d.twin_key)
        for path, keys in doomed.items():
            kept, dropped = drop_rows_if(path, lambda row: (row["problem"], row["kernel"]) in keys)
            print(f"{path}: dropped {dropped} rows, kept {kept}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
