"""A stride-1 bwd_data problem is a forward problem (Problem.forward_twin) of the flipped, channel-swapped filter
(runtime/forward_twin.py): exactly so in float64, and through gconv's own forward kernels under the interpreter."""
import pytest
import torch
import torch.nn.functional as F

import gconv
from gconv.runtime.forward_twin import twin_filter
from gconv.runtime.reference import INTERPRETER_ERROR_BOUND, random_operands, reference, relative_error
from gconv.schemas import DType, Problem

CASES = {  # bwd_data problems: grouped, dilated, non-square, padding from 0 up to dil x (F - 1)
    "grouped": dict(N=2, G=3, C=4, K=6, Hi=7, Wi=9, Y=3, X=3, pad_h=1, pad_w=1),
    "dilated-asymmetric": dict(N=1, G=2, C=5, K=3, Hi=11, Wi=8, Y=3, X=2, pad_h=4, pad_w=0, dil_h=2),
    "depthwise-unpadded": dict(N=2, G=4, C=1, K=2, Hi=6, Wi=6, Y=5, X=5),
    "dense-1x1": dict(N=1, G=1, C=8, K=4, Hi=5, Wi=3, Y=1, X=1),
}


def bwd_data(dtype: str = "fp32", **sizes) -> Problem:
    return Problem(direction="bwd_data", dtype=dtype, **sizes)


def twin_args(twin: Problem) -> dict:
    return dict(stride=1, padding=(twin.pad_h, twin.pad_w), dilation=(twin.dil_h, twin.dil_w), groups=twin.G)


def test_the_twin_of_a_stride_1_bwd_data_problem():
    problem = bwd_data("bf16", N=2, G=4, C=8, K=16, Hi=20, Wi=18, Y=5, X=3, pad_h=1, pad_w=1, dil_h=2)  # Ho 14
    twin = problem.forward_twin()
    assert twin.key == "fwd_bf16_n2_g4_c16_k8_hi14_wi18_y5_x3_s1x1_p7x1_d2x1"
    assert (twin.Ho, twin.Wo) == (problem.Hi, problem.Wi)
    assert twin.gemm == problem.gemm  # per group M = N x Hi x Wi, N = C, K = K x Y x X: the same implicit GEMM
    for change in ({"stride_w": 2}, {"pad_w": 3}, {"direction": "fwd"}):  # pad 3 > dil x (X - 1): the twin's < 0
        assert Problem(**{**problem.model_dump(), **change}).forward_twin() is None


@pytest.mark.parametrize("case", CASES)
def test_the_forward_twin_computes_bwd_data_exactly(case):
    problem = bwd_data(**CASES[case])
    dy, w = (t.double() for t in random_operands(problem))
    twin = problem.forward_twin()
    filter_ = twin_filter(w, problem.G)
    assert filter_.shape == twin.weight_shape and filter_.is_contiguous(memory_format=torch.channels_last)
    dx = F.conv2d(dy, filter_, **twin_args(twin))
    assert torch.allclose(dx, reference(problem, dy, w), rtol=0, atol=1e-12)


@pytest.mark.parametrize("channels_last", [True, False])
def test_the_twin_filter_holds_each_weight_where_the_formula_says(channels_last):
    """w'[g*C + c, k, y, x] = w[g*K + k, c, Y-1-y, X-1-x], channels_last whatever the layout of w."""
    G, K, C, Y, X = 3, 2, 4, 3, 2
    w = torch.arange(G * K * C * Y * X, dtype=torch.float64).reshape(G * K, C, Y, X)
    w = w.contiguous(memory_format=torch.channels_last) if channels_last else w
    twin = twin_filter(w, G)
    assert twin.shape == (G * C, K, Y, X) and twin.is_contiguous(memory_format=torch.channels_last)
    for g, c, k, y, x in ((0, 0, 0, 0, 0), (2, 3, 1, 2, 1), (1, 2, 0, 1, 0), (2, 0, 1, 0, 1)):
        assert twin[g * C + c, k, y, x] == w[g * K + k, c, Y - 1 - y, X - 1 - x]
    assert sorted(twin.flatten().tolist()) == sorted(w.flatten().tolist())  # every weight once


@pytest.mark.parametrize("dtype", ["fp32", "fp16"])
def test_gconv_forward_kernels_compute_bwd_data_through_the_twin(dtype):
    """Every `tiny` forward candidate of the twin, run under the interpreter on dY and the twin filter."""
    problem = bwd_data(dtype, **CASES["grouped"])
    dy, w = random_operands(problem)
    twin = problem.forward_twin()
    expected = reference(problem, dy, w)
    names = gconv.kernels_for(twin, rule_set="tiny")
    assert len(names) >= 2
    for name in names:
        dx = gconv.conv_fwd(dy, twin_filter(w, problem.G), **twin_args(twin), kernel=name, rule_set="tiny")
        assert relative_error(dx, expected) < INTERPRETER_ERROR_BOUND[DType(dtype)], name


@pytest.mark.parametrize("dtype", ["fp32", "fp16"])
@pytest.mark.parametrize("case", ["grouped", "dilated-asymmetric", "dense-1x1"])
def test_every_via_fwd_kernel_of_tests_computes_bwd_data(dtype, case):
    """conv_bwd_data with every via_fwd candidate of `tests` (the forward kernel on the twin, after twin_filter; some
    after channel padding) against the float64 bwd_data, under the interpreter."""
    problem = bwd_data(dtype, **CASES[case])
    dy, w = random_operands(problem)
    expected = reference(problem, dy, w)
    names = [name for name in gconv.kernels_for(problem, rule_set="tests") if "_vf" in name]
    assert len(names) >= 5
    for name in names:
        dx = gconv.conv_bwd_data(dy, w, (problem.N, problem.G * problem.C, problem.Hi, problem.Wi),
                                 padding=(problem.pad_h, problem.pad_w), dilation=(problem.dil_h, problem.dil_w),
                                 groups=problem.G, kernel=name, rule_set="tests")
        assert relative_error(dx, expected) < INTERPRETER_ERROR_BOUND[DType(dtype)], name
