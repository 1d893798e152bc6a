"""bench/dtype_twins.py: the fp16 and bf16 rows of one kernel on one layer that disagree, found both ways round and
dropped in both files; the vendor rows and the agreeing pairs left alone."""
import sys

import pytest

from gconv.paths import REPO_ROOT

sys.path.insert(0, str(REPO_ROOT / "bench"))
from dtype_twins import disagreements, main  # noqa: E402

HEADER = ("direction,dtype,N,G,C,K,Hi,Wi,Y,X,stride_h,stride_w,pad_h,pad_w,dil_h,dil_w,problem,shape_class,kernel,"
          "status,time_ms\r\n")
SHAPE = "2,4,16,16,9,9,3,3,1,1,1,1,1,1,fwd_{d}_n2_g4_c16_k16_hi9_wi9_y3_x3_s1x1_p1x1_d1x1,C/G<=16"


def row(dtype: str, kernel: str, ms: float, status: str = "ok") -> str:
    return f"fwd,{dtype},{SHAPE.format(d=dtype)},{kernel.format(d=dtype)},{status},{ms}\r\n"


FP16 = [row("fp16", "fwd_{d}_igemm_m64n32k32_w4_s3_ms_g1_v8_mg1", 0.30),  # 3x its twin: a pair
        row("fp16", "fwd_{d}_direct_p64c32_w4_v1", 0.10),  # 1.5x: agrees
        row("fp16", "fwd_{d}_igemm_m128n16k32_w4_s3_ms_g1_v1_mg1", 0.01),  # a quarter of its twin: a pair
        row("fp16", "cudnn-heuristic", 9.0)]  # the vendor path: left out
BF16 = [row("bf16", "fwd_{d}_igemm_m64n32k32_w4_s3_ms_g1_v8_mg1", 0.10),
        row("bf16", "fwd_{d}_direct_p64c32_w4_v1", 0.15),
        row("bf16", "fwd_{d}_igemm_m128n16k32_w4_s3_ms_g1_v1_mg1", 0.04),
        row("bf16", "cudnn-heuristic", 1.0),
        row("bf16", "fwd_{d}_direct_p64c64_w4_v1", 0.2)]  # no twin


def _files(tmp_path):
    fp16, bf16 = tmp_path / "fp16.csv", tmp_path / "bf16.csv"
    fp16.write_bytes((HEADER + "".join(FP16)).encode())
    bf16.write_bytes((HEADER + "".join(BF16)).encode())
    return fp16, bf16


def test_pairs_apart_by_more_than_the_factor_either_way_furthest_first(tmp_path):
    fp16, bf16 = _files(tmp_path)
    found = disagreements(fp16, [bf16], 2.0)
    assert [(round(ratio, 6), key[1], twin_key[1]) for ratio, key, _, twin_key, _, _ in found] == [
        (0.25, "fwd_fp16_igemm_m128n16k32_w4_s3_ms_g1_v1_mg1", "fwd_bf16_igemm_m128n16k32_w4_s3_ms_g1_v1_mg1"),
        (3.0, "fwd_fp16_igemm_m64n32k32_w4_s3_ms_g1_v8_mg1", "fwd_bf16_igemm_m64n32k32_w4_s3_ms_g1_v8_mg1")]
    assert disagreements(fp16, [bf16], 5.0) == []


def test_drop_removes_both_rows_of_each_pair_and_nothing_else(tmp_path, capsys):
    fp16, bf16 = _files(tmp_path)
    assert main([str(fp16), "--twins", str(bf16), "--drop"]) == 0
    assert fp16.read_bytes() == (HEADER + FP16[1] + FP16[3]).encode()
    assert bf16.read_bytes() == (HEADER + BF16[1] + BF16[3] + BF16[4]).encode()
    out = capsys.readouterr().out
    assert "2 pairs apart by more than 2x" in out and f"{fp16}: dropped 2 rows, kept 2" in out
    assert sorted(p.name for p in tmp_path.iterdir()) == ["bf16.csv", "fp16.csv"]


def test_bad_arguments_are_named(tmp_path):
    fp16, bf16 = _files(tmp_path)
    with pytest.raises(ValueError, match=r"^--factor must be above 1, got 0.5$"):
        disagreements(fp16, [bf16], 0.5)
    with pytest.raises(OSError, match=r"missing.csv: no such file$"):
        disagreements(fp16, [tmp_path / "missing.csv"], 2.0)
