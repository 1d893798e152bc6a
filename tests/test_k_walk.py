"""The `k_walk` template choice of the flat implicit-GEMM reductions (generator/render.py): the incremental walk, which
advances each lane's forward (channel, fy, fx), backward-data (filter, reaching tap) or backward-weight pixel (n, ho,
wo) by compare-and-subtract instead of dividing the reduction index every step (backward-data: and finds each
element's dY pixel without dividing it by the stride), against float64 under the interpreter, where it applies, and
what it removes from the sm_90 code."""
import multiprocessing
from concurrent.futures import ProcessPoolExecutor

import pytest

from gconv.ci.compile_check import ptx_counts
from gconv.generator.render import Provenance, has_k_walk, render, template_choices
from gconv.schemas import KernelConfig, Problem

from interpreter_numerics import assert_rendered_matches_reference

PROVENANCE = Provenance(("rules/x.yaml",), "test", (), "test")
CASES = [
    # (kernel, problem fields): channels per tap short of, equal to, and beyond BLOCK_K; a tap step wider than the
    # filter's row (C = 1, 7x7: 32 taps per step); merged groups; rectangular filters, stride and dilation.
    ("fwd_fp32_igemm_m64n32k32_w4_s3_ms_g1_v1_mg1", dict(N=2, G=3, C=5, K=7, Hi=9, Wi=8, Y=3, X=3, stride_h=2,
                                                          pad_h=1, pad_w=1, dil_w=2)),
    ("fwd_fp32_igemm_m64n32k32_w4_s3_ms_g1_v1_mg1", dict(N=1, G=2, C=1, K=3, Hi=12, Wi=12, Y=7, X=7, pad_h=3,
                                                          pad_w=3)),
    ("fwd_fp32_igemm_m64n32k32_w4_s3_ms_g1_v1_mg1", dict(N=1, G=2, C=67, K=3, Hi=5, Wi=5, Y=3, X=3, pad_h=1,
                                                          pad_w=1)),
    ("fwd_fp16_igemm_m64n32k32_w4_s3_ms_g1_v1_mg4", dict(N=2, G=6, C=3, K=5, Hi=7, Wi=9, Y=5, X=3, stride_w=2,
                                                          pad_h=2, pad_w=1)),
    ("fwd_fp16_igemm_m64n32k32_w4_s3_ms_g1_v8_mg2", dict(N=1, G=5, C=8, K=4, Hi=8, Wi=7, Y=7, X=7, pad_h=3,
                                                          pad_w=3)),
    ("fwd_fp16_igemm_m64n64k32_w4_s3_ms_g8_v8_mg1", dict(N=2, G=2, C=40, K=24, Hi=6, Wi=6, Y=2, X=3, pad_h=1,
                                                          pad_w=1)),
    # bwd_data per stride-residue class: strides 1-3, dilation, classes no tap reaches, few and many filters per tap,
    # merged groups, vectorised.
    ("bwd_data_fp32_igemm_m64n32k32_w4_s3_ms_g1_v1_mg1", dict(N=2, G=2, C=5, K=7, Hi=11, Wi=9, Y=3, X=3, stride_h=2,
                                                               stride_w=2, pad_h=1, pad_w=1)),
    ("bwd_data_fp32_igemm_m64n32k32_w4_s3_ms_g1_v1_mg1", dict(N=2, G=1, C=3, K=3, Hi=13, Wi=10, Y=5, X=5, stride_h=3,
                                                               stride_w=2, pad_h=4, pad_w=2, dil_h=2, dil_w=1)),
    ("bwd_data_fp32_igemm_m64n32k32_w4_s3_ms_g1_v1_mg1", dict(N=1, G=2, C=4, K=1, Hi=9, Wi=9, Y=7, X=7, pad_h=3,
                                                               pad_w=3)),
    ("bwd_data_fp32_igemm_m64n32k32_w4_s3_ms_g1_v1_mg1", dict(N=1, G=1, C=4, K=70, Hi=6, Wi=7, Y=3, X=2, stride_h=2,
                                                               pad_h=1, dil_w=2)),
    ("bwd_data_fp32_igemm_m64n32k32_w4_s3_ms_g1_v1_mg1", dict(N=2, G=2, C=4, K=6, Hi=7, Wi=6, Y=1, X=1, stride_h=2,
                                                               stride_w=2)),
    ("bwd_data_fp16_igemm_m64n32k32_w4_s3_ms_g1_v1_mg4", dict(N=2, G=6, C=3, K=5, Hi=9, Wi=8, Y=3, X=3, stride_h=2,
                                                               stride_w=2, pad_h=1, pad_w=1)),
    ("bwd_data_fp16_igemm_m64n64k32_w4_s3_ms_g8_v8_mg1", dict(N=2, G=2, C=16, K=24, Hi=7, Wi=9, Y=3, X=3, stride_h=2,
                                                               stride_w=1, pad_h=1, pad_w=1)),
    # bwd_weight walks the pixels, several steps per program, each step crossing columns, rows and images (15-pixel
    # images; 3 x 20; 50 x 1; 7 x 6): one split, split into chunks, two-stage, StreamK's ranges and merged groups.
    ("bwd_weight_fp32_igemm_m32n32k32_w2_s3_ms_g1_v1_mg1_sk1", dict(N=5, G=2, C=3, K=5, Hi=5, Wi=9, Y=3, X=3,
                                                                    stride_h=2, stride_w=2, pad_h=1, pad_w=1)),
    ("bwd_weight_fp32_igemm_m32n32k32_w2_s3_ms_g1_v1_mg1_sk4", dict(N=4, G=2, C=3, K=5, Hi=20, Wi=5, Y=3, X=3,
                                                                    pad_h=1, pad_w=1, dil_w=2)),
    ("bwd_weight_fp32_igemm_m32n32k32_w2_s3_ms_g1_v1_mg1_sk4ts", dict(N=6, G=2, C=3, K=5, Hi=50, Wi=1, Y=3, X=1,
                                                                      pad_h=1)),
    ("bwd_weight_fp32_igemm_m128n128k32_w8_s3_strk_g1_v4_mg1_sk1", dict(N=12, G=1, C=8, K=12, Hi=6, Wi=7, Y=3, X=3,
                                                                        pad_h=1, pad_w=1)),
    ("bwd_weight_fp32_igemm_m16n64k32_w2_s3_ms_g1_v1_mg8_sk1", dict(N=2, G=9, C=2, K=3, Hi=6, Wi=5, Y=3, X=3,
                                                                    pad_h=1, pad_w=1)),
]


