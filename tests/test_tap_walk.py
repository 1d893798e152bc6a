"""The `tap_walk` template choice (generator/render.py TAP_WALKS): tap-major and pixel-box forward and backward-data
loops that carry each step's tap and first channel (filter) from step to step instead of dividing them out of the
step index -- against float64 under the interpreter, where it applies, and what it removes from the sm_90 code."""
import subprocess
import sys

import pytest

from gconv.generator.render import Provenance, has_tap_walk, render, template_choices
from gconv.schemas import KernelConfig, Problem

from interpreter_numerics import assert_rendered_matches_reference
from sass_twins import mma_loop_twins

PROVENANCE = Provenance(("rules/x.yaml",), "test", (), "test")
CASES = [
    # (kernel, problem fields): channels (filters) a tap short of BLOCK_K, exactly two steps of it, and beyond with a
    # short last step; merged groups; rectangular filters, stride, dilation; persistent tiles.
    ("fwd_fp32_igemm_m128n64k32_w4_s3_ms_g8_v4_mg1_tm", dict(N=2, G=2, C=36, K=12, Hi=7, Wi=9, Y=3, X=2, stride_h=2,
                                                             pad_h=1, pad_w=1, dil_w=2)),
    ("fwd_fp32_igemm_m128n64k32_w4_s3_ms_g8_v4_mg1_tm", dict(N=1, G=3, C=4, K=8, Hi=6, Wi=6, Y=3, X=3, pad_h=1,
                                                             pad_w=1)),
    ("fwd_fp32_igemm_m128n64k32_w4_s3_ms_g8_v4_mg1_tm", dict(N=1, G=1, C=64, K=8, Hi=5, Wi=4, Y=2, X=3, pad_w=1)),
    ("fwd_fp16_igemm_m128n64k64_w4_s4_tma_g8_v8_mg1_tm", dict(N=1, G=2, C=16, K=16, Hi=6, Wi=5, Y=3, X=3, pad_h=1,
                                                              pad_w=1)),  # the weights' descriptor at tap * C + c0
    ("fwd_fp16_igemm_m128n64k32_w4_s3_pers_g8_v8_mg1_tm", dict(N=2, G=2, C=72, K=16, Hi=5, Wi=6, Y=1, X=3,
                                                               pad_w=1)),
    ("fwd_fp16_igemm_m128n64k64_w4_s3_ms_g8_v8_mg2_tm", dict(N=1, G=4, C=24, K=24, Hi=6, Wi=5, Y=3, X=3, pad_h=1,
                                                             pad_w=1)),
    ("fwd_fp16_igemm_m64n32k32_w4_s3_tma_g8_v1_mg2_px8x8", dict(N=2, G=4, C=8, K=12, Hi=9, Wi=10, Y=3, X=3, pad_h=1,
                                                                pad_w=1)),
    # bwd_data per stride-residue class: strides 1-3, dilation, classes no tap reaches, merged groups.
    ("bwd_data_fp32_igemm_m128n64k32_w4_s3_ms_g8_v4_mg1_tm", dict(N=2, G=2, C=8, K=40, Hi=9, Wi=8, Y=3, X=3,
                                                                  stride_h=2, stride_w=2, pad_h=1, pad_w=1)),
    ("bwd_data_fp32_igemm_m128n64k32_w4_s3_ms_g8_v4_mg1_tm", dict(N=1, G=1, C=4, K=8, Hi=13, Wi=10, Y=5, X=5,
                                                                  stride_h=3, stride_w=2, pad_h=4, pad_w=2, dil_h=2)),
    ("bwd_data_fp32_igemm_m128n64k32_w4_s3_ms_g8_v4_mg1_tm", dict(N=2, G=2, C=4, K=68, Hi=6, Wi=7, Y=3, X=2,
                                                                  pad_h=1, dil_w=2)),
    ("bwd_data_fp32_igemm_m128n64k32_w4_s3_ms_g8_v4_mg1_tm", dict(N=1, G=1, C=8, K=64, Hi=5, Wi=6, Y=3, X=2,
                                                                  stride_w=2, pad_h=1)),
    ("bwd_data_fp16_igemm_m128n64k32_w4_s3_pers_g8_v8_mg1_tm", dict(N=2, G=2, C=16, K=8, Hi=7, Wi=7, Y=7, X=7,
                                                                    stride_h=2, stride_w=2, pad_h=3, pad_w=3)),
    ("bwd_data_fp16_igemm_m64n32k32_w4_s3_tma_g8_v1_mg1_px8x8", dict(N=2, G=2, C=24, K=40, Hi=7, Wi=12, Y=3, X=3,
                                                                     pad_h=1, pad_w=1)),  # pixel boxes: no set yet
    ("bwd_data_fp16_igemm_m128n64k64_w4_s3_ms_g8_v8_mg2_tm", dict(N=1, G=4, C=24, K=24, Hi=6, Wi=5, Y=3, X=3,
                                                                  pad_h=1, pad_w=1)),
]


