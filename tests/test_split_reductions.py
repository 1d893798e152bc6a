"""Split reductions of igemm bwd_weight beyond one-stage split-K: two-stage (`_sk<S>ts`: each split stores its partial
tile in its own fp32 workspace slice, then the slices are summed and cast) and StreamK (`_strk_`: a persistent grid,
each program an equal run of all tile x reduction-step units, tile parts added with fp32 atomics). Interpreter
numerics against float64 into NaN-poisoned outputs (splits past the end of the reduction, a channel count no tile
divides, TMA, StreamK runs ending tiles part-way), the workspace layout, and the axis rules; and the deep-split tiles
(split_k 64 and 256) with most splits empty."""
import re

import pytest
import torch

from gconv.runtime.launch import two_stage_workspace
from gconv.schemas import KernelConfig, Problem

from interpreter_numerics import assert_matches_reference, assert_rendered_matches_reference

SHAPES = {
    # N*Ho*Wo = 2*5*4 = 40 pixels: with 16 splits of whole 32-pixel steps, splits 2..15 have nothing to add.
    "s2-d2-empty-splits": dict(N=2, G=3, C=16, K=24, Hi=11, Wi=9, Y=3, X=3, stride_h=2, stride_w=2, pad_h=1,
                               pad_w=1, dil_h=2, dil_w=2),
    # C*Y*X = 40*9 = 360 columns (not a multiple of 64), 2*12*10 = 240 pixels.
    "c40": dict(N=2, G=2, C=40, K=16, Hi=12, Wi=10, Y=3, X=3, pad_h=1, pad_w=1),
}
KERNELS = ["bwd_weight_fp16_igemm_m64n64k32_w4_s3_ms_g8_v8_mg1_sk16ts",
           "bwd_weight_fp16_igemm_m64n64k32_w4_s3_tma_g8_v8_mg1_sk4ts"]


@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("kernel", KERNELS)
def test_two_stage_kernels_equal_the_reference(kernel, shape):
    assert_matches_reference(kernel, Problem(direction="bwd_weight", dtype="fp16", **SHAPES[shape]), seed=7)


def test_workspace_slices_have_the_output_layout_one_weight_apart():
    out = torch.empty(6, 4, 3, 2).contiguous(memory_format=torch.channels_last)  # K, C, Y, X
    slices = two_stage_workspace(3, out)
    assert slices.shape == (3, 6, 4, 3, 2) and slices.dtype == torch.float32
    assert slices[0].stride() == out.stride()
    assert slices.stride(0) == out.numel()  # the kernels add split_id * G*K*C*Y*X to the slice-0 offsets


# Depthwise and tiny-group bwd_weight, two-stage: the per-tap, sliding-rows and unrolled-taps templates (no rule set
# holds them yet: rendered from the templates). 2 x 7 x 9 = 126 output pixels in tiles of 32 or 64: with 16 splits
# most have no tile and store zeros, which the slices' sum must not mind.
DEPTHWISE_TWO_STAGE = {
    "bwd_weight_fp16_depthwise_t4x8c32_f3_m2_w2_v8_sk16ts": dict(C=1, K=2, Y=3, X=3, pad_h=1, pad_w=1),
    "bwd_weight_fp16_depthwise_t4x16c32_f5_m1_sr1_w2_v8_sk16ts": dict(C=1, K=1, Y=5, X=5, pad_h=2, pad_w=2),
    "bwd_weight_fp16_depthwise_t2x8c16_f3_m1_cpg2_w4_v8_sk4ts": dict(C=2, K=1, Y=3, X=3, pad_h=1, pad_w=1),
}


@pytest.mark.parametrize("kernel", DEPTHWISE_TWO_STAGE)
def test_two_stage_depthwise_kernels_equal_the_reference(kernel, tmp_path):
    problem = Problem(direction="bwd_weight", dtype="fp16", N=2, G=16, Hi=7, Wi=9, **DEPTHWISE_TWO_STAGE[kernel])
    source = assert_rendered_matches_reference(KernelConfig.from_name(kernel), problem, tmp_path, seed=9)
    assert "tl.atomic" not in source and "ws_ptr" not in source  # plain stores into the slices
    assert source.count(".to(tl.int64) * (G * K * C * Y * X) + dw_offs") == source.count("tl.store(")


def test_two_stage_sliding_depthwise_with_unrolled_taps_equals_the_reference(tmp_path):
    config = KernelConfig.from_name("bwd_weight_fp16_depthwise_t4x16c32_f3_m1_sr1_w2_v8_sk16ts")
    problem = Problem(direction="bwd_weight", dtype="fp16", N=2, G=16, C=1, K=1, Hi=7, Wi=9, Y=3, X=3, pad_h=1,
                      pad_w=1)
    source = assert_rendered_matches_reference(config, problem, tmp_path, seed=10,
                                               choices={"filter_programs": "unrolled"})
    assert "tl.atomic" not in source


