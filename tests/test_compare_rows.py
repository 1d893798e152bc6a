"""bench/compare_rows.py: AFTER / BEFORE per shared (problem, kernel) row, on hand-made sweep files."""
import math
import subprocess

import pytest

from sweep_rows import write_sweep_rows

from bench.compare_rows import committed_ratios, main, quantile, ratios

IGEMM = "{d}_fp16_igemm_m64n32k32_w4_s3_ms_g1_v1_mg1"
DIRECT = "{d}_fp16_direct_p64c32_w4_v1"


def write(path, rows):
    """A sweep CSV of (direction, problem, kernel, status, ms) fp16 rows, each kernel formatted with its direction."""
    return write_sweep_rows(path, [(d, p, k.format(d=d), s, ms) for d, p, k, s, ms in rows],
                            ("direction", "problem", "kernel", "status", "time_ms"), dtype="fp16")


def test_shared_ok_rows_compare_and_where_selects_by_kernel_axes(tmp_path):
    before = write(tmp_path / "before.csv", [("fwd", "p1", IGEMM, "ok", 1.0), ("fwd", "p1", DIRECT, "ok", 2.0),
                                             ("fwd", "p2", IGEMM, "ok", 4.0), ("bwd_data", "p3", IGEMM, "ok", 1.0),
                                             ("bwd_data", "p4", IGEMM, "error", "")])
    after = write(tmp_path / "after.csv", [("fwd", "p1", IGEMM, "ok", 1.1), ("fwd", "p1", DIRECT, "ok", 1.0),
                                           ("fwd", "p2", IGEMM, "ok", 3.6), ("bwd_data", "p3", IGEMM, "error", ""),
                                           ("bwd_data", "p4", IGEMM, "ok", 1.0), ("fwd", "p5", IGEMM, "ok", 9.0)])
    every = ratios(before, after)
    assert list(every) == ["fwd"] and every["fwd"] == [1.1, 0.5, 0.9]  # only pairs both files time
    assert ratios(before, after, "algorithm == 'igemm'") == {"fwd": [1.1, 0.9]}
    assert math.isclose(quantile([0.9, 1.1, 0.5], 0.5), 0.9) and quantile([0.9, 1.1, 0.5], 0.1) == 0.5


def test_a_missing_file_is_named(tmp_path, capsys):
    before = write(tmp_path / "before.csv", [])
    assert main([str(before), str(tmp_path / "nowhere.csv")]) == 2
    assert capsys.readouterr().err == f"compare_rows: {tmp_path / 'nowhere.csv'}: no such file\n"


def test_by_groups_within_a_direction_and_names_an_unknown_field(tmp_path):
    before = write(tmp_path / "before.csv", [("fwd", "p1", IGEMM, "ok", 1.0), ("fwd", "p1", DIRECT, "ok", 2.0)])
    after = write(tmp_path / "after.csv", [("fwd", "p1", IGEMM, "ok", 0.5), ("fwd", "p1", DIRECT, "ok", 3.0)])
    assert ratios(before, after, by="algorithm") == {"fwd direct": [1.5], "fwd igemm": [0.5]}
    with pytest.raises(ValueError) as raised:
        ratios(before, after, by="colour")
    assert str(raised.value) == (
        "--by 'colour' is not a row field; known: C, G, Hi, K, N, Wi, X, Y, algorithm, aligned_k, block_k, block_m, "
        "block_n, "
        "detail, dil_h, dil_w, direction, dtype, explicit_gemm, filter_size, group_channels, groups_to_merge, last_arrival, "
        "multiplier, num_stages, num_warps, pad_h, pad_w, pipeline, raster_group, shape_class, sliding_rows, split_k, "
        "status, stride_h, stride_w, tap_major, tile_w, time_ms, two_stage, vector_width, via_fwd")


def test_rev_pools_each_file_against_its_committed_version(tmp_path, capsys):
    git = ["git", "-c", "user.name=t", "-c", "user.email=t@t", "-C", str(tmp_path)]
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    (tmp_path / "sub").mkdir()
    first = write(tmp_path / "a.csv", [("fwd", "p1", IGEMM, "ok", 1.0), ("bwd_data", "p2", IGEMM, "ok", 2.0)])
    second = write(tmp_path / "sub" / "b.csv", [("fwd", "p3", IGEMM, "ok", 4.0)])
    subprocess.run([*git, "add", "."], check=True)
    subprocess.run([*git, "commit", "-q", "-m", "rows"], check=True)
    write(first, [("fwd", "p1", IGEMM, "ok", 0.5), ("bwd_data", "p2", IGEMM, "ok", 2.0)])
    write(second, [("fwd", "p3", IGEMM, "ok", 1.0)])
    assert committed_ratios("HEAD", [first, second]) == {"bwd_data": [1.0], "fwd": [0.5, 0.25]}
    assert main(["--rev", "HEAD", str(first), str(second), "--where", "direction == 'fwd'"]) == 0
    assert capsys.readouterr().out.splitlines()[2].split() == ["fwd", "2", "0.354", "0.250", "0.500", "0.500"]
    assert committed_ratios("HEAD", [first, second], changed=True) == {"fwd": [0.5, 0.25]}  # the kept row goes
    assert main(["--rev", "HEAD", str(first), str(second), "--changed"]) == 0
    assert [line.split()[:2] for line in capsys.readouterr().out.splitlines()[2:]] == [["fwd", "2"]]
    untracked = write(tmp_path / "c.csv", [])
    assert main(["--rev", "HEAD", str(untracked)]) == 2
    assert capsys.readouterr().err.startswith(f"compare_rows: {untracked}: not in git revision HEAD: ")


def test_without_rev_two_files_are_needed(capsys):
    with pytest.raises(SystemExit):
        main(["only.csv"])
    assert "give BEFORE.csv AFTER.csv, or --rev REV and the files" in capsys.readouterr().err