@pytest.mark.parametrize("name, fields", CASES, ids=[f"{n}-C{f['C']}" for n, f in CASES])
def test_the_incremental_walk_matches_float64_reference(name, fields, tmp_path):
    config = KernelConfig.from_name(name)
    problem = Problem(direction=config.direction, dtype=config.dtype, **fields)
    source = assert_rendered_matches_reference(config, problem, tmp_path, seed=7, choices={"k_walk": "incremental"})
    assert "offs_k" not in source.split("for k0 in range(")[1].split("acc = tl.dot")[0]  # nothing divided in the loop


@pytest.mark.parametrize("name, walks, rule", [
    ("fwd_bf16_igemm_m64n32k32_w4_s3_ms_g1_v8_mg4", True, "incremental"),
    ("fwd_bf16_igemm_m128n64k64_w4_s4_tma_g8_v8_mg1", True, "incremental"),
    ("fwd_bf16_igemm_m64n16k32_w2_s3_ms_g1_v1_mg1", True, "divide"),
    ("bwd_weight_bf16_igemm_m32n32k32_w2_s3_ms_g1_v1_mg1_sk8", True, "incremental"),
    ("fwd_bf16_igemm_m64n64k32_w4_s3_ms_g8_v8_mg1_tm", False, "incremental"),  # tap-major: no flat index to divide
    ("fwd_bf16_igemm_m128n64k32_w4_s3_ms_g8_v8_mg1_xg", False, "incremental"),  # explicit GEMM: channels only
    ("bwd_weight_bf16_igemm_m64n64k32_w4_s3_ms_g8_v8_mg1_sk16", True, "incremental"),
    ("bwd_data_bf16_igemm_m128n32k32_w4_s3_ms_g1_v1_mg8", True, "incremental"),
    ("bwd_data_bf16_igemm_m128n32k32_w4_s3_ms_g1_v8_mg1", True, "incremental"),
    ("bwd_data_bf16_igemm_m64n16k32_w2_s3_ms_g1_v1_mg1", True, "incremental"),  # (v1, mg1): session 53's A/B
    ("bwd_data_bf16_igemm_m64n64k32_w4_s3_ms_g8_v8_mg1_tm", True, "incremental"),  # tap-major: each row's dY pixel
    ("bwd_data_bf16_igemm_m128n64k64_w4_s3_ms_g8_v8_mg1_tm", True, "incremental"),  # 64-deep steps too
    ("bwd_data_fp32_igemm_m256n64k32_w8_s3_ms_g8_v4_mg1_tm", True, "incremental"),
    ("fwd_bf16_depthwise_t4x8c32_f3_m2_w2_v8", False, "incremental"),
])
def test_only_the_walks_that_divide_take_the_choice(name, walks, rule):
    config = KernelConfig.from_name(name)
    assert has_k_walk(config) is walks
    assert template_choices(config)["k_walk"] == rule
    other = {"divide": "incremental", "incremental": "divide"}[rule]
    changed = render(config, PROVENANCE, {"k_walk": other}) != render(config, PROVENANCE)
    assert changed is walks


