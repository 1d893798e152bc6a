"""What a rule drawn from an A/B would gain: read the CSVs bench/ab_variant.py wrote and score the rule "every kernel
takes its twin, except the kernels where --keep-base" (an expression over the base kernel's axes, the grammar of
`gconv rules list --filter`), against the base everywhere.

    python -m bench.ab_rule bench/results/k-walk/ab-k_walk-seed4.csv.gz \
        --keep-base "direction != 'bwd_weight' and vector_width == 1 and groups_to_merge == 1"

Prints the geomean of base / twin per kernel (worst first: the kernels a rule should keep on the base), then per
direction x shape class the best kernel's speed-up under the rule over the best base kernel of each problem:
geomean, worst problem and problem count. Rows where either side failed (no time) are left out.
"""
from __future__ import annotations

import argparse
import csv
import gzip
import sys
from collections import defaultdict
from pathlib import Path

from gconv.errors import GconvError
from gconv.schemas import KernelConfig
from gconv.schemas.expressions import parse

from bench.summary import geomean


def read_pairs(paths: list[Path]) -> list[dict]:
    """The timed (problem, kernel) pairs of ab_variant CSVs (.csv or .csv.gz), times as floats."""
    rows = []
    for path in paths:
        opener = gzip.open if path.suffix == ".gz" else open
        with opener(path, "rt", newline="") as handle:
            for row in csv.DictReader(handle):
                if row["base_ms"] and row["twin_ms"] and float(row["base_ms"]) > 0 and float(row["twin_ms"]) > 0:
                    rows.append({**row, "base_ms": float(row["base_ms"]), "twin_ms": float(row["twin_ms"])})
    return rows


def kernel_speedups(rows: list[dict]) -> list[tuple[str, int, float]]:
    """(base kernel, pairs, geomean of base / twin), worst first."""
    ratios = defaultdict(list)
    for row in rows:
        ratios[row["base"]].append(row["base_ms"] / row["twin_ms"])
    return sorted(((name, len(v), geomean(v)) for name, v in ratios.items()), key=lambda item: (item[2], item[0]))


def rule_speedups(rows: list[dict], keep_base: str | None) -> dict[tuple[str, str], list[float]]:
    """Per (direction, shape class): each problem's best time with every base kernel vs with the rule (twins except
    where keep_base matches the base kernel's axes), as best base / best under the rule."""
    expression = parse(keep_base) if keep_base else None
    best_base, best_rule, classes = defaultdict(lambda: float("inf")), defaultdict(lambda: float("inf")), {}
    for row in rows:
        problem = row["problem"]
        axes = KernelConfig.from_name(row["base"]).axes()
        if expression is not None:
            expression.check_names(axes)
        twin = expression is None or not expression.matches(axes)
        best_base[problem] = min(best_base[problem], row["base_ms"])
        best_rule[problem] = min(best_rule[problem], row["twin_ms"] if twin else row["base_ms"])
        classes[problem] = (row["direction"], row["shape_class"])
    ratios = defaultdict(list)
    for problem, (direction, shape_class) in classes.items():
        ratios[(direction, shape_class)].append(best_base[problem] / best_rule[problem])
        ratios[(direction, "all")].append(best_base[problem] / best_rule[problem])
    return dict(sorted(ratios.items()))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("files", nargs="+", type=Path, help="bench/ab_variant.py CSVs (.csv or .csv.gz)")
    parser.add_argument("--keep-base", help="the base kernels the rule keeps (an expression over their axes)")
    args = parser.parse_args(argv)
    try:
        rows = read_pairs(args.files)
        by_rule = rule_speedups(rows, args.keep_base)
    except (OSError, KeyError, ValueError, GconvError) as error:
        print(f"ab_rule: {error}", file=sys.stderr)
        return 2
    print("base / twin per kernel (geomean over its problems), worst first:")
    for name, count, speedup in kernel_speedups(rows):
        print(f"  {speedup:5.2f}x  ({count:3})  {name}")
    print(f"\nbest under the rule over the best base (twins except where: {args.keep_base or 'nothing'}):")
    print(f"  {'direction':10} {'class':9} {'geomean':>7} {'worst':>6}  problems")
    for (direction, shape_class), values in by_rule.items():
        print(f"  {direction:10} {shape_class:9} {geomean(values):6.3f}x {min(values):5.2f}x  {len(values)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
