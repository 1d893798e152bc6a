"""Measurements (the rows `gconv profile` / the sweep writes) -> per-problem candidate tables for training/validation."""
from __future__ import annotations

import csv
import math
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path

from gconv.bench.problems import CSV_FIELDS
from gconv.runtime.padding import padded_problem, padding_for
from gconv.runtime.support import unsupported_reason
from gconv.schemas import KernelConfig, Problem

REQUIRED_COLUMNS = CSV_FIELDS + ["kernel", "status", "time_ms"]
CUDNN_PREFIX = "cudnn"


@dataclass
class ProblemMeasurements:
    """Every measured kernel of one problem: gconv instances (name -> ms) and the best cuDNN mode."""

    problem: Problem
    kernels: dict[str, float] = field(default_factory=dict)
    cudnn_ms: float | None = None

    @property
    def oracle(self) -> tuple[str, float]:
        name = min(self.kernels, key=lambda k: (self.kernels[k], k))
        return name, self.kernels[name]


def runs_as(config: KernelConfig, problem: Problem) -> Problem:
    """The problem the kernel actually computes: the original, or its channel-padded version."""
    if unsupported_reason(config, problem) is None:
        return problem
    padding = padding_for(config, problem)
    if padding is None:
        raise ValueError(f"kernel {config.name} cannot run {problem.key}")
    return padded_problem(problem, padding)


def read_measurements(paths: list[Path]) -> dict[str, ProblemMeasurements]:
    """Problem key -> measurements; rows with status != ok are skipped, malformed files refused with the reason."""
    by_problem: dict[str, ProblemMeasurements] = {}
    for path in paths:
        path = Path(path)
        if not path.exists():
            raise FileNotFoundError(f"measurements file {path} does not exist")
        with open(path, newline="") as f:
            reader = csv.DictReader(line for line in f if not line.startswith("#"))
            missing = [c for c in REQUIRED_COLUMNS if c not in (reader.fieldnames or [])]
            if missing:
                raise ValueError(f"{path}: missing columns {', '.join(missing)}")
            for number, row in enumerate(reader, start=2):
                if row["status"] != "ok":
                    continue
                try:
                    ms = float(row["time_ms"])
                except ValueError:
                    ms = math.nan
                if not math.isfinite(ms) or ms <= 0:
                    raise ValueError(f"{path}:{number}: time_ms must be a positive number for a row with status ok, "
                                     f"got {row['time_ms']!r}")
                problem = Problem(**{k: row[k] for k in CSV_FIELDS})
                entry = by_problem.setdefault(problem.key, ProblemMeasurements(problem))
                if row["kernel"].startswith(CUDNN_PREFIX):
                    entry.cudnn_ms = ms if entry.cudnn_ms is None else min(entry.cudnn_ms, ms)
                else:
                    entry.kernels[row["kernel"]] = ms
    return {key: m for key, m in by_problem.items() if m.kernels}


def group_by_target(measurements: dict[str, ProblemMeasurements]) -> dict[tuple[str, str], list[ProblemMeasurements]]:
    """(direction, dtype) -> its problems' measurements (one model per direction x dtype x arch)."""
    groups: dict[tuple[str, str], list[ProblemMeasurements]] = defaultdict(list)
    for m in measurements.values():
        groups[(m.problem.direction.value, m.problem.dtype.value)].append(m)
    return dict(groups)
