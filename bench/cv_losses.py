"""Where the selector's cross-validated loss lies: each held-out problem's pick (5 folds x the fold seeds on the
training problems, as bench/vendor_margin.py: the shipped ranker, vendor classifier and margin of heuristics/train.yaml,
the sibling dtype's problems in every training fold) costs -log(oracle time / picked time); the costs are summed per
(oracle's family, pick's family), a family being the algorithm and whether it splits the reduction, or cuDNN. A
loss that sits in the vendor decision wants another fix than one among the instances.

    python -m bench.cv_losses --direction bwd_weight --dtype bf16 [--fold-seeds 0] [--worst 10]

The training files are the shipped model's (heuristics/models/sm_90/DIRECTION_DTYPE/metadata.json data_files), never a
held-out one.
"""
from __future__ import annotations

import argparse
import math
from collections import Counter

import numpy as np

from gconv.bench.vendor_margin import held_out_scores
from gconv.heuristics import train as T
from gconv.heuristics.dataset import group_by_target, read_measurements
from gconv.heuristics.model import SIBLING_DTYPES, shipped_data_files
from gconv.runtime.registry import VENDOR_KERNEL, load_arch_spec
from gconv.schemas import KernelConfig, Pipeline
from gconv.tables import table


def family(kernel: str) -> str:
    """'cuDNN', or the kernel's algorithm with '/split' where it splits the reduction (split-K or StreamK)."""
    if kernel == VENDOR_KERNEL:
        return "cuDNN"
    config = KernelConfig.from_name(kernel)
    split = config.split_k > 1 or config.pipeline is Pipeline.streamk
    return config.algorithm.value + ("/split" if split else "")


def losses_by_family(picks: list[tuple[str, str, float]]) -> dict[tuple[str, str], tuple[int, float]]:
    """(oracle family, pick family) -> (problems, summed -log efficiency) of (oracle kernel, picked kernel,
    efficiency) picks, the largest loss first."""
    count, loss = Counter(), Counter()
    for oracle, chosen, efficiency in picks:
        key = family(oracle), family(chosen)
        count[key] += 1
        loss[key] += -math.log(efficiency)
    return {key: (count[key], loss[key]) for key in sorted(loss, key=lambda k: (-loss[k], k))}


def cv_picks(direction: str, dtype: str, fold_seeds: list[int]) -> list[tuple[str, str, str, float]]:
    """(problem key, oracle kernel, picked kernel, efficiency) of every held-out pick over the folds and seeds."""
    groups = group_by_target(read_measurements(shipped_data_files(direction, dtype)))
    config = T.TrainConfig.load()
    spec, target = load_arch_spec("sm_90"), config.for_direction(direction).target
    measured = sorted(groups[(direction, dtype)], key=lambda m: m.problem.key)
    tables = T.problem_tables(measured, spec, target)
    keys = {id(table): m.problem.key for table, m in zip(tables, measured)}
    sibling = T.problem_tables(groups.get((direction, SIBLING_DTYPES[dtype]), []), spec, target)
    margin = config.vendor_margin_of(direction)
    picks = []
    for table_, scores, shift in held_out_scores(tables, sibling, config, fold_seeds, direction):
        chosen = T.chosen_index(-scores, table_.names, margin, shift)
        best = int(np.argmin(table_.log_times))
        efficiency = float(np.exp(table_.log_times[best] - table_.log_times[chosen]))
        picks.append((keys[id(table_)], table_.names[best], table_.names[chosen], efficiency))
    return picks


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--direction", required=True, choices=["fwd", "bwd_data", "bwd_weight"])
    parser.add_argument("--dtype", required=True, choices=["bf16", "fp16"])
    parser.add_argument("--fold-seeds", nargs="+", type=int, default=[0])
    parser.add_argument("--worst", type=int, default=10, metavar="N", help="also list the N least efficient picks")
    args = parser.parse_args(argv)
    picks = cv_picks(args.direction, args.dtype, args.fold_seeds)
    efficiencies = [efficiency for *_, efficiency in picks]
    grouped = losses_by_family([(oracle, chosen, efficiency) for _, oracle, chosen, efficiency in picks])
    total = sum(loss for _, loss in grouped.values())
    print(f"{args.direction}/{args.dtype}: {len(picks)} held-out picks, mean {100 * np.mean(efficiencies):.1f}% / "
          f"P10 {100 * np.percentile(efficiencies, 10):.1f}%; summed -log efficiency {total:.2f}")
    print(table(["oracle", "pick", "problems", "-log efficiency", "share"],
                [[oracle, chosen, n, f"{loss:.2f}", f"{100 * loss / total:.0f}%"]
                 for (oracle, chosen), (n, loss) in grouped.items()]))
    if args.worst:
        worst = sorted(picks, key=lambda pick: pick[3])[:args.worst]
        print(table(["problem", "oracle", "pick", "efficiency"],
                    [[key, oracle, chosen, f"{100 * efficiency:.1f}%"] for key, oracle, chosen, efficiency in worst]))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
