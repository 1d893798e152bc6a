"""bench/vendor_wins.py: where cuDNN beats every gconv kernel, bucketed by shape class, waves of output tiles and
reduction depth, on hand-made problems and a made-up sweep with known answers."""
import math

import pytest

from bench.vendor_wins import Gap, bucket, main, output_tiles, summary
from gconv.schemas import Problem
from sweep_rows import write_sweep_rows

DEEP = Problem(direction="fwd", dtype="bf16", N=32, G=1, C=384, K=384, Hi=8, Wi=8, Y=5, X=5, stride_h=2, stride_w=2,
               pad_h=2, pad_w=2)  # 4x4 output pixels x 32 images: M 512, N 384, GEMM-K 9,600
TINY = Problem(direction="fwd", dtype="bf16", N=1, G=2, C=4, K=4, Hi=8, Wi=8, Y=3, X=3, pad_h=1, pad_w=1)  # sweep_rows
WIDE = Problem(direction="fwd", dtype="bf16", N=32, G=64, C=8, K=8, Hi=56, Wi=56, Y=3, X=3, pad_h=1, pad_w=1)


def test_output_tiles_and_buckets_follow_the_gemm_view():
    assert output_tiles(DEEP, 128, 64) == 4 * 6 and output_tiles(DEEP, 64, 64) == 8 * 6
    assert bucket(DEEP, 132, (128, 64), 1024) == ("C/G>16", "under 1 wave", "deep")
    assert bucket(DEEP, 132, (128, 64), 10_000) == ("C/G>16", "under 1 wave", "shallow")
    assert output_tiles(WIDE, 128, 64) == 64 * 784
    assert bucket(WIDE, 132, (128, 64), 1024) == ("C/G<=16", "1+ waves", "shallow")


def test_summary_counts_the_wins_and_their_geometric_means():
    found = [Gap(DEEP, "a", 2.0, 1.0), Gap(DEEP, "b", 1.0, 4.0), Gap(DEEP, "c", 8.0, 1.0), Gap(WIDE, "d", 1.0, 2.0)]
    rows = summary(found, 132, (128, 64), 1024)
    assert rows == [["C/G<=16", "1+ waves", "shallow", 1, 0, "0.50", "-"],
                    ["C/G>16", "under 1 wave", "deep", 3, 2, f"{(2 * 0.25 * 8) ** (1 / 3):.2f}", "4.00"]]
    assert math.isclose(found[0].ratio, 2.0)


def test_main_reads_a_sweep_and_lists_the_largest_wins(tmp_path, capsys):
    sweep = write_sweep_rows(tmp_path / "sweep.csv", [
        (TINY.key, "fwd_bf16_direct_p64c32_w4_v1", "ok", 0.03), (TINY.key, "cudnn-heuristic", "ok", 0.02),
        (TINY.key, "cudnn-exhaustive", "ok", 0.01)])
    assert main(["--direction", "fwd", "--dtype", "bf16", "--measurements", str(sweep), "--worst", "1"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0] == ("fwd/bf16: cuDNN beats every gconv kernel on 1 of 1 problems (output tiles of 128x64 against "
                      "132 SMs; deep: GEMM-K >= 1024)")
    assert out[3].split() == ["C/G<=16", "under", "1", "wave", "shallow", "1", "1", "3.00", "3.00"]
    assert out[6].split() == [TINY.key, "2", "36", "fwd_bf16_direct_p64c32_w4_v1", "3.00", "0.0100"]


@pytest.mark.parametrize("argv, message", [
    (["--tile", "128"], "--tile wants MxN with positive M and N (e.g. 128x64), got '128'"),
    (["--direction", "bwd_data"], "no bwd_data bf16 problem has both cuDNN and gconv rows"),
])
def test_bad_input_is_refused_with_the_reason(tmp_path, capsys, argv, message):
    sweep = write_sweep_rows(tmp_path / "sweep.csv", [(TINY.key, "fwd_bf16_direct_p64c32_w4_v1", "ok", 0.03)])
    with pytest.raises(SystemExit):
        main(["--direction", "fwd", "--dtype", "bf16", "--measurements", str(sweep), *argv])
    assert message in capsys.readouterr().err
