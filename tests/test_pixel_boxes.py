"""igemm pixel boxes (`_px<rows>x<cols>`). bwd_weight: the reduction walks boxes of output pixels of one image, a
program's columns are one filter tap's channels (of one group or several merged), both operands load as
tensor-descriptor boxes whose out-of-bounds elements read as zero. fwd / bwd_data (stride 1): a tile's rows are a box
of output / input pixels, each tap's x / dy a box of one descriptor. Interpreter numerics against float64 into
NaN-poisoned outputs (padding, ragged boxes, a stride-2 tap's own phase of the strided view, filters past a group,
short group blocks, splits), support, names and the axis rule."""
import pytest

from gconv.runtime.support import unsupported_reason
from gconv.schemas import KernelConfig, Problem

from interpreter_numerics import assert_matches_reference, assert_rendered_matches_reference

SHAPES = {
    # two groups of 64 -> 72 filters (a 64-row tile reads the next group's filters, never stored), 3x3 padded, a
    # 6 x 10 output no 8 x 8 box divides
    "g2-k72-3x3": dict(N=2, G=2, C=64, K=72, Hi=6, Wi=10, Y=3, X=3, pad_h=1, pad_w=1),
    # stride 2 both ways (each tap reads its own phase of x: rows and columns 1 or 0 mod 2), row dilation 2, 5 x 3
    "s2-d2-5x3": dict(N=1, G=1, C=64, K=64, Hi=11, Wi=9, Y=5, X=3, stride_h=2, stride_w=2, pad_h=3, pad_w=1, dil_h=2),
    # 24 channels a group: each tap's one column tile reads the next groups' channels (the last group's past G*C read
    # as zero), never stored
    "g3-c24": dict(N=2, G=3, C=24, K=16, Hi=7, Wi=9, Y=3, X=3, pad_h=1, pad_w=1),
    # 96 channels a group: two column tiles a tap, the second half past the group's channels
    "g2-c96-s2": dict(N=1, G=2, C=96, K=24, Hi=9, Wi=8, Y=3, X=3, stride_h=2, stride_w=2, pad_h=1, pad_w=1),
}
BOXES_64 = ["bwd_weight_fp16_igemm_m64n64k64_w4_s4_tma_g8_v8_mg1_px8x8_sk1",
            "bwd_weight_fp16_igemm_m64n64k64_w4_s4_tma_g8_v8_mg1_px8x8_sk4"]


@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("kernel", BOXES_64)
def test_pixel_box_kernels_equal_the_reference(kernel, shape):
    assert_matches_reference(kernel, Problem(direction="bwd_weight", dtype="fp16", **SHAPES[shape]), seed=7)


def test_the_128_wide_one_row_boxes_equal_the_reference():
    problem = Problem(direction="bwd_weight", dtype="fp16", N=2, G=1, C=128, K=80, Hi=5, Wi=7, Y=3, X=3, pad_h=1,
                      pad_w=1)
    assert_matches_reference("bwd_weight_fp16_igemm_m128n128k64_w8_s4_tma_g8_v8_mg1_px1x64_sk4", problem, seed=3)


def test_support_needs_16_byte_input_pixels_and_an_input_of_at_least_one_stride():
    config = KernelConfig.from_name(BOXES_64[0])
    base = dict(direction="bwd_weight", dtype="fp16", N=1, G=1, C=64, K=64, Hi=8, Wi=8, Y=3, X=3, pad_h=1, pad_w=1)
    assert unsupported_reason(config, Problem(**base)) is None
    assert unsupported_reason(config, Problem(**{**base, "C": 24})) is None
    unvectorised = KernelConfig(**{**config.axes(), "vector_width": 1})
    assert unsupported_reason(unvectorised, Problem(**{**base, "C": 12})) == \
        "pixel boxes need C*2 bytes % 16 == 0 (input pixels), got 24"
    assert unsupported_reason(config, Problem(**{**base, "Hi": 1, "Y": 1, "pad_h": 0, "stride_h": 2})) == \
        "pixel boxes need an input at least stride pixels high and wide (a tap's strided view of it), got 1x8 at " \
        "stride 2x1"


