"""Split-K forward implicit GEMMs (`fwd_..._sk<S>la`): split_k programs share the flat reduction of a tile in whole
BLOCK_K runs and reduce by last arrival into the output (the workspace runtime/arrival_workspace.py keeps for y).
Interpreter numerics against float64 into NaN-poisoned outputs (splits with nothing to add, both walks of the flat
reduction, the tma weight descriptor), the workspace left zero, the axis rules, names and the rule that holds them.
(The interpreter runs programs one after another; the device A/B and verification check the counters.)"""
import re

import pytest

from gconv.generator.render import Provenance, render_context, signature
from gconv.heuristics.analytic import estimate, padded_reduction, split_result_elements
from gconv.runtime import arrival_workspace as kept
from gconv.runtime.arrival_workspace import release_arrival_workspaces
from gconv.runtime.grid import arrival_blocks, tile_grid
from gconv.runtime.registry import entries_by_name, load_arch_spec, load_registry
from gconv.schemas import KernelConfig, Problem

from interpreter_numerics import assert_matches_reference, assert_rendered_matches_reference
from test_compile_check import compile_in_fresh_process

# GEMM-K = 3 * 3 * 24 = 216: four 64-deep steps, so 16 splits leave 12 with nothing to add and 2 splits take two
# steps each; 2 x 9 x 13 output pixels in 64-row tiles (4 tiles) and K = 40 of a 64-wide tile (masked columns).
DEEP = dict(N=2, G=2, C=24, K=40, Hi=9, Wi=13, Y=3, X=3, pad_h=1, pad_w=1)
STRIDED = dict(N=3, G=1, C=16, K=24, Hi=15, Wi=10, Y=5, X=3, stride_h=2, stride_w=1, pad_h=2, pad_w=1, dil_w=2)
REGISTRY_KERNELS = [  # of the `tests` set
    "fwd_fp16_igemm_m64n64k64_w4_s3_ms_g8_v8_mg1_sk16la",
    "fwd_fp16_igemm_m64n64k64_w4_s3_ms_g8_v8_mg1_sk2la",
    "fwd_fp16_igemm_m64n64k64_w4_s3_tma_g8_v8_mg1_sk16la",
    "fwd_fp32_igemm_m64n64k64_w4_s3_ms_g8_v1_mg1_sk2la",  # one element at a time: the divided walk
    "fwd_fp16_igemm_m64n64k64_w4_s3_tma_g8_v1_mg1_sk16la",
]


def _problem(dtype: str, shape: dict) -> Problem:
    return Problem(direction="fwd", dtype=dtype, **shape)


def _assert_workspaces_zero() -> None:
    for sums, arrivals in kept._BUFFERS.values():
        assert not sums.any() and not arrivals.any()


@pytest.mark.parametrize("kernel", REGISTRY_KERNELS)
@pytest.mark.parametrize("shape", [DEEP, STRIDED], ids=["deep", "strided"])
def test_registry_kernels_equal_the_reference_twice_and_leave_the_workspace_zero(kernel, shape):
    release_arrival_workspaces()
    problem = _problem(KernelConfig.from_name(kernel).dtype.value, shape)
    assert_matches_reference(kernel, problem, seed=1)
    _assert_workspaces_zero()
    assert_matches_reference(kernel, problem, seed=2)  # the kept workspace again, zero as the first launch left it
    _assert_workspaces_zero()
    sums, arrivals = next(iter(kept._BUFFERS.values()))
    assert sums.numel() == problem.N * problem.Ho * problem.Wo * problem.G * problem.K  # y's extent, not w's
    assert arrivals.numel() == arrival_blocks(KernelConfig.from_name(kernel), problem)
    release_arrival_workspaces()


def test_a_rendered_twin_of_the_divided_walk_with_tma_equals_the_reference(tmp_path):
    config = KernelConfig.from_name("fwd_fp32_igemm_m128n64k64_w8_s4_tma_g8_v1_mg1_sk4la")
    assert render_context(config, Provenance((), "", (), ""))["k_walk"] == "divide"
    assert_rendered_matches_reference(config, _problem("fp32", STRIDED), tmp_path, seed=3)
    release_arrival_workspaces()


