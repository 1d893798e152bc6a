"""bench/focus_sweep.py: many sweeps' missing rows gathered into one small sweep and scattered back, each row to every
sweep whose problems hold its problem."""
import pytest

from gconv.bench.focus_sweep import gather, scatter
from gconv.bench.problems import read_problems, write_problems
from gconv.bench.profile import candidate_kernels, plan_jobs
from gconv.bench.rows import CUDNN_MODES, ProfileRow, append_rows, csv_row, done_kernels, read_rows
from gconv.schemas import Problem

TWINS = "aligned_k"  # the `default` kernels these rows lack: K % 8 == 0 and K % 16 != 0 runs them
BASE = ("algorithm == 'igemm' and pipeline == 'multistage' and block_m == 64 and block_n == 64 and block_k == 32 "
        "and groups_to_merge == 1 and vector_width == 8 and not aligned_k and K in [24, 40]")  # where the twins run


def fwd(K: int, dtype: str = "bf16") -> Problem:
    return Problem(direction="fwd", dtype=dtype, N=1, G=2, C=24, K=K, Hi=16, Wi=16, Y=3, X=3, stride_h=1, stride_w=1,
                   pad_h=1, pad_w=1, dil_h=1, dil_w=1)


def rows_for(problem: Problem, kernels: list[str], time_ms: float) -> list[dict]:
    return [csv_row(problem, ProfileRow(problem=problem.key, kernel=kernel, status="ok", time_ms=time_ms, tflops=1.0,
                                        gbs=1.0, roofline_pct=1.0)) for kernel in kernels]


def old_rows(problem: Problem) -> list[dict]:
    """A row of every `default` candidate but the aligned-K twins (a sweep from before they joined the set)."""
    kernels = [k for k in candidate_kernels(problem, "default", "sm_90") if not k.endswith("_ak")]
    return rows_for(problem, kernels + list(CUDNN_MODES), 2.0)


def test_gather_then_scatter_fills_every_sweep_with_the_rows_its_problems_lack(tmp_path):
    (tmp_path / "problems").mkdir()
    (tmp_path / "results").mkdir()
    shared, complete, other = fwd(24), fwd(32), fwd(40, "fp16")
    write_problems(tmp_path / "problems" / "a.csv", [shared, complete])
    write_problems(tmp_path / "problems" / "b.csv", [other, shared])
    append_rows(tmp_path / "results" / "a.csv", old_rows(shared) + old_rows(complete))
    append_rows(tmp_path / "results" / "b.csv", old_rows(other) + old_rows(shared))
    twins = {p.key: [k for k in candidate_kernels(p, "default", "sm_90") if k.endswith("_ak")] for p in (shared, other)}
    assert [len(t) for t in twins.values()] == [10, 10] and not plan_jobs([complete], "default", "sm_90",
                                                                         done_kernels(old_rows(complete)))
    bases = {key: [k for k in twins[key] if "m64n64k32" in k] for key in twins}  # what BASE names, as twins

    assert gather(["a:a", "b:b"], "focus", BASE, bench=tmp_path) == (2, len(old_rows(shared)) + len(old_rows(other))
                                                                     - 2, 22)
    assert [p.key for p in read_problems(tmp_path / "problems" / "focus.csv")] == [shared.key, other.key]
    focused = read_rows(tmp_path / "results" / "focus.csv")
    assert {r["problem"] for r in focused} == {shared.key, other.key}
    assert not any(r["kernel"] == bases[r["problem"]][0][:-3] for r in focused)  # the base, to be timed again

    # Two device calls: the first call's resumed copy replaces focus.csv before the second resumes it.
    measured = tmp_path / "measured.csv"
    owed = plan_jobs([shared, other], "default", "sm_90", done_kernels(focused))
    new_rows = [row for job in owed for row in rows_for(job.problem, list(job.pending), 1.0)]
    append_rows(tmp_path / "results" / "focus.csv", new_rows[:5])
    append_rows(measured, focused + new_rows)
    added = scatter(["a:a", "b:b"], "focus", measured, bench=tmp_path)
    assert added == {tmp_path / "results" / "a.csv": 11, tmp_path / "results" / "b.csv": 22}
    assert sorted(p.name for p in tmp_path.rglob("*.*")) == ["a.csv", "a.csv", "b.csv", "b.csv", "measured.csv"]
    for name, problems in (("a", [shared, complete]), ("b", [other, shared])):
        rows = read_rows(tmp_path / "results" / f"{name}.csv")
        assert not plan_jobs(problems, "default", "sm_90", done_kernels(rows))
        assert len(rows) == len({(r["problem"], r["kernel"]) for r in rows})  # the base replaced, not doubled
        times = {(r["problem"], r["kernel"]): r["time_ms"] for r in rows}
        for problem in problems:
            for twin in twins.get(problem.key, []):
                assert times[problem.key, twin] == "1.0"
            for base in bases.get(problem.key, []):
                assert times[problem.key, base[:-3]] == "1.0"
        assert times[shared.key, "cudnn-exhaustive"] == "2.0"


