"""bench/extra_data_cv.py: the extra problems train in every fold and are never scored."""
from pathlib import Path

import numpy as np

from bench.extra_data_cv import with_and_without

DATA = Path(__file__).parent / "data"
SAMPLED = None  # the samples keep a few of each problem's kernels: complete in no rule set


def test_extra_problems_only_ever_train():
    """With the base problems themselves as the extra file every held-out problem was trained on: the picks get
    better, and the scores still cover the base problems only, the same count both ways."""
    base = [DATA / "train-sample-fwd-bf16.csv"]
    (target, (problems, extra, without, with_)), = with_and_without(base, base, fold_seeds=[0],
                                                                    complete_in=SAMPLED).items()
    assert target == ("fwd", "bf16")
    assert extra == problems and len(without) == len(with_) == problems
    assert np.mean(with_) > np.mean(without) and np.mean(with_) > 0.97


def test_unrelated_extra_problems_leave_the_scored_problems_alone():
    base, held_out = DATA / "train-sample-fwd-bf16.csv", DATA / "heldout-sample-fwd-bf16.csv"
    (_, (problems, extra, without, with_)), = with_and_without([base], [held_out], fold_seeds=[0],
                                                               complete_in=SAMPLED).items()
    assert extra > 0 and len(without) == len(with_) == problems
