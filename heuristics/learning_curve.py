"""Learning curve: held-out selection efficiency against the number of training problems.

Says whether more measured problems would help (efficiency still climbing at the full set) or the features
and model are the limit (a plateau). Each point trains on a seeded random subset of the training problems and
evaluates on the same held-out problems.
"""
from __future__ import annotations

import random
import tempfile
from pathlib import Path

from pydantic import BaseModel, ConfigDict

from gconv.tables import table

from .dataset import ProblemMeasurements
from .model import SelectionModel, model_dir
from .train import TrainConfig, train
from .validation import evaluate, model_ranker


class LearningPoint(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    target: str
    training_problems: int
    efficiency_mean: float
    efficiency_p10: float
    efficiency_min: float


def subset_sizes(total: int, minimum: int) -> list[int]:
    """Halving sizes from total down to no fewer than minimum, ascending: e.g. 48 -> [6, 12, 24, 48]."""
    sizes = [total]
    while sizes[-1] // 2 >= minimum:
        sizes.append(sizes[-1] // 2)
    return sorted(sizes)


def learning_curve(training: list[ProblemMeasurements], held_out: list[ProblemMeasurements], *, direction: str,
                   dtype: str, arch: str, config: TrainConfig, seed: int = 0) -> list[LearningPoint]:
    ordered = sorted(training, key=lambda m: m.problem.key)
    points = []
    for size in subset_sizes(len(ordered), max(config.cv_folds, 4)):
        subset = random.Random(seed).sample(ordered, size)
        with tempfile.TemporaryDirectory() as root:
            out = model_dir(direction, dtype, arch, Path(root))
            train(subset, direction=direction, dtype=dtype, arch=arch, out=out, data_files=[], rule_sets=[],
                  config=config)
            model = SelectionModel.load(out, direction=direction, dtype=dtype, arch=arch)
            report = evaluate(held_out, model_ranker(model, arch), direction=direction, selector="model")
        points.append(LearningPoint(target=f"{direction}/{dtype}", training_problems=size,
                                    efficiency_mean=report.efficiency_mean, efficiency_p10=report.efficiency_p10,
                                    efficiency_min=report.efficiency_min))
    return points


def curve_table(points: list[LearningPoint]) -> str:
    rows = [[p.target, p.training_problems, f"{100 * p.efficiency_mean:.1f}%", f"{100 * p.efficiency_p10:.1f}%",
             f"{100 * p.efficiency_min:.1f}%"] for p in points]
    return table(["target", "training problems", "held-out mean", "P10", "min"], rows)


def plot_curve(points: list[LearningPoint], path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    figure, axes = plt.subplots(figsize=(7, 4.5))
    for target in sorted({p.target for p in points}):
        mine = [p for p in points if p.target == target]
        axes.plot([p.training_problems for p in mine], [p.efficiency_mean for p in mine], marker="o",
                  label=f"{target} mean")
        axes.plot([p.training_problems for p in mine], [p.efficiency_p10 for p in mine], marker=".", linestyle="--",
                  label=f"{target} P10")
    axes.set_xscale("log", base=2)
    axes.set_xlabel("training problems")
    axes.set_ylabel("held-out efficiency (oracle / selected)")
    axes.set_ylim(0, 1.01)
    axes.grid(alpha=0.3)
    axes.legend(fontsize=8)
    figure.tight_layout()
    figure.savefig(path, dpi=120)
    plt.close(figure)
