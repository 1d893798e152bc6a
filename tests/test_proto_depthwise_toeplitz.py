"""The tensor-core depthwise prototype (bench/proto_depthwise_toeplitz.py) computes what it is timed on: every variant,
fwd and stride-1 bwd_data, against the float64 reference under the interpreter; its bands are the filter's Toeplitz
matrices; its product runs on tensor cores in an sm_90 cubin."""
import multiprocessing
import re
from concurrent.futures import ProcessPoolExecutor

import pytest
import torch

from gconv.runtime.reference import (INTERPRETER_ERROR_BOUND, poisoned_output, random_operands, reference,
                                     relative_error)
from gconv.schemas import Problem

from bench.proto_depthwise_toeplitz import VARIANTS, band_columns, band_matrices, launch, sm90_cubin, supports
from bench.ptxas_usage import cuobjdump, resource_usage

SHAPES = {
    # G = 40: no BLOCK_C divides it; a 7 x 9 output cut by every tile
    "g40-3x3": dict(N=2, G=40, Hi=7, Wi=9, Y=3, X=3, pad_h=1, pad_w=1),
    # 7 x 7 over 35 columns (three column tiles, the last cut), G = 24
    "g24-7x7": dict(N=1, G=24, Hi=9, Wi=35, Y=7, X=7, pad_h=3, pad_w=3),
    # a 5 x 3 filter with uneven padding: rows and columns apart
    "g16-5x3": dict(N=2, G=16, Hi=10, Wi=12, Y=5, X=3, pad_h=1, pad_w=2),
}


def test_band_columns_cover_the_tile_and_its_filter_as_a_power_of_two_of_at_least_16():
    assert [band_columns(16, x) for x in (2, 3, 5, 7, 17)] == [32, 32, 32, 32, 32]
    assert band_columns(32, 3) == 64
    assert band_columns(8, 3) == 16


@pytest.mark.parametrize("flip", [False, True])
def test_bands_hold_each_filter_row_along_the_diagonals(flip):
    problem = Problem(direction="fwd", dtype="fp32", N=1, G=3, C=1, K=1, Hi=8, Wi=8, Y=2, X=3)
    w = torch.arange(problem.G * problem.Y * problem.X, dtype=torch.float32).reshape(problem.G, 1, 2, 3)
    bands = band_matrices(w, problem, block_w=16, flip=flip)
    assert bands.shape == (3, 2, 32, 16)
    for g, fy, j, col in [(0, 0, 0, 0), (1, 1, 5, 3), (2, 0, 17, 15), (2, 1, 16, 15), (1, 0, 3, 4), (0, 1, 20, 15)]:
        dx = j - col
        if 0 <= dx < 3:
            expected = w[g, 0, 1 - fy, 2 - dx] if flip else w[g, 0, fy, dx]
        else:
            expected = 0.0
        assert bands[g, fy, j, col] == expected, (g, fy, j, col)


def test_only_depthwise_single_filter_problems_at_stride_1_without_dilation_are_supported():
    base = dict(direction="fwd", dtype="fp16", N=1, G=8, C=1, K=1, Hi=8, Wi=8, Y=3, X=3, pad_h=1, pad_w=1)
    assert supports(Problem(**base))
    assert supports(Problem(**{**base, "direction": "bwd_data"}))
    assert not supports(Problem(**{**base, "direction": "bwd_weight"}))
    assert not supports(Problem(**{**base, "K": 2}))
    assert not supports(Problem(**{**base, "stride_w": 2}))
    assert not supports(Problem(**{**base, "dil_h": 2}))
    assert not supports(Problem(**{**base, "Y": 1, "X": 1, "pad_h": 0, "pad_w": 0}))


@pytest.mark.parametrize("direction", ["fwd", "bwd_data"])
@pytest.mark.parametrize("shape", SHAPES)
def test_prototype_equals_the_reference_with_every_variant(direction, shape):
    problem = Problem(direction=direction, dtype="fp16", C=1, K=1, **SHAPES[shape])
    a, b = random_operands(problem, seed=7)
    expected = reference(problem, a, b)
    for variant in VARIANTS:
        out = poisoned_output(problem)
        launch(problem, variant, a, b, out)
        assert relative_error(out, expected) < INTERPRETER_ERROR_BOUND[problem.dtype], variant


def test_the_product_runs_on_tensor_cores_in_an_sm_90_cubin(monkeypatch):
    # compiled in a spawned interpreter without TRITON_INTERPRET (this session imported Triton in interpreter mode)
    monkeypatch.delenv("TRITON_INTERPRET", raising=False)
    variant = (8, 32, 16, 4, 1)
    with ProcessPoolExecutor(max_workers=1, mp_context=multiprocessing.get_context("spawn")) as pool:
        cubins = [pool.submit(sm90_cubin, variant, 5, 5), pool.submit(sm90_cubin, variant, 7, 7)]
        five, seven = (cubin.result() for cubin in cubins)
    sass = cuobjdump(five, "-sass")
    # a product a filter row: 8 channels x 32 rows x 32 band columns x 16 outputs in m16n8k16 steps over 4 warps
    assert len(re.findall(r"\bHMMA\.16816\.F32\.BF16\b", sass)) == 5 * 8 * 32 * 32 * 16 // (16 * 8 * 16) // 4
    assert resource_usage(seven)[1] == 0  # no spills at 7 x 7
