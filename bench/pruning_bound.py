"""How many tree walks the C selector's pruned search (capi/src/model.c gconv_model_least) takes with its bound and
with tighter ones, simulated on a shipped model's choosing forest for the problems of some files.

    python -m bench.pruning_bound --direction bwd_weight --dtype bf16 \
        --problems bench/problems/heldout-seed6007-synthetic-bf16.csv bench/problems/baseline-synthetic-bf16.csv

The search: every candidate walks the first ORDERING_TREES trees; then, in the order of those partial sums, each walks
on while its sum plus a lower bound of what the remaining trees can add could still reach the best full sum. The
bounds compared, as the sum over the remaining trees of a least leaf:
- problem: the least leaf reachable with the problem's features fixed (the C search's alone until session 40, and
  still where a model has no kernel table);
- kernel alone: the least leaf reachable with the candidate's kernel-only features fixed (one table per kernel and
  tree: gconv_model.kernel_least; the C search's since session 41, which no longer searches the trees for the
  problem's each selection: more walks, less time, bench/model_c_ab.py);
- kernel: the larger of the two (the C search's in session 40);
- problem+kernel: the least leaf with both fixed (the tightest; but a search of every tree per candidate).
Prints each bound's share of the (candidate, tree) walks. A planning estimate, not the C search: the pool is the
model's known `default` candidates without the vendor row, and a split is LightGBM's numerical one for a plain model
(every shipped forest is: `Forest.plain`); the winner is the same under every bound (each is a lower bound).
"""
from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Sequence
from pathlib import Path

from gconv.bench.problems import read_problems
from gconv.errors import GconvError
from gconv.heuristics.features import KERNEL_FEATURES, PROBLEM_FEATURES, feature_matrix
from gconv.heuristics.lightgbm_text import Forest, parse_forest
from gconv.heuristics.model import load_model
from gconv.runtime.padding import padded_problem
from gconv.runtime.registry import load_arch_spec
from gconv.runtime.selection import candidates

ORDERING_TREES = 6  # capi/src/model.c
BOUND_MARGIN = 1e-9  # capi/src/model.c
KERNEL_START, KERNEL_END = len(PROBLEM_FEATURES), len(PROBLEM_FEATURES) + len(KERNEL_FEATURES)


def least_leaf(forest: Forest, node: int, row: Sequence[float], fixed: Callable[[int], bool]) -> float:
    """The least leaf reachable from node when the splits on the features fixed selects go row's way and every other
    split both ways."""
    if node < 0:
        return forest.leaves[~node]
    feature, _, threshold, left, right = forest.nodes[node]
    if fixed(feature):
        return least_leaf(forest, left if row[feature] <= threshold else right, row, fixed)
    return min(least_leaf(forest, left, row, fixed), least_leaf(forest, right, row, fixed))


def tree_value(forest: Forest, tree: int, row: Sequence[float]) -> float:
    node = forest.roots[tree]
    while node >= 0:
        _, _, threshold, left, right = forest.nodes[node]
        node = left if row[forest.nodes[node][0]] <= threshold else right
    return forest.leaves[~node]


def suffix_sums(values: Sequence[float]) -> list[float]:
    """out[t] = sum of values[t:] (out[len] = 0)."""
    out = [0.0] * (len(values) + 1)
    for t in range(len(values) - 1, -1, -1):
        out[t] = out[t + 1] + values[t]
    return out


def pruned_search(forest: Forest, rows: Sequence[Sequence[float]], rest: Sequence[Sequence[float]]
                  ) -> tuple[int, int]:
    """(the row of least full sum, trees walked) of gconv_model_least's search, rest[i][t] the bound of row i's
    trees t.. (suffix_sums of least leaves)."""
    trees = len(forest.roots)
    ordering = min(trees, ORDERING_TREES)
    partial = [sum(tree_value(forest, t, row) for t in range(ordering)) for row in rows]
    walks, best, best_sum = len(rows) * ordering, -1, float("inf")
    for i in sorted(range(len(rows)), key=lambda i: partial[i]):
        total, t = partial[i], ordering
        while t < trees and total + rest[i][t] <= best_sum + BOUND_MARGIN:
            total += tree_value(forest, t, rows[i])
            t += 1
        walks += t - ordering
        if t == trees and total < best_sum:
            best, best_sum = i, total
    return best, walks


def bound_walks(forest: Forest, rows: Sequence[Sequence[float]]) -> dict[str, tuple[int, int]]:
    """Per bound name: (winner, trees walked) of the pruned search over rows (one problem's candidates)."""
    trees = range(len(forest.roots))
    problem = [least_leaf(forest, forest.roots[t], rows[0], lambda f: f < KERNEL_START) for t in trees]
    bounds: dict[str, list[list[float]]] = {"problem": [suffix_sums(problem)] * len(rows), "kernel alone": [],
                                            "kernel": [], "problem+kernel": []}
    for row in rows:
        kernel = [least_leaf(forest, forest.roots[t], row, lambda f: KERNEL_START <= f < KERNEL_END) for t in trees]
        bounds["kernel alone"].append(suffix_sums(kernel))
        bounds["kernel"].append(suffix_sums([max(a, b) for a, b in zip(problem, kernel)]))
        both = [least_leaf(forest, forest.roots[t], row, lambda f: f < KERNEL_END) for t in trees]
        bounds["problem+kernel"].append(suffix_sums(both))
    return {name: pruned_search(forest, rows, rest) for name, rest in bounds.items()}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--direction", required=True, choices=["fwd", "bwd_data", "bwd_weight"])
    parser.add_argument("--dtype", required=True, choices=["fp16", "bf16", "fp32"])
    parser.add_argument("--arch", default="sm_90")
    parser.add_argument("--rule-set", default="default")
    parser.add_argument("--problems", nargs="+", type=Path, required=True, help="problem CSVs (gconv bench sweep's)")
    args = parser.parse_args(argv)
    try:
        model = load_model(args.direction, args.dtype, args.arch)
        if model is None:
            raise GconvError(f"no {args.direction} {args.dtype} model for {args.arch}")
        forest = parse_forest(model.choosing_forest.model_to_string(), "choosing forest",
                              negate=model.ranker is not None)
        problems = [p for path in args.problems for p in read_problems(path)
                    if p.direction.value == args.direction and p.dtype.value == args.dtype]
        spec = load_arch_spec(args.arch)
    except (OSError, KeyError, ValueError, GconvError) as error:
        print(f"pruning_bound: {error}", file=sys.stderr)
        return 2
    walks = {"problem": 0, "kernel alone": 0, "kernel": 0, "problem+kernel": 0}
    every, searched = 0, 0
    for problem in problems:
        pool = [c for c in candidates(problem, args.rule_set, args.arch) if c.entry is not None and model.knows(c.name)]
        if not pool:
            continue
        rows = feature_matrix(problem, [(c.entry.config, padded_problem(problem, c.padding) if c.padding else problem)
                                        for c in pool], spec).tolist()
        results = bound_walks(forest, rows)
        assert len({winner for winner, _ in results.values()}) == 1, "every bound is a lower bound: one winner"
        for name, (_, count) in results.items():
            walks[name] += count
        every += len(rows) * len(forest.roots)
        searched += 1
    print(f"{args.direction}/{args.dtype}, {searched} problems, {every} (candidate, tree) pairs; trees walked:")
    for name, count in walks.items():
        print(f"  {name:15} {count / max(every, 1):6.1%}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
