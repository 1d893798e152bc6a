"""bench/cv_losses.py: cross-validated selection loss summed per (oracle family, pick family)."""
import math

import pytest

from gconv.bench.cv_losses import family, losses_by_family

SPLIT = "bwd_weight_bf16_igemm_m64n64k32_w4_s3_ms_g8_v8_mg1_sk16"
WHOLE = "bwd_weight_bf16_igemm_m64n64k32_w4_s3_ms_g8_v8_mg1_sk1"
STREAMK = "bwd_weight_fp16_igemm_m128n128k32_w8_s3_strk_g1_v8_mg1_sk1"
DEPTHWISE = "bwd_weight_bf16_depthwise_t8x8c32_f3_m1_w4_v8_sk16la"


def test_a_family_is_the_algorithm_and_whether_it_splits_or_cudnn():
    assert [family(k) for k in (SPLIT, WHOLE, STREAMK, DEPTHWISE, "cudnn")] == [
        "igemm/split", "igemm", "igemm/split", "depthwise/split", "cuDNN"]


def test_losses_sum_per_family_pair_largest_first():
    picks = [(DEPTHWISE, "cudnn", 0.25), (SPLIT, WHOLE, 0.5), (SPLIT, SPLIT, 1.0), (DEPTHWISE, "cudnn", 0.5)]
    grouped = losses_by_family(picks)
    assert list(grouped) == [("depthwise/split", "cuDNN"), ("igemm/split", "igemm"), ("igemm/split", "igemm/split")]
    assert grouped[("depthwise/split", "cuDNN")] == (2, pytest.approx(math.log(8)))
    assert grouped[("igemm/split", "igemm")] == (1, pytest.approx(math.log(2)))
    assert grouped[("igemm/split", "igemm/split")] == (1, 0.0)
