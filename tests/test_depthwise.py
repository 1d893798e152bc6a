"""The depthwise family beyond the tiny set: other filter sizes, multipliers, tiles, strides and splits under the
Triton interpreter against float64, and the support checks' exact reasons."""
import pytest

from gconv.generator.render import (Provenance, checked_choices, has_channel_reduce, render, sliding_source_rows,
                                    tap_loop)
from gconv.runtime.grid import tile_grid
from gconv.runtime.support import unsupported_reason
from gconv.schemas import Direction, KernelConfig, Problem

from interpreter_numerics import assert_rendered_matches_reference, assert_source_matches_reference

CASES = [
    # (kernel, problem fields): 5x5 and 7x7, multiplier 4, strides 2 and 3, dilation, groups no block divides.
    ("fwd_fp32_depthwise_t2x8c16_f5_m4_w2_v1", dict(N=2, G=19, K=4, Hi=9, Wi=11, Y=5, X=5, stride_h=2, stride_w=1,
                                                     pad_h=2, pad_w=3, dil_h=1, dil_w=2)),
    ("fwd_fp16_depthwise_t4x4c32_f7_m1_w4_v8", dict(N=1, G=40, K=1, Hi=12, Wi=10, Y=7, X=7, stride_h=1, stride_w=2,
                                                     pad_h=3, pad_w=3, dil_h=1, dil_w=1)),
    ("bwd_data_fp32_depthwise_t2x4c16_f5_m2_w2_v1", dict(N=2, G=7, K=2, Hi=13, Wi=11, Y=5, X=5, stride_h=3,
                                                          stride_w=2, pad_h=1, pad_w=2, dil_h=2, dil_w=1)),
    ("bwd_data_fp16_depthwise_t4x8c16_f7_m4_w4_v8", dict(N=1, G=16, K=4, Hi=9, Wi=14, Y=7, X=7, stride_h=2,
                                                          stride_w=2, pad_h=3, pad_w=2, dil_h=1, dil_w=1)),
    ("bwd_weight_fp32_depthwise_t2x8c16_f5_m4_w4_v1_sk4", dict(N=3, G=9, K=4, Hi=10, Wi=9, Y=5, X=5, stride_h=2,
                                                                stride_w=1, pad_h=2, pad_w=1, dil_h=1, dil_w=2)),
    ("bwd_weight_fp16_depthwise_t4x4c32_f7_m1_w4_v8_sk1", dict(N=2, G=40, K=1, Hi=11, Wi=12, Y=7, X=7, stride_h=1,
                                                                stride_w=3, pad_h=3, pad_w=3, dil_h=1, dil_w=1)),
    # 1x1 filters with multipliers (the pointwise channel scale): stride 2 (bwd_data: most input pixels get no tap).
    ("fwd_fp16_depthwise_t4x8c32_f1_m4_w2_v8", dict(N=2, G=40, K=4, Hi=9, Wi=11, Y=1, X=1, stride_h=2, stride_w=2,
                                                     pad_h=0, pad_w=0, dil_h=1, dil_w=1)),
    ("bwd_data_fp32_depthwise_t2x16c128_f1_m2_w4_v1", dict(N=2, G=19, K=2, Hi=9, Wi=11, Y=1, X=1, stride_h=2,
                                                            stride_w=1, pad_h=0, pad_w=0, dil_h=1, dil_w=1)),
    ("bwd_data_fp16_depthwise_t4x16c32_f1_m4_w4_v8", dict(N=1, G=16, K=4, Hi=7, Wi=18, Y=1, X=1, stride_h=1,
                                                           stride_w=1, pad_h=0, pad_w=0, dil_h=1, dil_w=1)),
    # Tiny groups (C/G = 2, 4: _cpg): the same, with groups no block divides and the channel loop in registers.
    ("fwd_fp32_depthwise_t2x8c16_f3_m2_cpg2_w2_v1", dict(N=2, G=19, C=2, K=2, Hi=9, Wi=11, Y=3, X=3, stride_h=2,
                                                          stride_w=1, pad_h=1, pad_w=2, dil_h=1, dil_w=2)),
    ("fwd_fp16_depthwise_t4x8c16_f5_m1_cpg4_w4_v8", dict(N=1, G=24, C=4, K=1, Hi=12, Wi=10, Y=5, X=5, stride_h=1,
                                                          stride_w=2, pad_h=2, pad_w=2, dil_h=1, dil_w=1)),
    ("bwd_data_fp32_depthwise_t2x4c16_f3_m4_cpg2_w2_v1", dict(N=2, G=7, C=2, K=4, Hi=13, Wi=11, Y=3, X=3, stride_h=3,
                                                               stride_w=2, pad_h=1, pad_w=2, dil_h=2, dil_w=1)),
    ("bwd_data_fp16_depthwise_t4x8c16_f7_m1_cpg4_w4_v8", dict(N=1, G=16, C=4, K=1, Hi=9, Wi=14, Y=7, X=7,
                                                               stride_h=2, stride_w=2, pad_h=3, pad_w=2, dil_h=1,
                                                               dil_w=1)),
    ("bwd_weight_fp32_depthwise_t2x8c16_f5_m2_cpg2_w4_v1_sk4", dict(N=3, G=9, C=2, K=2, Hi=10, Wi=9, Y=5, X=5,
                                                                     stride_h=2, stride_w=1, pad_h=2, pad_w=1,
                                                                     dil_h=1, dil_w=2)),
    ("bwd_weight_fp16_depthwise_t2x8c16_f3_m1_cpg4_w4_v8_sk1", dict(N=2, G=24, C=4, K=1, Hi=11, Wi=12, Y=3, X=3,
                                                                     stride_h=1, stride_w=3, pad_h=1, pad_w=1,
                                                                     dil_h=1, dil_w=1)),
    # Tiny-group bwd_weight 8 x 8-pixel tiles (bench/results/tiny-bwd-weight/): cut by the image edge, 7x7 taps.
    ("bwd_weight_fp32_depthwise_t8x8c8_f7_m2_cpg2_w4_v1_sk16", dict(N=2, G=11, C=2, K=2, Hi=13, Wi=10, Y=7, X=7,
                                                                     stride_h=1, stride_w=2, pad_h=3, pad_w=3,
                                                                     dil_h=1, dil_w=1)),
    ("bwd_weight_fp16_depthwise_t8x8c16_f3_m1_cpg4_w4_v8_sk64", dict(N=3, G=24, C=4, K=1, Hi=12, Wi=9, Y=3, X=3,
                                                                      stride_h=2, stride_w=1, pad_h=2, pad_w=1,
                                                                      dil_h=2, dil_w=1)),
    # Depthwise bwd_weight 4 x 16 and 8 x 8-pixel tiles of 4 warps (bench/results/depthwise-bwd-weight/): 7x7 with 112
    # accumulator registers, 5x5 with a multiplier, cut by the image edge.
    ("bwd_weight_fp16_depthwise_t4x16c32_f7_m1_w4_v8_sk16", dict(N=2, G=40, K=1, Hi=11, Wi=19, Y=7, X=7,
                                                                  stride_h=1, stride_w=1, pad_h=3, pad_w=3,
                                                                  dil_h=1, dil_w=1)),
    ("bwd_weight_fp32_depthwise_t8x8c32_f5_m1_w4_v1_sk1", dict(N=2, G=35, K=1, Hi=13, Wi=10, Y=5, X=5,
                                                                stride_h=2, stride_w=1, pad_h=2, pad_w=2,
                                                                dil_h=1, dil_w=2)),
    # Sliding rows (_sr): row strides 1 and 2, multipliers, W stride and dilation, tiles cut by the image edge.
    ("fwd_fp32_depthwise_t4x8c16_f5_m1_sr1_w2_v1", dict(N=2, G=19, K=1, Hi=11, Wi=13, Y=5, X=5, stride_h=1,
                                                         stride_w=2, pad_h=2, pad_w=1, dil_h=1, dil_w=2)),
    ("fwd_fp16_depthwise_t4x8c16_f3_m2_sr2_w4_v8", dict(N=1, G=24, K=2, Hi=15, Wi=9, Y=3, X=3, stride_h=2,
                                                         stride_w=1, pad_h=1, pad_w=0, dil_h=1, dil_w=1)),
    ("fwd_fp32_depthwise_t8x4c16_f7_m4_sr1_w2_v1", dict(N=1, G=5, K=4, Hi=10, Wi=7, Y=7, X=7, stride_h=1,
                                                         stride_w=1, pad_h=3, pad_w=3, dil_h=1, dil_w=1)),
    # Tiny groups with sliding rows (_cpg.._sr, fwd only): CPG 2 and 4, multipliers 1, 2 and 4, row strides 1 and 2.
    ("fwd_fp32_depthwise_t4x8c16_f5_m2_cpg2_sr1_w2_v1", dict(N=2, G=19, C=2, K=2, Hi=11, Wi=13, Y=5, X=5,
                                                              stride_h=1, stride_w=2, pad_h=2, pad_w=1, dil_h=1,
                                                              dil_w=2)),
    ("fwd_fp16_depthwise_t8x8c8_f7_m1_cpg4_sr1_w2_v8", dict(N=1, G=8, C=4, K=1, Hi=17, Wi=10, Y=7, X=7, stride_h=1,
                                                             stride_w=1, pad_h=3, pad_w=3, dil_h=1, dil_w=1)),
    ("fwd_fp32_depthwise_t4x8c16_f3_m4_cpg2_sr2_w4_v1", dict(N=1, G=5, C=2, K=4, Hi=15, Wi=9, Y=3, X=3, stride_h=2,
                                                              stride_w=1, pad_h=1, pad_w=0, dil_h=1, dil_w=1)),
    # Tiny groups with sliding rows in bwd_data (stride 1, the filters taken apart): CPG 2 and 4, multipliers 1, 2, 4.
    ("bwd_data_fp32_depthwise_t4x8c16_f5_m2_cpg2_sr1_w2_v1", dict(N=2, G=19, C=2, K=2, Hi=13, Wi=11, Y=5, X=5,
                                                                   stride_h=1, stride_w=1, pad_h=1, pad_w=2, dil_h=1,
                                                                   dil_w=2)),
    ("bwd_data_fp16_depthwise_t8x8c8_f7_m4_cpg4_sr1_w4_v8", dict(N=1, G=8, C=4, K=4, Hi=17, Wi=10, Y=7, X=7,
                                                                  stride_h=1, stride_w=1, pad_h=3, pad_w=3, dil_h=1,
                                                                  dil_w=1)),
    ("bwd_data_fp32_depthwise_t4x8c16_f3_m1_cpg4_sr1_w2_v1", dict(N=1, G=5, C=4, K=1, Hi=9, Wi=14, Y=3, X=3,
                                                                   stride_h=1, stride_w=1, pad_h=0, pad_w=1, dil_h=1,
                                                                   dil_w=1)),
    ("bwd_data_fp32_depthwise_t4x8c16_f5_m2_sr1_w2_v1", dict(N=2, G=7, K=2, Hi=13, Wi=11, Y=5, X=5, stride_h=1,
                                                              stride_w=1, pad_h=1, pad_w=2, dil_h=1, dil_w=2)),
    ("bwd_data_fp16_depthwise_t8x8c16_f7_m1_sr1_w4_v8", dict(N=1, G=16, K=1, Hi=17, Wi=10, Y=7, X=7, stride_h=1,
                                                              stride_w=1, pad_h=3, pad_w=3, dil_h=1, dil_w=1)),
    # Sliding rows at stride 2 x 2 in bwd_data (stride-residue classes, a sub-filter each): every filter size, odd and
    # even padding (classes whose last sub-filter row reaches nothing), multipliers, sizes no tile divides.
    ("bwd_data_fp32_depthwise_t4x8c16_f3_m1_sr2_w2_v1", dict(N=2, G=19, K=1, Hi=13, Wi=11, Y=3, X=3, stride_h=2,
                                                              stride_w=2, pad_h=1, pad_w=0, dil_h=1, dil_w=1)),
    ("bwd_data_fp32_depthwise_t2x8c16_f5_m2_sr2_w2_v1", dict(N=2, G=7, K=2, Hi=14, Wi=17, Y=5, X=5, stride_h=2,
                                                              stride_w=2, pad_h=2, pad_w=1, dil_h=1, dil_w=1)),
    ("bwd_data_fp16_depthwise_t8x8c16_f7_m4_sr2_w4_v8", dict(N=1, G=16, K=4, Hi=21, Wi=18, Y=7, X=7, stride_h=2,
                                                              stride_w=2, pad_h=3, pad_w=2, dil_h=1, dil_w=1)),
    ("bwd_data_fp16_depthwise_t4x16c64_f5_m1_sr2_w4_v4", dict(N=2, G=12, K=1, Hi=11, Wi=12, Y=5, X=5, stride_h=2,
                                                               stride_w=2, pad_h=0, pad_w=2, dil_h=1, dil_w=1)),
    # ... and for tiny groups (the filters taken apart): CPG 2 and 4, multipliers 1, 2 and 4.
    ("bwd_data_fp32_depthwise_t4x8c16_f5_m2_cpg2_sr2_w2_v1", dict(N=2, G=19, C=2, K=2, Hi=15, Wi=13, Y=5, X=5,
                                                                   stride_h=2, stride_w=2, pad_h=1, pad_w=2, dil_h=1,
                                                                   dil_w=1)),
    ("bwd_data_fp16_depthwise_t8x8c16_f7_m4_cpg4_sr2_w4_v8", dict(N=1, G=24, C=4, K=4, Hi=21, Wi=18, Y=7, X=7,
                                                                   stride_h=2, stride_w=2, pad_h=3, pad_w=2, dil_h=1,
                                                                   dil_w=1)),
    ("bwd_data_fp32_depthwise_t4x8c8_f3_m1_cpg4_sr2_w2_v1", dict(N=2, G=5, C=4, K=1, Hi=12, Wi=15, Y=3, X=3,
                                                                  stride_h=2, stride_w=2, pad_h=0, pad_w=1, dil_h=1,
                                                                  dil_w=1)),
    # Eight filters a group (m8: C/G 3-4 with K/G 5-8 padded to 4 x 8, bench/results/multiplier8/): the per-tap and
    # sliding-rows fwd kernels, the sliding-rows bwd_data ones at strides 1 and 2 x 2, and the per-tap bwd_data kernel
    # of two channels (`full`), whose split reduction takes its filters apart eight ways.
    ("fwd_fp16_depthwise_t4x8c16_f3_m8_cpg4_w2_v8", dict(N=2, G=24, C=4, K=8, Hi=9, Wi=12, Y=3, X=3, stride_h=1,
                                                          stride_w=2, pad_h=1, pad_w=0, dil_h=2, dil_w=1)),
    ("fwd_fp32_depthwise_t4x16c8_f5_m8_cpg4_sr1_w4_v1", dict(N=1, G=11, C=4, K=8, Hi=11, Wi=13, Y=5, X=5,
                                                              stride_h=1, stride_w=2, pad_h=2, pad_w=1, dil_h=1,
                                                              dil_w=2)),
    ("fwd_fp16_depthwise_t4x16c16_f7_m8_cpg4_sr2_w4_v8", dict(N=1, G=16, C=4, K=8, Hi=15, Wi=12, Y=7, X=7,
                                                               stride_h=2, stride_w=1, pad_h=3, pad_w=3, dil_h=1,
                                                               dil_w=1)),
    ("bwd_data_fp16_depthwise_t4x8c8_f5_m8_cpg4_sr1_w2_v8", dict(N=1, G=8, C=4, K=8, Hi=13, Wi=10, Y=5, X=5,
                                                                  stride_h=1, stride_w=1, pad_h=2, pad_w=2, dil_h=1,
                                                                  dil_w=2)),
    ("bwd_data_fp32_depthwise_t8x8c16_f3_m8_cpg4_sr2_w4_v1", dict(N=2, G=5, C=4, K=8, Hi=15, Wi=13, Y=3, X=3,
                                                                   stride_h=2, stride_w=2, pad_h=1, pad_w=0, dil_h=1,
                                                                   dil_w=1)),
    ("bwd_data_fp32_depthwise_t4x8c8_f3_m8_cpg2_w2_v1", dict(N=2, G=7, C=2, K=8, Hi=13, Wi=11, Y=3, X=3, stride_h=3,
                                                              stride_w=2, pad_h=1, pad_w=2, dil_h=2, dil_w=1)),
    # Sliding-rows bwd_weight (one program per filter column): row strides 1 and 2, W stride and dilation, split and
    # unsplit, groups no block divides, tiles cut by the image edge.
    ("bwd_weight_fp32_depthwise_t4x8c16_f5_m1_sr1_w2_v1_sk4", dict(N=2, G=19, K=1, Hi=11, Wi=13, Y=5, X=5,
                                                                    stride_h=1, stride_w=2, pad_h=2, pad_w=1,
                                                                    dil_h=1, dil_w=2)),
    ("bwd_weight_fp16_depthwise_t4x16c32_f3_m1_sr2_w4_v8_sk16", dict(N=3, G=40, K=1, Hi=15, Wi=9, Y=3, X=3,
                                                                      stride_h=2, stride_w=1, pad_h=1, pad_w=0,
                                                                      dil_h=1, dil_w=1)),
    ("bwd_weight_fp32_depthwise_t8x4c16_f7_m1_sr1_w2_v1_sk1", dict(N=1, G=5, K=1, Hi=10, Wi=7, Y=7, X=7, stride_h=1,
                                                                    stride_w=1, pad_h=3, pad_w=3, dil_h=1, dil_w=1)),
    # 8-byte loads (4 fp16 channels) on channel counts 8 does not divide (GhostNet's 12, 20, 36): every direction, the
    # per-tap and sliding-rows kernels, channel blocks the groups do not fill.
    ("fwd_fp16_depthwise_t4x8c32_f3_m1_w2_v4", dict(N=2, G=20, K=1, Hi=9, Wi=11, Y=3, X=3, stride_h=1, stride_w=1,
                                                     pad_h=1, pad_w=1, dil_h=1, dil_w=1)),
    ("fwd_fp16_depthwise_t4x16c64_f5_m1_sr2_w4_v4", dict(N=1, G=36, K=1, Hi=13, Wi=10, Y=5, X=5, stride_h=2,
                                                          stride_w=2, pad_h=2, pad_w=2, dil_h=1, dil_w=1)),
    ("bwd_data_fp16_depthwise_t4x16c32_f5_m4_w4_v4", dict(N=1, G=12, K=4, Hi=9, Wi=8, Y=5, X=5, stride_h=2,
                                                           stride_w=1, pad_h=2, pad_w=2, dil_h=1, dil_w=1)),
    ("bwd_data_fp16_depthwise_t4x16c64_f7_m1_sr1_w4_v4", dict(N=2, G=12, K=1, Hi=10, Wi=9, Y=7, X=7, stride_h=1,
                                                               stride_w=1, pad_h=3, pad_w=3, dil_h=1, dil_w=1)),
    ("bwd_weight_fp16_depthwise_t8x8c32_f3_m2_w4_v4_sk64", dict(N=2, G=12, K=2, Hi=11, Wi=9, Y=3, X=3, stride_h=2,
                                                                 stride_w=2, pad_h=1, pad_w=1, dil_h=1, dil_w=1)),
    ("bwd_weight_fp16_depthwise_t4x8c32_f3_m1_sr2_w2_v4_sk64", dict(N=2, G=20, K=1, Hi=12, Wi=11, Y=3, X=3,
                                                                     stride_h=2, stride_w=1, pad_h=1, pad_w=1,
                                                                     dil_h=1, dil_w=1)),
]


