"""The depthwise prototypes (bench/prototypes/) stay correct until they become templates: interpreter vs float64."""
import sys
from pathlib import Path

import torch

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "bench" / "prototypes"))
import depthwise  # noqa: E402
import depthwise_bwd_weight  # noqa: E402

FP16_BOUND = 4e-3


def test_v1_kernels_match_float64_with_a_multiplier_stride_and_dilation():
    problem = depthwise.problem(N=1, G=6, M=2, H=7, Y=3, s=2, d=2)
    [row] = depthwise.check(problem, "cpu", torch.float16, [("h2w4g4w2", (2, 4, 4, 2))])
    assert max(row["fwd"], row["bwd_data"], row["bwd_weight"]) < FP16_BOUND, row


def test_v2_bwd_weight_matches_float64_per_tap_row_and_all_rows(monkeypatch):
    monkeypatch.setattr(depthwise_bwd_weight, "CONFIGS", [("all rows", (2, 4, 8, 2), 0), ("row", (2, 4, 8, 2), 1)])
    problem = depthwise.problem(N=2, G=5, M=1, H=6, Y=3, s=1)
    errors = dict(depthwise_bwd_weight.check(problem, "cpu", torch.float16))
    assert set(errors) == {"all rows", "row"} and max(errors.values()) < FP16_BOUND, errors
