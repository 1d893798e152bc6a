"""bench/ab_rule.py: the gain of a rule drawn from an A/B, on a hand-made table with a known answer."""
import gzip
import math

import pytest

from bench.ab_rule import kernel_speedups, main, read_pairs, rule_speedups

HEADER = "problem,direction,shape_class,base,twin,base_ms,twin_ms,base_err,twin_err,cudnn_ms\n"
NARROW = "fwd_bf16_igemm_m64n16k32_w2_s3_ms_g1_v1_mg1"
WIDE = "fwd_bf16_igemm_m64n32k32_w4_s3_ms_g1_v8_mg1"
ROWS = [  # p1: the wide twin wins 2x, the narrow one loses 2x; p2: the narrow kernel is best and its twin loses
    ("p1", NARROW, 1.0, 2.0), ("p1", WIDE, 2.0, 1.0),
    ("p2", NARROW, 1.0, 4.0), ("p2", WIDE, 3.0, 1.5),
    ("p3", WIDE, 1.0, ""),  # the twin failed: left out
]


def write(path, rows):
    text = HEADER + "".join(f"{p},fwd,C/G<=16,{b},{b}-k_walk-incremental,{bm},{tm},0,0,9\n" for p, b, bm, tm in rows)
    path.write_bytes(gzip.compress(text.encode()) if path.suffix == ".gz" else text.encode())
    return path


def test_a_rule_keeping_the_losing_kernels_on_the_base_loses_nothing(tmp_path):
    rows = read_pairs([write(tmp_path / "ab.csv.gz", ROWS)])
    assert len(rows) == 4
    speedups = kernel_speedups(rows)
    assert [name for name, _, _ in speedups] == [NARROW, WIDE]
    assert speedups[0][1] == 2 and math.isclose(speedups[0][2], math.sqrt(0.5 * 0.25))
    assert math.isclose(speedups[1][2], 2.0)
    every_twin = rule_speedups(rows, None)[("fwd", "C/G<=16")]
    assert every_twin == pytest.approx([1.0, 1.0 / 1.5])  # p2's best went from 1.0 (narrow base) to 1.5 (wide twin)
    kept = rule_speedups(rows, "vector_width == 1")[("fwd", "C/G<=16")]
    assert kept == pytest.approx([1.0, 1.0])  # p1: wide twin 1.0 = narrow base 1.0; p2: narrow base 1.0
    assert rule_speedups(rows, "vector_width == 1")[("fwd", "all")] == kept


def test_an_unknown_axis_is_named(tmp_path, capsys):
    path = write(tmp_path / "ab.csv", ROWS)
    assert main([str(path), "--keep-base", "vectr == 1"]) == 2
    assert capsys.readouterr().err.startswith("ab_rule: unknown field 'vectr'; known fields: algorithm, block_k, ")
