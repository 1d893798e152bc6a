"""Versions of the C selector's model code (capi/src/model.c) timed against each other in one process: every round
times each version's compiled selector (runtime/native_selector.py NativeSelector.choose, the shipped models, the
vendor path competing) over the same seeded new problems, so a drift of this CPU's speed hits every version alike.
(Whole runs of bench/selection_latency.py, alternated, did not agree from one run to the next on the device host.)

    git show REV:capi/src/model.c > /tmp/model-old.c
    python -m bench.model_c_ab /tmp/model-old.c capi/src/model.c [--rounds 7] [--samples 300] [--dtype bf16]

Prints per direction each version's median and least microseconds a selection over the rounds (the C call and its
ctypes wrapper; gconv.select adds ~15 us of Python), and whether every version picked the same kernel with the same
key on every problem: they must, model.c changes only the work.
"""
from __future__ import annotations

import argparse
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path

from gconv.bench.selection_latency import random_problem
from gconv.errors import GconvError
from gconv.heuristics.model import SelectionModel, find_model
from gconv.runtime import native_selector, selection
from gconv.runtime.registry import load_arch_spec
from gconv.tables import table


def timed_rounds(selectors: list, problems: list, pools: list, model: SelectionModel, rounds: int
                 ) -> tuple[list[list[float]], bool]:
    """Per selector, the microseconds a selection of each round (the selectors interleaved within a round), and
    whether all picked the same (index, key) on every problem."""
    times: list[list[float]] = [[] for _ in selectors]
    picks: list[list | None] = [None] * len(selectors)
    for _ in range(rounds):
        for i, selector in enumerate(selectors):
            started = time.perf_counter()
            chosen = [selector.choose(p, pool, model, True) for p, pool in zip(problems, pools)]
            times[i].append((time.perf_counter() - started) / len(problems) * 1e6)
            if picks[i] is None:
                picks[i] = [None if pick is None else (pick.index, pick.key) for pick in chosen]
    return times, all(found == picks[0] for found in picks)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("versions", nargs="+", type=Path, help="model.c files (two or more)")
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--samples", type=int, default=300, help="seeded new problems a direction")
    parser.add_argument("--dtype", default="bf16")
    parser.add_argument("--rule-set", default="default")
    parser.add_argument("--arch", default="sm_90")
    args = parser.parse_args(argv)
    if len(args.versions) < 2:
        parser.error("give two or more model.c versions to compare")
    missing = [str(path) for path in args.versions if not path.is_file()]
    if missing:
        print(f"model_c_ab: no such file: {', '.join(missing)}", file=sys.stderr)
        return 2
    spec = load_arch_spec(args.arch)
    try:
        with tempfile.TemporaryDirectory(prefix="gconv-model-ab-") as cache:
            selectors = [native_selector.NativeSelector(native_selector.build_library(spec, Path(cache), path))
                         for path in args.versions]
            rows, rng = [], random.Random(0)
            for direction in ("fwd", "bwd_data", "bwd_weight"):
                model = find_model(direction, args.dtype, args.arch)
                if not isinstance(model, SelectionModel):
                    raise GconvError(f"no usable {direction}/{args.dtype} model for {args.arch}")
                problems = [p for p in (random_problem(rng, direction, args.dtype) for _ in range(args.samples))
                            if native_selector.indexable(p)]
                pools = [selection._pool(args.rule_set, p.direction, p.dtype, args.arch) for p in problems]
                times, same = timed_rounds(selectors, problems, pools, model, args.rounds)
                for path, values in zip(args.versions, times):
                    rows.append([f"{direction}/{args.dtype}", str(path), len(problems), args.rounds,
                                 f"{statistics.median(values):.1f}", f"{min(values):.1f}", "yes" if same else "NO"])
    except (GconvError, native_selector.NativeSelectorError) as error:
        print(f"model_c_ab: {error}", file=sys.stderr)
        return 2
    print(table(["target", "model.c", "problems", "rounds", "median us", "least us", "same picks"], rows))
    return 0 if all(row[-1] == "yes" for row in rows) else 1


if __name__ == "__main__":
    raise SystemExit(main())