def test_names_carry_the_box_and_parse_back():
    config = KernelConfig.from_name("bwd_weight_bf16_igemm_m64n64k32_w4_s4_tma_g8_v8_mg1_px2x16_sk16")
    assert (config.tile_w, config.tile_h, config.block_k, config.split_k) == (16, 2, 32, 16)
    assert KernelConfig.from_name(config.name) == config


@pytest.mark.parametrize("update", [dict(pipeline="multistage"), dict(two_stage=True, split_k=4),
                                    dict(direction="bwd_data", split_k=1, tap_major=True),
                                    dict(direction="fwd", split_k=1, explicit_gemm=True)])
def test_pixel_boxes_are_an_axis_of_the_plain_tma_kernels_only(update):
    axes = {**KernelConfig.from_name(BOXES_64[0]).axes(), **update}
    with pytest.raises(ValueError, match="tile_w is an axis of the depthwise kernels and, as pixel boxes, of the igemm "
                                         "tma kernels without two_stage, tap_major or explicit_gemm"):
        KernelConfig(**axes)


def test_a_box_wider_than_the_reduction_step_is_refused():
    axes = {**KernelConfig.from_name(BOXES_64[0]).axes(), "tile_w": 128}
    with pytest.raises(ValueError, match=r"igemm pixel boxes need a power-of-two tile_w of at most block_k \(64\), "
                                         r"got 128"):
        KernelConfig(**axes)


MERGED_SHAPES = {
    # eight groups of 4 -> 4 in one 32 x 32 tile (its rows and columns exactly the merged groups'), 3x3 padded, a 9 x 10
    # output no 8 x 8 box divides
    "g8-c4-k4": dict(N=2, G=8, C=4, K=4, Hi=9, Wi=10, Y=3, X=3, pad_h=1, pad_w=1),
    # twelve groups: the second group block holds four (the x box past G*C reads the descriptor's zero fill), two
    # filters a group, stride 2 both ways
    "g12-c4-k2-s2": dict(N=1, G=12, C=4, K=2, Hi=11, Wi=9, Y=3, X=3, stride_h=2, stride_w=2, pad_h=1, pad_w=1),
    # 6 -> 4 channels a group (tiles wider than the merged groups), row dilation 2, a 5 x 3 filter
    "g8-c6-k4-d2": dict(N=2, G=8, C=6, K=4, Hi=9, Wi=7, Y=5, X=3, pad_h=2, pad_w=1, dil_h=2),
}
MERGED_BOXES = ["bwd_weight_fp16_igemm_m32n32k64_w2_s4_tma_g8_v1_mg8_px8x8_sk4",
                "bwd_weight_fp16_igemm_m64n64k64_w4_s4_tma_g8_v1_mg4_px8x8_sk4"]


@pytest.mark.parametrize(("kernel", "shape"), [(k, s) for k in MERGED_BOXES for s in MERGED_SHAPES
                                               if (k, s) != (MERGED_BOXES[0], "g8-c6-k4-d2")])  # 8 x 6 > 32 channels
def test_merged_pixel_box_kernels_equal_the_reference(kernel, shape):
    assert_matches_reference(kernel, Problem(direction="bwd_weight", dtype="fp16", **MERGED_SHAPES[shape]), seed=11)


