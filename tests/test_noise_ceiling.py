"""bench/noise_ceiling.py: one run's oracle scored by another run's times, on hand-made rows with known answers."""
import pytest
from sweep_rows import write_sweep_rows

from gconv.bench.focus_sweep import rows_beyond, write_pair_list
from gconv.bench.noise_ceiling import ceiling_reports, main, split

P = "fwd_bf16_n1_g2_c4_k4_hi8_wi8_y3_x3_s1x1_p1x1_d1x1"


def runs(tmp_path):
    # A: k1 fastest by 5%; B: k2 fastest by 10%, so A's oracle (k1) scores 1.0 / 1.1 in B and B's (k2) 1.0 / 1.05 in A
    a = write_sweep_rows(tmp_path / "a.csv", [(P, "k1", "ok", 1.0), (P, "k2", "ok", 1.05), (P, "k3", "crash", "")])
    b = write_sweep_rows(tmp_path / "b.csv", [(P, "k1", "ok", 1.1), (P, "k2", "ok", 1.0)])
    return a, b


def test_each_run_is_ranked_by_the_other_and_by_the_reference(tmp_path):
    a, b = runs(tmp_path)
    ref = write_sweep_rows(tmp_path / "ref.csv", [(P, "k2", "ok", 0.5), (P, "k1", "ok", 0.6)])
    reports = {r.selector: r for r in ceiling_reports(a, b, [ref])}
    assert reports["A in B"].efficiency_mean == pytest.approx(1.0 / 1.1)
    assert reports["B in A"].efficiency_mean == pytest.approx(1.0 / 1.05)
    assert reports["ref in A"].efficiency_mean == pytest.approx(1.0 / 1.05)  # the reference picks k2
    assert reports["ref in B"].efficiency_mean == pytest.approx(1.0)
    assert {r.direction for r in reports.values()} == {"fwd/bf16"}


def test_split_keeps_the_rows_beyond_the_ledger(tmp_path):
    a, b = runs(tmp_path)
    ledger = tmp_path / "noise.kept"
    write_pair_list(ledger, [(P, "k1")])
    written = split(ledger, [a, b], tmp_path / "out")
    assert [(path.name, count) for path, count in written] == [("run-a.csv", 2), ("run-b.csv", 1)]
    assert [row["kernel"] for row in rows_beyond([{"problem": P, "kernel": "k1"}, {"problem": P, "kernel": "k9"}],
                                              frozenset({(P, "k1")}))] == ["k9"]


def test_a_copy_never_resumed_is_refused(tmp_path, capsys):
    a, b = runs(tmp_path)
    ledger = tmp_path / "noise.kept"
    write_pair_list(ledger, [(P, "k1"), (P, "k2"), (P, "k3")])
    assert main(["split", "--ledger", str(ledger), str(a), str(b), "--out-dir", str(tmp_path / "out")]) == 2
    assert capsys.readouterr().err == f"error: {a}: no rows beyond the ledger {ledger}: was it resumed on the device?\n"


def test_report_prints_the_spread_and_the_ceilings(tmp_path, capsys):
    a, b = runs(tmp_path)
    assert main(["report", str(a), str(b)]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[2] == "fwd            2        1.024  0.952   1.100  1.100"  # B / A: 1.05 -> 1.0 and 1.0 -> 1.1
    assert lines[6] == "fwd/bf16   A in B           1  90.9%  90.9%   90.9%  90.9%  0.0%   100.0%         -"
    assert lines[7] == "fwd/bf16   B in A           1  95.2%  95.2%   95.2%  95.2%  0.0%   100.0%         -"
