"""The sliding-rows depthwise bwd_weight prototype (bench/proto_depthwise_bwd_weight.py) computes what it is timed on:
every variant it is timed with, against the float64 reference under the interpreter."""
import pytest

from gconv.runtime.reference import (INTERPRETER_ERROR_BOUND, poisoned_output, random_operands, reference,
                                     relative_error)
from gconv.schemas import Problem

from bench.proto_depthwise_bwd_weight import VARIANTS, launch, source_rows, supports

SHAPES = {
    # G = 40: no BLOCK_G divides it, G % 8 == 0 (the vector hints); 7 x 9 output cut by every tile height and width
    "g40-3x3": dict(N=2, G=40, Hi=7, Wi=9, Y=3, X=3, pad_h=1, pad_w=1),
    # stride 2 along H (the rows' pairing), stride 1 and dilation 2 along W, 5 x 5, G = 5 (scalar loads)
    "g5-5x5-s2": dict(N=1, G=5, Hi=11, Wi=10, Y=5, X=5, stride_h=2, pad_h=2, pad_w=4, dil_w=2),
}


def test_source_rows_pair_each_input_row_with_its_output_rows_and_filter_rows():
    # two output rows, a 3-row filter, stride 2: input row j feeds output row i through filter row j - 2 i
    assert source_rows(2, 3, 2) == [(0, [(0, 0)]), (1, [(0, 1)]), (2, [(0, 2), (1, 0)]), (3, [(1, 1)]), (4, [(1, 2)])]


def test_only_depthwise_single_filter_problems_without_row_dilation_are_supported():
    base = dict(direction="bwd_weight", dtype="fp16", N=1, G=8, C=1, K=1, Hi=8, Wi=8, Y=3, X=3)
    assert supports(Problem(**base))
    assert not supports(Problem(**{**base, "dil_h": 2}))
    assert not supports(Problem(**{**base, "K": 2}))
    assert not supports(Problem(**{**base, "direction": "fwd"}))


@pytest.mark.parametrize("shape", SHAPES)
def test_prototype_equals_the_reference_with_every_variant(shape):
    problem = Problem(direction="bwd_weight", dtype="fp16", C=1, K=1, **SHAPES[shape])
    x, dy = random_operands(problem, seed=7)
    expected = reference(problem, x, dy)
    for variant in VARIANTS:
        out = poisoned_output(problem)
        launch(problem, variant, x, dy, out)
        assert relative_error(out, expected) < INTERPRETER_ERROR_BOUND[problem.dtype], variant
