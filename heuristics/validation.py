"""Selection quality against the exhaustive-search oracle: efficiency = oracle time / selected time, per problem.

The oracle is the fastest measured candidate of the problem: the instances and the vendor path (cuDNN in its default,
heuristic mode); a selector ranks the measured candidates it would choose among at run time (a model: those of its
pool, the vendor path among them when it was trained on it; the rule: the instances), so every selection has a
measured time. Speed-up over cuDNN compares the selected kernel with the best cuDNN mode.
"""
from __future__ import annotations

import math
from collections.abc import Callable
from pathlib import Path

import numpy as np
from pydantic import BaseModel, ConfigDict

from gconv.runtime.registry import VENDOR_KERNEL, load_arch_spec
from gconv.schemas import KernelConfig
from gconv.tables import table

from .analytic import padding_copy_seconds
from .dataset import ProblemMeasurements, runs_as
from .model import SelectionModel
from .rule import rule_seconds

Ranker = Callable[[ProblemMeasurements], list[str]]


class Pick(BaseModel):
    """One problem's selection: what the selector chose and the oracle, each with its measured time."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    problem: str
    chosen: str
    chosen_ms: float
    oracle: str
    oracle_ms: float

    @property
    def efficiency(self) -> float:
        return self.oracle_ms / self.chosen_ms


class ValidationReport(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    direction: str
    selector: str
    problems: int
    efficiency_mean: float
    efficiency_median: float
    efficiency_p10: float
    efficiency_min: float
    exact_match: float
    top3_hit: float
    speedup_vs_cudnn: float | None
    efficiencies: list[float]
    picks: list[Pick]  # per problem, in the order of efficiencies


def rule_ranker(arch: str) -> Ranker:
    """The measured kernels by the fallback rule's time (heuristics/rule.py), channel padding's copies included, as
    the runtime's rule orders them (runtime/selection.py predicted_seconds); ties by name."""
    spec = load_arch_spec(arch)

    def rank(m: ProblemMeasurements) -> list[str]:
        timed = []
        for name in m.kernels:
            config = KernelConfig.from_name(name)
            runs = runs_as(config, m.problem)
            copies = padding_copy_seconds(m.problem, runs.C, runs.K, spec)
            timed.append((rule_seconds(config, runs, spec, copies), name))
        return [name for _, name in sorted(timed)]
    return rank


def model_ranker(model: SelectionModel, arch: str) -> Ranker:
    """The model's order of the measured kernels it knows and of the vendor path (when it knows it), as the runtime
    chooses (runtime/selection.py python_best: it skips kernels outside the model's pool; ties by name); the rule's
    order of the kernels when it knows none."""
    spec = load_arch_spec(arch)
    rule = rule_ranker(arch)

    def rank(m: ProblemMeasurements) -> list[str]:
        names = sorted(name for name in m.kernels if model.knows(name))
        configs = [KernelConfig.from_name(n) for n in names]
        keys = list(model.choice_keys(m.problem, [(c, runs_as(c, m.problem)) for c in configs], spec)) if names else []
        if m.vendor_ms is not None and model.knows(VENDOR_KERNEL):
            names, keys = [*names, VENDOR_KERNEL], [*keys, model.vendor_key(m.problem, spec)]
        if not names:
            return rule(m)
        return [names[i] for i in sorted(range(len(names)), key=lambda i: (keys[i], names[i]))]
    return rank


def measured_ranker(other: dict[str, ProblemMeasurements]) -> Ranker:
    """Each problem's candidates in the order another measurement of it timed them, fastest first (those it did not
    time after them, by name): e.g. another GPU's oracle, what a model trained on that GPU could at best choose."""
    def rank(m: ProblemMeasurements) -> list[str]:
        timed = other[m.problem.key].candidates_ms
        return sorted(m.candidates_ms, key=lambda name: (name not in timed, timed.get(name, 0.0), name))
    return rank