@pytest.mark.parametrize("name, fields", CASES, ids=[name for name, _ in CASES])
def test_depthwise_instance_matches_float64_reference(name, fields, tmp_path):
    config = KernelConfig.from_name(name)
    problem = Problem(direction=config.direction, dtype=config.dtype, **{"C": 1, **fields})
    assert_rendered_matches_reference(config, problem, tmp_path, seed=7)


ROLLED_CASES = [case for case in CASES if not case[0].startswith("bwd_weight") and "_sr" not in case[0]]


@pytest.mark.parametrize("tap_loop", ["rolled", "rolled-columns"])
@pytest.mark.parametrize("name, fields", ROLLED_CASES, ids=[name for name, _ in ROLLED_CASES])
def test_rolled_tap_loops_match_float64_reference(name, fields, tap_loop, tmp_path):
    config = KernelConfig.from_name(name)
    source = render(config, Provenance(("rules/x.yaml",), "test", (), "test"), {"tap_loop": tap_loop})
    assert source.count("tl.range(FILTER, loop_unroll_factor=1)") == {"rolled": 2, "rolled-columns": 1}[tap_loop]
    path = tmp_path / f"{name}.py"
    path.write_text(source)
    problem = Problem(direction=config.direction, dtype=config.dtype, **{"C": 1, **fields})
    assert_source_matches_reference(path, config, problem, seed=7)


