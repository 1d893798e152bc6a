"""bench/drop_rows.py: drop the rows of changed kernels (a resumed sweep measures them again), nothing else."""
import sys

import pytest

from gconv.errors import ExpressionError
from gconv.paths import REPO_ROOT

sys.path.insert(0, str(REPO_ROOT / "bench"))
from drop_rows import drop_rows  # noqa: E402

HEADER = "direction,dtype,N,G,C,K,Hi,Wi,Y,X,stride_h,stride_w,pad_h,pad_w,dil_h,dil_w,problem,shape_class,kernel,status\r\n"
SHAPE = "2,4,16,16,9,9,3,3,{s},{s},1,1,1,1,p{s},C/G<=16"
ROWS = [f"bwd_data,fp16,{SHAPE.format(s=2)},bwd_data_fp16_igemm_m64n32k32_w4_s3_ms_g1_v8_mg1,ok\r\n",
        f"bwd_data,fp16,{SHAPE.format(s=2)},bwd_data_fp16_direct_p64c32_w4_v1,ok\r\n",
        f"bwd_data,fp16,{SHAPE.format(s=2)},cudnn-exhaustive,ok\r\n",
        f"bwd_data,fp16,{SHAPE.format(s=1)},bwd_data_fp16_igemm_m64n32k32_w4_s3_ms_g1_v8_mg1,ok\r\n"]


def test_only_the_matching_rows_go_and_the_rest_stay_byte_for_byte(tmp_path):
    path = tmp_path / "rows.csv"
    path.write_bytes((HEADER + "".join(ROWS)).encode())
    where = "direction == 'bwd_data' and algorithm == 'igemm' and stride_h * stride_w > 1"
    assert drop_rows(path, where) == (3, 1)
    assert path.read_bytes() == (HEADER + "".join(ROWS[1:])).encode()
    assert drop_rows(path, "algorithm == 'vendor'") == (2, 1)
    assert [p.name for p in tmp_path.iterdir()] == ["rows.csv"]


def test_an_unknown_field_is_named(tmp_path):
    path = tmp_path / "rows.csv"
    path.write_bytes((HEADER + ROWS[0]).encode())
    with pytest.raises(ExpressionError, match=r"^unknown field 'strides'; known fields: C, G, Hi, K, N, Wi, X, Y, algorithm, "):
        drop_rows(path, "strides > 1")
    assert path.read_bytes() == (HEADER + ROWS[0]).encode()