def test_the_incremental_walk_divides_less_on_sm_90(tmp_path):
    """Compiled as the JIT compiles an aligned problem, in a spawned interpreter (this session may interpret)."""
    name = "fwd_bf16_igemm_m64n32k32_w4_s3_ms_g1_v8_mg4"
    ints = ("C", "K", "sxn", "sxh", "sxw", "swk", "syn", "syh", "syw", "G")
    counts = {}
    with ProcessPoolExecutor(max_workers=1, mp_context=multiprocessing.get_context("spawn")) as pool:
        for walk in ("divide", "incremental"):
            path = tmp_path / f"{name}_{walk}.py"
            path.write_text(render(KernelConfig.from_name(name), PROVENANCE, {"k_walk": walk}))
            counts[walk] = pool.submit(ptx_counts, path, "sm_90", ints, ("sxc", "swc", "syk")).result()
    assert counts["incremental"]["div.s32"] < counts["divide"]["div.s32"]
    assert counts["incremental"]["cp.async.cg.shared.global"] == counts["divide"]["cp.async.cg.shared.global"] > 0


def test_the_tap_major_bwd_data_walk_divides_no_row_by_the_stride():
    """One loop at every stride: each row's dY pixel is its class pixel plus the tap's offset (the divided walk, the
    choice's other value, divides each row's tap offset by the stride)."""
    config = KernelConfig.from_name("bwd_data_bf16_igemm_m64n64k32_w4_s3_ms_g8_v8_mg1_tm")
    divided = render(config, PROVENANCE, {"k_walk": "divide"}).split("    for step in range(")
    incremental = render(config, PROVENANCE).split("    for step in range(")
    assert len(divided) == len(incremental) == 2
    assert "ho = th // stride_h" in divided[1].split("\n\n")[0]
    loop = incremental[1].split("\n\n")[0]
    assert "// stride" not in loop and "ho = qh + (dh0 - ty * dh_step)" in loop
