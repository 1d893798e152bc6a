"""The vectorised feature_matrix against its reference definition: the scalar rows of the feature engine, stacked."""
import random
from collections import Counter

import numpy as np
import pytest

from gconv.heuristics import features
from gconv.heuristics.dataset import runs_as
from gconv.heuristics.features import (FEATURE_NAMES, derived_features, feature_matrix, feature_rows,
                                       kernel_features, problem_features)
from gconv.runtime.padding import padded_problem
from gconv.runtime.registry import load_arch_spec
from gconv.runtime.selection import candidates
from gconv.schemas import Algorithm, KernelConfig, Pipeline, Problem

PROBLEMS_PER_CASE = 40


def scalar_rows(problem: Problem, listed: list[tuple[KernelConfig, Problem]], arch) -> np.ndarray:
    """The definition: problem, kernel and derived features of each candidate, one Python row at a time."""
    rows = [problem_features(problem) + kernel_features(config) + derived_features(config, runs, arch, problem) + [0.0]
            for config, runs in listed]  # vendor: 0 for every instance
    return np.array(rows, dtype=np.float64).reshape(len(listed), len(FEATURE_NAMES))


def assert_same(actual: np.ndarray, expected: np.ndarray) -> None:
    assert actual.shape == expected.shape
    assert np.isfinite(actual).all()
    mismatched = ~np.isclose(actual, expected, rtol=1e-12, atol=0)
    assert not mismatched.any(), [FEATURE_NAMES[i] for i in sorted(set(np.nonzero(mismatched)[1]))]


def random_problem(rng: random.Random) -> Problem:
    """A valid grouped convolution with the shapes selection meets: depthwise, odd channels, strides, dilation."""
    while True:
        Y = X = rng.choice([1, 1, 3, 3, 5, 7])
        try:
            return Problem(
                direction=rng.choice(["fwd", "bwd_data", "bwd_weight"]), dtype=rng.choice(["fp16", "bf16", "fp32"]),
                N=rng.choice([1, 2, 8, 32, 256]), G=rng.choice([1, 2, 3, 4, 8, 32, 64]),
                C=rng.choice([1, 3, 4, 8, 12, 16, 24, 64, 256]), K=rng.choice([1, 4, 7, 8, 16, 48, 64, 512]),
                Hi=rng.choice([1, 7, 14, 28, 56, 224]), Wi=rng.choice([1, 7, 15, 28, 56, 224]), Y=Y,
                X=rng.choice([X, 1, 3]), stride_h=rng.choice([1, 2]), stride_w=rng.choice([1, 2, 3]),
                pad_h=rng.choice([0, 1, 2]), pad_w=rng.choice([0, 1, 3]), dil_h=rng.choice([1, 1, 2]),
                dil_w=rng.choice([1, 2]))
        except ValueError:  # the dilated filter is larger than the padded input
            continue


def selector_list(problem: Problem, rule_set: str, arch: str) -> list[tuple[KernelConfig, Problem]]:
    """The candidates as runtime.selection.model_choice hands them to the model: padded ones run a padded copy."""
    pool = [c for c in candidates(problem, rule_set, arch) if c.entry is not None]
    return [(c.entry.config, padded_problem(problem, c.padding) if c.padding else problem) for c in pool]


@pytest.mark.parametrize("arch", ["sm_90", "sm_80"])
@pytest.mark.parametrize("rule_set", ["default", "full"])
def test_feature_matrix_equals_the_scalar_rows_on_random_problems(rule_set, arch):
    spec = load_arch_spec(arch)
    rng = random.Random(f"{rule_set}/{arch}")
    seen = Counter()
    for _ in range(PROBLEMS_PER_CASE):
        problem = random_problem(rng)
        listed = selector_list(problem, rule_set, arch)
        expected = scalar_rows(problem, listed, spec)
        assert_same(feature_matrix(problem, listed, spec), expected)
        assert_same(feature_matrix(problem, listed, spec), expected)  # the cached config columns
        assert_same(feature_rows(problem, listed, spec), expected)
        seen[problem.direction.value] += bool(listed)
        for config, runs in listed:
            seen["padded"] += runs is not problem
            seen[config.algorithm.value] += 1
            seen["split_k"] += config.split_k > 1
            seen["merged groups"] += config.groups_to_merge > 1
            seen["persistent"] += config.pipeline is Pipeline.persistent
    covered = {"fwd", "bwd_data", "bwd_weight", "padded", "igemm", "direct", "split_k", "merged groups", "persistent"}
    assert covered <= {name for name, count in seen.items() if count}, seen


