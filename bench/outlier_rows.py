"""Rows a sweep most likely mistimed: on a problem whose fastest gconv row takes under --max-best-us, a kernel timed
over --ratio times the median (and the fastest) of its family's rows, a family being the kernels of one algorithm
with the same filter, multiplier, channels a group, sliding rows and split count (tiles, warps, stages and vectors
vary within it). Such a row is seldom a problem's best, but it is what a selector that predicts its family's speed
meets as its pick: e.g. `fwd_bf16_depthwise_t4x8c32_f3_m1_w2_v8` at 0.145 ms on
`fwd_bf16_n1_g64_c1_k1_hi8_wi8_y3_x3_s1x1_p2x2_d2x2`, where its siblings take 0.004-0.005 ms, the second-worst fwd CV
pick of session 56. Only a new timing tells a glitch from a real cliff: write the pairs, then

    python -m bench.outlier_rows --out bench/problems/outliers.pairs [--ratio 10] [--max-best-us 20] [--sweeps ...]
    python -m bench.focus_sweep gather --name outliers --remeasure-pairs bench/problems/outliers.pairs

The sweeps default to bench/device_setup.sh's ALL_SWEEPS (held-out files too: a mistimed held-out row misjudges the
selector as much as a training row misleads it). cuDNN's rows are never outliers here (no family).
"""
from __future__ import annotations

import argparse
import statistics
import sys
from collections import defaultdict
from pathlib import Path

from gconv.bench.focus_sweep import write_pair_list
from gconv.bench.rows import existing_rows
from gconv.bench.summarise_sweeps import DEVICE_SETUP, sweep_pairs
from gconv.paths import REPO_ROOT
from gconv.schemas import KernelConfig
from gconv.tables import table


def family(config: KernelConfig) -> tuple:
    """What a kernel's time should follow within a problem: its algorithm and the axes that change the work."""
    return (config.algorithm.value, config.filter_size, config.multiplier, config.group_channels, config.sliding_rows,
            config.split_k)


def outlier_rows(rows: list[dict], ratio: float, max_best_ms: float) -> list[tuple[str, str]]:
    """The (problem, kernel) pairs of rows (a sweep's, "ok" rows with a time counted) that take over ratio times both
    the median and the fastest time of their family in their problem, where the problem's fastest gconv row takes
    under max_best_ms; in row order."""
    timed = [r for r in rows if r["status"] == "ok" and r["time_ms"] and not r["kernel"].startswith("cudnn")]
    by_problem: dict[str, list[dict]] = defaultdict(list)
    for row in timed:
        by_problem[row["problem"]].append(row)
    found = set()
    for problem_rows in by_problem.values():
        if min(float(r["time_ms"]) for r in problem_rows) >= max_best_ms:
            continue
        keys = [family(KernelConfig.from_name(row["kernel"])) for row in problem_rows]
        families: dict[tuple, list[float]] = defaultdict(list)
        for row, key in zip(problem_rows, keys):
            families[key].append(float(row["time_ms"]))
        for row, key in zip(problem_rows, keys):
            times = families[key]
            limit = ratio * max(statistics.median(times), min(times))
            if float(row["time_ms"]) > limit:
                found.add((row["problem"], row["kernel"]))
    return [(r["problem"], r["kernel"]) for r in timed if (r["problem"], r["kernel"]) in found]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--out", type=Path, required=True, help="the pairs, one 'problem<TAB>kernel' a line")
    parser.add_argument("--ratio", type=float, default=10.0, help="times the family's median (default 10)")
    parser.add_argument("--max-best-us", type=float, default=20.0,
                        help="only problems whose fastest gconv row takes under this (default 20 us)")
    parser.add_argument("--sweeps", nargs="+", help="RESULT:PROBLEMS pairs (default: ALL_SWEEPS)")
    args = parser.parse_args(argv)
    if args.ratio <= 1 or args.max_best_us <= 0:
        parser.error("--ratio must be above 1 and --max-best-us above 0")
    results = sorted({pair.split(":")[0] for pair in args.sweeps or sweep_pairs(DEVICE_SETUP.read_text())})
    pairs, counts = {}, []
    try:
        for result in results:
            found = outlier_rows(existing_rows(REPO_ROOT / "bench" / "results" / f"{result}.csv"), args.ratio,
                                 args.max_best_us / 1000)
            counts.append([result, len(found)])
            pairs.update(dict.fromkeys(found))  # each pair once, in first-found order
    except OSError as error:  # a sweep's results missing (a stashed tree): nothing written
        parser.error(str(error))
    write_pair_list(args.out, pairs)
    print(table(["sweep", "outlier rows"], [row for row in counts if row[1]]))
    print(f"wrote {len(pairs)} (problem, kernel) pairs to {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