@pytest.mark.parametrize("name, fields", CASES, ids=[f"{n}-K{f['K']}-C{f['C']}" for n, f in CASES])
def test_the_carried_walk_matches_float64_reference(name, fields, tmp_path):
    config = KernelConfig.from_name(name)
    problem = Problem(direction=config.direction, dtype=config.dtype, **fields)
    source = assert_rendered_matches_reference(config, problem, tmp_path, seed=5, choices={"tap_walk": "carry"})
    loop = source.split("    for step in range(")[1].split("\n\n")[0]
    assert not any(divided in loop for divided in ("step //", "tap //", "// X", "// fx_divisor", "% fx_divisor"))


@pytest.mark.parametrize("name, walks", [
    ("fwd_bf16_igemm_m128n128k64_w8_s3_ms_g8_v8_mg1_tm", True),
    ("fwd_bf16_igemm_m128n64k64_w4_s4_tma_g8_v8_mg1_tm", True),
    ("fwd_bf16_igemm_m64n32k32_w4_s3_tma_g8_v1_mg2_px8x8", True),
    ("bwd_data_bf16_igemm_m128n128k64_w8_s3_ms_g8_v8_mg1_tm", True),
    ("bwd_data_bf16_igemm_m128n64k32_w4_s3_tma_g8_v8_mg1_tm", True),
    ("fwd_bf16_igemm_m128n128k64_w8_s3_ms_g8_v8_mg1", False),  # flat: k_walk's business
    ("fwd_bf16_igemm_m128n64k32_w4_s3_ms_g8_v8_mg1_xg", False),  # explicit GEMM: channels only
    ("bwd_weight_bf16_igemm_m64n64k32_w4_s3_ms_g8_v8_mg1_sk16", False),
    ("fwd_bf16_depthwise_t4x8c32_f3_m2_w2_v8", False),
])
def test_only_the_tap_walks_take_the_choice(name, walks):
    config = KernelConfig.from_name(name)
    assert has_tap_walk(config) is walks and template_choices(config)["tap_walk"] == "carry"
    assert (render(config, PROVENANCE, {"tap_walk": "divide"}) != render(config, PROVENANCE)) is walks


def test_the_carried_walk_issues_fewer_instructions_a_step_on_sm_90():
    """bench/mma_loop.py on the 128 x 128 x 64 tap-major bwd_data tile, compiled as the JIT compiles an aligned
    stride-1 problem: the divisions leave the loop, the MMAs stay."""
    divide, carry = mma_loop_twins("bwd_data_bf16_igemm_m128n128k64_w8_s3_ms_g8_v8_mg1_tm",
                                   "bwd_data_bf16_n8_g4_c256_k256_hi64_wi64_y3_x3_s1x1_p1x1_d1x1", "tap_walk",
                                   ("divide", "carry"))
    assert divide["HGMMA"] == carry["HGMMA"] == 4 and divide["LDGSTS"] == carry["LDGSTS"] > 0
    assert divide.get("MUFU", 0) > 0 and "MUFU" not in carry  # the reciprocal of each integer division
    assert sum(carry.values()) < 0.8 * sum(divide.values())


@pytest.mark.parametrize("choice", ["tap_walk", "tap_walk=sideways"])
def test_mma_loop_refuses_bad_choices(choice):
    """As bench/ab_variant.py does (bench/choice_args.py parse_choice), naming every template choice and its values."""
    from gconv.bench.mma_loop import main

    with pytest.raises(SystemExit) as error:
        main(["bwd_data_bf16_igemm_m128n128k64_w8_s3_ms_g8_v8_mg1_tm",
              "bwd_data_bf16_n8_g4_c256_k256_hi64_wi64_y3_x3_s1x1_p1x1_d1x1", "--choice", choice])
    assert str(error.value) == ("--choice wants choice=value with a template choice (tap_loop: unrolled, "
                                "rolled-columns, rolled; k_walk: divide, incremental; loop_stages: 1, 2, 3, 4; "
                                "channel_reduce: broadcast, split; filter_programs: apart, adjacent, single, unrolled; atomics: "
                                "acq_rel, relaxed; tap_walk: divide, carry; group_rows: divide, compare; bounds: "
                                f"signed, unsigned; dy_view: groups, flat; warp_specialize: off, on), got "
                                f"{choice!r}")


def test_mma_loop_imports_neither_triton_nor_torch():
    """Its spawned workers import it before ci/compile_check.py drops an inherited TRITON_INTERPRET: a Triton imported
    first keeps interpreted library functions, and an uncached compile then fails."""
    code = "import sys, gconv.bench.mma_loop; print(sorted({'triton', 'torch'} & set(sys.modules)))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out == "[]\n"
