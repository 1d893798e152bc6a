"""Fit the fallback rule's coefficients (heuristics/rule.py) to measured sweeps and write heuristics/rule_fit.yaml.

    python -m bench.fit_rule --measurements FILE.csv ... [--arch sm_90] [--out heuristics/rule_fit.yaml]
                             [--check HELD_OUT.csv ...]

Training files only (the models' data files; never the held-out or model-zoo files): for every measured (problem,
instance) the rule's terms, then the coefficients that minimise the weighted squared error of log time, each problem's
weighted mean error removed (only the order within a problem decides a pick), rows near their problem's fastest
weighing more (as the models' regressor, train.yaml near_best_weight / near_best_scale). Powell's method from a fixed
start, in log coefficients: deterministic. Prints the efficiency of picking by the estimate alone and by the fitted
rule, per direction, on the fit's problems and on --check files (reported only, never fitted).
"""
from __future__ import annotations

import argparse
import sys
from datetime import date
from pathlib import Path

import numpy as np
import yaml

from gconv.bench.progress import ProgressLine
from gconv.heuristics.analytic import estimate, padding_copy_seconds
from gconv.heuristics.dataset import files_sha256, read_measurements, runs_as
from gconv.heuristics.rule import RULE_FIT_FILE, RuleCoefficients, RuleFit, RuleTerms, combine, rule_terms
from gconv.runtime.registry import load_arch_spec
from gconv.schemas import KernelConfig
from gconv.tables import table

NEAR_BEST_WEIGHT = 30.0
NEAR_BEST_SCALE = 0.7
START = RuleCoefficients.from_vector([1, 1, 1, 1e-10, 1e-10, 1e-10, 0.3, 1e-6, 1e-7])


class Rows:
    """Every measured instance row of the files, as arrays: its problem (index), direction, time, the estimate's
    seconds and the rule's terms."""

    def __init__(self, paths: list[Path], arch: str, progress: ProgressLine | None = None):
        spec = load_arch_spec(arch)
        measurements = read_measurements(paths)
        problem, direction, seconds, estimated, terms = [], [], [], [], []
        for index, m in enumerate(measurements.values()):
            for name, ms in sorted(m.kernels.items()):
                config = KernelConfig.from_name(name)
                runs = runs_as(config, m.problem)
                copies = padding_copy_seconds(m.problem, runs.C, runs.K, spec)
                problem.append(index)
                direction.append(m.problem.direction.value)
                seconds.append(ms / 1e3)
                estimated.append(estimate(config, runs, spec).seconds + copies)
                terms.append(rule_terms(config, runs, spec, copies))
            if progress is not None:
                progress.update(f"terms: {index + 1}/{len(measurements)} problems", index + 1, len(measurements))
        if progress is not None:
            progress.close()
        self.problem, self.direction = np.asarray(problem), np.asarray(direction)
        self.seconds, self.estimated = np.asarray(seconds), np.asarray(estimated)
        self.terms = RuleTerms(*(np.asarray(column) for column in zip(*terms)))
        self.problems = len(measurements)
        best = np.full(self.problems, np.inf)
        np.minimum.at(best, self.problem, self.seconds)
        self.best = best
        gap = np.log(self.seconds) - np.log(best[self.problem])
        self.weight = 1 + NEAR_BEST_WEIGHT * np.exp(-gap / NEAR_BEST_SCALE)


def loss(rows: Rows, coefficients: np.ndarray) -> float:
    """Weighted mean squared error of log predicted over log measured time, each problem's weighted mean removed."""
    error = np.log(combine(rows.terms, coefficients)) - np.log(rows.seconds)
    w = rows.weight
    mean = np.bincount(rows.problem, w * error, rows.problems) / np.bincount(rows.problem, w, rows.problems)
    centred = error - mean[rows.problem]
    return float(np.sum(w * centred * centred) / np.sum(w))


def fit(rows: Rows, start: RuleCoefficients = START) -> tuple[RuleCoefficients, float]:
    """The coefficients of least loss (Powell's method over their logs, from start), and that loss."""
    from scipy.optimize import minimize

    result = minimize(lambda logs: loss(rows, np.exp(logs)), np.log(start.as_vector()), method="Powell",
                      options={"maxiter": 40000, "xtol": 1e-4, "ftol": 1e-8})
    return RuleCoefficients.from_vector(np.exp(result.x)), float(result.fun)


def pick_efficiency(rows: Rows, key: np.ndarray) -> dict[str, tuple[float, float]]:
    """Per direction, [mean, P10] of best time / the time of each problem's least-key row (ties: the first row, rows
    being in name order per problem)."""
    order = np.lexsort((np.arange(len(key)), key, rows.problem))
    first = np.ones(len(order), bool)
    first[1:] = rows.problem[order][1:] != rows.problem[order][:-1]
    picks = order[first]
    efficiency = rows.best[rows.problem[picks]] / rows.seconds[picks]
    directions = rows.direction[picks]
    return {d: (round(float(efficiency[directions == d].mean()), 4),
                round(float(np.percentile(efficiency[directions == d], 10)), 4))
            for d in sorted(set(directions))}


def efficiency_table(label: str, before: dict, after: dict) -> str:
    return table([label, "estimate mean", "estimate P10", "rule mean", "rule P10"],
                 [[d, f"{100 * before[d][0]:.1f}%", f"{100 * before[d][1]:.1f}%", f"{100 * after[d][0]:.1f}%",
                   f"{100 * after[d][1]:.1f}%"] for d in before])


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--measurements", nargs="+", type=Path, required=True)
    parser.add_argument("--arch", default="sm_90")
    parser.add_argument("--out", type=Path, default=RULE_FIT_FILE)
    parser.add_argument("--check", nargs="+", type=Path, default=[], help="held-out files: reported, never fitted")
    args = parser.parse_args(argv)
    try:
        progress = ProgressLine(max_lines=10)
        rows = Rows(args.measurements, args.arch, progress)
        check = Rows(args.check, args.arch, progress) if args.check else None
    except (OSError, ValueError) as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    print(f"{len(rows.seconds)} rows of {rows.problems} problems; fitting ...", flush=True)
    fitted, _ = fit(rows)
    coefficients = RuleCoefficients.from_vector([float(f"{v:.6g}") for v in fitted.as_vector()])  # a readable file
    least = loss(rows, coefficients.as_vector())
    result = RuleFit(coefficients=coefficients, arch=args.arch,
                     data_files=[p.as_posix() for p in args.measurements], data_sha256=files_sha256(args.measurements),
                     rows=len(rows.seconds), problems=rows.problems, loss=round(least, 6),
                     estimate_efficiency=pick_efficiency(rows, rows.estimated),
                     rule_efficiency=pick_efficiency(rows, combine(rows.terms, coefficients)), created=date.today())
    text = yaml.safe_dump(result.model_dump(mode="json"), sort_keys=False)
    partial = args.out.with_name(args.out.name + ".part")
    partial.write_text("# Written by `python -m bench.fit_rule` (heuristics/rule.py): do not edit.\n" + text)
    partial.replace(args.out)
    print(yaml.safe_dump({"coefficients": coefficients.model_dump(mode="json")}, sort_keys=False))
    print(efficiency_table("fit problems", result.estimate_efficiency, result.rule_efficiency))
    if check is not None:
        print()
        print(efficiency_table("--check problems", pick_efficiency(check, check.estimated),
                               pick_efficiency(check, combine(check.terms, coefficients))))
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