SPLIT_CASES = [case for case in CASES if has_channel_reduce(KernelConfig.from_name(case[0]))] + [
    # C/G = 4 and 4 filters a group: 16 weight vectors a tap, both tl.split and tl.join twice.
    ("fwd_fp16_depthwise_t4x8c16_f3_m4_cpg4_w2_v8", dict(N=2, G=24, C=4, K=4, Hi=9, Wi=12, Y=3, X=3, stride_h=1,
                                                          stride_w=2, pad_h=1, pad_w=0, dil_h=2, dil_w=1)),
    ("bwd_data_fp32_depthwise_t4x8c16_f3_m4_cpg4_w2_v1", dict(N=2, G=5, C=4, K=4, Hi=10, Wi=9, Y=3, X=3, stride_h=2,
                                                               stride_w=1, pad_h=1, pad_w=1, dil_h=1, dil_w=2)),
]


@pytest.mark.parametrize("name, fields", SPLIT_CASES, ids=[name for name, _ in SPLIT_CASES])
def test_split_channel_reduction_matches_float64_reference(name, fields, tmp_path):
    config = KernelConfig.from_name(name)
    source = render(config, Provenance(("rules/x.yaml",), "test", (), "test"), {"channel_reduce": "split"})
    taken_apart = config.group_channels if config.direction is Direction.fwd else config.multiplier
    per_load = taken_apart - 1  # tl.split halves: 2 -> 1 split, 4 -> 3, 8 -> 7
    loads = len(sliding_source_rows(config)) if config.sliding_rows else 1  # sliding rows split each row they load
    assert "tl.sum(" not in source and source.count("tl.split(") == per_load * loads
    path = tmp_path / f"{name}.py"
    path.write_text(source)
    problem = Problem(direction=config.direction, dtype=config.dtype, **{"C": 1, **fields})
    assert_source_matches_reference(path, config, problem, seed=7)


