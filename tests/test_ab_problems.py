"""bench/ab_problems.py: an A/B's problems drawn from training sweeps where the kernels it touches are near the best."""
from gconv.bench.ab_problems import drawn, main, near_best_problems, training_files
from gconv.bench.problems import read_problems
from gconv.bench.rows import ProfileRow, csv_row, rewrite_rows
from gconv.paths import REPO_ROOT
from gconv.schemas import Problem

WIDE = "fwd_bf16_igemm_m128n64k64_w4_s3_ms_g8_v8_mg1"
NARROW = "fwd_bf16_igemm_m64n32k32_w4_s3_ms_g1_v8_mg1"


def problem(direction: str = "fwd", dtype: str = "bf16", N: int = 8) -> Problem:
    return Problem(direction=direction, dtype=dtype, N=N, G=2, C=64, K=64, Hi=28, Wi=28, Y=3, X=3, pad_h=1, pad_w=1)


def rows(p: Problem, times: dict[str, float], status: str = "ok") -> list[dict]:
    prefix = f"{p.direction.value}_{p.dtype.value}"
    return [csv_row(p, ProfileRow(problem=p.key, kernel=kernel.replace("fwd_bf16", prefix), status=status,
                                  time_ms=time, tflops=1.0, gbs=1.0, roofline_pct=1.0))
            for kernel, time in times.items()]


def test_a_problem_counts_when_its_best_selected_kernel_is_near_its_best_row_and_that_row_is_long_enough():
    near, far, short = problem(N=8), problem(N=16), problem(N=32)
    table = (rows(near, {WIDE: 0.14, NARROW: 0.10, "cudnn-heuristic": 0.2})
             + rows(far, {WIDE: 0.16, NARROW: 0.10})  # 1.6x the best
             + rows(short, {WIDE: 0.012, NARROW: 0.010})  # best under 20 us
             + rows(problem(N=1), {WIDE: 0.05}, status="error"))
    found = near_best_problems(table, "block_m == 128", 1.5, 0.020)
    assert list(found) == [near.key]
    assert list(near_best_problems(table, "algorithm == 'vendor'", 2.0, 0.020)) == [near.key]  # cuDNN's rows count too


def test_the_draw_is_seeded_per_direction_and_keeps_one_dtype():
    pool = {p.key: p for p in [problem("fwd", N=n) for n in (1, 8, 16, 32)] + [problem("bwd_data", N=8),
                                                                             problem("fwd", "fp16", N=8)]}
    first = drawn(pool, ["fwd", "bwd_data", "bwd_weight"], "bf16", 2, seed=0)
    assert first == drawn(pool, ["fwd", "bwd_data", "bwd_weight"], "bf16", 2, seed=0)
    assert [p.direction.value for p in first] == ["fwd", "fwd", "bwd_data"]
    assert all(p.dtype.value == "bf16" for p in first) and len({p.key for p in first}) == 3
    assert {p.N for p in drawn(pool, ["fwd"], "bf16", 9, seed=3)} == {1, 8, 16, 32}  # fewer than asked: all


def test_cli_writes_the_drawn_problems_and_refuses_a_bad_filter(tmp_path, capsys):
    sweep, out = tmp_path / "sweep.csv", tmp_path / "ab.csv"
    near = problem(N=8)
    rewrite_rows(sweep, rows(near, {WIDE: 0.12, NARROW: 0.10}) + rows(problem(N=16), {WIDE: 0.3, NARROW: 0.10}))
    assert main(["--filter", "block_m == 128", "--out", str(out), "--measurements", str(sweep)]) == 0
    assert capsys.readouterr().out == f"{out}: 1 problems (fwd 1, bwd_data 0, bwd_weight 0)\n"
    assert [p.key for p in read_problems(out)] == [near.key]
    assert out.read_text().startswith("# 1 bf16 training problems (fwd 1, bwd_data 0, bwd_weight 0) whose fastest "
                                      "kernel of `block_m == 128` is within 1.5x")
    assert main(["--filter", "block_mm == 128", "--out", str(tmp_path / "bad.csv"), "--measurements", str(sweep)]) == 2
    assert capsys.readouterr().err.startswith("ab_problems: unknown field 'block_mm'")
    assert not (tmp_path / "bad.csv").exists()
    assert main(["--filter", "block_m == 128", "--out", str(out), "--measurements", str(tmp_path / "none.csv")]) == 2
    assert capsys.readouterr().err == f"ab_problems: no such measurements file: {tmp_path / 'none.csv'}\n"


def test_the_training_files_are_the_shipped_models_data_and_no_held_out_file():
    files = training_files()
    assert REPO_ROOT / "bench/results/train-seed12-bwd-weight-default-bf16-gputime.csv" in files
    held_out = ("heldout", "baseline", "zoo", "depthwise-family/", "tiny-groups/tiny-groups")  # validation's files
    assert not any(part in f.as_posix() for f in files for part in held_out)
    assert all(f.is_file() for f in files)
