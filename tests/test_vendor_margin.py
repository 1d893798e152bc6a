"""bench/vendor_margin.py: the margin lowers only the vendor row's score."""
import numpy as np

from bench.vendor_margin import pick


def test_the_vendor_path_wins_only_by_more_than_the_margin():
    scores, vendor = np.array([1.0, 2.0, 2.4]), np.array([False, False, True])
    assert pick(scores, vendor, 0.0) == 2
    assert pick(scores, vendor, 0.3) == 2
    assert pick(scores, vendor, 0.5) == 1
    assert pick(np.array([3.0, 2.0, 2.4]), vendor, 0.0) == 0  # an instance ahead stays ahead
