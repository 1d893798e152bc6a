"""bench/outlier_rows.py: the rows a sweep most likely mistimed, on hand-made rows with known answers, and their pairs
measured again through focus_sweep gather --remeasure-pairs."""
import pytest

from bench.outlier_rows import main, outlier_rows
from gconv.bench.focus_sweep import gather, main as focus_main
from gconv.bench.rows import read_rows
from sweep_rows import write_sweep_rows

FAST, MID, GLITCH = ("fwd_bf16_depthwise_t4x16c32_f3_m1_w4_v8", "fwd_bf16_depthwise_t8x8c32_f3_m1_w4_v8",
                     "fwd_bf16_depthwise_t4x8c32_f3_m1_w2_v8")  # one family: depthwise 3x3, multiplier 1
DIRECT = ("fwd_bf16_direct_p64c32_w4_v8", "fwd_bf16_direct_p128c32_w4_v1")  # a family of two


def rows(problem: str, times: dict[str, float]) -> list[dict]:
    return [{"problem": problem, "kernel": kernel, "status": "ok", "time_ms": str(ms)} for kernel, ms in times.items()]


def test_a_row_over_ratio_times_its_familys_median_on_a_fast_problem_is_an_outlier():
    small = rows("p", {FAST: 0.004, MID: 0.005, GLITCH: 0.145, DIRECT[0]: 0.006, DIRECT[1]: 0.6,
                       "cudnn-heuristic": 9.0})
    assert outlier_rows(small, ratio=10, max_best_ms=0.02) == [("p", GLITCH)]
    # a family of two: the median is halfway, so 100x its sibling is 1.98x the median, not an outlier
    assert outlier_rows(small, ratio=1.9, max_best_ms=0.02) == [("p", GLITCH), ("p", DIRECT[1])]
    assert outlier_rows(small, ratio=40, max_best_ms=0.02) == []  # 0.145 / 0.005 = 29x
    assert outlier_rows(small, ratio=10, max_best_ms=0.004) == []  # the fastest row, 0.004 ms, is not under it
    failed = small + [{"problem": "p", "kernel": "fwd_bf16_depthwise_t2x16c32_f3_m1_w2_v8", "status": "timeout",
                       "time_ms": ""}]
    assert outlier_rows(failed, ratio=10, max_best_ms=0.02) == [("p", GLITCH)]


def test_the_command_writes_the_pairs_and_counts_them_per_sweep(tmp_path, capsys, monkeypatch):
    import bench.outlier_rows as tool

    results = tmp_path / "bench" / "results"
    write_sweep_rows(results / "a.csv", [("p", FAST, "ok", 0.004), ("p", MID, "ok", 0.005), ("p", GLITCH, "ok", 0.145)])
    monkeypatch.setattr(tool, "REPO_ROOT", tmp_path)
    out = tmp_path / "x.pairs"
    assert main(["--out", str(out), "--sweeps", "a:a"]) == 0
    assert out.read_text() == f"p\t{GLITCH}\n"
    assert capsys.readouterr().out.splitlines()[-1] == f"wrote 1 (problem, kernel) pairs to {out}"
    with pytest.raises(SystemExit):
        main(["--out", str(out), "--sweeps", "b:b"])
    assert f"{results / 'b.csv'}: no such file" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        main(["--out", str(out), "--ratio", "1"])
    assert "--ratio must be above 1 and --max-best-us above 0" in capsys.readouterr().err


def test_gather_measures_the_listed_pairs_again(tmp_path, capsys):
    from gconv.bench.problems import write_problems
    from gconv.schemas import Problem

    problem = Problem(direction="fwd", dtype="bf16", N=1, G=64, C=1, K=1, Hi=8, Wi=8, Y=3, X=3, pad_h=2, pad_w=2,
                      dil_h=2, dil_w=2)
    (tmp_path / "problems").mkdir()
    write_problems(tmp_path / "problems" / "a.csv", [problem])
    sweep = write_sweep_rows(tmp_path / "results" / "a.csv", [(problem.key, k, "ok", t) for k, t in
                                                               ((FAST, 0.004), (MID, 0.005), (GLITCH, 0.145))])
    full = len(read_rows(sweep))
    assert gather(["a:a"], "again", None, bench=tmp_path, remeasure_pairs=frozenset({(problem.key, GLITCH)}))[:2] == \
        (1, full - 1)
    assert GLITCH not in {r["kernel"] for r in read_rows(tmp_path / "results" / "again.csv")}
    bad = tmp_path / "bad.pairs"
    bad.write_text(f"{problem.key} {GLITCH}\n")
    with pytest.raises(SystemExit):
        focus_main(["gather", "--name", "x", "--sweeps", "a:a", "--remeasure-pairs", str(bad)])
    assert f"{bad}:1: expected 'problem<TAB>kernel', got '{problem.key} {GLITCH}'" in capsys.readouterr().err
