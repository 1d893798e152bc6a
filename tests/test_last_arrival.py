"""Last-arrival split reductions of the bwd_weight kernels (`_sk<S>la`): splits add into an fp32 workspace the runtime
keeps zeroed (runtime/arrival_workspace.py), count their arrivals per output block, and the last to arrive casts the
block's sums into the result and zeroes them again. Interpreter numerics against float64 into NaN-poisoned outputs
(splits with nothing to add, every template: depthwise per tap, sliding rows, channel multipliers, tiny groups; the
direct and igemm kernels), the workspace left zero for the next launch, its reuse and layout, the axis rules and the
rules that pick it. (The interpreter runs the programs one after another: a counter two output blocks shared would
pass here; the device A/B and verification check that.)"""
import re

import pytest
import torch

from gconv.generator.render import Provenance, render, signature
from gconv.paths import REPO_ROOT
from gconv.runtime import arrival_workspace as kept
from gconv.runtime.arrival_workspace import arrival_workspace, release_arrival_workspaces
from gconv.runtime.grid import arrival_blocks, tile_grid
from gconv.runtime.registry import entries_by_name, load_registry
from gconv.schemas import KernelConfig, Problem

from interpreter_numerics import assert_rendered_matches_reference, assert_source_matches_reference

SHAPES = {
    # N*Ho*Wo = 2*9*13 pixels in 4 x 8 tiles: 2*3*2 = 12 tiles for 16 splits, so 4 splits have nothing to add.
    "empty-splits": dict(N=2, Hi=9, Wi=13, Y=3, X=3, pad_h=1, pad_w=1),
    "s2": dict(N=3, Hi=15, Wi=10, Y=3, X=3, stride_h=2, stride_w=2, pad_h=1, pad_w=1),
    "5x5-d2": dict(N=2, Hi=13, Wi=11, Y=5, X=5, stride_h=2, stride_w=1, pad_h=3, pad_w=2, dil_h=2, dil_w=1),
}
# Of the `tiny` set (the C library tests build it): (name, G, C, K, shape); sliding rows of stride 1 take stride 1 only
REGISTRY_KERNELS = [
    ("bwd_weight_fp16_depthwise_t4x8c32_f3_m1_w4_v8_sk16la", 40, 1, 1, "empty-splits"),
    ("bwd_weight_fp16_depthwise_t4x8c32_f3_m1_w4_v8_sk16la", 40, 1, 1, "s2"),
    ("bwd_weight_fp16_depthwise_t4x8c32_f3_m1_sr1_w2_v8_sk16la", 40, 1, 1, "empty-splits"),
    ("bwd_weight_fp16_depthwise_t4x8c16_f3_m1_cpg4_w4_v8_sk16la", 24, 4, 1, "s2"),
    ("bwd_weight_fp32_depthwise_t4x8c16_f3_m2_cpg2_w4_v1_sk16la", 19, 2, 2, "empty-splits"),
]
RENDERED_KERNELS = {  # twins no set holds: the other templates' last-arrival epilogues
    "bwd_weight_fp16_depthwise_t4x8c32_f3_m1_sr2_w2_v8_sk16la": (40, 1, 1, "s2"),
    "bwd_weight_fp16_depthwise_t4x16c32_f3_m2_w4_v8_sk4la": (24, 1, 2, "empty-splits"),
    "bwd_weight_fp32_depthwise_t2x8c16_f5_m1_w4_v1_sk4la": (19, 1, 1, "5x5-d2"),
    # the direct kernels' epilogue: with vectors in the sets since session 38, scalar in none
    "bwd_weight_fp16_direct_p64c32_w4_v8_sk8la": (40, 1, 1, "s2"),
    "bwd_weight_fp32_direct_p64c32_w4_v1_sk8la": (5, 3, 2, "5x5-d2"),
    # the igemm kernels' epilogue (one counter per output tile and group block): in no set yet
    "bwd_weight_fp16_igemm_m64n64k32_w4_s3_ms_g8_v8_mg1_sk4la": (2, 16, 24, "s2"),
    "bwd_weight_fp32_igemm_m32n64k32_w4_s3_ms_g1_v1_mg8_sk8la": (12, 3, 2, "5x5-d2"),
    "bwd_weight_fp16_igemm_m64n64k32_w4_s4_tma_g8_v8_mg1_sk16la": (3, 8, 72, "empty-splits"),
    "bwd_weight_fp16_igemm_m64n64k64_w4_s4_tma_g8_v8_mg1_px8x8_sk4la": (3, 24, 16, "empty-splits"),
}


def _problem(G: int, C: int, K: int, shape: str, dtype: str) -> Problem:
    return Problem(direction="bwd_weight", dtype=dtype, G=G, C=C, K=K, **SHAPES[shape])


def _assert_workspaces_zero() -> None:
    for sums, arrivals in kept._BUFFERS.values():
        assert not sums.any() and not arrivals.any()


