"""bench/issue_audit.py: the winning implicit-GEMM kernels of the problems that count for the roofline target, and the
issue work of their loops beside the MMAs."""
import pytest

from gconv.bench.issue_audit import MMA_FLOP_PER_CYCLE, Winner, audit_table, issue_estimate, main, winners
from gconv.schemas import KernelConfig

BIG = "fwd_bf16_igemm_m128n128k64_w8_s3_ms_g8_v8_mg1"
SMALL = "fwd_bf16_igemm_m64n64k32_w4_s3_ms_g8_v8_mg1"
DEPTHWISE = "fwd_bf16_depthwise_t4x8c32_f3_m2_w2_v8"


def row(problem: str, kernel: str, ms: float, pct: float, status: str = "ok") -> dict:
    return {"problem": problem, "kernel": kernel, "status": status, "time_ms": str(ms), "roofline_pct": str(pct),
            "direction": "fwd", "shape_class": "C/G>16"}


def test_winners_count_the_problems_each_kernel_is_fastest_on_at_20_us_of_roofline_or_more():
    rows = [row("p1", BIG, 1.0, 50.0), row("p1", SMALL, 2.0, 25.0),
            row("p2", BIG, 4.0, 20.0), row("p2", SMALL, 3.0, 40.0), row("p2", "cudnn-exhaustive", 0.5, 0.0),
            row("p3", BIG, 2.0, 10.0), row("p3", SMALL, 0.5, 30.0, status="error"),
            row("p4", SMALL, 0.03, 50.0),  # roofline time 15 us: not counted
            row("p5", DEPTHWISE, 1.0, 60.0), row("p5", BIG, 2.0, 30.0)]  # won by a kernel without tensor cores
    geomean = pytest.approx((50.0 * 10.0) ** 0.5)
    assert winners(rows, top=5) == [Winner(BIG, 2, geomean, "p3"), Winner(SMALL, 1, 40.0, "p2")]
    assert winners(rows, top=1) == [Winner(BIG, 2, geomean, "p3")]  # of two, the slower is the median


def test_the_median_problem_is_the_one_of_median_time():
    rows = [row(f"p{i}", BIG, ms, 50.0) for i, ms in enumerate([3.0, 1.0, 2.0])]
    assert winners(rows, top=1)[0].problem == "p2"


def test_issue_estimate_weighs_a_step_by_warps_over_four_schedulers_against_its_mma_cycles():
    estimate = issue_estimate(KernelConfig.from_name(BIG), {"HGMMA": 4, "IMAD": 100, "SEL": 96})
    mma = 128 * 128 * 64 * 2 / MMA_FLOP_PER_CYCLE
    assert estimate == {"instructions": 200, "mma_instructions": 4, "issue_cycles": 400.0, "mma_cycles": mma,
                        "ratio": 400.0 / mma}


@pytest.mark.parametrize("argv, message", [
    ([], "give sweep CSVs or --all-sweeps, not both or neither"),
    (["--all-sweeps", "x.csv"], "give sweep CSVs or --all-sweeps, not both or neither"),
    (["x.csv", "--top", "0"], "--top takes at least 1"),
    (["missing.csv"], "missing.csv does not exist"),
])
def test_cli_refuses_bad_arguments(argv, message, capsys):
    with pytest.raises(SystemExit):
        main(argv)
    assert capsys.readouterr().err.strip().endswith(message)


def test_the_twin_column_says_same_where_a_choice_changes_nothing():
    found = [Winner(BIG, 3, 50.0, "p1"), Winner(SMALL, 2, 40.0, "p2")]
    ops = [{"HGMMA": 4, "IMAD": 96}, {"HGMMA": 2, "IMAD": 50}]
    text = audit_table(found, ops, [{"HGMMA": 4, "IMAD": 96}, {"HGMMA": 2, "IMAD": 30}], "group_rows=compare")
    header, _, first, second = text.splitlines()
    assert header.split()[-2:] == ["with", "group_rows=compare"]
    assert first.split()[-1] == "same" and second.split()[-1] == "32"
    assert "with" not in audit_table(found, ops).splitlines()[0]


def test_cli_refuses_an_unknown_choice():
    with pytest.raises(SystemExit) as error:
        main(["--all-sweeps", "--choice", "group_rows=sideways"])
    assert str(error.value).startswith("--choice wants choice=value with a template choice (tap_loop: ")
