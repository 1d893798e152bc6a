"""The `filter_programs` template choice of the depthwise bwd_weight kernels (generator/render.py FILTER_PROGRAMS):
"adjacent" renumbers the launch index so that the FILTER programs walking one (split, group block)'s tiles launch side
by side; "single" has the first of them reduce every filter row (column) and the others return; "unrolled" (the
sliding-rows kernels of one channel and one filter a group) is "single" with the tile unrolled into pixels, every tap
from registers (depthwise_unrolled_bwd_weight.py.j2). The grid stays (splits, group blocks, filter rows); every
(split, group block, filter row) must still be reduced exactly once: under the interpreter against float64, with
several of each."""
import pytest

import torch

from gconv.generator.render import Provenance, has_filter_programs, render, template_choices, unrolls_taps
from gconv.runtime.grid import tile_grid
from gconv.runtime.kernels import load_kernel_module
from gconv.runtime.launch import run
from gconv.runtime.reference import poisoned_output, random_operands
from gconv.schemas import KernelConfig, Problem

from interpreter_numerics import assert_source_matches_reference
from test_compile_check import compile_in_fresh_process

PROVENANCE = Provenance(("rules/x.yaml",), "test", (), "test")
CASES = [
    # (kernel, problem fields): several splits, group blocks and filter rows each; tiles cut by the image edge.
    ("bwd_weight_fp32_depthwise_t2x8c16_f5_m2_w4_v1_sk4", dict(N=3, G=19, K=2, Hi=10, Wi=9, Y=5, X=5, stride_h=2,
                                                                pad_h=2, pad_w=1, dil_w=2)),
    ("bwd_weight_fp16_depthwise_t4x8c32_f3_m1_w4_v8_sk1", dict(N=2, G=72, K=1, Hi=11, Wi=12, Y=3, X=3, stride_w=2,
                                                                pad_h=1, pad_w=1)),
    ("bwd_weight_fp32_depthwise_t8x8c8_f3_m1_cpg4_w4_v1_sk16", dict(N=3, G=13, C=4, K=1, Hi=12, Wi=9, Y=3, X=3,
                                                                     stride_h=2, pad_h=2, pad_w=1, dil_h=2)),
    # Sliding rows: one program per filter column.
    ("bwd_weight_fp16_depthwise_t4x8c32_f7_m1_sr1_w2_v8_sk16", dict(N=2, G=80, K=1, Hi=13, Wi=11, Y=7, X=7,
                                                                    pad_h=3, pad_w=3, stride_w=2)),
    ("bwd_weight_fp32_depthwise_t4x8c32_f3_m1_sr2_w2_v1_sk4", dict(N=3, G=37, K=1, Hi=14, Wi=10, Y=3, X=3,
                                                                   stride_h=2, pad_h=1, pad_w=1)),
]
RENUMBERED = "launched = tl.program_id(0) + tl.num_programs(0) * (tl.program_id(1) + tl.num_programs(1) * tl.program_id(2))"
SINGLE = "    if tl.program_id(2) != 0:  # the first filter program of this (split, group block) reduces every filter row\n"


def _source(name: str, order: str) -> str:
    return render(KernelConfig.from_name(name), PROVENANCE, {"filter_programs": order})


@pytest.mark.parametrize("name, fields", CASES, ids=[name for name, _ in CASES])
def test_adjacent_filter_programs_match_float64_reference(name, fields, tmp_path):
    config = KernelConfig.from_name(name)
    problem = Problem(direction=config.direction, dtype=config.dtype, **{"C": 1, **fields})
    splits, group_blocks, filter_rows = tile_grid(config, problem)
    assert group_blocks > 1 and filter_rows > 1 and (splits > 1 or config.split_k == 1)
    source = _source(name, "adjacent")
    assert source.count(RENUMBERED) == 1 and "tl.program_id(0) *" not in source
    path = tmp_path / f"{name}.py"
    path.write_text(source)
    assert_source_matches_reference(path, config, problem, seed=5)


@pytest.mark.parametrize("name, fields", CASES, ids=[name for name, _ in CASES])
def test_single_filter_program_matches_float64_reference(name, fields, tmp_path):
    config = KernelConfig.from_name(name)
    problem = Problem(direction=config.direction, dtype=config.dtype, **{"C": 1, **fields})
    source = _source(name, "single")
    taps = config.filter_size
    assert source.count(SINGLE) == 1 and "tl.program_id(2) *" not in source and RENUMBERED not in source
    assert source.count(f"acc_{taps - 1}_{taps - 1} = tl.zeros(") == 1 and f"acc_{taps} " not in source
    path = tmp_path / f"{name}.py"
    path.write_text(source)
    assert_source_matches_reference(path, config, problem, seed=6)


@pytest.mark.parametrize("name", [name for name, _ in CASES])
def test_the_shipped_kernels_keep_their_filter_programs_apart(name):
    config = KernelConfig.from_name(name)
    assert has_filter_programs(config) and template_choices(config)["filter_programs"] == "apart"
    assert render(config, PROVENANCE) == _source(name, "apart") and RENUMBERED not in _source(name, "apart")
    assert SINGLE not in _source(name, "apart")