def evaluate(measurements: list[ProblemMeasurements], rank: Ranker, *, direction: str, selector: str
             ) -> ValidationReport:
    if not measurements:
        raise ValueError(f"no measured problems for {direction}")
    efficiencies, picks, exact, top3, speedups = [], [], 0, 0, []
    for m in measurements:
        ranking = rank(m)
        oracle_name, oracle_ms = m.oracle
        timed = m.candidates_ms
        chosen_ms = timed[ranking[0]]
        efficiencies.append(oracle_ms / chosen_ms)
        picks.append(Pick(problem=m.problem.key, chosen=ranking[0], chosen_ms=chosen_ms, oracle=oracle_name,
                          oracle_ms=oracle_ms))
        exact += chosen_ms == oracle_ms
        top3 += any(timed[name] == oracle_ms for name in ranking[:3])
        if m.cudnn_ms is not None:
            speedups.append(m.cudnn_ms / chosen_ms)
    e = np.asarray(efficiencies)
    count = len(measurements)
    return ValidationReport(
        direction=direction, selector=selector, problems=count, efficiency_mean=float(e.mean()),
        efficiency_median=float(np.median(e)), efficiency_p10=float(np.percentile(e, 10)),
        efficiency_min=float(e.min()), exact_match=exact / count, top3_hit=top3 / count,
        speedup_vs_cudnn=math.exp(float(np.mean(np.log(speedups)))) if speedups else None,
        efficiencies=[float(v) for v in e], picks=picks)


def report_table(reports: list[ValidationReport]) -> str:
    def pct(value: float) -> str:
        return f"{100 * value:.1f}%"

    rows = [[r.direction, r.selector, r.problems, pct(r.efficiency_mean), pct(r.efficiency_median),
             pct(r.efficiency_p10), pct(r.efficiency_min), pct(r.exact_match), pct(r.top3_hit),
             f"{r.speedup_vs_cudnn:.2f}x" if r.speedup_vs_cudnn else "-"] for r in reports]
    return table(["direction", "selector", "problems", "mean", "median", "P10", "min", "exact", "top-3",
                  "vs cuDNN"], rows)


def bootstrap_intervals(efficiencies: list[float], resamples: int, *, level: float = 0.9, seed: int = 0
                        ) -> dict[str, tuple[float, float]]:
    """{'mean': (low, high), 'p10': (low, high)}: the central `level` interval of the mean and of the P10 efficiency
    over `resamples` resamples of the problems, drawn with replacement (numpy's seeded generator: the same numbers on
    every run). How far another draw of as many held-out problems could move them: on 50-65 problems a direction one
    pick more or less near the tail moves P10 by points."""
    values = np.asarray(efficiencies)
    draws = values[np.random.default_rng(seed).integers(0, len(values), size=(resamples, len(values)))]
    tails = 100 * (1 - level) / 2, 100 * (1 + level) / 2
    return {name: tuple(float(v) for v in np.percentile(stat, tails))
            for name, stat in (("mean", draws.mean(axis=1)), ("p10", np.percentile(draws, 10, axis=1)))}


def intervals_table(reports: list[ValidationReport], resamples: int, level: float = 0.9) -> str:
    """Each report's mean and P10 with their bootstrap_intervals."""
    rows = []
    for r in reports:
        interval = bootstrap_intervals(r.efficiencies, resamples, level=level)
        rows.append([r.direction, r.selector, r.problems,
                     *(f"{100 * point:.1f}% [{100 * interval[name][0]:.1f}, {100 * interval[name][1]:.1f}]"
                       for name, point in (("mean", r.efficiency_mean), ("p10", r.efficiency_p10)))])
    return table(["direction", "selector", "problems", "mean", "P10"], rows)


def worst_picks_table(reports: list[ValidationReport], count: int) -> str:
    """The count least efficient picks of each report: the problem, what was chosen and the oracle, with their
    times (where a selector loses most, for the next person to look at)."""
    rows = []
    for r in reports:
        for pick in sorted(r.picks, key=lambda p: (p.efficiency, p.problem))[:count]:
            rows.append([r.direction, r.selector, f"{100 * pick.efficiency:.1f}%", pick.problem,
                         f"{pick.chosen} {1000 * pick.chosen_ms:.1f} us",
                         f"{pick.oracle} {1000 * pick.oracle_ms:.1f} us"])
    return table(["direction", "selector", "efficiency", "problem", "chosen", "oracle"], rows)


def plot_cdf(reports: list[ValidationReport], path: Path) -> None:
    """Efficiency CDF per (direction, selector) to a PNG."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    figure, axes = plt.subplots(figsize=(7, 4.5))
    for r in reports:
        values = np.sort(r.efficiencies)
        axes.step(values, np.arange(1, len(values) + 1) / len(values), where="post",
                  label=f"{r.direction} / {r.selector} (mean {100 * r.efficiency_mean:.1f}%)")
    axes.set_xlabel("efficiency = oracle time / selected time")
    axes.set_ylabel("fraction of problems")
    axes.set_xlim(0, 1.01)
    axes.grid(alpha=0.3)
    axes.legend(loc="upper left", fontsize=8)
    figure.tight_layout()
    figure.savefig(path, dpi=120)
    plt.close(figure)