def test_two_stage_is_an_axis_of_split_igemm_and_depthwise_bwd_weight_only():
    name = "bwd_weight_bf16_igemm_m128n64k32_w4_s4_tma_g8_v8_mg1_sk16ts"
    config = KernelConfig.from_name(name)
    assert config.two_stage and config.split_k == 16 and config.name == name
    assert not KernelConfig.from_name(name.removesuffix("ts")).two_stage
    depthwise = KernelConfig.from_name("bwd_weight_bf16_depthwise_t4x8c32_f3_m1_w2_v8_sk16ts")
    assert depthwise.two_stage and depthwise.writes_fp32_partials and not depthwise.accumulates_fp32
    message = ("two_stage is an axis of the igemm and depthwise bwd_weight kernels with split_k > 1 (each split "
               "stores its partial sums in an fp32 workspace slice, one pass sums the slices)")
    for other in ("bwd_weight_bf16_igemm_m128n64k32_w4_s4_tma_g8_v8_mg1_sk1ts",
                  "bwd_weight_bf16_depthwise_t4x8c32_f3_m1_w2_v8_sk1ts",
                  "bwd_weight_bf16_direct_p64c32_w4_v8_sk8ts"):
        with pytest.raises(ValueError, match=re.escape(message)):
            KernelConfig.from_name(other)
    with pytest.raises(ValueError, match="is not a kernel name"):
        KernelConfig.from_name("fwd_bf16_igemm_m128n64k32_w4_s4_tma_g8_v8_mg1ts")


STREAMK_KERNELS = ["bwd_weight_fp16_igemm_m64n64k32_w4_s3_strk_g8_v8_mg1_sk1",
                   "bwd_weight_fp16_igemm_m128n64k32_w4_s3_strk_g8_v8_mg1_sk1"]


@pytest.mark.parametrize("programs", [1, 3, 7, 1000])
@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("kernel", STREAMK_KERNELS)
def test_streamk_kernels_equal_the_reference(kernel, shape, programs):
    """StreamK over 1 program (one walk over every unit), a few (runs that end tiles part-way), and more programs than
    units (the launcher clamps to the unit count)."""
    problem = Problem(direction="bwd_weight", dtype="fp16", **SHAPES[shape])
    assert_matches_reference(kernel, problem, seed=8, num_programs=programs)


def test_streamk_is_a_bwd_weight_pipeline_without_split_k():
    config = KernelConfig.from_name("bwd_weight_bf16_igemm_m128n64k32_w4_s3_strk_g8_v8_mg1_sk1")
    assert config.pipeline.value == "streamk" and config.accumulates_fp32
    message = ("the streamk pipeline is a bwd_weight reduction strategy of its own: split_k must be 1 and the "
               "direction bwd_weight, got split_k=4 for bwd_weight")
    with pytest.raises(ValueError, match=re.escape(message)):
        KernelConfig.from_name("bwd_weight_bf16_igemm_m128n64k32_w4_s3_strk_g8_v8_mg1_sk4")
    with pytest.raises(ValueError, match=re.escape("got split_k=1 for fwd")):
        KernelConfig.from_name("fwd_bf16_igemm_m128n64k32_w4_s3_strk_g8_v8_mg1")


DEEP_SPLIT_SHAPES = {
    # One input channel (DeepBench's speech front ends, scaled down): GEMM-N = 1*5*7 = 35 taps, 2*8*8 = 128 pixels, so
    # 4 of the 64 or 256 splits hold a 32-pixel step and the rest add nothing.
    "one-channel": dict(N=2, G=1, C=1, K=20, Hi=12, Wi=20, Y=5, X=7, stride_h=1, stride_w=2, pad_w=1),
    # Three groups of 3 * 9 = 27 columns each, 4*16*16 = 1024 pixels: 32 steps, so half of 64 splits work.
    "grouped": dict(N=4, G=3, C=3, K=5, Hi=16, Wi=16, Y=3, X=3, pad_h=1, pad_w=1),
}


@pytest.mark.parametrize("shape", DEEP_SPLIT_SHAPES)
@pytest.mark.parametrize("kernel, rule_set", [("bwd_weight_fp16_igemm_m32n64k32_w4_s3_ms_g1_v1_mg1_sk256", "default"),
                                              ("bwd_weight_fp32_igemm_m32n32k32_w2_s3_ms_g1_v1_mg1_sk64", "full-tests")])
def test_deep_split_kernels_equal_the_reference(kernel, rule_set, shape):
    config = KernelConfig.from_name(kernel)
    assert_matches_reference(kernel, Problem(direction="bwd_weight", dtype=config.dtype, **DEEP_SPLIT_SHAPES[shape]),
                             seed=11, rule_set=rule_set)