def test_split_channel_reduction_covers_the_tiny_group_and_multiplier_cases():
    assert sorted(name for name, _ in SPLIT_CASES) == [
        "bwd_data_fp16_depthwise_t4x16c32_f1_m4_w4_v8", "bwd_data_fp16_depthwise_t4x16c32_f5_m4_w4_v4",
        "bwd_data_fp16_depthwise_t4x8c16_f7_m1_cpg4_w4_v8",
        "bwd_data_fp16_depthwise_t4x8c16_f7_m4_w4_v8", "bwd_data_fp32_depthwise_t2x16c128_f1_m2_w4_v1",
        "bwd_data_fp32_depthwise_t2x4c16_f3_m4_cpg2_w2_v1", "bwd_data_fp32_depthwise_t2x4c16_f5_m2_w2_v1",
        "bwd_data_fp32_depthwise_t4x8c16_f3_m4_cpg4_w2_v1", "bwd_data_fp32_depthwise_t4x8c8_f3_m8_cpg2_w2_v1",
        "fwd_fp16_depthwise_t4x16c16_f7_m8_cpg4_sr2_w4_v8", "fwd_fp16_depthwise_t4x8c16_f3_m4_cpg4_w2_v8",
        "fwd_fp16_depthwise_t4x8c16_f3_m8_cpg4_w2_v8",
        "fwd_fp16_depthwise_t4x8c16_f5_m1_cpg4_w4_v8", "fwd_fp16_depthwise_t8x8c8_f7_m1_cpg4_sr1_w2_v8",
        "fwd_fp32_depthwise_t2x8c16_f3_m2_cpg2_w2_v1", "fwd_fp32_depthwise_t4x16c8_f5_m8_cpg4_sr1_w4_v1",
        "fwd_fp32_depthwise_t4x8c16_f3_m4_cpg2_sr2_w4_v1", "fwd_fp32_depthwise_t4x8c16_f5_m2_cpg2_sr1_w2_v1"]


