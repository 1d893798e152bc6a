"""igemm bwd_data by stride-residue classes: each class of input pixels (hi % stride_h, wi % stride_w) walks only the
filter taps that reach it. Interpreter numerics against float64 (outputs poisoned with NaN, so pixels no tap reaches
must still be written), the tap counts, and the grid and work the estimate and the features count."""
import pytest

from gconv.heuristics.analytic import padded_reduction
from gconv.runtime.grid import reached_residues, residue_taps, row_tiles, tile_grid
from gconv.schemas import KernelConfig, Problem

from interpreter_numerics import assert_matches_reference

SHAPES = {
    # 4 classes, 3x3: 1, 2, 2 and 4 taps.
    "s2-3x3": dict(N=2, G=2, C=16, K=32, Hi=9, Wi=10, Y=3, X=3, stride_h=2, stride_w=2, pad_h=1, pad_w=1),
    # 6 classes, rectangular filter, dilation coprime with the stride, uneven padding.
    "s3x2-d2": dict(N=1, G=2, C=16, K=32, Hi=11, Wi=8, Y=5, X=3, stride_h=3, stride_w=2, pad_h=2, pad_w=0,
                    dil_h=2, dil_w=1),
    # Dilation 2 at stride 2: three of the four classes are reached by no tap (their gradient is zero).
    "s2-d2": dict(N=2, G=3, C=16, K=32, Hi=7, Wi=9, Y=3, X=3, stride_h=2, stride_w=2, pad_h=2, pad_w=2,
                  dil_h=2, dil_w=2),
}
KERNELS = ["bwd_data_fp16_igemm_m64n32k32_w4_s3_ms_g1_v8_mg1", "bwd_data_fp16_igemm_m64n32k32_w4_s3_ms_g1_v1_mg2",
           "bwd_data_fp16_igemm_m64n64k32_w4_s3_tma_g8_v8_mg1", "bwd_data_fp16_igemm_m128n64k32_w4_s3_pers_g8_v8_mg1"]


@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("name", KERNELS)
def test_residue_classes_equal_the_reference(shape, name):
    problem = Problem(direction="bwd_data", dtype="fp16", **SHAPES[shape])
    assert_matches_reference(name, problem, seed=5, num_programs=3)


def test_class_taps_count_the_taps_that_reach_each_class():
    problem = Problem(direction="bwd_data", dtype="fp16", **SHAPES["s2-3x3"])
    assert reached_residues(1, 1, 2, 3) == [1, 2]  # residue 0: fy = 1; residue 1: fy = 0, 2
    assert reached_residues(2, 2, 3, 5) == [2, 2, 1]  # fy*2 - 2 mod 3: 1, 0, 2, 1, 0
    assert reached_residues(2, 2, 2, 3) == [3]  # dilation 2 at stride 2: every tap reaches residue 0
    assert reached_residues(0, 1, 7, 3) == [1, 1, 1]  # stride beyond the filter: four residues reached by none
    assert residue_taps(problem) == [1, 2, 2, 4]
    assert residue_taps(Problem(direction="bwd_data", dtype="fp16", **SHAPES["s2-d2"])) == [9]
    for shape in SHAPES.values():  # each tap reaches exactly one class
        p = Problem(direction="bwd_data", dtype="fp16", **shape)
        assert sum(residue_taps(p)) == p.Y * p.X
    stride_one = Problem(direction="bwd_data", dtype="fp16", N=1, G=1, C=8, K=8, Hi=5, Wi=5, Y=3, X=3)
    assert residue_taps(stride_one) == [9]


def test_grid_and_work_count_classes():
    config = KernelConfig.from_name("bwd_data_fp16_igemm_m64n32k32_w4_s3_ms_g1_v8_mg1")
    problem = Problem(direction="bwd_data", dtype="fp16", **SHAPES["s2-3x3"])
    # 4 classes of 2 * 5 * 5 = 50 rows: one 64-row tile each; C=16 in one 32-column tile.
    assert row_tiles(config, problem) == 4 and tile_grid(config, problem) == (4, 2, 1)
    # Per class, K * taps = 32, 64, 64, 128 multiply-adds (multiples of block_k 32): one 64-row tile each.
    assert padded_reduction(config, problem) == 288
    odd = problem.model_copy(update={"K": 12})  # 12, 24, 24, 48 -> padded to 32, 32, 32, 64
    assert padded_reduction(config, odd) == 160
    fwd = KernelConfig.from_name("fwd_fp16_igemm_m64n32k32_w4_s3_ms_g1_v8_mg1")
    forward = Problem(direction="fwd", dtype="fp16", **SHAPES["s2-3x3"])  # one class: C*Y*X = 144 -> 160
    assert padded_reduction(fwd, forward) == row_tiles(fwd, forward) * 160
