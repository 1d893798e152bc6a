"""What a rule drawn from an A/B would gain: read the CSVs bench/ab_variant.py wrote and score the rule "every kernel
takes its twin, except the kernels where --keep-base" (an expression over the base kernel's axes, the grammar of
`gconv rules list --filter`), or with --add-twins the rule "keep every kernel and add the twins where ADD_TWINS" (an
expression over the twin's axes and the derived fields of rule constraints on sm_90, e.g. acc_registers_per_thread:
twins that are new instances of the rule set), or with both "every kernel takes its twin except where --keep-base,
and beside the kept ones the twins where --add-twins", against the base everywhere.

    python -m bench.ab_rule bench/results/k-walk/ab-k_walk-seed4.csv.gz \
        --keep-base "direction != 'bwd_weight' and vector_width == 1 and groups_to_merge == 1"
    python -m bench.ab_rule bench/results/tiny-bwd-weight/ab-block_m-64.csv.gz --add-twins "acc_registers_per_thread <= 128"
    python -m bench.ab_rule bench/results/last-arrival/ab-last-arrival-igemm.csv.gz \
        --keep-base "groups_to_merge > 1 or split_k < 8 or split_k > 32" --add-twins "groups_to_merge > 1 and split_k <= 8"

Prints the geomean of base / twin per kernel (worst first: the kernels a rule should keep on the base), then per
direction x shape class the best kernel's speed-up under the rule over the best base kernel of each problem:
geomean, worst problem and problem count. Rows where either side failed (no time) or was wrong (error above the
device verification's bound, twice: against cuDNN's output) are left out; the wrong kernels are named.
"""
from __future__ import annotations

import argparse
import csv
import gzip
import sys
from collections import defaultdict
from collections.abc import Callable
from pathlib import Path

from gconv.errors import GconvError
from gconv.runtime.reference import RELATIVE_ERROR_BOUND
from gconv.runtime.registry import load_arch_spec
from gconv.schemas import KernelConfig
from gconv.schemas.expressions import parse

from bench.summary import geomean
from generator.derived import constraint_environment


def read_pairs(paths: list[Path], wrong: list[dict] | None = None) -> list[dict]:
    """The timed (problem, kernel) pairs of ab_variant CSVs (.csv or .csv.gz), times as floats. A pair where either
    kernel's output was wrong (wrong_kernels) is left out, and appended to wrong when given: a fast wrong kernel is
    no candidate."""
    rows = []
    for path in paths:
        opener = gzip.open if path.suffix == ".gz" else open
        with opener(path, "rt", newline="") as handle:
            for row in csv.DictReader(handle):
                if not (row["base_ms"] and row["twin_ms"] and float(row["base_ms"]) > 0 and float(row["twin_ms"]) > 0):
                    continue
                if wrong_kernels(row):
                    if wrong is not None:
                        wrong.append(row)
                    continue
                rows.append({**row, "base_ms": float(row["base_ms"]), "twin_ms": float(row["twin_ms"])})
    return rows


def wrong_kernels(row: dict) -> list[str]:
    """The kernels of an ab_variant row (base, twin) whose error exceeds twice the device verification's bound for
    their dtype (the base kernel's, which the twin shares): the error is against cuDNN's output, itself rounded, not
    against float64 (a kernel that is wrong is off by about 1). An error not measured (empty) is not wrong."""
    bound = 2 * RELATIVE_ERROR_BOUND[KernelConfig.from_name(row["base"]).dtype]
    return [row[side] for side in ("base", "twin") if row[f"{side}_err"] and not float(row[f"{side}_err"]) <= bound]


def kernel_speedups(rows: list[dict]) -> list[tuple[str, int, float]]:
    """(base kernel, pairs, geomean of base / twin), worst first."""
    ratios = defaultdict(list)
    for row in rows:
        ratios[row["base"]].append(row["base_ms"] / row["twin_ms"])
    return sorted(((name, len(v), geomean(v)) for name, v in ratios.items()), key=lambda item: (item[2], item[0]))