@pytest.mark.parametrize("name, expected", [
    ("bwd_data_bf16_depthwise_t4x8c32_f3_m1_w2_v8", "unrolled"),  # 16 values per thread per tap
    ("bwd_data_bf16_depthwise_t4x8c32_f3_m2_w2_v8", "unrolled"),  # 32 values, 3x3
    ("bwd_data_bf16_depthwise_t4x8c32_f5_m2_w2_v8", "rolled"),  # 32 values, 5x5
    ("bwd_data_fp16_depthwise_t4x16c32_f3_m4_w4_v8", "rolled"),  # 64 values
    ("bwd_data_bf16_depthwise_t2x16c128_f7_m1_w4_v8", "rolled"),  # 32 values, 7x7
    ("bwd_data_bf16_depthwise_t4x8c8_f7_m2_cpg4_w2_v8", "rolled"),  # C/G = 4, 7x7
    ("bwd_data_bf16_depthwise_t4x16c16_f3_m4_cpg2_w4_v8", "unrolled"),  # C/G = 2, 3x3
    ("fwd_fp16_depthwise_t4x16c16_f5_m2_cpg4_w4_v8", "rolled"),  # C/G = 4, 5x5
    ("fwd_bf16_depthwise_t4x8c16_f3_m4_cpg4_w2_v8", "unrolled"),  # C/G = 4, 3x3
    ("bwd_data_bf16_depthwise_t4x16c64_f7_m1_sr1_w4_v8", "unrolled"),  # sliding rows: its own template
    ("fwd_bf16_depthwise_t4x16c32_f7_m4_w4_v8", "unrolled"),  # C/G = 1 forward ran slower rolled
    ("bwd_weight_bf16_depthwise_t4x8c32_f5_m4_w4_v8_sk1", "unrolled"),
])
def test_depthwise_kernels_roll_their_taps_where_unrolled_ones_would_not_fit_in_registers(name, expected):
    assert tap_loop(KernelConfig.from_name(name)) == expected