def test_merged_pixel_boxes_need_their_groups_in_one_tile_and_16_byte_pixels_of_both_operands():
    config = KernelConfig.from_name(MERGED_BOXES[0])  # 32 x 32, eight groups
    base = dict(direction="bwd_weight", dtype="fp16", N=1, G=8, C=4, K=4, Hi=8, Wi=8, Y=3, X=3, pad_h=1, pad_w=1)
    assert unsupported_reason(config, Problem(**base)) is None
    assert unsupported_reason(config, Problem(**{**base, "K": 2, "C": 1, "G": 16})) is None
    assert unsupported_reason(config, Problem(**{**base, "K": 5})) == \
        "merged pixel boxes hold their 8 groups in one tile: need 8*K <= 32 and 8*C <= 32, got K=5, C=4"
    assert unsupported_reason(config, Problem(**{**base, "C": 6})) == \
        "merged pixel boxes hold their 8 groups in one tile: need 8*K <= 32 and 8*C <= 32, got K=4, C=6"
    assert unsupported_reason(config, Problem(**{**base, "C": 3, "K": 3})) is None
    assert unsupported_reason(KernelConfig.from_name(MERGED_BOXES[1]), Problem(**{**base, "C": 3})) == \
        "merged pixel boxes need 4*C*2 and 4*K*2 bytes % 16 == 0 (a group block's channels and filters), got 24 and 32"
    assert unsupported_reason(config, Problem(**{**base, "G": 12, "K": 1})) == \
        "merged pixel boxes need G*C*2 and G*K*2 bytes % 16 == 0 (input and output pixels), got 96 and 24"
    assert unsupported_reason(config, Problem(**{**base, "G": 4})) == "merges 8 groups but the problem has G=4"


FWD_SHAPES = {
    # eight groups of 4 -> 4 in one 64 x 32 tile, 3x3 padded, boxes past the image's 9 x 10 output
    "g8-c4-k4": dict(N=2, G=8, C=4, K=4, Hi=9, Wi=10, Y=3, X=3, pad_h=1, pad_w=1),
    # twelve groups (a short last block for eight: its x box reads past G*C) of 4 -> 4, 5x5 unpadded
    "g12-c4-k4-5x5": dict(N=1, G=12, C=4, K=4, Hi=11, Wi=13, Y=5, X=5),
    # 2 -> 6 channels a group (tiles wider than the merged filters), dilated 5x3 with padding
    "g12-c2-k6-d2": dict(N=2, G=12, C=2, K=6, Hi=11, Wi=9, Y=5, X=3, pad_h=4, pad_w=2, dil_h=2, dil_w=2),
}
FWD_BOXES = ["fwd_fp16_igemm_m64n32k32_w4_s3_tma_g8_v1_mg8_px8x8", "fwd_fp16_igemm_m64n64k64_w4_s3_tma_g8_v1_mg4_px8x8"]


@pytest.mark.parametrize(("kernel", "shape"), [(k, s) for k in FWD_BOXES for s in FWD_SHAPES
                                               if (k, s) != (FWD_BOXES[0], "g12-c2-k6-d2")])  # 8 x 6 > 32 filters
def test_fwd_pixel_box_kernels_equal_the_reference(kernel, shape):
    assert_matches_reference(kernel, Problem(direction="fwd", dtype="fp16", **FWD_SHAPES[shape]), seed=5)


def test_fwd_pixel_boxes_need_stride_1_their_groups_in_one_tile_and_step_and_16_byte_boxes():
    config = KernelConfig.from_name(FWD_BOXES[0])  # 64 pixels x 32 filters, 32 channels a step, eight groups
    base = dict(direction="fwd", dtype="fp16", N=1, G=8, C=4, K=4, Hi=8, Wi=8, Y=3, X=3, pad_h=1, pad_w=1)
    assert unsupported_reason(config, Problem(**base)) is None
    assert unsupported_reason(config, Problem(**{**base, "stride_w": 2})) == \
        "fwd pixel boxes need stride 1 (one descriptor of X for every tap), got 1x2"
    assert unsupported_reason(config, Problem(**{**base, "K": 5})) == \
        "merged fwd pixel boxes hold their 8 groups in one tile and step: need 8*K <= 32 and 8*C <= 32, got K=5, C=4"
    assert unsupported_reason(config, Problem(**{**base, "C": 6})) == \
        "merged fwd pixel boxes hold their 8 groups in one tile and step: need 8*K <= 32 and 8*C <= 32, got K=4, C=6"
    assert unsupported_reason(config, Problem(**{**base, "G": 9, "C": 2})) == \
        "merged fwd pixel boxes need 8*C*2 and G*C*2 bytes % 16 == 0 (a group block's channels, input pixels), got " \
        "32 and 36"
    assert unsupported_reason(KernelConfig.from_name(FWD_BOXES[1]), Problem(**{**base, "C": 3})) == \
        "merged fwd pixel boxes need 4*C*2 and G*C*2 bytes % 16 == 0 (a group block's channels, input pixels), got " \
        "24 and 48"