def rule_speedups(rows: list[dict], keep_base: str | None = None, add_twins: str | None = None,
                  arch: str = "sm_90") -> dict[tuple[str, str], list[float]]:
    """Per (direction, shape class): each problem's best time with every base kernel vs under the rule, as best base /
    best under the rule. The rule: every base kernel takes its twin, except those keep_base matches (an expression
    over the base kernel's axes; with add_twins alone, every base kernel is kept); beside a kept kernel its twin is
    added where add_twins matches (an expression over the twin's constraint environment on arch: its axes and
    derived fields; those twins must be kernel names)."""
    keep = parse(keep_base) if keep_base else None
    add = parse(add_twins) if add_twins else None
    spec = load_arch_spec(arch) if add else None

    def kept(row: dict) -> bool:
        if keep is None:
            return add is not None
        axes = KernelConfig.from_name(row["base"]).axes()
        keep.check_names(axes)
        return keep.matches(axes)

    def twin_added(row: dict) -> bool:
        if add is None:
            return False
        try:
            twin = KernelConfig.from_name(row["twin"])
        except ValueError:
            raise ValueError(f"--add-twins needs twins that are kernel names, not {row['twin']!r}") from None
        environment = constraint_environment(twin, spec)
        add.check_names(environment)
        return add.matches(environment)

    def time_under_rule(row: dict) -> float:
        if not kept(row):
            return row["twin_ms"]
        return min(row["base_ms"], row["twin_ms"]) if twin_added(row) else row["base_ms"]
    return _best_ratios(rows, time_under_rule)


def _best_ratios(rows: list[dict], time_under_rule: Callable[[dict], float]) -> dict[tuple[str, str], list[float]]:
    best_base, best_rule, classes = defaultdict(lambda: float("inf")), defaultdict(lambda: float("inf")), {}
    for row in rows:
        problem = row["problem"]
        best_base[problem] = min(best_base[problem], row["base_ms"])
        best_rule[problem] = min(best_rule[problem], time_under_rule(row))
        classes[problem] = (row["direction"], row["shape_class"])
    ratios = defaultdict(list)
    for problem, (direction, shape_class) in classes.items():
        ratios[(direction, shape_class)].append(best_base[problem] / best_rule[problem])
        ratios[(direction, "all")].append(best_base[problem] / best_rule[problem])
    return dict(sorted(ratios.items()))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("files", nargs="+", type=Path, help="bench/ab_variant.py CSVs (.csv or .csv.gz)")
    parser.add_argument("--keep-base", help="the base kernels the rule keeps (an expression over their axes; with "
                                            "--add-twins alone, all of them)")
    parser.add_argument("--add-twins", help="the twins the rule adds beside the kept base kernels (an expression over "
                                            "the twin's axes and constraint fields on sm_90)")
    args = parser.parse_args(argv)
    try:
        wrong: list[dict] = []
        rows = read_pairs(args.files, wrong)
        by_rule = rule_speedups(rows, args.keep_base, args.add_twins)
    except (OSError, KeyError, ValueError, GconvError) as error:
        print(f"ab_rule: {error}", file=sys.stderr)
        return 2
    if wrong:
        kernels = sorted({kernel for row in wrong for kernel in wrong_kernels(row)})
        print(f"left out {len(wrong)} pairs whose output was wrong (error against cuDNN's above twice the dtype's "
              f"bound), kernels: {', '.join(kernels)}\n")
    print("base / twin per kernel (geomean over its problems), worst first:")
    for name, count, speedup in kernel_speedups(rows):
        print(f"  {speedup:5.2f}x  ({count:3})  {name}")
    if args.add_twins and not args.keep_base:
        rule_text = f"every base kernel, and the twins where: {args.add_twins}"
    else:
        rule_text = f"twins except where: {args.keep_base or 'nothing'}"
        if args.add_twins:
            rule_text += f"; beside those, the twins where: {args.add_twins}"
    print(f"\nbest under the rule over the best base ({rule_text}):")
    print(f"  {'direction':10} {'class':9} {'geomean':>7} {'worst':>6}  problems")
    for (direction, shape_class), values in by_rule.items():
        print(f"  {direction:10} {shape_class:9} {geomean(values):6.3f}x {min(values):5.2f}x  {len(values)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