@pytest.mark.parametrize("kernel, G, C, K, shape", REGISTRY_KERNELS)
def test_registry_kernels_equal_the_reference_twice_and_leave_the_workspace_zero(kernel, G, C, K, shape):
    """Two launches with other operands: a workspace left dirty by the first would spoil the second."""
    entry = entries_by_name("tiny")[kernel]
    problem = _problem(G, C, K, shape, entry.config.dtype.value)
    for seed in (3, 4):
        assert_source_matches_reference(REPO_ROOT / entry.source, entry.config, problem, seed=seed)
        _assert_workspaces_zero()


@pytest.mark.parametrize("kernel", RENDERED_KERNELS)
def test_rendered_twins_equal_the_reference(kernel, tmp_path):
    config = KernelConfig.from_name(kernel)
    G, C, K, shape = RENDERED_KERNELS[kernel]
    assert_rendered_matches_reference(config, _problem(G, C, K, shape, config.dtype.value), tmp_path, seed=5)
    _assert_workspaces_zero()


def test_the_workspace_is_kept_per_device_and_stream_grown_never_shrunk():
    release_arrival_workspaces()
    small = torch.empty(4, 1, 3, 3).contiguous(memory_format=torch.channels_last)
    large = torch.empty(8, 2, 5, 5).contiguous(memory_format=torch.channels_last)
    sums, arrivals = arrival_workspace(small, 6)
    assert sums.dtype == torch.float32 and arrivals.dtype == torch.int32 and arrivals.numel() == 6
    assert sums.shape == small.shape and sums.stride() == small.stride()
    again, _ = arrival_workspace(small, 6)
    assert again.data_ptr() == sums.data_ptr()  # the same buffer, not a new one
    grown, more = arrival_workspace(large, 3)
    assert grown.stride() == large.stride() and more.numel() == 6 and len(kept._BUFFERS) == 1
    back, _ = arrival_workspace(small, 6)
    assert back.data_ptr() == grown.data_ptr()
    release_arrival_workspaces()
    assert kept._BUFFERS == {}


def test_the_workspace_spans_a_strided_result():
    """A result with gaps between its rows (a slice of a larger tensor) gets a workspace view of the same strides."""
    release_arrival_workspaces()
    out = torch.empty(6, 3, 3, 4)[:, :, :, :2]  # K, C, Y, X with X strided over 4
    sums, _ = arrival_workspace(out, 1)
    assert sums.stride() == out.stride()
    assert kept._BUFFERS[("cpu", 0)][0].numel() == 1 + sum((n - 1) * s for n, s in zip(out.shape, out.stride()))
    release_arrival_workspaces()


def test_the_kernel_takes_the_workspace_and_counters_after_the_strides():
    config = KernelConfig.from_name("bwd_weight_bf16_depthwise_t4x8c32_f3_m1_w4_v8_sk16la")
    assert signature(config)[-2:] == [("ws_ptr", "*fp32"), ("arrivals_ptr", "*i32")]
    assert ("dw_ptr", "*bf16") in signature(config)  # the result itself, not an fp32 workspace
    assert not config.accumulates_fp32 and not config.writes_fp32_partials
    assert "ws_ptr" not in dict(signature(KernelConfig.from_name(config.name.removesuffix("la"))))


def test_last_arrival_is_an_axis_of_the_bwd_weight_splits_neither_two_stage_nor_persistent():
    name = "bwd_weight_bf16_depthwise_t4x8c32_f3_m1_sr1_w2_v8_sk64la"
    config = KernelConfig.from_name(name)
    assert config.last_arrival and config.split_k == 64 and not config.two_stage and config.name == name
    assert not KernelConfig.from_name(name.removesuffix("la")).last_arrival
    assert KernelConfig.from_name("bwd_weight_bf16_direct_p64c32_w4_v8_sk8la").last_arrival
    assert KernelConfig.from_name("bwd_weight_bf16_igemm_m128n64k32_w4_s4_tma_g8_v8_mg1_sk16la").last_arrival
    message = ("last_arrival is an axis of the split kernels (split_k > 1: bwd_weight, and igemm fwd), neither "
               "two-stage nor persistent (splits add into a zeroed fp32 workspace the runtime keeps; the last split "
               "of each output block to finish casts the sums into the result and zeroes the workspace again)")
    for other in ("bwd_weight_bf16_depthwise_t4x8c32_f3_m1_w4_v8_sk1la",
                  "bwd_weight_bf16_igemm_m128n64k32_w4_s4_tma_g8_v8_mg1_sk1la",
                  "bwd_weight_bf16_igemm_m128n64k32_w4_s3_pers_g8_v8_mg1_sk16la",
                  "bwd_weight_bf16_direct_p64c32_w4_v8_sk1la"):
        with pytest.raises(ValueError, match=re.escape(message)):
            KernelConfig.from_name(other)
    with pytest.raises(ValueError, match="is not a kernel name"):
        KernelConfig.from_name("bwd_weight_bf16_depthwise_t4x8c32_f3_m1_w4_v8_sk16tsla")


