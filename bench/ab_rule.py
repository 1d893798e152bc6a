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

With --sweeps (committed sweep CSVs holding the A/B's problems; --sweeps-rev reads them as a git revision held them,
e.g. the one before the rule's rows were measured again), also the speed-up over every candidate a selection may
take: per problem min(O, B) / min(O, B / r), where O is the fastest committed row of the other candidates (the kernels
the A/B did not time, and cuDNN in its default mode: the vendor path), B the fastest committed row of the A/B's base
kernels and r its speed-up under the rule. A rule that speeds up kernels that others beat anyway gains nothing there.
Problems the sweeps lack (or whose bases they lack) are named, not scored. Session 53's figure for `k_walk` in the
one-element tiles (bench/results/k-walk/README.md, bwd_data 1.088x, fwd 0.998x):

    python -m bench.ab_rule bench/results/k-walk/ab-k_walk-v1-*-h200.csv --sweeps-rev 427d1902 \
        --sweeps bench/results/train-*bf16*.csv bench/results/public-deepbench-default-bf16-gputime.csv
"""
from __future__ import annotations

import argparse
import sys
from collections import defaultdict
from collections.abc import Callable
from pathlib import Path
from typing import NamedTuple

from gconv.errors import GconvError
from gconv.heuristics.dataset import VENDOR_MODE
from gconv.runtime.reference import RELATIVE_ERROR_BOUND
from gconv.runtime.registry import load_arch_spec
from gconv.schemas import KernelConfig
from gconv.schemas.expressions import parse

from bench.git_files import rows_at
from bench.rows import CUDNN_MODES, existing_rows
from bench.summary import geomean
from generator.derived import constraint_environment


def read_pairs(paths: list[Path], wrong: list[dict] | None = None) -> list[dict]:
    """The timed (problem, kernel) pairs of ab_variant CSVs (.csv or .csv.gz), times as floats. A pair where either
    kernel's output was wrong (wrong_kernels) is left out, and appended to wrong when given: a fast wrong kernel is
    no candidate."""
    rows = []
    for path in paths:
        for row in existing_rows(path):
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


def rule_time(keep_base: str | None = None, add_twins: str | None = None,
              arch: str = "sm_90") -> Callable[[dict], float]:
    """A pair's time under the rule: every base kernel takes its twin, except those keep_base matches (an expression
    over the base kernel's axes; with add_twins alone, every base kernel is kept); beside a kept kernel its twin is
    added where add_twins matches (an expression over the twin's constraint environment on arch: its axes and derived
    fields; those twins must be kernel names, or a kernel name with a template choice's suffix, `NAME-choice-value`:
    the rule then adds the choice as if it were an axis)."""
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
            twin = KernelConfig.from_name(row["twin"].split("-", 1)[0])  # kernel names hold no "-"
        except ValueError:
            raise ValueError(f"--add-twins needs twins named by their kernel (and template choice), not "
                             f"{row['twin']!r}") from None
        environment = constraint_environment(twin, spec)
        add.check_names(environment)
        return add.matches(environment)

    def time_under_rule(row: dict) -> float:
        if not kept(row):
            return row["twin_ms"]
        return min(row["base_ms"], row["twin_ms"]) if twin_added(row) else row["base_ms"]
    return time_under_rule


class ProblemBest(NamedTuple):
    direction: str
    shape_class: str
    base_ms: float  # the A/B's best base kernel
    rule_ms: float  # its best kernel under the rule
    bases: frozenset[str]  # the base kernels the A/B timed on the problem


def problem_bests(rows: list[dict], time_under_rule: Callable[[dict], float]) -> dict[str, ProblemBest]:
    """Problem -> its best base and best time under the rule in the A/B."""
    out: dict[str, ProblemBest] = {}
    for row in rows:
        before = out.get(row["problem"], ProblemBest(row["direction"], row["shape_class"], float("inf"),
                                                     float("inf"), frozenset()))
        out[row["problem"]] = before._replace(base_ms=min(before.base_ms, row["base_ms"]),
                                              rule_ms=min(before.rule_ms, time_under_rule(row)),
                                              bases=before.bases | {row["base"]})
    return out


def rule_speedups(rows: list[dict], keep_base: str | None = None, add_twins: str | None = None,
                  arch: str = "sm_90") -> dict[tuple[str, str], list[float]]:
    """Per (direction, shape class, and 'all'): each problem's best time with every base kernel vs under the rule
    (rule_time), as best base / best under the rule."""
    return best_speedups(problem_bests(rows, rule_time(keep_base, add_twins, arch)))


def best_speedups(bests: dict[str, ProblemBest]) -> dict[tuple[str, str], list[float]]:
    """rule_speedups of problem_bests."""
    return _by_class({problem: (b.direction, b.shape_class, b.base_ms / b.rule_ms) for problem, b in bests.items()})


def every_kernel_speedups(bests: dict[str, ProblemBest], committed: list[dict]
                          ) -> tuple[dict[tuple[str, str], list[float]], list[str]]:
    """best_speedups over every candidate of the committed sweep rows: per problem min(O, B) / min(O, B / r), O the
    fastest committed "ok" row of the other candidates a selection may take there (the kernels the A/B did not time
    and the vendor path, cuDNN in its default mode), B the fastest of the A/B's base kernels and r its best base /
    best under the rule. Also the problems left out: without a committed base row."""
    other, base = {}, {}
    for row in committed:
        best = bests.get(row["problem"])
        if best is None or row["status"] != "ok" or row["kernel"] in CUDNN_MODES and row["kernel"] != VENDOR_MODE:
            continue
        times = base if row["kernel"] in best.bases else other
        times[row["problem"]] = min(float(row["time_ms"]), times.get(row["problem"], float("inf")))
    scored, left_out = {}, []
    for problem, best in bests.items():
        if problem not in base:
            left_out.append(problem)
            continue
        o, b = other.get(problem, float("inf")), base[problem]
        scored[problem] = (best.direction, best.shape_class, min(o, b) / min(o, b * best.rule_ms / best.base_ms))
    return _by_class(scored), sorted(left_out)


def _by_class(speedups: dict[str, tuple[str, str, float]]) -> dict[tuple[str, str], list[float]]:
    ratios = defaultdict(list)
    for direction, shape_class, speedup in speedups.values():
        ratios[(direction, shape_class)].append(speedup)
        ratios[(direction, "all")].append(speedup)
    return dict(sorted(ratios.items()))


def committed_rows(paths: list[Path], revision: str | None = None) -> list[dict]:
    """The rows of sweep CSVs, as they are or as git revision held them."""
    return [row for path in paths for row in (existing_rows(path) if revision is None else rows_at(revision, path))]


def print_speedups(title: str, speedups: dict[tuple[str, str], list[float]]) -> None:
    print(title)
    print(f"  {'direction':10} {'class':9} {'geomean':>7} {'worst':>6}  problems")
    for (direction, shape_class), values in speedups.items():
        print(f"  {direction:10} {shape_class:9} {geomean(values):6.3f}x {min(values):5.2f}x  {len(values)}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("files", nargs="+", type=Path, help="bench/ab_variant.py CSVs (.csv or .csv.gz)")
    parser.add_argument("--keep-base", help="the base kernels the rule keeps (an expression over their axes; with "
                                            "--add-twins alone, all of them)")
    parser.add_argument("--add-twins", help="the twins the rule adds beside the kept base kernels (an expression over "
                                            "the twin's axes and constraint fields on sm_90)")
    parser.add_argument("--sweeps", nargs="+", type=Path, help="committed sweep CSVs of the A/B's problems: also the "
                                                                 "speed-up over every kernel of the rule set")
    parser.add_argument("--sweeps-rev", help="read --sweeps as this git revision held them")
    args = parser.parse_args(argv)
    if args.sweeps_rev and not args.sweeps:
        parser.error("--sweeps-rev reads --sweeps: give them")
    try:
        wrong: list[dict] = []
        rows = read_pairs(args.files, wrong)
        bests = problem_bests(rows, rule_time(args.keep_base, args.add_twins))
        by_rule = best_speedups(bests)
        every = every_kernel_speedups(bests, committed_rows(args.sweeps, args.sweeps_rev)) if args.sweeps else None
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
    print_speedups(f"\nbest under the rule over the best base ({rule_text}):", by_rule)
    if every is not None:
        speedups, left_out = every
        print_speedups("\nover every kernel of the sweeps (min(O, B) / min(O, B / r) per problem):", speedups)
        if left_out:
            print(f"  {len(left_out)} problems left out, no committed row of their base kernels: {', '.join(left_out)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