def test_the_splits_are_grid_axis_two_with_one_counter_per_tile_and_group():
    config = KernelConfig.from_name("fwd_fp16_igemm_m64n64k64_w4_s3_ms_g8_v8_mg1_sk16la")
    problem = _problem("fp16", DEEP)
    assert tile_grid(config, problem) == (4, 2, 16)
    assert arrival_blocks(config, problem) == 8
    assert signature(config)[:3] == [("x_ptr", "*fp16"), ("w_ptr", "*fp16"), ("y_ptr", "*fp16")]
    assert signature(config)[-2:] == [("ws_ptr", "*fp32"), ("arrivals_ptr", "*i32")]
    assert not config.accumulates_fp32 and not config.writes_fp32_partials


def test_names_carry_the_split_only_when_split():
    name = "fwd_bf16_igemm_m128n64k64_w8_s4_tma_g8_v8_mg1_sk8la"
    config = KernelConfig.from_name(name)
    assert (config.split_k, config.last_arrival, config.name) == (8, True, name)
    unsplit = KernelConfig(**{**config.axes(), "split_k": 1, "last_arrival": False})
    assert unsplit.name == "fwd_bf16_igemm_m128n64k64_w8_s4_tma_g8_v8_mg1"
    message = ("the _sk<split> token is present exactly for bwd_weight kernels and, with a split above 1, for split "
               "fwd kernels")
    for bad in ("fwd_bf16_igemm_m128n64k64_w8_s4_tma_g8_v8_mg1_sk1",
                "bwd_data_bf16_igemm_m128n64k64_w8_s4_tma_g8_v8_mg1_sk4la"):
        with pytest.raises(ValueError, match=re.escape(f"{bad!r}: {message}")):
            KernelConfig.from_name(bad)


@pytest.mark.parametrize("changes, detail", [
    (dict(last_arrival=False), "got split_k=4 for fwd igemm without last_arrival"),
    (dict(tap_major=True), "got split_k=4 for fwd igemm"),
    (dict(groups_to_merge=2), "got split_k=4 for fwd igemm"),
    (dict(explicit_gemm=True), "got split_k=4 for fwd igemm"),
    (dict(direction="bwd_data"), "got split_k=4 for bwd_data igemm"),
])
def test_a_forward_split_is_a_flat_last_arrival_reduction_of_one_group(changes, detail):
    axes = {**KernelConfig.from_name("fwd_bf16_igemm_m64n64k64_w4_s3_ms_g8_v8_mg1_sk4la").axes(), **changes}
    with pytest.raises(ValueError) as error:
        KernelConfig(**axes)
    assert ("Value error, split_k > 1 is an axis of bwd_weight and of the igemm fwd kernels with last_arrival over "
            "the flat reduction of one group (not tap_major, explicit_gemm, pixel boxes nor merged groups), "
            + detail) in str(error.value)


def test_the_estimates_count_each_split_run_and_the_outputs_fp32_traffic():
    config = KernelConfig.from_name("fwd_bf16_igemm_m64n64k64_w4_s3_ms_g8_v8_mg1_sk16la")
    problem = _problem("bf16", DEEP)
    assert split_result_elements(problem) == 2 * 9 * 13 * 2 * 40
    # 4 row tiles; 216 over 16 splits is 14 a split, padded to one 64-deep step each
    assert padded_reduction(config, problem) == 4 * 64 * 16
    unsplit = KernelConfig(**{**config.axes(), "split_k": 1, "last_arrival": False})
    assert padded_reduction(unsplit, problem) == 4 * 256
    spec = load_arch_spec("sm_90")
    extra = estimate(config, problem, spec).memory_s - estimate(unsplit, problem, spec).memory_s
    assert extra > 0


def test_full_holds_split_flat_tiles_of_every_dtype_and_default_the_64_wide_tile_split_4_8_16_ways():
    full = [e.config for e in load_registry("full").entries if e.config.direction.value == "fwd"
            and e.config.split_k > 1]
    assert {c.split_k for c in full} == {2, 4, 8, 16} and all(c.last_arrival for c in full)
    assert {c.dtype.value for c in full} == {"fp16", "bf16", "fp32"} and len(full) == 192
    assert sorted(n for n in entries_by_name("default") if n.startswith("fwd") and "_sk" in n) == [
        f"fwd_{dtype}_igemm_m64n64k64_w4_s3_ms_g8_v8_mg1_sk{split}la" for dtype in ("bf16", "fp16")
        for split in (16, 4, 8)]


def test_a_split_forward_kernel_compiles_for_sm_90():
    entry = entries_by_name("tests")["fwd_fp16_igemm_m64n64k64_w4_s3_tma_g8_v8_mg1_sk16la"]
    result = compile_in_fresh_process(entry.source, "sm_90", 4, 3)
    assert result.ok, result.detail
