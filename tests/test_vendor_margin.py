"""The vendor margin (heuristics/train.py chosen_index, bench/vendor_margin.py): it raises only the vendor row's key."""
import numpy as np
import pytest

from gconv.heuristics.train import chosen_index

NAMES = ["fwd_bf16_igemm_m64n64k32_w4_s3_ms_g1_v8_mg1", "fwd_bf16_igemm_m128n64k32_w4_s3_ms_g1_v8_mg1", "cudnn"]


def test_the_vendor_path_wins_only_by_more_than_the_margin():
    scores = np.array([1.0, 2.0, 2.4])  # a ranker's: the highest is the pick
    assert chosen_index(-scores, NAMES, 0.0) == 2
    assert chosen_index(-scores, NAMES, 0.3) == 2
    assert chosen_index(-scores, NAMES, 0.5) == 1
    assert chosen_index(-np.array([3.0, 2.0, 2.4]), NAMES, 0.0) == 0  # an instance ahead stays ahead
    assert chosen_index(np.array([0.5, 0.2, 0.1]), NAMES[:2] + ["fwd_bf16_direct_p128c32_w4_v1"], 5.0) == 2


def test_margins_are_per_direction_and_not_negative():
    from pydantic import ValidationError

    from gconv.heuristics.train import TrainConfig

    config = TrainConfig.model_validate({"vendor_margin": {"bwd_weight": 0.5}})
    assert (config.vendor_margin_of("bwd_weight"), config.vendor_margin_of("fwd")) == (0.5, 0.0)
    assert "vendor_margin" not in config.lightgbm_params()
    with pytest.raises(ValidationError, match="vendor_margin of bwd_data is -0.1: a margin is at least 0"):
        TrainConfig.model_validate({"vendor_margin": {"bwd_data": -0.1}})
    with pytest.raises(ValidationError, match="Input should be 'fwd', 'bwd_data' or 'bwd_weight'"):
        TrainConfig.model_validate({"vendor_margin": {"bwd": 0.5}})


def test_a_vendor_shift_lowers_only_the_vendor_rows_key():
    scores = np.array([1.0, 2.0, 1.8])
    assert chosen_index(-scores, NAMES, 0.0) == 1
    assert chosen_index(-scores, NAMES, 0.0, vendor_shift=0.3) == 2  # the classifier's log-odds x weight
    assert chosen_index(-scores, NAMES, 0.5, vendor_shift=0.8) == 2 and chosen_index(-scores, NAMES, 0.5, 0.5) == 1


def test_vendor_classifier_weights_are_per_direction_and_not_negative():
    from pydantic import ValidationError

    from gconv.heuristics.train import TrainConfig

    config = TrainConfig.model_validate({"vendor_classifier": {"weight": {"fwd": 0.5}}})
    assert (config.vendor_weight_of("fwd"), config.vendor_weight_of("bwd_weight")) == (0.5, 0.0)
    assert TrainConfig().vendor_weight_of("fwd") == 0.0 and "vendor_classifier" not in config.lightgbm_params()
    with pytest.raises(ValidationError, match="vendor_classifier weight of fwd is -1.0: a weight is at least 0"):
        TrainConfig.model_validate({"vendor_classifier": {"weight": {"fwd": -1.0}}})
    with pytest.raises(ValidationError, match="Extra inputs are not permitted"):
        TrainConfig.model_validate({"vendor_classifier": {"weights": {"fwd": 0.5}}})


def test_the_vendor_headroom_scores_the_pick_a_perfect_vendor_decision_and_no_vendor():
    from gconv.bench.vendor_headroom import efficiencies

    log_times = np.log(np.array([2.0, 4.0, 1.0]))  # cuDNN fastest; the ranker prefers the slower instance
    scores = np.array([1.0, 2.0, 1.9])
    shipped, perfect, never = efficiencies(log_times, NAMES, scores, 0.0, 0.0)
    assert (shipped, perfect, never) == pytest.approx((0.25, 1.0, 0.25))
    assert efficiencies(log_times, NAMES, scores, 0.0, 0.2)[0] == pytest.approx(1.0)  # the shift lets cuDNN win
    slow_vendor = np.log(np.array([2.0, 4.0, 8.0]))  # the ranker picks cuDNN, which is slowest
    assert efficiencies(slow_vendor, NAMES, np.array([1.0, 2.0, 3.0]), 0.0, 0.0) == pytest.approx((0.25, 0.5, 0.5))
