"""The small-groups direct prototype (bench/proto_small_groups.py) computes what it is timed on: each direction, every
tile it is timed with, against the float64 reference under the interpreter."""
import pytest

from gconv.runtime.reference import (INTERPRETER_ERROR_BOUND, poisoned_output, random_operands, reference,
                                     relative_error)
from gconv.schemas import Problem

from bench.proto_small_groups import launch, tiles_for

SHAPES = {
    # C/G = 3 and K/G = 6 (both padded to a power of two inside a program), G = 5 (no BLOCK_G divides it)
    "c3-k6-s1": dict(N=2, G=5, C=3, K=6, Hi=6, Wi=7, Y=3, X=3, pad_h=1, pad_w=1),
    # stride 2 with dilation: bwd_data's taps whose numerator is not a multiple of the stride contribute nothing
    "c4-k4-s2-d2": dict(N=1, G=3, C=4, K=4, Hi=9, Wi=8, Y=3, X=3, stride_h=2, stride_w=2, pad_h=2, pad_w=1,
                        dil_h=2, dil_w=2),
}


@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("direction", ["fwd", "bwd_data", "bwd_weight"])
def test_prototype_kernels_equal_the_reference_with_every_tile(direction, shape):
    problem = Problem(direction=direction, dtype="fp16", **SHAPES[shape])
    a, b = random_operands(problem, seed=5)
    expected = reference(problem, a, b)
    for tile in tiles_for(problem):
        out = poisoned_output(problem)
        launch(problem, tile, a, b, out)
        assert relative_error(out, expected) < INTERPRETER_ERROR_BOUND[problem.dtype], tile
