"""Does a new training file help the selector? Cross-validation on the base files' problems only, with and without the
extra files' problems in every training fold (as the sibling dtype's are with `gconv train --with-sibling-dtype`), so
both columns are scored on the same problems. Training problems only (never held-out files).

    python -m bench.extra_data_cv --measurements BASE.csv ... --extra NEW.csv ... [--fold-seeds 0 1 2]
        [--direction D ...] [--dtype T ...]

For each direction x dtype of the base files (those named, else all; problems whose `default` candidates are not all
measured left out, as `gconv train` leaves them): 5 folds x the fold seeds, the shipped ranker, vendor classifier and
vendor margin of heuristics/train.yaml (bench/vendor_margin.py cross_validate); mean / P10 of oracle time / picked time.
"""
from __future__ import annotations

import argparse
from pathlib import Path

import numpy as np

from bench.vendor_margin import cross_validate
from gconv.heuristics import train as T
from gconv.heuristics.dataset import group_by_target, read_measurements, rule_set_candidates, without_incomplete
from gconv.heuristics.model import SIBLING_DTYPES
from gconv.runtime.registry import load_arch_spec
from gconv.tables import table


def with_and_without(base_files: list[Path], extra_files: list[Path], fold_seeds: list[int],
                     directions: list[str] = (), dtypes: list[str] = (), complete_in: str | None = "default"
                     ) -> dict[tuple[str, str], tuple[int, int, list[float], list[float]]]:
    """(direction, dtype) of the base files (of directions and dtypes, when given) -> (base problems, extra problems,
    CV efficiencies without the extra problems, with them in every training fold); both lists score the base problems
    only. Problems whose candidates in rule set complete_in are not all measured are left out (None: none is)."""
    config, spec = T.TrainConfig.load(), load_arch_spec("sm_90")
    base, extra = (group_by_target(complete_measurements(files, complete_in)) for files in (base_files, extra_files))
    out = {}
    for (direction, dtype), measurements in sorted(base.items()):
        if (directions and direction not in directions) or (dtypes and dtype not in dtypes):
            continue
        sibling = SIBLING_DTYPES[dtype]
        tables = T.problem_tables(measurements, spec, config.target)
        always = T.problem_tables(base.get((direction, sibling), []), spec, config.target)
        added = [t for d in (dtype, sibling) for t in T.problem_tables(extra.get((direction, d), []), spec,
                                                                          config.target)]
        margin = config.vendor_margin_of(direction)
        without, with_ = (cross_validate(tables, training_extra, config, [margin], fold_seeds, direction)[margin][0]
                          for training_extra in (always, always + added))
        out[(direction, dtype)] = (len(tables), len(added), without, with_)
    return out


def complete_measurements(files: list[Path], rule_set: str | None) -> dict:
    measurements = read_measurements(files)
    return without_incomplete(measurements, rule_set_candidates([rule_set], "sm_90"))[0] if rule_set else measurements


def scores(efficiencies: list[float]) -> str:
    return f"{100 * np.mean(efficiencies):.1f} / {100 * np.percentile(efficiencies, 10):.1f}"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--measurements", nargs="+", type=Path, required=True, help="the base training files")
    parser.add_argument("--extra", nargs="+", type=Path, required=True, help="the files judged")
    parser.add_argument("--fold-seeds", nargs="+", type=int, default=[0, 1, 2])
    parser.add_argument("--direction", nargs="+", default=[], help="only these directions (default: all)")
    parser.add_argument("--dtype", nargs="+", default=[], help="only these dtypes (default: all)")
    args = parser.parse_args(argv)
    rows = [[f"{direction}/{dtype}", problems, extra, scores(without), scores(with_)]
            for (direction, dtype), (problems, extra, without, with_)
            in with_and_without(args.measurements, args.extra, args.fold_seeds, args.direction, args.dtype).items()]
    print(table(["target", "problems", "extra problems", "without: mean / P10", "with: mean / P10"], rows))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
