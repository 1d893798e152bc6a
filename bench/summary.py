"""Summary helpers of the bench scripts: the geometric mean of ratios, a dict row as one printed line, and a list
of dict rows as a CSV file."""
from __future__ import annotations

import csv
import math
from pathlib import Path


def geomean(values: list[float]) -> float:
    """exp(mean(log v)); nan for no values."""
    return math.exp(sum(math.log(v) for v in values) / len(values)) if values else float("nan")


def write_dict_rows(path: Path, rows: list[dict]) -> None:
    """rows (dicts with the same keys, in column order) as a CSV file with a header; the folder is created."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("w", newline="") as f:
        writer = csv.DictWriter(f, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)


def row_line(row: dict) -> str:
    """key=value pairs, floats to 4 significant digits."""
    return " ".join(f"{k}={v:.4g}" if isinstance(v, float) else f"{k}={v}" for k, v in row.items())
