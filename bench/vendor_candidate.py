"""What the vendor candidate changes: the shipped models (trained on the cuDNN-heuristic rows too, so they may pick the
vendor path) against their twins trained without those rows (the same trees as before the vendor candidate: the
vendor column is then constant), on held-out measurements, per direction and shape class.

    python -m bench.vendor_candidate --train FILE.csv ... --held-out LABEL=FILE.csv[,FILE.csv] ...

--train: the measurements the shipped models were trained on (bench/results/validation-default-bf16.md's command,
trained with --with-sibling-dtype). Prints a markdown table: efficiency against the oracle of the whole pool (the
instances and the vendor path), speed-up over the best cuDNN mode, and how often the vendor path was picked / fastest.
"""
from __future__ import annotations

import argparse
import tempfile
from collections import defaultdict
from pathlib import Path

import numpy as np

from gconv.bench.problems import shape_class
from gconv.bench.summary import geomean
from gconv.heuristics import model as models
from gconv.heuristics.dataset import VENDOR_MODE, group_by_target, read_measurements
from gconv.heuristics.model import SIBLING_DTYPES, find_model, model_dir
from gconv.heuristics.train import TrainConfig, train
from gconv.heuristics.validation import model_ranker
from gconv.runtime.registry import VENDOR_KERNEL


def train_without_vendor(files: list[Path], root: Path) -> None:
    """Every direction x dtype of files, as `gconv train --with-sibling-dtype`, with the vendor rows left out."""
    groups = group_by_target(read_measurements(files))
    for m in (m for group in groups.values() for m in group):
        m.vendor_ms = None
    for (direction, dtype), measured in sorted(groups.items()):
        sibling = groups.get((direction, SIBLING_DTYPES.get(dtype)), [])
        train(measured, direction=direction, dtype=dtype, arch="sm_90", out=model_dir(direction, dtype, "sm_90", root),
              data_files=files, rule_sets=["default"], config=TrainConfig.load(), sibling=sibling)


def picks(root: Path, held_out: dict[str, list[Path]]) -> dict[tuple, tuple]:
    """(label, direction, problem key) -> (measurements, the models' pick), with the models under root."""
    shipped, models.MODELS_DIR = models.MODELS_DIR, root
    find_model.cache_clear()
    try:
        out = {}
        for label, files in held_out.items():
            for (direction, dtype), measured in group_by_target(read_measurements(files)).items():
                rank = model_ranker(find_model(direction, dtype, "sm_90"), "sm_90")
                out.update({(label, direction, m.problem.key): (m, rank(m)[0]) for m in measured})
        return out
    finally:
        models.MODELS_DIR = shipped
        find_model.cache_clear()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--train", nargs="+", type=Path, required=True)
    parser.add_argument("--held-out", nargs="+", required=True, help="LABEL=FILE.csv[,FILE.csv]")
    args = parser.parse_args()
    held_out = {item.split("=", 1)[0]: [Path(f) for f in item.split("=", 1)[1].split(",")] for item in args.held_out}
    shipped = picks(models.MODELS_DIR, held_out)
    with tempfile.TemporaryDirectory() as scratch:
        train_without_vendor(args.train, Path(scratch))
        before = picks(Path(scratch), held_out)
    cells = defaultdict(lambda: defaultdict(list))
    for key, (m, old) in before.items():
        new, timed = shipped[key][1], m.candidates_ms
        best = min(timed.values())
        for cls in ("all", shape_class(m.problem)):
            cell = cells[(key[0], key[1], cls)]
            cell["before"].append(best / timed[old])
            cell["after"].append(best / timed[new])
            cell["cudnn_before"].append(m.cudnn_ms / timed[old])
            cell["cudnn_after"].append(m.cudnn_ms / timed[new])
            cell["picked"].append(new == VENDOR_KERNEL)
            cell["fastest"].append(min(timed, key=timed.get) == VENDOR_KERNEL)
    print(f"Efficiency: oracle = fastest of the instances and the vendor path ({VENDOR_MODE}); vs cuDNN: its best mode.")
    print("| problems | direction | class | n | efficiency mean / P10, instances only | with the vendor path "
          "| vs cuDNN, instances only | with the vendor path | vendor picked / fastest |")
    print("|---|---|---|---|---|---|---|---|---|")
    for (label, direction, cls), c in sorted(cells.items()):
        b, a = np.asarray(c["before"]), np.asarray(c["after"])
        print(f"| {label} | {direction} | {cls} | {len(b)} | {100 * b.mean():.1f} / {100 * np.percentile(b, 10):.1f}% "
              f"| {100 * a.mean():.1f} / {100 * np.percentile(a, 10):.1f}% | {geomean(c['cudnn_before']):.2f}x "
              f"| {geomean(c['cudnn_after']):.2f}x | {sum(c['picked'])} / {sum(c['fastest'])} |")


if __name__ == "__main__":
    main()
