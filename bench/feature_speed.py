"""Host time of the feature matrix (CPU): the vectorised feature_matrix against the scalar rows it must equal.

    python bench/feature_speed.py [--calls 1000] [--rounds 5]

A fwd bf16 problem on sm_90 with every candidate of the default rule set (27). Each figure is the median of
--calls single calls; the rounds interleave the two paths, and the report gives every round's medians and the
median of them (a shared machine disturbs single rounds).
"""
from __future__ import annotations

import argparse
import statistics
import time

import numpy as np

from gconv.heuristics.features import feature_matrix, feature_rows
from gconv.runtime.padding import padded_problem
from gconv.runtime.registry import load_arch_spec
from gconv.runtime.selection import candidates
from gconv.schemas import Problem
from gconv.tables import table

PROBLEM = Problem(direction="fwd", dtype="bf16", N=8, G=4, C=24, K=48, Hi=28, Wi=28, Y=3, X=3, pad_h=1, pad_w=1)


def median_us(fn, calls: int) -> float:
    """Median wall time of one call of fn, in microseconds."""
    times = []
    for _ in range(calls):
        started = time.perf_counter()
        fn()
        times.append(time.perf_counter() - started)
    return statistics.median(times) * 1e6


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--calls", type=int, default=1000)
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()
    arch = load_arch_spec("sm_90")
    pool = [c for c in candidates(PROBLEM, "default", "sm_90") if c.entry is not None]
    listed = [(c.entry.config, padded_problem(PROBLEM, c.padding) if c.padding else PROBLEM) for c in pool]
    assert np.allclose(feature_matrix(PROBLEM, listed, arch), feature_rows(PROBLEM, listed, arch), rtol=1e-12, atol=0)
    paths = {"feature_rows (scalar, before)": lambda: feature_rows(PROBLEM, listed, arch),
             "feature_matrix (vectorised)": lambda: feature_matrix(PROBLEM, listed, arch)}
    rounds = {name: [] for name in paths}
    for _ in range(args.rounds):
        for name, fn in paths.items():
            rounds[name].append(median_us(fn, args.calls))
    print(f"{len(listed)} candidates, {PROBLEM.key}; median of {args.calls} calls per round")
    print(table(["path", "median us", "rounds us"],
                [[name, f"{statistics.median(values):.1f}", " ".join(f"{v:.1f}" for v in values)]
                 for name, values in rounds.items()]))
    ratios = [before / after for before, after in zip(*rounds.values())]
    print(f"speed-up: {statistics.median(ratios):.1f}x (median of the rounds' ratios)")


if __name__ == "__main__":
    main()
