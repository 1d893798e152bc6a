"""Which depthwise kernels are candidates by load width: the narrower loads (8-byte, scalar) only where the widest
(16-byte) ones cannot run, i.e. where 8 (4 in fp32) does not divide G; a forced kernel= runs any width."""
import pytest

import gconv
from gconv.runtime.selection import forced_choice, kernels_for, narrower_than_needed
from gconv.schemas import KernelConfig


def _problem(G: int, dtype: str = "bf16", direction: str = "fwd") -> gconv.Problem:
    return gconv.Problem(direction=direction, dtype=dtype, N=2, G=G, C=1, K=1, Hi=28, Wi=28, Y=3, X=3, pad_h=1,
                         pad_w=1)


def _depthwise_widths(problem: gconv.Problem, rule_set: str) -> set[int]:
    return {KernelConfig.from_name(name).vector_width for name in kernels_for(problem, rule_set, "sm_90")
            if "_depthwise_" in name and "_cpg" not in name}


@pytest.mark.parametrize("direction", ["fwd", "bwd_data", "bwd_weight"])
@pytest.mark.parametrize("G, widths", [(64, {8}), (12, {4}), (36, {4}), (18, set()), (13, set())])
def test_default_offers_each_G_the_widest_depthwise_load_that_runs_it(direction, G, widths):
    assert _depthwise_widths(_problem(G, direction=direction), "default") == widths


@pytest.mark.parametrize("G, widths", [(64, {8}), (12, {4, 1}), (18, {1}), (13, {1})])
def test_full_keeps_scalar_loads_for_every_G_the_widest_cannot_take(G, widths):
    assert _depthwise_widths(_problem(G), "full") == widths


@pytest.mark.parametrize("G, widths", [(16, {4}), (6, {2}), (7, set())])
def test_fp32_loads_are_four_channels_at_their_widest(G, widths):
    assert _depthwise_widths(_problem(G, dtype="fp32"), "default") == widths


def test_the_rule_reads_the_arch_widest_load_in_bytes():
    config = KernelConfig.from_name("fwd_bf16_depthwise_t4x8c32_f3_m1_w2_v4")
    assert narrower_than_needed(config, _problem(16), max_vector_bytes=16)
    assert not narrower_than_needed(config, _problem(12), max_vector_bytes=16)
    assert not narrower_than_needed(config, _problem(16), max_vector_bytes=8)  # 8 bytes is that arch's widest
    assert not narrower_than_needed(KernelConfig.from_name("fwd_bf16_depthwise_t4x8c32_f3_m1_w2_v8"), _problem(16),
                                    max_vector_bytes=16)


def test_a_forced_narrow_kernel_still_runs_where_a_wider_one_would():
    choice = forced_choice("fwd_bf16_depthwise_t4x8c32_f3_m1_w2_v4", _problem(64), "default", "sm_90")
    assert (choice.name, choice.source, choice.padding) == ("fwd_bf16_depthwise_t4x8c32_f3_m1_w2_v4", "forced", None)
