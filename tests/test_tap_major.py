"""The tap-major reduction walk of igemm fwd and bwd_data (`_tm`): one filter tap per step, its channels (fwd) or
filters (bwd_data) in block_k steps. Interpreter numerics against float64 into NaN-poisoned outputs (channel counts
no block_k divides, stride-residue classes reached in one axis only, TMA and persistent variants), the axis rules,
and the padded work the estimate and the features count."""
import re

import pytest

from gconv.heuristics.analytic import padded_reduction
from gconv.runtime.support import unsupported_reason
from gconv.schemas import KernelConfig, Problem

from interpreter_numerics import assert_matches_reference

SHAPES = {
    # 40 channels / filters per tap: two block_k steps per tap, the second mostly padding.
    "c40-s1": dict(N=2, G=2, C=40, K=40, Hi=7, Wi=9, Y=3, X=3, pad_h=1, pad_w=1),
    # Stride 2, dilation 2, even padding in h and odd in w: every tap reaches h-residue 0 and w-residue 1, so bwd_data
    # class (0, 0) is reached in h but not in w (the zero divisor the compiler once folded on the H100).
    "s2-d2-h-only": dict(N=1, G=2, C=16, K=24, Hi=11, Wi=10, Y=3, X=5, stride_h=2, stride_w=2, pad_h=2, pad_w=3,
                         dil_h=2, dil_w=2),
    # 1x1 at stride 2 with G = 3 (a group count no tile divides).
    "pointwise-s2": dict(N=2, G=3, C=16, K=32, Hi=9, Wi=8, Y=1, X=1, stride_h=2, stride_w=2),
}
KERNELS = ["{d}_fp16_igemm_m64n64k32_w4_s3_ms_g8_v8_mg1_tm", "{d}_fp16_igemm_m64n64k32_w4_s3_tma_g8_v8_mg1_tm",
           "{d}_fp16_igemm_m128n64k32_w4_s3_pers_g1_v8_mg1_tm"]


@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("kernel", KERNELS)
@pytest.mark.parametrize("direction", ["fwd", "bwd_data"])
def test_tap_major_kernels_equal_the_reference(direction, kernel, shape):
    problem = Problem(direction=direction, dtype="fp16", **SHAPES[shape])
    assert_matches_reference(kernel.format(d=direction), problem, seed=11, num_programs=3)


def test_tap_major_is_an_axis_of_igemm_fwd_and_bwd_data_only():
    name = "bwd_data_bf16_igemm_m128n64k32_w4_s4_tma_g8_v8_mg1_tm"
    config = KernelConfig.from_name(name)
    assert config.tap_major and config.name == name
    assert not KernelConfig.from_name(name.removesuffix("_tm")).tap_major  # names from before the axis still parse
    message = ("tap_major is an axis of the igemm fwd and bwd_data kernels only (the reduction of bwd_weight runs "
               "over pixels, not taps)")
    weight = KernelConfig.from_name("bwd_weight_bf16_igemm_m64n64k32_w4_s3_ms_g8_v8_mg1_sk4").axes()
    with pytest.raises(ValueError, match=re.escape(message)):
        KernelConfig(**{**weight, "tap_major": True})
    direct = KernelConfig.from_name("fwd_bf16_direct_p64c32_w4_v8").axes()
    with pytest.raises(ValueError, match=re.escape(message)):
        KernelConfig(**{**direct, "tap_major": True})
    with pytest.raises(ValueError, match=re.escape(message)):
        KernelConfig.from_name("bwd_weight_bf16_igemm_m64n64k32_w4_s3_ms_g8_v8_mg1_tm_sk4")


def test_tma_bwd_data_needs_whole_reduction_steps_only_when_flat():
    problem = Problem(direction="bwd_data", dtype="bf16", N=1, G=2, C=64, K=40, Hi=8, Wi=8, Y=3, X=3)
    flat = KernelConfig.from_name("bwd_data_bf16_igemm_m128n64k32_w4_s4_tma_g8_v8_mg1")
    assert unsupported_reason(flat, problem) == "TMA bwd_data needs K % block_k == 0 (K=40, block_k=32)"
    tap_major = KernelConfig.from_name(flat.name + "_tm")
    assert unsupported_reason(tap_major, problem) is None  # a step never straddles two taps; filters past K read 0


def test_padded_work_pads_each_tap():
    fwd = Problem(direction="fwd", dtype="fp16", **SHAPES["c40-s1"])  # 2*7*9 = 126 rows: two 64-row tiles
    flat = KernelConfig.from_name("fwd_fp16_igemm_m64n64k32_w4_s3_ms_g8_v8_mg1")
    tap_major = KernelConfig.from_name(flat.name + "_tm")
    assert padded_reduction(flat, fwd) == 2 * 384  # 9 taps x 40 channels = 360 -> 384
    assert padded_reduction(tap_major, fwd) == 2 * 9 * 64  # 40 -> 64 per tap
    bwd = Problem(direction="bwd_data", dtype="fp16", **SHAPES["s2-d2-h-only"])
    tiles_per_class = 1  # 1 * 6 * 5 = 30 rows of each of the 4 classes: one 64-row tile
    # One class is reached by all 3 x 5 taps (h: every tap, w: all five reach one residue), the other three by none.
    assert padded_reduction(KernelConfig.from_name("bwd_data_fp16_igemm_m64n64k32_w4_s3_ms_g8_v8_mg1"), bwd) == \
        tiles_per_class * 384  # 15 taps x 24 filters = 360 -> 384
    assert padded_reduction(KernelConfig.from_name("bwd_data_fp16_igemm_m64n64k32_w4_s3_ms_g8_v8_mg1_tm"), bwd) == \
        tiles_per_class * 15 * 32  # 24 -> 32 per tap


@pytest.mark.parametrize("strides", [(1, 1), (2, 2), (1, 2), (3, 2)])
@pytest.mark.parametrize("kernel", ["bwd_data_fp32_igemm_m64n64k32_w4_s3_ms_g8_v4_mg1_tm",
                                    "bwd_data_fp32_igemm_m64n64k64_w4_s3_ms_g8_v4_mg1_tm"])
def test_fp32_tap_major_bwd_data_equals_the_reference_at_every_stride(kernel, strides):
    """The exact-offset loop (`k_walk` incremental) of `default` fp32 kernels of 32- and 64-deep steps: stride 1, strides
    in both axes, one axis only (stride_h 1, an argument Triton makes a constant), and 3."""
    problem = Problem(direction="bwd_data", dtype="fp32", N=2, G=2, C=12, K=20, Hi=13, Wi=11, Y=3, X=3,
                      stride_h=strides[0], stride_w=strides[1], pad_h=1, pad_w=2, dil_h=1, dil_w=2)
    assert_matches_reference(kernel, problem, seed=5, num_programs=4, rule_set="default")


@pytest.mark.parametrize("shape", ["c40-s1", "s2-d2-h-only"])
def test_merged_tap_major_bwd_data_equals_the_reference(shape):
    """Two groups share a tile of the exact-offset loop (`default`'s 64-deep merged tile; G = 3, so the second tile
    holds one group)."""
    problem = Problem(direction="bwd_data", dtype="fp16", **{**SHAPES[shape], "G": 3})
    assert_matches_reference("bwd_data_fp16_igemm_m128n64k64_w4_s3_ms_g8_v8_mg2_tm", problem, seed=3,
                             num_programs=4, rule_set="default")