def test_one_group_fwd_pixel_boxes_walk_a_group_of_several_channel_steps(tmp_path):
    """No rule set has them yet: rendered here, 40 channels of a group in two 32-channel steps a tap (the second
    reading the next group's channels, and past G*C the descriptor's zero fill, against zero weights)."""
    config = KernelConfig.from_name("fwd_fp16_igemm_m64n32k32_w4_s3_tma_g8_v1_mg1_px8x8")
    shape = dict(direction="fwd", dtype="fp16", N=1, G=2, C=40, K=24, Hi=9, Wi=11, Y=3, X=3, pad_h=1, pad_w=1)
    assert_rendered_matches_reference(config, Problem(**shape), tmp_path, seed=13)
    assert unsupported_reason(config, Problem(**{**shape, "C": 12})) == \
        "pixel boxes need C*2 bytes % 16 == 0 (input pixels), got 24"


@pytest.mark.parametrize(("name", "shape"), [
    # eight groups of 4 filters -> 4 channels: one 64 x 32 tile of 8 x 8 input boxes, 3x3 padded (taps reading dY
    # before and past the image)
    ("bwd_data_fp16_igemm_m64n32k32_w4_s3_tma_g8_v1_mg8_px8x8", dict(G=8, C=4, K=4, Hi=9, Wi=10, Y=3, X=3, pad_h=1,
                                                                       pad_w=1)),
    # twelve groups of 6 filters -> 2 channels, a short last block of four, dilated 5x3 with uneven padding
    ("bwd_data_fp16_igemm_m64n32k32_w4_s3_tma_g8_v1_mg4_px8x8", dict(G=12, C=2, K=6, Hi=11, Wi=9, Y=5, X=3, pad_h=4,
                                                                       pad_w=1, dil_h=2, dil_w=2)),
    # one group of 40 filters -> 24 channels: two 32-filter steps a tap, the second reading past the group's filters
    ("bwd_data_fp16_igemm_m64n32k32_w4_s3_tma_g8_v1_mg1_px8x8", dict(G=2, C=24, K=40, Hi=7, Wi=12, Y=3, X=3,
                                                                       pad_h=1, pad_w=1)),
])
def test_bwd_data_pixel_boxes_equal_the_reference(name, shape, tmp_path):
    """No rule set has them yet (bench/ab_variant.py renders them as twins): a tile's rows are a box of input pixels,
    each tap's dY a box of one descriptor."""
    problem = Problem(direction="bwd_data", dtype="fp16", N=2, **shape)
    assert_rendered_matches_reference(KernelConfig.from_name(name), problem, tmp_path, seed=17)


def test_bwd_data_pixel_boxes_name_filters_where_fwd_names_channels():
    config = KernelConfig.from_name("bwd_data_fp16_igemm_m64n32k32_w4_s3_tma_g8_v1_mg8_px8x8")
    base = dict(direction="bwd_data", dtype="fp16", N=1, G=8, C=4, K=4, Hi=8, Wi=8, Y=3, X=3, pad_h=1, pad_w=1)
    assert unsupported_reason(config, Problem(**base)) is None
    assert unsupported_reason(config, Problem(**{**base, "stride_h": 2})) == \
        "bwd_data pixel boxes need stride 1 (one descriptor of dY for every tap), got 2x1"
    assert unsupported_reason(config, Problem(**{**base, "C": 6})) == \
        "merged bwd_data pixel boxes hold their 8 groups in one tile and step: need 8*C <= 32 and 8*K <= 32, got " \
        "C=6, K=4"
    assert unsupported_reason(config, Problem(**{**base, "G": 9, "K": 2})) == \
        "merged bwd_data pixel boxes need 8*K*2 and G*K*2 bytes % 16 == 0 (a group block's filters, output pixels), " \
        "got 32 and 36"