@pytest.mark.parametrize("name", ["bwd_weight_bf16_direct_p64c32_w4_v1_sk4", "fwd_bf16_depthwise_t4x8c32_f3_m1_w2_v8",
                                  "bwd_weight_bf16_igemm_m64n64k32_w4_s3_ms_g1_v8_mg1_sk1"])
def test_kernels_without_filter_programs_ignore_the_choice(name):
    assert not has_filter_programs(KernelConfig.from_name(name))
    assert _source(name, "adjacent") == _source(name, "apart") == _source(name, "single")


UNROLLED_CASES = [
    # (kernel, problem fields): one value a thread (32 groups, one warp) and two (64 groups, two warps); groups past G
    # in the last block (G % BLOCK_G != 0); several splits and tiles cut by the image edge; stride 2.
    ("bwd_weight_fp32_depthwise_t4x8c32_f3_m1_sr1_w1_v1_sk4", dict(N=3, G=37, Hi=14, Wi=10, Y=3, X=3, pad_h=1,
                                                                   pad_w=1)),
    ("bwd_weight_fp16_depthwise_t2x8c64_f5_m1_sr1_w2_v8_sk16la", dict(N=2, G=80, Hi=13, Wi=11, Y=5, X=5, pad_h=2,
                                                                      pad_w=2)),
    ("bwd_weight_fp32_depthwise_t4x8c32_f3_m1_sr2_w1_v1_sk1", dict(N=3, G=37, Hi=14, Wi=10, Y=3, X=3, stride_h=2,
                                                                   stride_w=2, pad_h=1, pad_w=0)),
    ("bwd_weight_fp16_depthwise_t2x8c32_f7_m1_sr1_w1_v8_sk1", dict(N=2, G=40, Hi=9, Wi=12, Y=7, X=7, pad_h=3,
                                                                   pad_w=3)),
]
UNROLLED = "    if (tl.program_id(2) != 0) | (stride_w != STRIDE_H) | (dil_w != 1):"


def _problem(config: KernelConfig, fields: dict) -> Problem:
    return Problem(direction=config.direction, dtype=config.dtype, **{"C": 1, "K": 1, **fields})


@pytest.mark.parametrize("name, fields", UNROLLED_CASES, ids=[name for name, _ in UNROLLED_CASES])
def test_unrolled_taps_match_float64_reference(name, fields, tmp_path):
    config = KernelConfig.from_name(name)
    problem = _problem(config, fields)
    splits, group_blocks, _ = tile_grid(config, problem)
    assert unrolls_taps(config) and (splits > 1 or config.split_k == 1) and (group_blocks > 1 or problem.G % 32)
    source = _source(name, "unrolled")
    taps = config.filter_size
    assert source.count(UNROLLED) == 1 and f"acc_{taps - 1}_{taps - 1} = tl.zeros((BLOCK_G,)" in source
    rows, columns = ((side - 1) * config.sliding_rows + taps for side in (config.tile_h, config.tile_w))
    assert source.count("xv = tl.load(") == rows * columns  # each input pixel the tile reaches, once
    path = tmp_path / f"{name}.py"
    path.write_text(source)
    assert_source_matches_reference(path, config, problem, seed=7)


@pytest.mark.parametrize("fields", [dict(stride_w=2), dict(dil_w=2)], ids=["stride_w", "dil_w"])
def test_unrolled_taps_leave_other_column_strides_unwritten(fields, tmp_path):
    """The unrolled tile fixes the column stride to the row stride and the dilation to 1: on any other problem every
    program returns at once and stores nothing, so an unsplit kernel's NaN-poisoned result stays NaN (a split one's
    runtime casts its zeroed workspace). Its support is the base kernel's, which takes such problems: an A/B twin
    only, whose check against cuDNN's output catches them."""
    name, base_fields = UNROLLED_CASES[3]
    config = KernelConfig.from_name(name)
    problem = _problem(config, {**base_fields, **fields})
    path = tmp_path / f"{name}.py"
    path.write_text(_source(name, "unrolled"))
    a, b = random_operands(problem, seed=1)
    out = poisoned_output(problem)
    run(load_kernel_module(path), config, problem, a, b, out)
    assert torch.isnan(out).all()


@pytest.mark.parametrize("name", ["bwd_weight_fp32_depthwise_t2x8c16_f5_m2_w4_v1_sk4",
                                  "bwd_weight_fp16_depthwise_t4x8c32_f3_m1_w4_v8_sk1",
                                  "bwd_weight_fp32_depthwise_t8x8c8_f3_m1_cpg4_w4_v1_sk16"])
def test_kernels_that_cannot_unroll_their_taps_keep_them_apart(name):
    """Without sliding rows (so with a multiplier or several channels a group too) "unrolled" renders the shipped
    kernel."""
    assert not unrolls_taps(KernelConfig.from_name(name))
    assert _source(name, "unrolled") == _source(name, "apart")


def test_an_unrolled_twin_compiles_for_sm_90(tmp_path):
    name = "bwd_weight_bf16_depthwise_t2x8c64_f5_m1_sr1_w2_v8_sk16la"
    path = tmp_path / f"{name}.py"
    path.write_text(_source(name, "unrolled"))
    result = compile_in_fresh_process(str(path), "sm_90", 2, 1)
    assert result.ok, result.detail