@pytest.mark.parametrize("choices, message", [
    ({"tap_lop": "rolled"}, "unknown template choice 'tap_lop'; known: tap_loop, k_walk, loop_stages, channel_reduce, "
                      "filter_programs, atomics, tap_walk, group_rows, bounds, dy_view, warp_specialize"),
    ({"tap_loop": "unroled"}, "template choice tap_loop takes one of unrolled, rolled-columns, rolled, not 'unroled'"),
])
def test_template_choices_refuse_unknown_names_and_values(choices, message):
    with pytest.raises(ValueError) as error:
        checked_choices(KernelConfig.from_name(CASES[0][0]), choices)
    assert str(error.value) == message


@pytest.mark.parametrize("changes, reason", [
    (dict(C=2), "this depthwise kernel is built for C=1 input channel per group, got C=2"),
    (dict(K=1), "this depthwise kernel is built for channel multiplier K=2, got K=1"),
    (dict(X=5), "this depthwise kernel is built for a 3x3 filter, got 3x5"),
    (dict(G=12), "vector width 8 needs G % 8 == 0 (G=12)"),
    (dict(G=32 * 65536), "depthwise launches G/32 = 65536 programs on grid axis 1, at most 65535"),
])
def test_depthwise_support_reasons(changes, reason):
    config = KernelConfig.from_name("fwd_bf16_depthwise_t4x8c32_f3_m2_w2_v8")
    fields = dict(direction="fwd", dtype="bf16", N=1, G=16, C=1, K=2, Hi=8, Wi=8, Y=3, X=3, pad_h=1, pad_w=1)
    assert unsupported_reason(config, Problem(**fields)) is None
    assert unsupported_reason(config, Problem(**{**fields, **changes})) == reason


