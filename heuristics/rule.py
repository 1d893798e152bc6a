"""The fallback rule's time: what selects a kernel when no trained model matches a direction x dtype x arch (fp32,
another GPU, a rule set without models). The terms come from the analytic estimate (analytic.py); how much each costs
comes from measurements: bench/fit_rule.py fits RuleCoefficients to the committed training sweeps and writes
rule_fit.yaml beside this file. The terms the estimate leaves out decided most of its wrong picks:

- compute: the estimate's compute time times a fitted factor per algorithm (its peak fractions are priors), plus the
  issue cost of the loads (one per vector_width elements of the operands a tile walks), spread over the slots;
- sectors: an implicit-GEMM tile reads groups_to_merge x min(C, K) channels of a pixel in one contiguous run; a run
  shorter than a 32-byte DRAM sector wastes the rest of it, so its loads and memory time grow by SECTOR_BYTES / run;
- channel blocks: a direct or depthwise program covers block_n channels; the last block's unused lanes cost as much
  as the used ones;
- overlap: compute and memory overlap only partly: max(c, m) + overlap x min(c, m);
- latency: each wave of programs, and each program a slot runs in turn, costs a fixed time (prologue, epilogue,
  the split reductions' partial sums), besides the launch.

The models keep reading the estimate as it is (its terms are their features, version-pinned); only the rule combines
them so.
"""
from __future__ import annotations

from datetime import date
from functools import lru_cache
from pathlib import Path
from typing import NamedTuple

import numpy as np
import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError

from gconv.errors import GconvError
from gconv.runtime.grid import cdiv
from gconv.runtime.support import forward_twin
from gconv.schemas import Algorithm, ArchSpec, Direction, KernelConfig, Problem

from .analytic import LAUNCH_LATENCY_S, estimate, twin_filter_seconds

RULE_FIT_FILE = Path(__file__).with_name("rule_fit.yaml")
SECTOR_BYTES = 32
ALGORITHMS = tuple(Algorithm)  # a term's algorithm is its index here


class RuleFitError(GconvError):
    """rule_fit.yaml is missing or invalid."""


