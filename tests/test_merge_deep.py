"""The merged tiles of 64-deep steps (rules igemm-fwd-merge-deep, igemm-bwd-data-merge-deep: 128 x 64;
igemm-bwd-weight-merge-deep: 64 x 64 pixel boxes): two groups of 24 channels and filters share one tile, their
weights block-diagonal. Interpreter numerics against float64 into NaN-poisoned outputs, on group counts the merge
divides and does not (an odd G leaves the last tile half empty) and on groups wider than half a tile."""
import pytest

from gconv.schemas import Problem

from interpreter_numerics import assert_matches_reference

SHAPES = {
    # 24 channels a group: a tap's channels fill 24 of a 64-deep step (flat fwd walk: steps straddle taps).
    "c24-g4": dict(N=1, G=4, C=24, K=24, Hi=6, Wi=7, Y=3, X=3, pad_h=1, pad_w=1),
    # three groups: the second tile holds one group and a masked one; stride 2 and 8 filters a group.
    "c24-k8-g3-s2": dict(N=2, G=3, C=24, K=8, Hi=9, Wi=8, Y=3, X=3, stride_h=2, stride_w=2, pad_h=1, pad_w=1),
    # 40 channels and filters a group: the two groups' 80 filters span two column tiles, 80 channels two steps a tap.
    "c40-g2": dict(N=1, G=2, C=40, K=40, Hi=5, Wi=6, Y=3, X=3, pad_h=1, pad_w=1),
}
KERNELS = {"fwd": "fwd_fp16_igemm_m128n64k64_w4_s3_ms_g8_v8_mg2",
           "bwd_data": "bwd_data_fp16_igemm_m128n64k64_w4_s3_ms_g8_v8_mg2_tm"}


@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("direction", KERNELS)
def test_merged_deep_tiles_equal_the_reference(direction, shape):
    problem = Problem(direction=direction, dtype="fp16", **SHAPES[shape])
    assert_matches_reference(KERNELS[direction], problem, seed=5, num_programs=2)


BWD_WEIGHT_KERNEL = "bwd_weight_fp16_igemm_m64n64k64_w4_s4_tma_g8_v8_mg2_px8x8_sk4"


@pytest.mark.parametrize("shape", ["c24-g4", "c24-k8-g3-s2"])  # 2 x 40 channels would not fit one 64 x 64 tile
def test_merged_deep_pixel_boxes_equal_the_reference(shape):
    problem = Problem(direction="bwd_weight", dtype="fp16", **SHAPES[shape])
    assert_matches_reference(BWD_WEIGHT_KERNEL, problem, seed=5, num_programs=2)