@pytest.mark.parametrize("changes, reason", [
    (dict(C=4), "this depthwise kernel is built for C=2 input channels per group, got C=4"),
    (dict(C=1), "this depthwise kernel is built for C=2 input channels per group, got C=1"),
    (dict(K=2), "this depthwise kernel is built for channel multiplier K=4, got K=2"),
])
def test_tiny_group_support_reasons(changes, reason):
    config = KernelConfig.from_name("bwd_weight_bf16_depthwise_t2x8c16_f3_m4_cpg2_w4_v8_sk16")
    fields = dict(direction="bwd_weight", dtype="bf16", N=1, G=16, C=2, K=4, Hi=8, Wi=8, Y=3, X=3, pad_h=1, pad_w=1)
    assert unsupported_reason(config, Problem(**fields)) is None
    assert unsupported_reason(config, Problem(**{**fields, **changes})) == reason


@pytest.mark.parametrize("name, changes, reason", [
    ("fwd_bf16_depthwise_t4x16c64_f3_m1_sr2_w4_v8", dict(stride_h=1),
     "this sliding-rows kernel is built for row stride 2, got stride_h=1"),
    ("fwd_bf16_depthwise_t4x16c64_f3_m1_sr1_w4_v8", dict(dil_h=2, pad_h=2),
     "sliding rows need row dilation 1, got dil_h=2"),
    ("bwd_data_bf16_depthwise_t4x16c64_f3_m1_sr1_w4_v8", dict(stride_w=2),
     "this sliding-rows bwd_data kernel needs stride 1x1, got 1x2"),
    ("bwd_weight_bf16_depthwise_t4x16c32_f3_m1_sr2_w4_v8_sk16", dict(stride_h=1),
     "this sliding-rows kernel is built for row stride 2, got stride_h=1"),
    ("bwd_weight_bf16_depthwise_t4x16c32_f3_m1_sr1_w4_v8_sk16", dict(dil_h=2, pad_h=2),
     "sliding rows need row dilation 1, got dil_h=2"),
])
def test_sliding_rows_support_reasons(name, changes, reason):
    config = KernelConfig.from_name(name)
    fields = dict(direction=config.direction, dtype="bf16", N=1, G=16, C=1, K=1, Hi=9, Wi=9, Y=3, X=3,
                  stride_h=config.sliding_rows, pad_h=1, pad_w=1)
    assert unsupported_reason(config, Problem(**fields)) is None
    assert unsupported_reason(config, Problem(**{**fields, **changes})) == reason


@pytest.mark.parametrize("changes, reason", [
    (dict(stride_w=1), "this sliding-rows bwd_data kernel needs stride 2x2, got 2x1"),
    (dict(stride_h=1, stride_w=1), "this sliding-rows bwd_data kernel needs stride 2x2, got 1x1"),
    (dict(dil_w=2, pad_w=2), "this sliding-rows bwd_data kernel needs dilation 1x1, got 1x2"),
    (dict(dil_h=2, pad_h=2), "this sliding-rows bwd_data kernel needs dilation 1x1, got 2x1"),
])
def test_strided_sliding_rows_bwd_data_support_reasons(changes, reason):
    config = KernelConfig.from_name("bwd_data_bf16_depthwise_t4x16c64_f5_m1_sr2_w4_v8")
    fields = dict(direction="bwd_data", dtype="bf16", N=1, G=16, C=1, K=1, Hi=9, Wi=9, Y=5, X=5, stride_h=2,
                  stride_w=2, pad_h=2, pad_w=1)
    assert unsupported_reason(config, Problem(**fields)) is None
    assert unsupported_reason(config, Problem(**{**fields, **changes})) == reason


