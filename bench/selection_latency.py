"""Selection latency on this CPU: `gconv.select` for a new problem (cold and with a seen support key) and a cached one,
by the compiled C selector (runtime/native_selector.py) and by the Python path, in one run.

    python bench/selection_latency.py [--samples 300] [--rule-set default] [--arch sm_90] [--paths C Python]
        [--without-kernel-bound]

- cold: every cache cleared first (a problem whose channels / filter nobody asked about before);
- warm support: a new problem key whose support key (runtime/support.py support_key) was enumerated before
  (other batch or spatial size: the common case inside one network);
- cached: the same problem again.
Problems are seeded synthetic shapes (never model-zoo layers). Prints median and P99 per direction in microseconds,
and for the C path the share of the model's trees its pruned search walked (of candidates x trees: the cost the
search saves; runtime/native_selector.py Pick.tree_walks).
"""
from __future__ import annotations

import argparse
import os
import random
import statistics
import time

import gconv
from gconv.heuristics.model import SelectionModel, find_model
from gconv.runtime import native_selector, selection
from gconv.schemas import Problem
from gconv.tables import table


def random_problem(rng: random.Random, direction: str, dtype: str) -> Problem:
    k = rng.choice([1, 2, 4, 8, 16, 32, 64, 128])
    return Problem(direction=direction, dtype=dtype, N=rng.choice([1, 8, 32]), G=rng.choice([1, 2, 4, 8, 32, 64]),
                   C=rng.choice([1, 3, 4, 8, 16, 24, 64, 128]), K=k, Hi=rng.randint(7, 112), Wi=rng.randint(7, 112),
                   Y=(y := rng.choice([1, 3, 5, 7])), X=y, pad_h=y // 2, pad_w=y // 2, stride_h=(s := rng.choice([1, 2])),
                   stride_w=s)


def respaced(problem: Problem, rng: random.Random) -> Problem:
    """Same support key, another problem key."""
    return problem.model_copy(update={"N": problem.N + rng.randint(1, 7), "Hi": problem.Hi + rng.randint(1, 9),
                                      "Wi": problem.Wi + rng.randint(1, 9)})


def walked_share(problems: list[Problem], arch: str, rule_set: str) -> str:
    """Trees the C selector walked over candidates x trees, summed over the problems the model picks for."""
    native = native_selector.native_selector(arch)
    walked = every = 0
    for problem in problems:
        model = find_model(problem.direction.value, problem.dtype.value, arch)
        if native is None or not isinstance(model, SelectionModel):
            return "-"
        pick = native.choose(problem, selection._pool(rule_set, problem.direction, problem.dtype, arch), model,
                             selection.VENDOR_COMPETES)
        if pick is not None and pick.by_model:
            walked += pick.tree_walks
            every += pick.candidates * model.choosing_forest.num_trees()
    return f"{100 * walked / every:.0f}%" if every else "-"


def timed(call) -> float:
    started = time.perf_counter()
    call()
    return (time.perf_counter() - started) * 1e6


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--samples", type=int, default=300)
    parser.add_argument("--dtype", default="bf16")
    parser.add_argument("--rule-set", default="default")
    parser.add_argument("--arch", default="sm_90")
    parser.add_argument("--paths", nargs="+", choices=["C", "Python"], default=["C", "Python"])
    parser.add_argument("--without-kernel-bound", action="store_true",
                        help="the C search bounds each tree by the problem's least leaf alone (gconv_model.kernel_least "
                             "NULL), to compare with the shipped search")
    args = parser.parse_args()
    if args.without_kernel_bound:
        native_selector.kernel_least_leaves = lambda forest, names: None
    rows = []
    for path in args.paths:
        os.environ[native_selector.ENABLE_ENV] = "1" if path == "C" else "0"
        native_selector.native_selector.cache_clear()
        rng = random.Random(0)  # the same problems for both paths
        for direction in ("fwd", "bwd_data", "bwd_weight"):
            select = lambda p: gconv.select(p, arch=args.arch, rule_set=args.rule_set)  # noqa: E731
            select(random_problem(rng, direction, args.dtype))  # load registry and model (and build the C selector)
            cold, warm, cached, sources, problems = [], [], [], set(), []
            for _ in range(args.samples):
                problem = random_problem(rng, direction, args.dtype)
                problems.append(problem)
                gconv.clear_cache()
                cold.append(timed(lambda: sources.add(select(problem).source)))
                sibling = respaced(problem, rng)
                warm.append(timed(lambda: select(sibling)))
                cached.append(timed(lambda: select(problem)))
            walked = walked_share(problems, args.arch, args.rule_set) if path == "C" else "-"
            for label, values in (("cold", cold), ("warm support", warm), ("cached", cached)):
                rows.append([path, f"{direction}/{args.dtype}", label, "/".join(sorted(sources)), len(values),
                             f"{statistics.median(values):.1f}", f"{percentile(values, 0.99):.1f}",
                             walked if label == "cold" else ""])
    print(table(["path", "target", "new problem?", "selector", "samples", "median us", "P99 us", "trees walked"],
                rows))


if __name__ == "__main__":
    main()