def test_rows_to_measure_again_bring_their_problem_along(tmp_path):
    (tmp_path / "problems").mkdir()
    (tmp_path / "results").mkdir()
    complete, untouched = fwd(32), fwd(48)
    write_problems(tmp_path / "problems" / "a.csv", [untouched, complete])
    append_rows(tmp_path / "results" / "a.csv", old_rows(untouched) + old_rows(complete))
    assert gather(["a:a"], "again", "K == 32 and algorithm == 'vendor'", bench=tmp_path) == (
        1, len(old_rows(complete)) - 2, 2)
    assert [p.key for p in read_problems(tmp_path / "problems" / "again.csv")] == [complete.key]
    assert {r["problem"] for r in read_rows(tmp_path / "results" / "again.csv")} == {complete.key}


def test_near_best_measures_again_only_the_rows_near_their_problems_best(tmp_path, capsys):
    from gconv.bench.focus_sweep import main, near_best_rows

    (tmp_path / "problems").mkdir()
    (tmp_path / "results").mkdir()
    problem = fwd(32)
    rows = old_rows(problem)
    rows[0]["time_ms"], rows[1]["time_ms"], rows[2]["time_ms"] = "1.0", "2.5", "2.6"
    rows[3]["status"], rows[3]["time_ms"] = "timeout", ""
    assert near_best_rows(rows, 2.5)[:5] == [True, True, False, True, True]  # the rest at 2.0: within 2x of 1.0
    write_problems(tmp_path / "problems" / "a.csv", [problem])
    append_rows(tmp_path / "results" / "a.csv", rows)
    gconv_rows = len(rows) - 2
    assert gather(["a:a"], "near", "algorithm != 'vendor'", bench=tmp_path, near_best=2.5) == (1, 3, gconv_rows - 1)
    assert {r["kernel"] for r in read_rows(tmp_path / "results" / "near.csv")} == {rows[2]["kernel"], *CUDNN_MODES}
    for argv, message in ((["--near-best", "2"], "--near-best takes a ratio of at least 1 and goes with --remeasure"),
                          (["--near-best", "0.5", "--remeasure", "K == 32"], "at least 1")):
        with pytest.raises(SystemExit):
            main(["gather", "--name", "x", "--sweeps", "a:a", *argv])
        assert message in capsys.readouterr().err


def test_in_problems_with_measures_again_only_where_a_row_near_the_best_is_marked(tmp_path, capsys):
    from gconv.bench.focus_sweep import main

    (tmp_path / "problems").mkdir()
    (tmp_path / "results").mkdir()
    marked_near, marked_far, unmarked = fwd(32), fwd(48), fwd(64)  # none lacks a row
    rows = {problem.key: old_rows(problem) for problem in (marked_near, marked_far, unmarked)}
    for problem_rows in rows.values():  # rows 0 and 1 near the best (1.0 and 1.05), the rest at 2.0
        problem_rows[0]["time_ms"], problem_rows[1]["time_ms"] = "1.0", "1.05"
    rows[marked_near.key][1]["detail"] = "measured on NVIDIA H200 (x/README.md)"
    rows[marked_far.key][2]["detail"] = "measured on NVIDIA H200 (x/README.md)"  # at 2.0: not near the best
    write_problems(tmp_path / "problems" / "a.csv", [marked_near, marked_far, unmarked])
    append_rows(tmp_path / "results" / "a.csv", [row for problem_rows in rows.values() for row in problem_rows])

    assert gather(["a:a"], "mixed", "detail == ''", bench=tmp_path, near_best=1.1,
                  in_problems_with="detail != ''") == (1, len(rows[marked_near.key]) - 1, 1)
    assert [p.key for p in read_problems(tmp_path / "problems" / "mixed.csv")] == [marked_near.key]
    again = {r["kernel"] for r in rows[marked_near.key]} - {r["kernel"] for r in read_rows(tmp_path / "results" /
                                                                                              "mixed.csv")}
    assert again == {rows[marked_near.key][0]["kernel"]}
    with pytest.raises(SystemExit):
        main(["gather", "--name", "x", "--sweeps", "a:a", "--in-problems-with", "detail != ''"])
    assert "--in-problems-with goes with --remeasure" in capsys.readouterr().err


