"""The tensor-descriptor igemm bwd_weight prototype (bench/proto_bwd_weight_tma.py) computes what it is timed on:
every variant it is timed with, against the float64 reference under the interpreter (whose descriptor loads read
out-of-bounds elements as zero, as TMA does)."""
import pytest

from gconv.runtime.reference import (INTERPRETER_ERROR_BOUND, poisoned_output, random_operands, reference,
                                     relative_error)
from gconv.schemas import Problem

from bench.proto_bwd_weight_tma import VARIANTS, launch, supports

SHAPES = {
    # two groups of 16 -> 24 (the tiles read past a group's filters and channels), 3x3 padded, a 5 x 9 output that no
    # pixel tile divides
    "g2-3x3": dict(N=2, G=2, C=16, K=24, Hi=5, Wi=9, Y=3, X=3, pad_h=1, pad_w=1),
    # stride 2 both ways with padding (each tap's own phase of the strided view), row dilation 2, 5 x 3 filter; its
    # 5 x 6 output is one 8 x 8 pixel tile, so those variants run unsplit (a direct store, no workspace)
    "s2-d2": dict(N=1, G=1, C=24, K=16, Hi=11, Wi=12, Y=5, X=3, stride_h=2, stride_w=2, pad_h=3, pad_w=1, dil_h=2),
}


def test_only_two_byte_bwd_weight_problems_with_channels_and_filters_in_eights_are_supported():
    base = dict(direction="bwd_weight", dtype="fp16", N=1, G=2, C=16, K=16, Hi=8, Wi=8, Y=3, X=3)
    assert supports(Problem(**base))
    assert not supports(Problem(**{**base, "C": 12}))
    assert not supports(Problem(**{**base, "K": 20}))
    assert not supports(Problem(**{**base, "dtype": "fp32"}))
    assert not supports(Problem(**{**base, "direction": "fwd"}))


@pytest.mark.parametrize("shape", SHAPES)
def test_prototype_equals_the_reference_with_every_variant(shape):
    problem = Problem(direction="bwd_weight", dtype="fp16", **SHAPES[shape])
    x, dy = random_operands(problem, seed=7)
    expected = reference(problem, x, dy)
    for variant in VARIANTS:
        out = poisoned_output(problem)
        launch(problem, variant, x, dy, out)
        assert relative_error(out, expected) < INTERPRETER_ERROR_BOUND[problem.dtype], variant
