"""bench/drop_rows.py: drop the rows of changed kernels (a resumed sweep measures them again), nothing else."""
import sys

import pytest

from gconv.errors import ExpressionError
from gconv.paths import REPO_ROOT

sys.path.insert(0, str(REPO_ROOT / "bench"))
from drop_rows import drop_rows, main  # noqa: E402

HEADER = "direction,dtype,N,G,C,K,Hi,Wi,Y,X,stride_h,stride_w,pad_h,pad_w,dil_h,dil_w,problem,shape_class,kernel,status,time_ms\r\n"
SHAPE = "2,4,16,16,9,9,3,3,{s},{s},1,1,1,1,p{s},C/G<=16"
ROWS = [f"bwd_data,fp16,{SHAPE.format(s=2)},bwd_data_fp16_igemm_m64n32k32_w4_s3_ms_g1_v8_mg1,ok,0.5\r\n",
        f"bwd_data,fp16,{SHAPE.format(s=2)},bwd_data_fp16_direct_p64c32_w4_v1,ok,812.5\r\n",
        f"bwd_data,fp16,{SHAPE.format(s=2)},cudnn-exhaustive,ok,900.0\r\n",
        f"bwd_data,fp16,{SHAPE.format(s=1)},bwd_data_fp16_igemm_m64n32k32_w4_s3_ms_g1_v8_mg1,error,\r\n"]


def test_only_the_matching_rows_go_and_the_rest_stay_byte_for_byte(tmp_path):
    path = tmp_path / "rows.csv"
    path.write_bytes((HEADER + "".join(ROWS)).encode())
    where = "direction == 'bwd_data' and algorithm == 'igemm' and stride_h * stride_w > 1"
    assert drop_rows(path, where) == (3, 1)
    assert path.read_bytes() == (HEADER + "".join(ROWS[1:])).encode()
    assert drop_rows(path, "algorithm == 'vendor'") == (2, 1)
    assert [p.name for p in tmp_path.iterdir()] == ["rows.csv"]


def test_rows_go_by_their_time_and_status_too(tmp_path):
    path = tmp_path / "rows.csv"
    path.write_bytes((HEADER + "".join(ROWS)).encode())
    assert drop_rows(path, "time_ms >= 500 and algorithm != 'vendor'") == (3, 1)  # not cuDNN's 900 ms
    assert path.read_bytes() == (HEADER + "".join(ROWS[:1] + ROWS[2:])).encode()
    assert drop_rows(path, "status == 'error' and time_ms == 0") == (2, 1)  # a row without a time reads 0
    assert path.read_bytes() == (HEADER + "".join(ROWS[:1] + ROWS[2:3])).encode()


def test_an_unknown_field_is_named(tmp_path):
    path = tmp_path / "rows.csv"
    path.write_bytes((HEADER + ROWS[0]).encode())
    with pytest.raises(ExpressionError, match=r"^unknown field 'strides'; known fields: C, G, Hi, K, N, Wi, X, Y, algorithm, "):
        drop_rows(path, "strides > 1")
    assert path.read_bytes() == (HEADER + ROWS[0]).encode()


def test_a_flag_reads_false_on_the_cudnn_rows(tmp_path):
    path = tmp_path / "rows.csv"
    path.write_bytes((HEADER + "".join(ROWS)).encode())
    assert drop_rows(path, "tap_major or explicit_gemm") == (4, 0)  # a condition, not a number, on cuDNN's row too
    assert drop_rows(path, "not tap_major and algorithm == 'vendor'") == (3, 1)
    assert path.read_bytes() == (HEADER + "".join(ROWS[:2] + ROWS[3:])).encode()


def test_rows_go_by_their_detail_too(tmp_path):
    path = tmp_path / "rows.csv"
    marked = ROWS[0].replace("\r\n", ",measured on NVIDIA H200\r\n")
    plain = ROWS[1].replace("\r\n", ",\r\n")
    path.write_bytes((HEADER.replace("\r\n", ",detail\r\n") + marked + plain).encode())
    assert drop_rows(path, "detail == '' and algorithm != 'vendor'") == (1, 1)
    assert path.read_bytes() == (HEADER.replace("\r\n", ",detail\r\n") + marked).encode()


def test_the_command_names_an_unknown_field_and_leaves_the_file_as_it_was(tmp_path, capsys):
    path = tmp_path / "rows.csv"
    path.write_bytes((HEADER + "".join(ROWS)).encode())
    with pytest.raises(SystemExit) as exit_code:
        main(["--where", "kernel == 'x'", str(path)])
    assert exit_code.value.code == 2
    err = capsys.readouterr().err
    assert f"error: {path}: unknown field 'kernel'; known fields: C, G, Hi, K, N, Wi, X, Y, algorithm," in err
    assert path.read_bytes() == (HEADER + "".join(ROWS)).encode()



def test_a_named_axis_reads_vendor_on_the_cudnn_rows(tmp_path):
    """`pipeline == 'tma'` is false on cuDNN's row, as `algorithm == 'igemm'` is, not a string compared with a number."""
    path = tmp_path / "rows.csv"
    path.write_bytes((HEADER + "".join(ROWS)).encode())
    assert drop_rows(path, "pipeline == 'tma'") == (4, 0)
    assert drop_rows(path, "pipeline == 'vendor'") == (3, 1)
    assert path.read_bytes() == (HEADER + "".join(ROWS[:2] + ROWS[3:])).encode()
