"""How much of the selector's loss is the vendor decision? Cross-validation on the training problems (as
bench/vendor_margin.py: 5 folds x the fold seeds, the sibling dtype's problems in every training fold, the shipped
ranker, vendor classifier and margin of heuristics/train.yaml), each held-out problem scored three ways:

- shipped: the pick as the runtime makes it (chosen_index with the margin and the classifier's shift);
- perfect vendor decision: the ranker's best instance, or cuDNN where cuDNN is in fact faster than that instance
  (the ceiling of any better vendor decision with this ranker);
- never vendor: the ranker's best instance.

    python -m bench.vendor_headroom --measurements FILE.csv ... [--fold-seeds 0 1 2] [--directions fwd bwd_weight]

Training problems only (never held-out files).
"""
from __future__ import annotations

import argparse
from pathlib import Path

import numpy as np

from gconv.bench.vendor_margin import held_out_scores
from gconv.heuristics import train as T
from gconv.heuristics.dataset import group_by_target, read_measurements
from gconv.heuristics.model import SIBLING_DTYPES
from gconv.runtime.registry import VENDOR_KERNEL, load_arch_spec
from gconv.tables import table

WAYS = ("shipped", "perfect vendor decision", "never vendor")


def efficiencies(log_times: np.ndarray, names: list[str], scores: np.ndarray, margin: float, shift: float
                 ) -> tuple[float, float, float]:
    """One problem's oracle time / picked time, the three ways of WAYS; scores are the ranker's (highest best)."""
    best = log_times.min()
    shipped = T.chosen_index(-scores, names, margin, shift)
    instances = [i for i, name in enumerate(names) if name != VENDOR_KERNEL]
    instance = instances[int(np.argmax(scores[instances]))]
    vendor = [log_times[i] for i, name in enumerate(names) if name == VENDOR_KERNEL]
    decided = min([log_times[instance], *vendor])
    return (float(np.exp(best - log_times[shipped])), float(np.exp(best - decided)),
            float(np.exp(best - log_times[instance])))


def cross_validate(tables, sibling_tables, config, fold_seeds, direction: str) -> list[tuple[float, float, float]]:
    """efficiencies of every held-out problem over all folds and seeds (the shipped margin)."""
    margin = config.vendor_margin_of(direction)
    return [efficiencies(t.log_times, t.names, scores, margin, shift)
            for t, scores, shift in held_out_scores(tables, sibling_tables, config, fold_seeds, direction)]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--measurements", nargs="+", type=Path, required=True)
    parser.add_argument("--fold-seeds", nargs="+", type=int, default=[0, 1, 2])
    parser.add_argument("--directions", nargs="+", default=["fwd", "bwd_data", "bwd_weight"])
    parser.add_argument("--dtypes", nargs="+", default=["bf16", "fp16"])
    args = parser.parse_args(argv)
    config, spec = T.TrainConfig.load(), load_arch_spec("sm_90")
    groups = group_by_target(read_measurements(args.measurements))
    rows = []
    for (direction, dtype), measurements in sorted(groups.items()):
        if direction not in args.directions or dtype not in args.dtypes:
            continue
        tables = T.problem_tables(measurements, spec, config.target)
        sibling_tables = T.problem_tables(groups.get((direction, SIBLING_DTYPES[dtype]), []), spec, config.target)
        scored = np.array(cross_validate(tables, sibling_tables, config, args.fold_seeds, direction))
        rows.append([f"{direction}/{dtype}", len(tables)] + [
            f"{100 * scored[:, k].mean():.1f} / {100 * np.percentile(scored[:, k], 10):.1f}" for k in range(3)])
    print(table(["target", "problems", *(f"{way}: mean / P10" for way in WAYS)], rows))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