@pytest.mark.parametrize("direction", ["fwd", "bwd_data", "bwd_weight"])
def test_every_registry_instance_of_a_direction_at_once(direction):
    """One list mixing igemm and direct, merged groups, splits, pipelines and padded runs (training's runs_as)."""
    spec = load_arch_spec("sm_90")
    problem = Problem(direction=direction, dtype="bf16", N=4, G=8, C=6, K=12, Hi=17, Wi=9, Y=3, X=3, stride_h=2,
                      pad_h=1, pad_w=1, dil_w=2)
    listed = [(c, runs_as(c, problem)) for c in map(KernelConfig.from_name, (c.name for c in
                                                                              candidates(problem, "full", "sm_90")
                                                                              if c.entry is not None))]
    assert len({(runs.C, runs.K) for _, runs in listed}) > 1  # the original and padded runs
    assert {c.algorithm for c, _ in listed} == {Algorithm.igemm, Algorithm.direct}
    assert_same(feature_matrix(problem, listed, spec), scalar_rows(problem, listed, spec))


@pytest.mark.parametrize("direction", ["fwd", "bwd_data", "bwd_weight"])
@pytest.mark.parametrize("multiplier, stride", [(1, 2), (2, 1), (4, 3)])
def test_depthwise_problems_mix_all_three_algorithms(direction, multiplier, stride):
    spec = load_arch_spec("sm_90")
    problem = Problem(direction=direction, dtype="bf16", N=3, G=40, C=1, K=multiplier, Hi=19, Wi=23, Y=3, X=3,
                      stride_h=stride, stride_w=2, pad_h=1, pad_w=1)
    listed = selector_list(problem, "full", "sm_90")
    assert {c.algorithm for c, _ in listed} == {Algorithm.igemm, Algorithm.direct, Algorithm.depthwise}
    assert_same(feature_matrix(problem, listed, spec), scalar_rows(problem, listed, spec))


def test_equal_problems_that_are_distinct_objects_and_a_single_candidate():
    spec = load_arch_spec("sm_80")
    problem = Problem(direction="bwd_weight", dtype="fp16", N=32, G=2, C=64, K=32, Hi=56, Wi=56, Y=3, X=3, pad_h=1,
                      pad_w=1)
    listed = [(config, problem.model_copy()) for config, _ in selector_list(problem, "default", "sm_80")]
    assert_same(feature_matrix(problem, listed, spec), scalar_rows(problem, listed, spec))
    assert_same(feature_matrix(problem, listed[:1], spec), scalar_rows(problem, listed[:1], spec))


def test_large_problems_stay_exact():
    """Sizes far beyond the benchmark's: the float64 columns keep every ceiling division exact."""
    spec = load_arch_spec("sm_90")
    for direction in ["fwd", "bwd_data", "bwd_weight"]:
        problem = Problem(direction=direction, dtype="fp32", N=1024, G=1, C=512, K=512, Hi=512, Wi=512, Y=3, X=3,
                          pad_h=1, pad_w=1)
        listed = selector_list(problem, "full", "sm_90")
        assert listed
        assert_same(feature_matrix(problem, listed, spec), scalar_rows(problem, listed, spec))


def test_mixed_directions_and_empty_lists_take_the_scalar_definition():
    spec = load_arch_spec("sm_90")
    problem = Problem(direction="fwd", dtype="bf16", N=32, G=4, C=24, K=48, Hi=28, Wi=28, Y=3, X=3, stride_h=2,
                      stride_w=2, pad_h=1, pad_w=1)
    names = ["fwd_bf16_igemm_m128n64k32_w4_s3_ms_g8_v8_mg1", "fwd_bf16_direct_p64c32_w4_v1",
             "bwd_weight_bf16_igemm_m64n64k32_w4_s3_ms_g8_v8_mg1_sk4"]
    listed = [(c, problem.with_direction(c.direction)) for c in map(KernelConfig.from_name, names)]
    assert_same(feature_matrix(problem, listed, spec), scalar_rows(problem, listed, spec))
    assert feature_matrix(problem, [], spec).shape == (0, len(FEATURE_NAMES))


def test_the_config_caches_are_bounded_and_keyed_by_identity(monkeypatch):
    spec = load_arch_spec("sm_90")
    problem = Problem(direction="fwd", dtype="fp16", N=2, G=2, C=16, K=16, Hi=14, Wi=14, Y=3, X=3, pad_h=1, pad_w=1)
    listed = selector_list(problem, "default", "sm_90")
    monkeypatch.setattr(features, "_KERNEL_CACHE_SIZE", 3)
    monkeypatch.setattr(features, "_kernel_cache", {})
    monkeypatch.setattr(features, "_CONFIG_CACHE_SIZE", 4)
    monkeypatch.setattr(features, "_config_cache", {})
    expected = scalar_rows(problem, listed, spec)
    for size in range(1, 6):  # new config objects each time (equal, not identical): misses that evict
        copies = [(KernelConfig.from_name(c.name), runs) for c, runs in listed[:size]]
        assert_same(feature_matrix(problem, copies, spec), expected[:size])
        assert len(features._kernel_cache) <= 3 and len(features._config_cache) <= 4
    for reversed_order in [False, True, False]:  # other lists of the same configs, then a cached one
        order = listed[::-1] if reversed_order else listed
        assert_same(feature_matrix(problem, order, spec), scalar_rows(problem, order, spec))
    assert features._kernel_cache, "the selector's list is cached"
