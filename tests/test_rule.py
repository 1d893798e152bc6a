"""The fallback rule's time (heuristics/rule.py) and its fit (bench/fit_rule.py)."""
import math

import numpy as np
import pytest

from gconv.bench.fit_rule import fit, loss, pick_efficiency
from gconv.heuristics.analytic import LAUNCH_LATENCY_S, estimate
from gconv.heuristics.rule import (RuleCoefficients, RuleFitError, RuleTerms, combine, load_rule_fit, rule_seconds,
                                   rule_terms)
from gconv.runtime.registry import load_arch_spec
from gconv.schemas import KernelConfig, Problem

SPEC = load_arch_spec("sm_90")
PROBLEM = Problem(direction="fwd", dtype="bf16", N=2, G=8, C=4, K=4, Hi=16, Wi=16, Y=3, X=3, stride_h=1, stride_w=1,
                  pad_h=1, pad_w=1, dil_h=1, dil_w=1)
COEFFICIENTS = RuleCoefficients.from_vector([0.5, 3.0, 1.0, 1e-11, 2e-10, 0.0, 0.9, 2e-6, 4e-6])


def test_terms_of_an_igemm_tile_count_its_sector_run_and_loads():
    config = KernelConfig.from_name("fwd_bf16_igemm_m64n32k32_w4_s3_ms_g1_v8_mg2")
    terms = rule_terms(config, PROBLEM, SPEC)
    e = estimate(config, PROBLEM, SPEC)
    assert terms.sector_run == 2 * 4 * 2 / 32  # two merged groups of 4 channels, 2 bytes each, over a 32-byte sector
    assert terms.channel_waste == 1.0
    assert terms.vector_loads == pytest.approx(e.work * (64 + 32) / (2 * 64 * 32) / (8 * e.slots * e.wave_utilisation))
    assert terms.rounds == e.programs / e.slots and terms.waves == 1.0


def test_terms_of_a_direct_kernel_count_its_unused_channel_lanes():
    config = KernelConfig.from_name("fwd_bf16_direct_p64c64_w4_v1")
    terms = rule_terms(config, PROBLEM, SPEC)
    assert terms.channel_waste == 64 / 32  # one 64-channel block over G x K = 32 channels
    assert terms.sector_run == 1.0


def test_combine_adds_the_terms_as_documented():
    terms = RuleTerms(algorithm=1, compute_s=2e-6, memory_s=5e-6, vector_loads=1000.0, sector_run=0.5,
                      channel_waste=2.0, waves=3.0, rounds=2.5, extra_s=1e-6)
    c = (2e-6 * 3.0 + 1000.0 * 2e-10 / 0.5) * 2.0
    m = 5e-6 / 0.5
    expected = max(c, m) + 0.9 * min(c, m) + 2e-6 * 3 + 4e-6 * 2.5 + LAUNCH_LATENCY_S + 1e-6
    assert combine(terms, COEFFICIENTS) == pytest.approx(expected, rel=1e-12)


def test_shipped_fit_loads_and_orders_a_merged_tile_before_an_unmerged_one():
    fit_ = load_rule_fit()
    assert fit_.arch == "sm_90" and fit_.rows > 0
    merged = rule_seconds(KernelConfig.from_name("fwd_bf16_igemm_m64n32k32_w4_s3_ms_g1_v8_mg8"), PROBLEM, SPEC)
    alone = rule_seconds(KernelConfig.from_name("fwd_bf16_igemm_m64n32k32_w4_s3_ms_g1_v8_mg1"), PROBLEM, SPEC)
    assert merged < alone


def test_a_broken_fit_file_is_refused_naming_it(tmp_path):
    path = tmp_path / "rule_fit.yaml"
    path.write_text("coefficients: {overlap: -1}\n")
    with pytest.raises(RuleFitError, match=f"rule fit {path} is invalid"):
        load_rule_fit(path)
    with pytest.raises(RuleFitError, match="No such file or directory; `python -m bench.fit_rule` writes it"):
        load_rule_fit(tmp_path / "missing.yaml")


def test_coefficients_need_every_algorithm():
    with pytest.raises(ValueError, match="compute_scale needs a value >= 0 for each of igemm, direct, depthwise"):
        RuleCoefficients(compute_scale={"igemm": 1.0}, load_s={"igemm": 0, "direct": 0, "depthwise": 0}, overlap=0,
                         wave_latency_s=0, program_latency_s=0)


class SyntheticRows:
    """Rows whose times the rule with known coefficients gives exactly: the fit must find a loss of ~0 and pick
    every problem's fastest row."""

    def __init__(self, coefficients: RuleCoefficients, problems: int = 40, per_problem: int = 12, seed: int = 0):
        rng = np.random.default_rng(seed)
        n = problems * per_problem
        self.problem = np.repeat(np.arange(problems), per_problem)
        self.direction = np.asarray(["fwd", "bwd_data", "bwd_weight"])[self.problem % 3]
        self.terms = RuleTerms(algorithm=rng.integers(0, 3, n), compute_s=10 ** rng.uniform(-6, -3, n),
                               memory_s=10 ** rng.uniform(-6, -3, n), vector_loads=10 ** rng.uniform(2, 6, n),
                               sector_run=rng.choice([0.25, 0.5, 1.0], n), channel_waste=rng.choice([1.0, 2.0], n),
                               waves=rng.integers(1, 5, n).astype(float), rounds=rng.uniform(0.5, 8, n),
                               extra_s=np.zeros(n))
        self.seconds = combine(self.terms, coefficients.as_vector())
        self.estimated = self.terms.compute_s + self.terms.memory_s
        self.problems = problems
        self.best = np.full(problems, np.inf)
        np.minimum.at(self.best, self.problem, self.seconds)
        self.weight = np.ones(n)


def test_fit_recovers_times_the_rule_generated():
    rows = SyntheticRows(COEFFICIENTS)
    start = RuleCoefficients.from_vector([1, 1, 1, 1e-10, 1e-10, 1e-10, 0.3, 1e-6, 1e-7])
    assert loss(rows, start.as_vector()) > 0.01
    fitted, least = fit(rows, start)
    assert least < 1e-4
    assert all(eff == (1.0, 1.0) for eff in pick_efficiency(rows, combine(rows.terms, fitted)).values())
    assert math.isclose(fitted.overlap, COEFFICIENTS.overlap, rel_tol=0.05)