def test_sliding_rows_pair_each_source_row_with_the_rows_it_feeds():
    fwd = KernelConfig.from_name("fwd_fp32_depthwise_t4x8c16_f3_m1_sr2_w2_v1")  # input row h0 + 2 * i + fy
    assert sliding_source_rows(fwd) == [(0, [(0, 0)]), (1, [(0, 1)]), (2, [(0, 2), (1, 0)]), (3, [(1, 1)]),
                                        (4, [(1, 2), (2, 0)]), (5, [(2, 1)]), (6, [(2, 2), (3, 0)]), (7, [(3, 1)]),
                                        (8, [(3, 2)])]
    data = KernelConfig.from_name("bwd_data_fp32_depthwise_t4x8c16_f3_m1_sr1_w2_v1")  # gradient row oh0 + i - fy + 2
    assert sliding_source_rows(data) == [(0, [(0, 2)]), (1, [(0, 1), (1, 2)]), (2, [(0, 0), (1, 1), (2, 2)]),
                                         (3, [(1, 0), (2, 1), (3, 2)]), (4, [(2, 0), (3, 1)]), (5, [(3, 0)])]
    strided = KernelConfig.from_name("bwd_data_fp32_depthwise_t4x8c16_f5_m1_sr2_w2_v1")  # oh0 + i - t + 2, t < 3
    assert sliding_source_rows(strided) == [(0, [(0, 2)]), (1, [(0, 1), (1, 2)]), (2, [(0, 0), (1, 1), (2, 2)]),
                                            (3, [(1, 0), (2, 1), (3, 2)]), (4, [(2, 0), (3, 1)]), (5, [(3, 0)])]
    weight = KernelConfig.from_name("bwd_weight_fp32_depthwise_t2x8c16_f3_m1_sr2_w2_v1_sk4")  # as fwd: h0 + 2 * i + fy
    assert sliding_source_rows(weight) == [(0, [(0, 0)]), (1, [(0, 1)]), (2, [(0, 2), (1, 0)]), (3, [(1, 1)]),
                                           (4, [(1, 2)])]


def test_sliding_rows_bwd_weight_keeps_one_accumulator_row_per_filter_row():
    config = KernelConfig.from_name("bwd_weight_bf16_depthwise_t4x16c32_f7_m1_sr1_w4_v8_sk16")
    assert config.accumulator_elements == 16 * 32 * 7  # tile_w x block_n x filter rows, not block_m x ...
    with pytest.raises(ValueError, match="bwd_weight with row stride 1 or 2, multiplier 1 and one channel per group; "
                                         "got sliding_rows=1 for bwd_weight with group_channels=1, multiplier=2"):
        KernelConfig.from_name("bwd_weight_bf16_depthwise_t4x16c32_f7_m2_sr1_w4_v8_sk16")


def test_sliding_rows_tiny_group_bwd_data_keeps_one_accumulator_per_channel_not_per_filter():
    sliding = KernelConfig.from_name("bwd_data_bf16_depthwise_t8x8c16_f7_m4_cpg4_sr1_w4_v8")
    per_tap = KernelConfig.from_name("bwd_data_bf16_depthwise_t8x8c16_f7_m4_cpg4_w4_v8")
    assert sliding.accumulator_elements == 64 * 16 * 4  # block_m x block_n x CPG: the M filters are summed as they come
    assert per_tap.accumulator_elements == 64 * 16 * 4 * 4


def test_depthwise_grids():
    problem = Problem(direction="bwd_data", dtype="bf16", N=2, G=70, C=1, K=1, Hi=15, Wi=16, Y=3, X=3, stride_h=2,
                      stride_w=3, pad_h=1, pad_w=1)
    config = KernelConfig.from_name("bwd_data_bf16_depthwise_t4x8c32_f3_m1_w2_v1")
    # 2 images x 6 residue classes x ceil(ceil(15/2)/4) x ceil(ceil(16/3)/8) tiles; ceil(70/32) group blocks
    assert tile_grid(config, problem) == (2 * 6 * 2 * 1, 3, 1)
    weight = KernelConfig.from_name("bwd_weight_bf16_depthwise_t4x8c32_f5_m1_w4_v1_sk16")
    assert tile_grid(weight, problem.model_copy(update={"direction": "bwd_weight", "Y": 5, "X": 5})) == (16, 3, 5)
