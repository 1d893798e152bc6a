"""Explicit GEMM for 1x1, stride-1, unpadded forward convolutions (`_xg`): pixels are the GEMM rows as they lie, and
with TMA the input is a 2-D tensor descriptor. Interpreter numerics against float64 into NaN-poisoned outputs
(channel counts no block_k divides, the next group's channels past a block, rows past the end), the support reasons
and the launcher's dense-input check."""
import re

import pytest
import torch

from gconv.paths import REPO_ROOT
from gconv.runtime.kernels import load_kernel_module
from gconv.runtime.launch import run
from gconv.runtime.reference import random_operands
from gconv.runtime.registry import entries_by_name
from gconv.runtime.support import unsupported_reason
from gconv.schemas import KernelConfig, Problem
from interpreter_numerics import assert_matches_reference

SHAPES = {
    # C = 40: a second block_k step of 8 channels, the rest the next group's (TMA) or masked (pointers).
    "c40-g3": dict(N=2, G=3, C=40, K=24, Hi=7, Wi=9, Y=1, X=1),
    # 4 groups of 8 channels, 130 pixels: two 64-row tiles and a third mostly past the end.
    "c8-g4": dict(N=2, G=4, C=8, K=16, Hi=5, Wi=13, Y=1, X=1),
}
KERNELS = ["fwd_fp16_igemm_m64n64k32_w4_s3_ms_g8_v8_mg1_xg", "fwd_fp16_igemm_m64n64k32_w4_s3_tma_g8_v8_mg1_xg",
           "fwd_fp16_igemm_m128n64k32_w4_s3_tma_g8_v8_mg1_xg"]


@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("kernel", KERNELS)
def test_explicit_gemm_kernels_equal_the_reference(kernel, shape):
    assert_matches_reference(kernel, Problem(direction="fwd", dtype="fp16", **SHAPES[shape]), seed=13)


def test_explicit_gemm_runs_only_plain_pointwise_convolutions():
    config = KernelConfig.from_name("fwd_bf16_igemm_m128n64k32_w4_s3_tma_g8_v8_mg1_xg")
    plain = dict(direction="fwd", dtype="bf16", N=1, G=2, C=64, K=64, Hi=8, Wi=8, Y=1, X=1)
    assert unsupported_reason(config, Problem(**plain)) is None
    assert unsupported_reason(config, Problem(**{**plain, "Y": 3, "X": 3, "pad_h": 1, "pad_w": 1})) == \
        "explicit GEMM needs a 1x1 filter, stride 1 and no padding, got 3x3, stride 1x1, padding 1x1"
    assert unsupported_reason(config, Problem(**{**plain, "stride_h": 2, "stride_w": 2})) == \
        "explicit GEMM needs a 1x1 filter, stride 1 and no padding, got 1x1, stride 2x2, padding 0x0"
    narrow = KernelConfig.from_name("fwd_bf16_igemm_m128n64k32_w4_s3_tma_g8_v1_mg1_xg")
    assert unsupported_reason(narrow, Problem(**{**plain, "G": 3, "C": 6, "K": 8})) == \
        "TMA explicit GEMM needs G*C*2 bytes % 16 == 0 (input rows), got 36"
    message = ("explicit_gemm is an axis of the igemm fwd kernels of one group per tile, multistage or tma, without "
               "tap_major (a 1x1 filter has one tap)")
    for name in ("bwd_data_bf16_igemm_m128n64k32_w4_s3_ms_g8_v8_mg1_xg",
                 "fwd_bf16_igemm_m64n32k32_w4_s3_ms_g1_v8_mg4_xg", "fwd_bf16_igemm_m128n64k32_w4_s3_pers_g8_v8_mg1_xg"):
        with pytest.raises(ValueError, match=re.escape(message)):
            KernelConfig.from_name(name)


def test_the_tma_kernels_refuse_an_input_whose_pixels_are_not_dense():
    entry = entries_by_name("tests")["fwd_fp16_igemm_m64n64k32_w4_s3_tma_g8_v8_mg1_xg"]
    problem = Problem(direction="fwd", dtype="fp16", **SHAPES["c8-g4"])
    x, w = random_operands(problem, seed=1)
    wide = torch.zeros(2, 32, 5, 16, dtype=x.dtype).contiguous(memory_format=torch.channels_last)[..., :13]
    wide.copy_(x)  # the first 13 columns of a 16-wide image: rows 16 pixels apart, not 13
    out = torch.empty(2, 64, 5, 13, dtype=x.dtype).contiguous(memory_format=torch.channels_last)
    with pytest.raises(ValueError, match=re.escape("explicit-GEMM TMA kernels need the input's pixels dense "
                                                   "(channels_last), got strides (2560, 1, 512, 32)")):
        run(load_kernel_module(REPO_ROOT / entry.source), entry.config, problem, wide, w, out)