class RuleCoefficients(BaseModel):
    """What each term of RuleTerms costs (combine)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    compute_scale: dict[Algorithm, float] = Field(description="factor on the estimate's compute time, per algorithm")
    load_s: dict[Algorithm, float] = Field(description="seconds per vector load a slot issues, per algorithm")
    overlap: float = Field(ge=0, description="share of min(compute, memory) that does not overlap the other")
    wave_latency_s: float = Field(ge=0, description="seconds per wave of programs")
    program_latency_s: float = Field(ge=0, description="seconds per program a slot runs in turn")

    def model_post_init(self, _context) -> None:
        for name in ("compute_scale", "load_s"):
            values = getattr(self, name)
            if set(values) != set(Algorithm) or any(not v >= 0 for v in values.values()):
                raise ValueError(f"{name} needs a value >= 0 for each of {', '.join(a.value for a in Algorithm)}; "
                                 f"got {({a.value: v for a, v in values.items()})}")

    def as_vector(self) -> np.ndarray:
        """The coefficients in the order from_vector reads (the fit's parameters)."""
        return np.asarray([*(self.compute_scale[a] for a in ALGORITHMS), *(self.load_s[a] for a in ALGORITHMS),
                           self.overlap, self.wave_latency_s, self.program_latency_s])

    @classmethod
    def from_vector(cls, values) -> RuleCoefficients:
        v = [float(x) for x in values]
        n = len(ALGORITHMS)
        return cls(compute_scale=dict(zip(ALGORITHMS, v[:n])), load_s=dict(zip(ALGORITHMS, v[n:2 * n])),
                   overlap=v[2 * n], wave_latency_s=v[2 * n + 1], program_latency_s=v[2 * n + 2])


class RuleFit(BaseModel):
    """rule_fit.yaml: the coefficients and where they came from."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    coefficients: RuleCoefficients
    arch: str
    data_files: list[str]
    data_sha256: str
    rows: int = Field(gt=0)
    problems: int = Field(gt=0)
    loss: float = Field(ge=0, description="the fit's weighted mean squared error of log time, centred per problem")
    estimate_efficiency: dict[str, tuple[float, float]] = Field(
        description="per direction, [mean, P10] efficiency on the fit's problems of picking by the estimate alone")
    rule_efficiency: dict[str, tuple[float, float]] = Field(
        description="per direction, [mean, P10] efficiency on the fit's problems of picking by the fitted rule")
    created: date


class RuleTerms(NamedTuple):
    """One candidate's terms (floats), or many candidates' (numpy arrays, the fit's)."""

    algorithm: int | np.ndarray  # index in ALGORITHMS
    compute_s: float | np.ndarray  # the estimate's
    memory_s: float | np.ndarray  # the estimate's
    vector_loads: float | np.ndarray  # vector loads each slot issues
    sector_run: float | np.ndarray  # contiguous bytes a load run covers over a sector, at most 1
    channel_waste: float | np.ndarray  # channels a direct or depthwise kernel's blocks cover over those it needs
    waves: float | np.ndarray
    rounds: float | np.ndarray  # programs over slots
    extra_s: float | np.ndarray  # fixed seconds besides the kernel: channel padding's copies, via_fwd's filter


def _channels(problem: Problem) -> int:
    """The channels a direct or depthwise kernel blocks over: the result's (the input's for bwd_data)."""
    p = problem
    return p.G * (p.C if p.direction is Direction.bwd_data else p.K)


def rule_terms(config: KernelConfig, problem: Problem, arch: ArchSpec, extra_s: float = 0.0) -> RuleTerms:
    """The terms of config on problem (which config must support: a padded candidate's padded problem, its copies'
    seconds in extra_s); a via_fwd config's are its forward kernel's on the forward twin, with the filter's
    transposition in extra_s."""
    if config.via_fwd:
        return rule_terms(config.kernel, forward_twin(problem), arch, extra_s + twin_filter_seconds(problem, arch))
    e = estimate(config, problem, arch)
    if config.algorithm is Algorithm.igemm:  # float arithmetic in capi/src/select.c's order: the same bits
        loads = float(e.work) * (config.block_m + config.block_n) / (2 * config.block_m * config.block_n)
        run = config.groups_to_merge * min(problem.C, problem.K) * problem.dtype.bytes
        sector, waste = min(1.0, run / SECTOR_BYTES), 1.0
    else:
        loads, sector = float(e.work) / 2, 1.0
        channels = _channels(problem)
        waste = cdiv(channels, config.block_n) * config.block_n / channels
    return RuleTerms(algorithm=ALGORITHMS.index(config.algorithm), compute_s=e.compute_s, memory_s=e.memory_s,
                     vector_loads=loads / (config.vector_width * e.slots * e.wave_utilisation),
                     sector_run=sector, channel_waste=waste, waves=float(cdiv(e.programs, e.slots)),
                     rounds=e.programs / e.slots, extra_s=extra_s)


def combine(terms: RuleTerms, coefficients: RuleCoefficients | np.ndarray) -> float | np.ndarray:
    """The rule's seconds from the terms (arrays alike): compute c = (compute_s x scale + vector_loads x load_s /
    sector_run) x channel_waste, memory m = memory_s / sector_run, then max(c, m) + overlap x min(c, m) + the
    latencies of the waves, the rounds and the launch, + extra_s. coefficients may be RuleCoefficients.as_vector()."""
    v = coefficients.as_vector() if isinstance(coefficients, RuleCoefficients) else coefficients
    n = len(ALGORITHMS)
    scale, load_s = v[:n][terms.algorithm], v[n:2 * n][terms.algorithm]
    c = (terms.compute_s * scale + terms.vector_loads * load_s / terms.sector_run) * terms.channel_waste
    m = terms.memory_s / terms.sector_run
    return (np.maximum(c, m) + v[2 * n] * np.minimum(c, m) + v[2 * n + 1] * terms.waves + v[2 * n + 2] * terms.rounds
            + LAUNCH_LATENCY_S + terms.extra_s)


@lru_cache(maxsize=None)
def load_rule_fit(path: Path = RULE_FIT_FILE) -> RuleFit:
    """rule_fit.yaml, validated (RuleFitError says what is wrong, naming the file)."""
    try:
        return RuleFit.model_validate(yaml.safe_load(Path(path).read_text()))
    except OSError as error:
        raise RuleFitError(f"rule fit {path}: {error.strerror}; `python -m bench.fit_rule` writes it") from None
    except (yaml.YAMLError, ValidationError) as error:
        raise RuleFitError(f"rule fit {path} is invalid: {error}") from None


def rule_seconds(config: KernelConfig, problem: Problem, arch: ArchSpec, extra_s: float = 0.0) -> float:
    """The fallback rule's time of config on problem (rule_terms' arguments), with the shipped coefficients."""
    return float(combine(rule_terms(config, problem, arch, extra_s), load_rule_fit().coefficients))
