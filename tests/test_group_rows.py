"""The `group_rows` template choice (generator/render.py GROUP_ROWS): merged tap-major and pixel-box forward and
backward-data loops that find each step's channel (filter) groups, and the forward's channel within its group, by
halving compares instead of dividing -- against float64 under the interpreter, where it applies, and what it removes
from the sm_90 code."""
import pytest

from gconv.generator.render import Provenance, has_group_rows, render, template_choices
from gconv.schemas import KernelConfig, Problem

from interpreter_numerics import assert_rendered_matches_reference
from sass_twins import mma_loop_twins

PROVENANCE = Provenance(("rules/x.yaml",), "test", (), "test")
CASES = [
    # (kernel, problem fields): two, four and eight merged groups; a last block of fewer groups than the tile holds
    # (G not a multiple of the merge); channels (filters) a group short of a vector's multiple of BLOCK_K; stride,
    # dilation and classes no tap reaches; pixel boxes.
    ("fwd_fp16_igemm_m128n64k64_w4_s3_ms_g8_v8_mg2_tm", dict(N=1, G=4, C=24, K=24, Hi=6, Wi=5, Y=3, X=3, pad_h=1,
                                                             pad_w=1)),
    ("fwd_fp32_igemm_m64n64k32_w4_s3_ms_g8_v4_mg4_tm", dict(N=2, G=6, C=12, K=8, Hi=5, Wi=7, Y=3, X=2, stride_h=2,
                                                            pad_h=1, dil_w=2)),
    ("fwd_fp16_igemm_m64n32k32_w4_s3_tma_g8_v1_mg2_px8x8", dict(N=2, G=4, C=8, K=12, Hi=9, Wi=10, Y=3, X=3, pad_h=1,
                                                                pad_w=1)),
    ("fwd_fp16_igemm_m128n32k32_w4_s3_tma_g8_v1_mg4_px8x16", dict(N=1, G=8, C=4, K=5, Hi=9, Wi=17, Y=3, X=3,
                                                                  pad_h=1, pad_w=1)),
    ("bwd_data_fp16_igemm_m128n64k64_w4_s3_ms_g8_v8_mg2_tm", dict(N=1, G=4, C=24, K=24, Hi=6, Wi=5, Y=3, X=3,
                                                                  pad_h=1, pad_w=1)),
    ("bwd_data_fp32_igemm_m64n64k32_w4_s3_ms_g8_v4_mg8_tm", dict(N=1, G=10, C=4, K=4, Hi=9, Wi=8, Y=3, X=3,
                                                                 stride_h=2, stride_w=2, pad_h=1, pad_w=1)),
    ("bwd_data_fp32_igemm_m128n64k32_w4_s3_ms_g8_v4_mg2_tm", dict(N=2, G=3, C=8, K=20, Hi=13, Wi=10, Y=5, X=5,
                                                                  stride_h=3, stride_w=2, pad_h=4, pad_w=2, dil_h=2)),
    ("bwd_data_fp16_igemm_m64n32k32_w4_s3_tma_g8_v1_mg2_px8x8", dict(N=2, G=4, C=12, K=12, Hi=7, Wi=12, Y=3, X=3,
                                                                     pad_h=1, pad_w=1)),
]


@pytest.mark.parametrize("name, fields", CASES, ids=[f"{n}-G{f['G']}" for n, f in CASES])
def test_the_compared_groups_match_float64_reference(name, fields, tmp_path):
    config = KernelConfig.from_name(name)
    problem = Problem(direction=config.direction, dtype=config.dtype, **fields)
    source = assert_rendered_matches_reference(config, problem, tmp_path, seed=7, choices={"group_rows": "compare"})
    loop = source.split("    for step in range(")[1].split("\n\n")[0]
    assert "row_group = passed" in loop and not any(divided in loop for divided in ("// C)", "// K)", "channel % C"))


@pytest.mark.parametrize("name, applies", [
    ("fwd_bf16_igemm_m128n64k64_w4_s3_ms_g8_v8_mg2_tm", True),
    ("bwd_data_bf16_igemm_m64n32k32_w4_s3_tma_g8_v1_mg2_px8x8", True),
    ("fwd_bf16_igemm_m128n64k64_w4_s3_ms_g8_v8_mg1_tm", False),  # one group: no block-diagonal mask
    ("fwd_bf16_igemm_m128n64k64_w4_s3_ms_g8_v8_mg2", False),  # flat: k_walk's business
    ("bwd_weight_bf16_igemm_m64n64k32_w4_s3_ms_g8_v8_mg2_sk16", False),
])
def test_only_the_merged_tap_walks_take_the_choice(name, applies):
    config = KernelConfig.from_name(name)
    assert has_group_rows(config) is applies and template_choices(config)["group_rows"] == "compare"
    assert (render(config, PROVENANCE, {"group_rows": "divide"}) != render(config, PROVENANCE)) is applies


def test_the_compared_groups_issue_fewer_instructions_a_step_on_sm_90():
    """bench/mma_loop.py on the merged 128 x 64 x 64 tap-major bwd_data tile (bench/results/issue-audit/), compiled
    as the JIT compiles its median winning problem."""
    divide, compare = mma_loop_twins("bwd_data_bf16_igemm_m128n64k64_w4_s3_ms_g8_v8_mg2_tm",
                                     "bwd_data_bf16_n32_g32_c24_k24_hi73_wi73_y5_x5_s2x2_p2x2_d1x1", "group_rows",
                                     ("divide", "compare"))
    assert divide["HGMMA"] == compare["HGMMA"] == 8 and divide["LDGSTS"] == compare["LDGSTS"] > 0
    assert sum(compare.values()) < 0.9 * sum(divide.values())
