"""bench/splice_rows.py: a sweep whose selected rows take another sweep's measurements."""
import gzip

import pytest

from gconv.bench.rows import ProfileRow, csv_row, read_rows, rewrite_rows
from gconv.bench.splice_rows import main, splice_rows
from gconv.schemas import Problem

PROBLEM = Problem(direction="bwd_weight", dtype="bf16", N=8, G=4, C=32, K=32, Hi=28, Wi=28, Y=3, X=3, stride_h=1,
                  stride_w=1, pad_h=1, pad_w=1, dil_h=1, dil_w=1)
SPLIT = "bwd_weight_bf16_igemm_m64n64k32_w4_s3_ms_g8_v8_mg1_sk16"
WHOLE = "bwd_weight_bf16_igemm_m64n64k32_w4_s3_ms_g8_v8_mg1_sk1"


def rows(times: dict[str, float], detail: str = "") -> list[dict]:
    return [csv_row(PROBLEM, ProfileRow(problem=PROBLEM.key, kernel=kernel, status="ok", time_ms=time, tflops=1.0,
                                        gbs=1.0, roofline_pct=1.0, detail=detail)) for kernel, time in times.items()]


def test_only_the_selected_rows_that_source_holds_take_its_measurement():
    base = rows({SPLIT: 2.0, WHOLE: 3.0, "cudnn-heuristic": 4.0})
    source = rows({SPLIT: 1.5, WHOLE: 1.0}, detail="H200")
    spliced, count = splice_rows(base, source, "split_k > 1")
    assert count == 1
    assert [(r["kernel"], r["time_ms"], r["detail"]) for r in spliced] == [
        (SPLIT, 1.5, "H200"), (WHOLE, 3.0, ""), ("cudnn-heuristic", 4.0, "")]


def test_cli_writes_the_spliced_file_and_names_a_bad_expression(tmp_path, capsys):
    base, source, out = tmp_path / "base.csv", tmp_path / "source.csv", tmp_path / "out.csv"
    rewrite_rows(base, rows({SPLIT: 2.0, WHOLE: 3.0}))
    rewrite_rows(source, rows({SPLIT: 1.5}))
    assert main([str(base), str(source), "--where", "split_k > 1", "--out", str(out)]) == 0
    assert capsys.readouterr().out == f"{out}: 2 rows, 1 of them from {source}\n"
    assert [r["time_ms"] for r in read_rows(out)] == ["1.5", "3.0"]
    empty = tmp_path / "empty.csv"
    rewrite_rows(empty, [])
    with pytest.raises(SystemExit):  # named although SOURCE holds none of BASE's rows
        main([str(base), str(empty), "--where", "split_kk > 1", "--out", str(tmp_path / "bad.csv")])
    assert "unknown field 'split_kk'" in capsys.readouterr().err
    assert not (tmp_path / "bad.csv").exists()


def test_a_compressed_source_is_read_through_gzip(tmp_path):
    base, plain, source = tmp_path / "base.csv", tmp_path / "source.csv", tmp_path / "source.csv.gz"
    rewrite_rows(base, rows({SPLIT: 2.0}))
    rewrite_rows(plain, rows({SPLIT: 1.5}, detail="H200"))
    source.write_bytes(gzip.compress(plain.read_bytes()))
    assert main([str(base), str(source), "--where", "split_k > 1", "--out", str(base)]) == 0
    assert [(r["time_ms"], r["detail"]) for r in read_rows(base)] == [("1.5", "H200")]
