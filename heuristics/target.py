"""What a model predicts: log of the measured time divided by a known scale, per (kernel, problem) row.

Absolute log-time makes a model spend its capacity on how big a problem is, which every candidate of a
problem shares; the ranking between candidates is what selection needs. Dividing by a scale removes that:

- ``log_time``: log(time_ms), no scale.
- ``log_time_over_roofline``: log(time / roofline time of the problem), i.e. minus log of % of roofline.
- ``log_time_over_analytic``: log(time / analytic estimate of this kernel on this problem): the model learns
  the correction to the rule heuristic (heuristics/analytic.py), which already knows padding and waves.

Pure functions; the model's metadata records which one it was trained with.
"""
from __future__ import annotations

from typing import Literal

import numpy as np

from gconv.schemas import ArchSpec, Problem

from .analytic import roofline_seconds
from .features import FEATURE_NAMES

ANALYTIC_COLUMN = FEATURE_NAMES.index("log2_analytic_seconds")

Target = Literal["log_time", "log_time_over_roofline", "log_time_over_analytic"]
TARGETS: tuple[str, ...] = Target.__args__


def scale_ms(target: Target, problem: Problem, features: np.ndarray, arch: ArchSpec) -> np.ndarray:
    """The per-row divisor (milliseconds) of the target: model output = log(time_ms / scale_ms).

    features is the problem's feature matrix (one row per candidate); the analytic estimate is read from it.
    """
    rows = features.shape[0]
    if target == "log_time":
        return np.ones(rows)
    if target == "log_time_over_roofline":
        return np.full(rows, roofline_seconds(problem, arch) * 1e3)
    if target == "log_time_over_analytic":
        return np.exp2(features[:, ANALYTIC_COLUMN]) * 1e3
    raise ValueError(f"unknown training target {target!r}: expected one of {', '.join(TARGETS)}")
