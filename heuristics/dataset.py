"""Measurements (the rows `gconv profile` / the sweep writes) -> per-problem candidate tables for training/validation."""
from __future__ import annotations

import csv
import hashlib
import math
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

from gconv.bench.problems import CSV_FIELDS
from gconv.bench.rows import CUDNN_MODES
from gconv.runtime.padding import padded_problem, padding_for
from gconv.runtime.registry import VENDOR_KERNEL
from gconv.runtime.support import unsupported_reason
from gconv.schemas import KernelConfig, Problem

REQUIRED_COLUMNS = CSV_FIELDS + ["kernel", "status", "time_ms"]
CUDNN_PREFIX = "cudnn"


# The cuDNN mode the vendor path (runtime/registry.py VENDOR_KERNEL, kernel='cudnn') runs unless the caller turned
# torch.backends.cudnn.benchmark on ("cudnn-heuristic"): the time a selection of the vendor path gets.
VENDOR_MODE = CUDNN_MODES[0]


@dataclass
class ProblemMeasurements:
    """Every measured kernel of one problem: gconv instances (name -> ms), the vendor path's time (its default mode,
    VENDOR_MODE) and the best cuDNN mode."""

    problem: Problem
    kernels: dict[str, float] = field(default_factory=dict)
    cudnn_ms: float | None = None
    vendor_ms: float | None = None

    @property
    def candidates_ms(self) -> dict[str, float]:
        """What a selection may choose, timed: the instances, and the vendor path when it was measured."""
        return self.kernels if self.vendor_ms is None else {**self.kernels, VENDOR_KERNEL: self.vendor_ms}

    @property
    def oracle(self) -> tuple[str, float]:
        """The fastest candidate (candidates_ms), ties by name."""
        timed = self.candidates_ms
        name = min(timed, key=lambda k: (timed[k], k))
        return name, timed[name]


def runs_as(config: KernelConfig, problem: Problem) -> Problem:
    """The problem the kernel actually computes: the original, or its channel-padded version."""
    if unsupported_reason(config, problem) is None:
        return problem
    padding = padding_for(config, problem)
    if padding is None:
        raise ValueError(f"kernel {config.name} cannot run {problem.key}")
    return padded_problem(problem, padding)


def files_sha256(paths: list[Path]) -> str:
    """The SHA-256 of the files' bytes, in sorted path order: what a model or fit records of its training data."""
    digest = hashlib.sha256()
    for path in sorted(paths):
        digest.update(Path(path).read_bytes())
    return digest.hexdigest()


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
                    if row["kernel"] == VENDOR_MODE:
                        entry.vendor_ms = ms
                else:
                    entry.kernels[row["kernel"]] = ms
    return {key: m for key, m in by_problem.items() if m.kernels}


def kernels_outside(measurements: dict[str, ProblemMeasurements], listed: set[str]) -> list[str]:
    """The measured instances (sorted) that listed does not name: training takes every measured kernel as a
    candidate, so rows of a kernel the rule set no longer has would teach the model a choice the runtime never has."""
    return sorted({name for m in measurements.values() for name in m.kernels} - listed)


def incomplete_problems(measurements: dict[str, ProblemMeasurements],
                        candidate_sets: Callable[[Problem], list[set[str]]]) -> list[str]:
    """Keys (sorted) of the problems none of whose candidate sets (one a rule set) is measured in full: a sweep cut
    short mid-problem leaves one, timed on its fastest-predicted kernels only, whose oracle would be a guess."""
    return sorted(key for key, m in measurements.items()
                  if not any(wanted <= m.kernels.keys() for wanted in candidate_sets(m.problem)))


def without_incomplete(measurements: dict[str, ProblemMeasurements],
                       candidate_sets: Callable[[Problem], list[set[str]]]
                       ) -> tuple[dict[str, ProblemMeasurements], list[str]]:
    """The measurements less their incomplete problems (incomplete_problems), and those problems' keys (sorted):
    what `gconv train` and bench/extra_data_cv.py train on."""
    left_out = incomplete_problems(measurements, candidate_sets)
    dropped = set(left_out)
    return {key: m for key, m in measurements.items() if key not in dropped}, left_out


def rule_set_candidates(rule_sets: list[str], arch: str) -> Callable[[Problem], list[set[str]]]:
    """incomplete_problems' candidate sets: each rule set's candidate instances of a problem on arch (no vendor path:
    a sweep times cuDNN by its own rows)."""
    from gconv.runtime.selection import kernels_for

    return lambda problem: [{name for name in kernels_for(problem, rule_set, arch) if name != VENDOR_KERNEL}
                            for rule_set in rule_sets]


def group_by_target(measurements: dict[str, ProblemMeasurements]) -> dict[tuple[str, str], list[ProblemMeasurements]]:
    """(direction, dtype) -> its problems' measurements (one model per direction x dtype x arch)."""
    groups: dict[tuple[str, str], list[ProblemMeasurements]] = defaultdict(list)
    for m in measurements.values():
        groups[(m.problem.direction.value, m.problem.dtype.value)].append(m)
    return dict(groups)