def test_a_sweep_whose_results_are_missing_is_refused_before_anything_is_written(tmp_path):
    (tmp_path / "problems").mkdir()
    (tmp_path / "results").mkdir()
    write_problems(tmp_path / "problems" / "a.csv", [fwd(32)])
    with pytest.raises(FileNotFoundError) as error:
        gather(["a:a"], "focus", None, bench=tmp_path)
    assert str(error.value) == (f"{tmp_path / 'results' / 'a.csv'} does not exist: a sweep of --sweeps names a "
                                f"committed results and problems file (restore a stashed tree first)")
    assert sorted(p.name for p in tmp_path.rglob("*.*")) == ["a.csv"]


def test_scatter_finds_every_sweep_before_it_rewrites_one(tmp_path):
    (tmp_path / "problems").mkdir()
    (tmp_path / "results").mkdir()
    problem = fwd(32)
    for name in ("a", "b", "focus"):
        write_problems(tmp_path / "problems" / f"{name}.csv", [problem])
    append_rows(tmp_path / "results" / "a.csv", old_rows(problem))
    kernels = [row["kernel"] for row in old_rows(problem)]
    append_rows(tmp_path / "results" / "focus.csv", rows_for(problem, kernels[:3], 1.0))  # measured again
    (tmp_path / "results" / "focus.kept").write_text("")
    before = (tmp_path / "results" / "a.csv").read_bytes()
    with pytest.raises(FileNotFoundError, match="b.csv does not exist"):
        scatter(["a:a", "b:b"], "focus", tmp_path / "results" / "focus.csv", bench=tmp_path)
    assert (tmp_path / "results" / "a.csv").read_bytes() == before


def test_scatter_note_marks_the_moved_rows_only(tmp_path):
    (tmp_path / "problems").mkdir()
    (tmp_path / "results").mkdir()
    problem = fwd(32)
    write_problems(tmp_path / "problems" / "a.csv", [problem])
    write_problems(tmp_path / "problems" / "focus.csv", [problem])
    kernels = [row["kernel"] for row in old_rows(problem)]
    append_rows(tmp_path / "results" / "a.csv", old_rows(problem))
    kept = rows_for(problem, kernels[3:], 2.0)
    (tmp_path / "results" / "focus.kept").write_text("".join(f"{r['problem']}\t{r['kernel']}\n" for r in kept))
    failed = {**rows_for(problem, kernels[2:3], 1.0)[0], "status": "timeout", "detail": "worker hung"}
    append_rows(tmp_path / "results" / "focus.csv", kept + rows_for(problem, kernels[:2], 1.0) + [failed])
    scatter(["a:a"], "focus", tmp_path / "results" / "focus.csv", bench=tmp_path, note="measured on NVIDIA H200")
    details = {row["kernel"]: row["detail"] for row in read_rows(tmp_path / "results" / "a.csv")}
    assert [details[k] for k in kernels[:3]] == ["measured on NVIDIA H200"] * 2 + ["worker hung"]
    assert {details[k] for k in kernels[3:]} == {""}


def test_an_expression_naming_an_unknown_field_is_an_error_before_anything_is_written(capsys):
    from gconv.bench.focus_sweep import BENCH, main

    name = "test-unknown-field"
    with pytest.raises(SystemExit) as exit_code:
        main(["gather", "--name", name, "--sweeps", "baseline-default-bf16-gputime:baseline-synthetic-bf16",
              "--remeasure", "problem == 'fwd_bf16_n1'"])
    assert exit_code.value.code == 2
    err = capsys.readouterr().err
    assert "error: unknown field 'problem'; known fields: C, G, Hi, K, N, Wi, X, Y, algorithm," in err
    assert err.endswith("    problem == 'fwd_bf16_n1'\n    ^\n")
    assert not [p for p in BENCH.rglob(f"{name}.*")]

