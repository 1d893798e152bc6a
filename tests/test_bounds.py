"""The `bounds` template choice (generator/render.py BOUNDS): implicit-GEMM loops that test a gathered pixel coordinate
against both ends of the image by one unsigned compare instead of two signed ones -- against float64 under the
interpreter, where it applies, and what it removes from the sm_90 code."""
import pytest

from gconv.generator.render import Provenance, has_bounds, k_walk, render, template_choices
from gconv.schemas import KernelConfig, Problem

from interpreter_numerics import assert_rendered_matches_reference
from sass_twins import mma_loop_twins

PROVENANCE = Provenance(("rules/x.yaml",), "test", (), "test")
UNSIGNED = "uint32, bitcast=True) <"
CASES = [
    # (kernel, problem fields): padding on both sides, strides, dilation, so that coordinates fall below 0 and at or
    # past the image's end in both dimensions; every kind of loop the choice reaches.
    ("fwd_fp16_igemm_m64n64k32_w4_s3_ms_g8_v8_mg1", dict(N=2, G=2, C=16, K=16, Hi=7, Wi=6, Y=3, X=3, stride_h=2,
                                                         pad_h=1, pad_w=2, dil_w=2)),  # flat
    ("fwd_fp16_igemm_m128n64k64_w4_s3_ms_g8_v8_mg2", dict(N=1, G=3, C=24, K=24, Hi=6, Wi=5, Y=3, X=3, pad_h=1,
                                                          pad_w=1)),  # flat, merged groups
    ("fwd_fp32_igemm_m64n64k32_w4_s3_ms_g8_v4_mg1_tm", dict(N=2, G=2, C=12, K=8, Hi=5, Wi=7, Y=3, X=2, stride_w=2,
                                                            pad_h=2, pad_w=1, dil_h=2)),  # tap-major rows
    ("bwd_data_fp32_igemm_m64n64k32_w4_s3_ms_g8_v4_mg1_tm", dict(N=1, G=2, C=8, K=12, Hi=9, Wi=8, Y=3, X=3,
                                                                 stride_h=2, stride_w=2, pad_h=1, pad_w=2, dil_w=2)),
    ("bwd_data_fp16_igemm_m64n32k32_w4_s3_ms_g1_v1_mg8", dict(N=2, G=10, C=3, K=5, Hi=8, Wi=7, Y=3, X=3, stride_h=2,
                                                              stride_w=3, pad_h=2, pad_w=1, dil_h=2)),  # flat, merged
    ("bwd_weight_fp16_igemm_m64n64k32_w4_s3_ms_g8_v8_mg1_sk1", dict(N=2, G=2, C=16, K=8, Hi=7, Wi=6, Y=3, X=3,
                                                                    stride_h=2, pad_h=1, pad_w=2, dil_w=2)),
    ("bwd_weight_fp32_igemm_m64n64k32_w4_s3_ms_g8_v4_mg1_sk4", dict(N=2, G=1, C=8, K=12, Hi=5, Wi=9, Y=3, X=3,
                                                                    pad_h=1, pad_w=1)),  # split reduction
]


@pytest.mark.parametrize("name, fields", CASES, ids=[n for n, _ in CASES])
def test_the_unsigned_bounds_match_float64_reference(name, fields, tmp_path):
    config = KernelConfig.from_name(name)
    problem = Problem(direction=config.direction, dtype=config.dtype, **fields)
    source = assert_rendered_matches_reference(config, problem, tmp_path, seed=11, choices={"bounds": "unsigned"})
    assert source.count(UNSIGNED) == 2 and ">= 0) & (" not in source.split("def _conv_tile(")[1]


@pytest.mark.parametrize("name, fields", CASES, ids=[n for n, _ in CASES])
def test_the_signed_twins_match_float64_reference(name, fields, tmp_path):
    """The A/B's other side, rendered by the same `inside` macro."""
    config = KernelConfig.from_name(name)
    problem = Problem(direction=config.direction, dtype=config.dtype, **fields)
    source = assert_rendered_matches_reference(config, problem, tmp_path, seed=11, choices={"bounds": "signed"})
    assert UNSIGNED not in source


@pytest.mark.parametrize("name, applies", [
    ("fwd_bf16_igemm_m128n64k64_w4_s3_ms_g8_v8_mg1", True),
    ("fwd_bf16_igemm_m128n64k64_w4_s3_ms_g8_v8_mg1_tm", True),
    ("bwd_data_bf16_igemm_m128n128k64_w8_s3_ms_g8_v8_mg1_tm", True),
    ("bwd_data_bf16_igemm_m128n32k32_w4_s3_ms_g1_v1_mg8", True),
    ("bwd_weight_bf16_igemm_m128n128k64_w8_s4_tma_g8_v8_mg1_sk1", True),
    ("bwd_data_bf16_igemm_m128n16k32_w4_s3_ms_g1_v1_mg1", True),  # walks incrementally since session 53
    ("fwd_bf16_igemm_m64n32k32_w4_s3_tma_g8_v1_mg2_px8x8", False),  # pixel boxes
    ("bwd_weight_bf16_igemm_m64n64k64_w4_s4_tma_g8_v8_mg2_px8x8_sk1", False),
    ("fwd_bf16_direct_p64c32_w4_v1", False),
])
def test_only_the_masked_gathers_take_the_choice(name, applies):
    config = KernelConfig.from_name(name)
    assert has_bounds(config, k_walk(config)) is applies and template_choices(config)["bounds"] == "unsigned"
    rule = render(config, PROVENANCE)
    assert (render(config, PROVENANCE, {"bounds": "signed"}) != rule) is applies and (UNSIGNED in rule) is applies


def test_a_divided_bwd_data_walk_keeps_the_signed_bounds():
    """The divided walk tests the numerator's sign and the quotient's size apart: no coordinate to compare once."""
    config = KernelConfig.from_name("bwd_data_bf16_igemm_m128n16k32_w4_s3_ms_g1_v1_mg1")
    assert not has_bounds(config, "divide")
    divided = render(config, PROVENANCE, {"k_walk": "divide"})
    assert UNSIGNED not in divided and divided == render(config, PROVENANCE, {"k_walk": "divide", "bounds": "signed"})


def test_the_unsigned_bounds_issue_fewer_instructions_a_step_on_sm_90():
    """bench/mma_loop.py on the flat 128 x 64 x 64 forward tile, compiled as the JIT compiles a training problem."""
    signed, unsigned = mma_loop_twins("fwd_bf16_igemm_m128n64k64_w4_s3_ms_g8_v8_mg1",
                                      "fwd_bf16_n32_g4_c64_k64_hi56_wi56_y3_x3_s1x1_p1x1_d1x1", "bounds",
                                      ("signed", "unsigned"))
    assert signed["HGMMA"] == unsigned["HGMMA"] == 8 and signed["LDGSTS"] == unsigned["LDGSTS"] > 0
    assert sum(unsigned.values()) < 0.95 * sum(signed.values())
