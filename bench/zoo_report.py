"""Per-model totals of the held-out real-network layers (bench/zoo_shapes.py): for each timm model and each measured
pass (fwd, bwd_data, bwd_weight at N=32; fwd at N=1), the summed time of its grouped layers (each shape times the
number of the model's layers that have it) with the best cuDNN mode, with the kernel the shipped selector picks (the
cuDNN path included, as at run time) and with the oracle (the fastest measured candidate).

    python -m bench.zoo_report --layers bench/results/zoo/layers.csv \
        --measurements bench/results/zoo/zoo-timm-default-bf16-gputime.csv [--models DIR] [--out FILE.md]

A layers file may name shapes its own measurements file left out because another file holds them (zoo2's
`--exclude`): pass those files too. The column "trained on" counts the pass's layers whose shape (in either dtype
of a sibling pair) is in the shipped model's training data (its metadata's data_files): their picks are not
held-out evidence.

Evaluation only: nothing here trains, tunes or picks rules.
"""
from __future__ import annotations

import argparse
import csv
import sys
from pathlib import Path

from pydantic import BaseModel, ConfigDict

from gconv.bench.zoo_shapes import INFERENCE_BATCH, TRAINING_BATCH, ZooLayer
from gconv.heuristics.dataset import ProblemMeasurements, group_by_target, read_measurements
from gconv.heuristics.model import load_model, locate_model
from gconv.heuristics.validation import evaluate, model_ranker
from gconv.paths import REPO_ROOT
from gconv.schemas import Direction, DType, Problem
from gconv.tables import table

PASSES = [(Direction.fwd, TRAINING_BATCH), (Direction.bwd_data, TRAINING_BATCH), (Direction.bwd_weight, TRAINING_BATCH),
          (Direction.fwd, INFERENCE_BATCH)]


class PassTotal(BaseModel):
    """One model's grouped layers in one pass: summed times in ms (count x per-layer time)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    model: str
    direction: str
    batch: int
    layers: int
    trained_on: int = 0  # of the layers, those whose shape the shipped model was trained on
    cudnn_ms: float
    selected_ms: float
    oracle_ms: float

    @property
    def speedup(self) -> float:
        return self.cudnn_ms / self.selected_ms

    @property
    def efficiency(self) -> float:
        return self.oracle_ms / self.selected_ms


def read_layers(path: Path) -> list[tuple[ZooLayer, int]]:
    """The layers file's rows: (a layer of each distinct shape of a model, how many of the model's layers have it)."""
    with open(path, newline="") as f:
        return [(ZooLayer(**{k: v for k, v in row.items() if k != "count"}), int(row["count"]))
                for row in csv.DictReader(f)]


def shape_key(problem: Problem) -> tuple:
    """A problem's fields but its dtype: the shape a sibling-dtype model trains on too."""
    return (problem.direction, *problem.fields[2:])


def pass_totals(layers: list[tuple[ZooLayer, int]], measurements: dict[str, ProblemMeasurements],
                selected_ms: dict[str, float], dtype: DType, trained_on: frozenset = frozenset()) -> list[PassTotal]:
    """Per model (in the layers' order) and pass (PASSES), the summed times, and how many of the layers have a shape
    in trained_on (shape_key); a missing measurement is refused."""
    totals = []
    for model in dict.fromkeys(layer.model for layer, _ in layers):
        mine = [(layer, count) for layer, count in layers if layer.model == model]
        for direction, batch in PASSES:
            cudnn = selected = oracle = 0.0
            seen = 0
            for layer, count in mine:
                problem = layer.problem(direction, dtype, batch)
                key = problem.key
                if key not in measurements or key not in selected_ms or measurements[key].cudnn_ms is None:
                    raise ValueError(f"{model} {layer.layer}: {key} has no complete measurement (cuDNN and a pick)")
                cudnn += count * measurements[key].cudnn_ms
                selected += count * selected_ms[key]
                oracle += count * measurements[key].oracle[1]
                seen += count * (shape_key(problem) in trained_on)
            totals.append(PassTotal(model=model, direction=direction.value, batch=batch,
                                    layers=sum(count for _, count in mine), trained_on=seen, cudnn_ms=cudnn,
                                    selected_ms=selected, oracle_ms=oracle))
    return totals


def totals_table(totals: list[PassTotal]) -> str:
    return table(["model", "pass", "N", "grouped layers", "trained on", "best cuDNN us", "gconv (selected) us",
                  "speed-up", "oracle us", "selected / oracle"],
                 [[t.model, t.direction, str(t.batch), str(t.layers), str(t.trained_on), f"{t.cudnn_ms * 1e3:.0f}",
                   f"{t.selected_ms * 1e3:.0f}", f"{t.speedup:.2f}x", f"{t.oracle_ms * 1e3:.0f}",
                   f"{t.efficiency:.1%}"] for t in totals])


def trained_on_shapes(dtype: DType, arch: str, models: Path | None) -> frozenset:
    """shape_key of every problem in the shipped models' training data for dtype (each direction's data_files)."""
    files = {REPO_ROOT / name for direction in Direction
             if (stored := locate_model(direction.value, dtype.value, arch, models)) is not None
             for name in stored.metadata.data_files}
    return frozenset(shape_key(m.problem) for m in read_measurements(sorted(files)).values())


def selected_times(measurements: dict[str, ProblemMeasurements], arch: str, models: Path | None) -> dict[str, float]:
    """Problem key -> measured time of the shipped selector's pick."""
    picked = {}
    for (direction, dtype), group in sorted(group_by_target(measurements).items()):
        model = load_model(direction, dtype, arch, models)
        if model is None:
            raise ValueError(f"no model for {direction}/{dtype} under {models or 'heuristics/models'}")
        report = evaluate(group, model_ranker(model, arch), direction=f"{direction}/{dtype}", selector="model")
        picked.update({pick.problem: pick.chosen_ms for pick in report.picks})
    return picked


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--layers", type=Path, required=True)
    parser.add_argument("--measurements", type=Path, nargs="+", required=True)
    parser.add_argument("--dtype", type=DType, default=DType.bf16)
    parser.add_argument("--arch", default="sm_90")
    parser.add_argument("--models", type=Path, help="models directory (default heuristics/models)")
    parser.add_argument("--out", type=Path, help="also write the table to this file")
    args = parser.parse_args(argv)
    try:
        measurements = read_measurements(args.measurements)
        totals = pass_totals(read_layers(args.layers), measurements,
                             selected_times(measurements, args.arch, args.models), args.dtype,
                             trained_on_shapes(args.dtype, args.arch, args.models))
    except (ValueError, FileNotFoundError) as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    text = totals_table(totals)
    print(text)
    if args.out:
        args.out.write_text(text + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
