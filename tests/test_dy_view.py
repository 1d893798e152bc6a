"""The `dy_view` template choice (generator/render.py DY_VIEWS): how an implicit-GEMM bwd_weight tma kernel's
descriptor views dY, per group ([pixels, G, K], a box of one group's filters, reshaped and transposed) or flat
([pixels, G * K], the box transposed as it is) -- against float64 under the interpreter, where it applies, and what it
removes from the sm_90 loop."""
import pytest

from gconv.generator.render import Provenance, has_dy_view, render, template_choices
from gconv.schemas import KernelConfig, Problem

from interpreter_numerics import assert_rendered_matches_reference
from sass_twins import mma_loop_twins

PROVENANCE = Provenance(("rules/x.yaml",), "test", (), "test")
FLAT = "shape=[N * Ho * Wo, G * K], strides=[G * K, 1], block_shape=[BLOCK_K, BLOCK_M]"
# K = 24 filters a group against 128-row tiles: the flat box of group 0 reads group 1's filters into rows 24-47 of its
# tile (never stored), and group 1's box reads past the tensor (zeros); a stride, padding and a split that ends
# mid-image.
SHAPE = dict(N=2, G=2, C=16, K=24, Hi=7, Wi=6, Y=3, X=3, stride_h=2, pad_h=1, pad_w=1)
KERNELS = ["bwd_weight_fp16_igemm_m128n64k32_w4_s4_tma_g8_v8_mg1_sk1",
           "bwd_weight_fp16_igemm_m128n64k32_w4_s4_tma_g8_v8_mg1_sk4",
           "bwd_weight_fp16_igemm_m128n64k32_w4_s4_tma_g8_v8_mg1_sk16la"]


@pytest.mark.parametrize("name", KERNELS)
@pytest.mark.parametrize("view", ["flat", "groups"])
def test_both_views_match_float64_reference(name, view, tmp_path):
    config = KernelConfig.from_name(name)
    problem = Problem(direction="bwd_weight", dtype="fp16", **SHAPE)
    source = assert_rendered_matches_reference(config, problem, tmp_path, seed=13, choices={"dy_view": view})
    assert (FLAT in source) is (view == "flat") and ("tl.reshape(a, " in source) is (view == "groups")


@pytest.mark.parametrize("name, applies", [
    ("bwd_weight_bf16_igemm_m128n64k64_w4_s4_tma_g8_v8_mg1_sk1", True),
    ("bwd_weight_bf16_igemm_m128n128k32_w8_s4_tma_g8_v8_mg1_sk16la", True),
    ("bwd_weight_bf16_igemm_m64n64k64_w4_s4_tma_g8_v8_mg2_px8x8_sk1", False),  # pixel boxes: a descriptor per tap
    ("bwd_weight_bf16_igemm_m64n64k32_w4_s3_ms_g8_v8_mg1_sk4", False),  # pointer loads
    ("fwd_bf16_igemm_m128n64k64_w4_s4_tma_g8_v8_mg1", False),  # its weights stay in shared memory already
])
def test_only_the_tma_bwd_weight_tiles_take_the_choice(name, applies):
    config = KernelConfig.from_name(name)
    assert has_dy_view(config) is applies and template_choices(config)["dy_view"] == "flat"
    rule = render(config, PROVENANCE)
    groups = render(config, PROVENANCE, {"dy_view": "groups"})
    assert (groups != rule) is applies and (FLAT in rule) is applies


def test_the_flat_view_keeps_the_filters_in_shared_memory_on_sm_90():
    """The per-group box, reshaped and transposed, reaches the tensor cores through registers (LDSM, and a warpgroup
    wait for each); the flat box's transpose is the descriptor's, so the HGMMAs read both operands from shared memory:
    `bench/mma_loop.py` on `default`'s 128 x 64 x 64 tile for a dense training layer."""
    groups, flat = mma_loop_twins("bwd_weight_bf16_igemm_m128n64k64_w4_s4_tma_g8_v8_mg1_sk1",
                                  "bwd_weight_bf16_n32_g1_c256_k256_hi149_wi149_y3_x3_s2x2_p1x1_d1x1", "dy_view",
                                  ("groups", "flat"))
    assert groups["HGMMA"] == flat["HGMMA"] == 8 and groups["LDSM"] == 8 and "LDSM" not in flat
    assert flat["WARPGROUP"] < groups["WARPGROUP"] and sum(flat.values()) < 0.95 * sum(groups.values())
