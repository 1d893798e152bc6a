"""Expansion of the six rule sets: golden lists, subset relations, determinism, axis coverage, sizes."""
import pytest

from gconv.generator.pipeline import render_generated
from gconv.generator.stats import AXES
from gconv.schemas import Direction, DType, Pipeline

SUBSETS = [("tiny", "full-tests"), ("full-tests", "full"), ("tests", "full"), ("profiler", "full"),
           ("default", "full")]


@pytest.mark.parametrize("set_name", ["full", "full-tests", "tiny", "tests", "profiler", "default"])
def test_expanded_instance_list_matches_golden(set_name, expansions, data_regression):
    data_regression.check({
        "count": len(expansions[set_name]),
        "instances": [f"{i.name} [{','.join(i.archs)}] <- {i.rule}" for i in expansions[set_name]],
    })


@pytest.mark.parametrize("subset, superset", SUBSETS)
def test_subset_relations(expansions, subset, superset):
    inner = {i.config for i in expansions[subset]}
    outer = {i.config for i in expansions[superset]}
    assert inner <= outer, sorted(c.name for c in inner - outer)


def test_sizes_match_their_purpose(expansions):
    full = len(expansions["full"])
    # 10,214 since session 64's via_fwd twins of the 932 igemm forward kernels; 10,916 with session 69's
    # eight-filter tiny-group kernels (702, bench/results/multiplier8/)
    assert 300 <= full <= 11000
    for name in ("profiler", "tests"):  # tests: 1,216 (11.1% of full since session 69)
        assert 0.10 * full <= len(expansions[name]) <= 0.40 * full, name
    for direction in Direction:
        tiny = [i for i in expansions["tiny"] if i.config.direction is direction]
        assert 3 <= len(tiny) <= 24, direction  # fwd 21 since session 56's split-K kernel


def test_expansion_is_deterministic_and_sorted(rules, expansions):
    again = rules.expand()
    for name, instances in expansions.items():
        assert [i.name for i in instances] == sorted(i.name for i in instances)
        assert again[name] == instances


def test_rendering_twice_gives_identical_bytes(rules):
    first = render_generated(rules, only="tiny")
    second = render_generated(rules, only="tiny")
    assert first == second


def _values(instances, axis):
    return {getattr(getattr(i.config, axis), "value", getattr(i.config, axis)) for i in instances}


@pytest.mark.parametrize("axis", AXES)
def test_full_tests_covers_every_axis_value_of_full(expansions, axis):
    for direction in Direction:
        full = [i for i in expansions["full"] if i.config.direction is direction]
        tests = [i for i in expansions["full-tests"] if i.config.direction is direction]
        assert _values(full, axis) == _values(tests, axis), (direction, axis)


def test_tiny_exercises_every_code_path(expansions):
    """Each template branch (pipeline kind, merge, vector width, split, dtype, algorithm) per direction."""
    for direction in Direction:
        tiny = [i.config for i in expansions["tiny"] if i.config.direction is direction]
        # StreamK is a bwd_weight reduction strategy: the other directions have every other pipeline kind.
        expected = set(Pipeline) if direction is Direction.bwd_weight else set(Pipeline) - {Pipeline.streamk}
        assert {c.pipeline for c in tiny} == expected
        assert {c.dtype for c in tiny} == set(DType)
        assert {c.algorithm.value for c in tiny} == {"igemm", "direct", "depthwise"}
        assert {c.multiplier for c in tiny if c.algorithm.value == "depthwise"} == {1, 2}
        assert any(c.groups_to_merge > 1 for c in tiny)
        assert {c.vector_width for c in tiny} >= {1, 2, 4, 8}
        assert any(c.raster_group > 1 for c in tiny) and any(c.raster_group == 1 for c in tiny)
        if direction is Direction.bwd_weight:
            assert any(c.split_k > 1 and c.algorithm.value == "igemm" for c in tiny)
            assert any(c.split_k > 1 and c.algorithm.value == "direct" for c in tiny)
            assert {c.split_k > 1 for c in tiny if c.algorithm.value == "depthwise"} == {True, False}
            assert any(c.split_k == 1 for c in tiny)


def test_arch_constraints(rules, expansions):
    """TMA is sm_90 only; everything else runs on sm_80 too unless its tiles exceed sm_80's shared memory."""
    from gconv.generator.derived import smem_bytes

    sm80_smem = rules.archs["sm_80"].max_smem_per_block_bytes
    for instance in expansions["full"]:
        if instance.config.pipeline is Pipeline.tma:
            assert instance.archs == ("sm_90",), instance.name
        elif smem_bytes(instance.config) > sm80_smem:
            assert instance.archs == ("sm_90",), instance.name
        else:
            assert instance.archs == ("sm_80", "sm_90"), instance.name
