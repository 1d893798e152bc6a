"""The `warp_specialize` template choice (generator/render.py WARP_SPECIALIZE): an implicit-GEMM bwd_weight pixel-box
tile's box loop asks Triton's Hopper pass for a producer warpgroup and two consumer ones -- against float64 under the
interpreter, where it applies, and what it moves out of the sm_90 loop."""
import pytest

from gconv.generator.render import Provenance, has_warp_specialize, render, template_choices
from gconv.schemas import KernelConfig, Problem

from interpreter_numerics import assert_rendered_matches_reference
from sass_twins import mma_loop_twins

PROVENANCE = Provenance(("rules/x.yaml",), "test", (), "test")
SPECIALISED = "for _ in tl.range(first, last, warp_specialize=True):"
# 4 x 16 and 8 x 8 pixel boxes over a 6 x 20 output of two images: boxes past the image's right and bottom edges, a
# padded 3x3 filter whose taps start outside it, two groups and a second filter tile (K = 80 > 64).
SHAPE = dict(N=2, G=2, C=16, K=80, Hi=6, Wi=20, Y=3, X=3, pad_h=1, pad_w=1)


@pytest.mark.parametrize("name", ["bwd_weight_fp16_igemm_m64n64k64_w4_s4_tma_g8_v8_mg1_px4x16_sk1",
                                  "bwd_weight_fp16_igemm_m64n64k64_w4_s4_tma_g8_v8_mg1_px8x8_sk1"])
def test_the_specialised_loop_matches_float64_reference(name, tmp_path):
    config = KernelConfig.from_name(name)
    problem = Problem(direction="bwd_weight", dtype="fp16", **SHAPE)
    source = assert_rendered_matches_reference(config, problem, tmp_path, seed=17, choices={"warp_specialize": "on"})
    assert SPECIALISED in source


@pytest.mark.parametrize("name, applies", [
    ("bwd_weight_bf16_igemm_m64n64k64_w4_s4_tma_g8_v8_mg1_px4x16_sk1", True),
    ("bwd_weight_bf16_igemm_m64n64k64_w4_s4_tma_g8_v8_mg2_px8x8_sk1", True),
    ("bwd_weight_bf16_igemm_m64n64k64_w4_s4_tma_g8_v8_mg1_px4x16_sk16la", False),  # a split: the pass fails on it
    ("bwd_weight_bf16_igemm_m128n128k64_w8_s4_tma_g8_v8_mg1_px1x64_sk1", False),  # 8 warps: the pass skips them
    ("bwd_weight_bf16_igemm_m128n64k64_w4_s4_tma_g8_v8_mg1_sk1", False),  # X gathered through pointers
    ("fwd_bf16_igemm_m64n32k32_w4_s3_tma_g8_v1_mg2_px8x8", False),  # another template
])
def test_only_the_unsplit_four_warp_pixel_boxes_take_the_choice(name, applies):
    config = KernelConfig.from_name(name)
    assert has_warp_specialize(config) is applies and template_choices(config)["warp_specialize"] == "off"
    rule = render(config, PROVENANCE)
    specialised = render(config, PROVENANCE, {"warp_specialize": "on"})
    assert (specialised != rule) is applies and (SPECIALISED in specialised) is applies and SPECIALISED not in rule


def test_the_specialised_loop_leaves_its_loads_to_a_producer_on_sm_90():
    """Triton's Hopper pass moves the two TMA box loads (and their address arithmetic) to a producer warpgroup: the
    consumers' loop keeps its four HGMMAs and waits on barriers only."""
    off, on = mma_loop_twins("bwd_weight_bf16_igemm_m64n64k64_w4_s4_tma_g8_v8_mg1_px4x16_sk1",
                             "bwd_weight_bf16_n32_g1_c256_k256_hi56_wi56_y3_x3_s1x1_p1x1_d1x1", "warp_specialize",
                             ("off", "on"))
    assert off["HGMMA"] == on["HGMMA"] == 4 and off["UTMALDG"] == 2 and "UTMALDG" not in on
    assert sum(on.values()) < 0.5 * sum(off.values())