def test_one_counter_per_output_block_whichever_grid_axis_splits():
    problem = _problem(40, 1, 1, "s2", "fp16")
    depthwise = KernelConfig.from_name("bwd_weight_fp16_depthwise_t4x8c32_f3_m1_w4_v8_sk16la")
    direct = KernelConfig.from_name("bwd_weight_fp16_direct_p64c32_w4_v8_sk8la")
    assert tile_grid(depthwise, problem) == (16, 2, 3) and arrival_blocks(depthwise, problem) == 2 * 3
    assert tile_grid(direct, problem) == (2, 9, 8) and arrival_blocks(direct, problem) == 2 * 9
    igemm = KernelConfig.from_name("bwd_weight_fp16_igemm_m64n64k32_w4_s3_ms_g8_v8_mg1_sk4la")
    problem = _problem(2, 16, 24, "s2", "fp16")  # 1 x 3 tiles of 64 x 64 (K = 24, Y*X*C = 144) a group
    assert tile_grid(igemm, problem) == (3, 2, 4) and arrival_blocks(igemm, problem) == 3 * 2


@pytest.mark.parametrize("rule_set", ["default", "full"])
def test_splits_reduce_by_last_arrival_except_seven_by_seven(rule_set):
    """rules/full.yaml: the 3x3 and 5x5 depthwise bwd_weight splits reduce by last arrival, 7x7 by atomics (their
    twins ran 0.92-0.98x); the unsplit kernels have nothing to reduce."""
    kinds = {(c.filter_size, c.split_k > 1, c.last_arrival) for c in (e.config for e in load_registry(rule_set).entries)
             if c.algorithm.value == "depthwise" and c.direction.value == "bwd_weight"}
    assert kinds == {(3, True, True), (5, True, True), (7, True, False), (3, False, False), (5, False, False),
                     (7, False, False)}


@pytest.mark.parametrize("rule_set", ["default", "full"])
def test_direct_splits_with_vectors_reduce_by_last_arrival(rule_set):
    """rules/full.yaml: the direct bwd_weight splits with vector loads reduce by last arrival, the scalar ones by
    atomics (their twins lost where they are the best kernel, bench/results/last-arrival/)."""
    kinds = {(c.vector_width > 1, c.split_k > 1, c.last_arrival) for c in (e.config for e in
                                                                           load_registry(rule_set).entries)
             if c.algorithm.value == "direct" and c.direction.value == "bwd_weight"}
    assert kinds == {(True, True, True), (False, True, False), (True, False, False), (False, False, False)}


def _last_arrival_branch(source: str) -> list[str]:
    """The statements of a last-arrival kernel's branch for the last split to arrive."""
    lines = source.splitlines()
    start = next(i for i, line in enumerate(lines) if "if tl.atomic_add(arrivals_ptr + arrival, 1)" in line)
    indent = len(lines[start + 1]) - len(lines[start + 1].lstrip())
    branch = []
    for line in lines[start + 1:]:
        if line.strip() and len(line) - len(line.lstrip()) < indent:
            break
        branch.append(line.strip())
    return branch


def _reads_then_one_barrier_then_zeroes(branch: list[str]) -> bool:
    reads = [i for i, line in enumerate(branch) if "tl.load(ws_ptr" in line]
    zeroes = [i for i, line in enumerate(branch) if line.startswith("tl.store(ws_ptr")]
    barriers = [i for i, line in enumerate(branch) if line == "tl.debug_barrier()"]
    return (bool(reads) and len(zeroes) == len(reads) and len(barriers) == 1
            and max(reads) < barriers[0] < min(zeroes))


@pytest.mark.parametrize("name", sorted({*(k for k, *_ in REGISTRY_KERNELS), *RENDERED_KERNELS}))
def test_the_last_arrival_reads_every_sum_before_a_barrier_and_zeroes_after_it(name):
    """The zeroing store may have another layout than the read (another thread zeroes an element): on the H100 the
    igemm tiles read zeros until a barrier parted them (bench/results/last-arrival/README.md). The interpreter runs
    one thread, so the order is checked in the source: every workspace read, then a barrier, then every zeroing."""
    source = render(KernelConfig.from_name(name), Provenance(("rules/x.yaml",), "test", (), "test"))
    assert _reads_then_one_barrier_then_zeroes(_last_arrival_branch(source))


def test_the_branch_before_the_barrier_fails_the_order_check():
    """The check above can fail: the branch as it was before the barrier (read, zero and store a tap at a time)."""
    source = ("    if tl.atomic_add(arrivals_ptr + arrival, 1) == SPLIT_K - 1:\n"
              "        total = tl.load(ws_ptr + dw_offs, mask=m)\n"
              "        tl.store(ws_ptr + dw_offs, tl.zeros_like(total), mask=m)\n"
              "        tl.store(dw_ptr + dw_offs, total, mask=m)\n"
              "    return\n")
    branch = _last_arrival_branch(source)
    assert len(branch) == 3 and not _reads_then_one_barrier_then_zeroes(branch)
