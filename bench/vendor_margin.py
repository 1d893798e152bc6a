"""Fair cross-validation of a margin against the vendor path: the ranker picks cuDNN only where its score beats the
best instance's by more than the margin (heuristics/train.py chosen_index, as the runtime picks with a model's
metadata vendor_margin; train.yaml holds the margins the models ship with), after the vendor classifier's shift where
train.yaml gives the direction one (vendor_classifier). Training problems only (never held-out files).

    python -m bench.vendor_margin --measurements FILE.csv ... [--margins 0 0.25 0.5 1 2] [--fold-seeds 0 1 2]

For each direction x dtype of the measurements (with the sibling dtype's problems in every training fold, as
`gconv train --with-sibling-dtype`), 5 folds x the fold seeds: mean / P10 of oracle time / picked time, the oracle
being the fastest of the instances and the vendor path; and how often the vendor path was fastest / picked.
"""
from __future__ import annotations

import argparse
from collections.abc import Iterator
from pathlib import Path

import numpy as np

from gconv.heuristics import train as T
from gconv.heuristics.dataset import group_by_target, read_measurements
from gconv.heuristics.model import SIBLING_DTYPES
from gconv.runtime.registry import VENDOR_KERNEL, load_arch_spec
from gconv.tables import table


def held_out_scores(tables, sibling_tables, config, fold_seeds, direction: str
                    ) -> Iterator[tuple[T.ProblemTable, np.ndarray, float]]:
    """(table, the ranker's scores, the vendor classifier's shift) of every held-out problem, over the folds of each
    seed: the ranker and, where train.yaml weighs the direction's vendor classifier, the classifier fitted on the
    fold's training tables, as the shipped models are."""
    config = config.for_direction(direction)
    weight, classifier = config.vendor_weight_of(direction), config.vendor_classifier_of(direction)
    for seed in fold_seeds:
        for training, held in T.cv_splits(tables, sibling_tables, config.cv_folds, seed):
            ranker = T.fit_ranker(training, config)
            vendor = T.fit_vendor_classifier(training, classifier)
            for i in held:
                yield tables[i], ranker.predict(tables[i].features, num_threads=1), T.vendor_shift(vendor, tables[i],
                                                                                                  weight)


def cross_validate(tables, sibling_tables, config, margins, fold_seeds, direction: str
                   ) -> dict[float, tuple[list[float], int]]:
    """margin -> (per-problem efficiency over all folds and seeds, vendor picks)."""
    out = {margin: ([], 0) for margin in margins}
    for table_, scores, shift in held_out_scores(tables, sibling_tables, config, fold_seeds, direction):
        for margin in margins:
            chosen = T.chosen_index(-scores, table_.names, margin, shift)
            efficiencies, picks = out[margin]
            efficiencies.append(float(np.exp(table_.log_times.min() - table_.log_times[chosen])))
            out[margin] = (efficiencies, picks + int(table_.names[chosen] == VENDOR_KERNEL))
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--measurements", nargs="+", type=Path, required=True)
    parser.add_argument("--margins", nargs="+", type=float, default=[0.0, 0.25, 0.5, 1.0, 2.0])
    parser.add_argument("--fold-seeds", nargs="+", type=int, default=[0, 1, 2])
    args = parser.parse_args(argv)
    config, spec = T.TrainConfig.load(), load_arch_spec("sm_90")
    groups = group_by_target(read_measurements(args.measurements))
    rows = []
    for (direction, dtype), measurements in sorted(groups.items()):
        sibling = groups.get((direction, SIBLING_DTYPES[dtype]), [])
        tables = T.problem_tables(measurements, spec, config.target)
        sibling_tables = T.problem_tables(sibling, spec, config.target)
        fastest = sum(t.names[int(np.argmin(t.log_times))] == VENDOR_KERNEL for t in tables) / len(tables)
        for margin, (efficiencies, picks) in cross_validate(tables, sibling_tables, config, args.margins,
                                                            args.fold_seeds, direction).items():
            rows.append([f"{direction}/{dtype}", len(tables), f"{margin:g}", f"{100 * np.mean(efficiencies):.1f}%",
                         f"{100 * np.percentile(efficiencies, 10):.1f}%", f"{100 * fastest:.0f}%",
                         f"{100 * picks / len(efficiencies):.0f}%"])
    print(table(["target", "problems", "margin", "mean", "P10", "vendor fastest", "vendor picked"], rows))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
