"""bench/ab_rule.py: the gain of a rule drawn from an A/B, on a hand-made table with a known answer."""
import gzip
import math
import subprocess

import pytest

from sweep_rows import write_sweep_rows

from bench.ab_rule import (committed_rows, every_kernel_speedups, kernel_speedups, main, problem_bests, read_pairs,
                           rule_speedups, rule_time)

HEADER = "problem,direction,shape_class,base,twin,base_ms,twin_ms,base_err,twin_err,cudnn_ms\n"
NARROW = "fwd_bf16_igemm_m64n16k32_w2_s3_ms_g1_v1_mg1"
WIDE = "fwd_bf16_igemm_m64n32k32_w4_s3_ms_g1_v8_mg1"
ROWS = [  # p1: the wide twin wins 2x, the narrow one loses 2x; p2: the narrow kernel is best and its twin loses
    ("p1", NARROW, 1.0, 2.0), ("p1", WIDE, 2.0, 1.0),
    ("p2", NARROW, 1.0, 4.0), ("p2", WIDE, 3.0, 1.5),
    ("p3", WIDE, 1.0, ""),  # the twin failed: left out
]


def write(path, rows):
    text = HEADER + "".join(f"{p},fwd,C/G<=16,{b},{b}-k_walk-incremental,{bm},{tm},0,0,9\n" for p, b, bm, tm in rows)
    path.write_bytes(gzip.compress(text.encode()) if path.suffix == ".gz" else text.encode())
    return path


def test_a_rule_keeping_the_losing_kernels_on_the_base_loses_nothing(tmp_path):
    rows = read_pairs([write(tmp_path / "ab.csv.gz", ROWS)])
    assert len(rows) == 4
    speedups = kernel_speedups(rows)
    assert [name for name, _, _ in speedups] == [NARROW, WIDE]
    assert speedups[0][1] == 2 and math.isclose(speedups[0][2], math.sqrt(0.5 * 0.25))
    assert math.isclose(speedups[1][2], 2.0)
    every_twin = rule_speedups(rows, None)[("fwd", "C/G<=16")]
    assert every_twin == pytest.approx([1.0, 1.0 / 1.5])  # p2's best went from 1.0 (narrow base) to 1.5 (wide twin)
    kept = rule_speedups(rows, "vector_width == 1")[("fwd", "C/G<=16")]
    assert kept == pytest.approx([1.0, 1.0])  # p1: wide twin 1.0 = narrow base 1.0; p2: narrow base 1.0
    assert rule_speedups(rows, "vector_width == 1")[("fwd", "all")] == kept


def test_an_unknown_axis_is_named(tmp_path, capsys):
    path = write(tmp_path / "ab.csv", ROWS)
    assert main([str(path), "--keep-base", "vectr == 1"]) == 2
    assert capsys.readouterr().err.startswith(
        "ab_rule: unknown field 'vectr'; known fields: algorithm, aligned_k, block_k, ")


SMALL = "bwd_weight_bf16_depthwise_t2x8c8_f7_m2_cpg2_w4_v8_sk16"
WIDE_F7 = "bwd_weight_bf16_depthwise_t8x8c8_f7_m2_cpg2_w4_v8_sk16"  # 112 accumulator registers per thread
WIDE_F3 = "bwd_weight_bf16_depthwise_t8x8c8_f3_m2_cpg2_w4_v8_sk16"  # 48


def write_twins(path, rows):
    text = HEADER + "".join(f"{p},bwd_weight,C/G<=16,{SMALL},{t},{bm},{tm},0,0,9\n" for p, t, bm, tm in rows)
    path.write_text(text)
    return path


def test_added_twins_count_where_they_win_and_only_those_the_expression_admits(tmp_path):
    rows = read_pairs([write_twins(tmp_path / "ab.csv", [
        ("p1", WIDE_F7, 2.0, 1.0), ("p1", WIDE_F3, 2.0, 1.6),  # the twins win: 2x with f7 admitted, else 1.25x
        ("p2", WIDE_F7, 1.0, 3.0),  # the twin loses: the base stays, 1x
    ])])
    assert rule_speedups(rows, add_twins="acc_registers_per_thread <= 128")[("bwd_weight", "C/G<=16")] == \
        pytest.approx([2.0, 1.0])
    assert rule_speedups(rows, add_twins="acc_registers_per_thread <= 64")[("bwd_weight", "all")] == \
        pytest.approx([1.25, 1.0])


def test_kept_kernels_take_added_twins_and_the_others_their_twins(tmp_path, capsys):
    """--keep-base and --add-twins together: the base kernels keep_base does not match are replaced by their twins;
    beside the kept ones, the twins add_twins admits are added."""
    rows = [("p1", SMALL, 2.0, 1.0), ("p1", WIDE_F3, 1.5, 1.2),  # SMALL (7x7) replaced; WIDE_F3 kept
            ("p2", SMALL, 1.0, 3.0), ("p2", WIDE_F3, 2.0, 1.8)]
    path = tmp_path / "ab.csv"
    path.write_text(HEADER + "".join(f"{p},bwd_weight,C/G<=16,{b},{WIDE_F7},{bm},{tm},0,0,9\n" for p, b, bm, tm in rows))
    pairs = read_pairs([path])
    both = rule_speedups(pairs, "filter_size == 3", "acc_registers_per_thread <= 128")[("bwd_weight", "all")]
    assert both == pytest.approx([1.5 / 1.0, 1.0 / 1.8])  # p1: the replaced SMALL's twin 1.0; p2: the added twin 1.8
    none_added = rule_speedups(pairs, "filter_size == 3", "acc_registers_per_thread <= 64")[("bwd_weight", "all")]
    assert none_added == pytest.approx([1.5 / 1.0, 1.0 / 2.0])  # p2: the kept WIDE_F3 base 2.0
    assert main([str(path), "--keep-base", "filter_size == 3", "--add-twins", "acc_registers_per_thread <= 128"]) == 0
    assert ("(twins except where: filter_size == 3; beside those, the twins where: acc_registers_per_thread <= 128)"
            in capsys.readouterr().out)


def test_added_twins_may_be_template_choices_but_must_be_named_by_a_kernel(tmp_path, capsys):
    """A twin of another template choice (`NAME-choice-value`) is added as its kernel's axes say, as if the choice
    were an axis; a twin name that names no kernel is refused."""
    suffixed = read_pairs([write(tmp_path / "ab.csv", [("p1", WIDE, 2.0, 1.0), ("p2", NARROW, 1.0, 4.0)])])
    assert rule_speedups(suffixed, add_twins="vector_width == 8")[("fwd", "all")] == pytest.approx([2.0, 1.0])
    assert rule_speedups(suffixed, add_twins="vector_width == 1")[("fwd", "all")] == pytest.approx([1.0, 1.0])
    unnamed = write_twins(tmp_path / "unnamed.csv", [("p1", "no_kernel-k_walk-incremental", 2.0, 1.0)])
    assert main([str(unnamed), "--add-twins", "block_m == 64"]) == 2
    assert capsys.readouterr().err == ("ab_rule: --add-twins needs twins named by their kernel (and template choice), "
                                       "not 'no_kernel-k_walk-incremental'\n")


def test_added_twin_fields_must_be_known(tmp_path, capsys):
    named = write_twins(tmp_path / "twins.csv", [("p1", WIDE_F7, 2.0, 1.0)])
    assert main([str(named), "--add-twins", "acc_regs < 9"]) == 2
    assert capsys.readouterr().err.startswith("ab_rule: unknown field 'acc_regs'; known fields: "
                                              "acc_registers_per_thread, algorithm, aligned_k, "
                                              "arch.compute_capability, ")


def test_pairs_with_a_wrong_output_are_left_out_and_named(tmp_path, capsys):
    """A twin whose output is off cuDNN's by more than twice the dtype's bound (bf16: 3e-2) is no candidate, however
    fast."""
    text = HEADER + (f"p1,fwd,C/G<=16,{NARROW},{WIDE},1.0,0.5,0.004,1.57,9\n"  # the fast twin is wrong
                     f"p1,fwd,C/G<=16,{WIDE},{NARROW},2.0,1.8,0.004,0.06,9\n"  # at twice the bound: right
                     f"p2,fwd,C/G<=16,{NARROW},{WIDE},1.0,2.0,nan,0.001,9\n")  # a NaN error: wrong
    path = tmp_path / "ab.csv"
    path.write_text(text)
    wrong = []
    rows = read_pairs([path], wrong)
    assert [(row["problem"], row["base"]) for row in rows] == [("p1", WIDE)]
    assert [row["problem"] for row in wrong] == ["p1", "p2"]
    assert main([str(path), "--add-twins", "block_m > 0"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("left out 2 pairs whose output was wrong (error against cuDNN's above twice the dtype's "
                          f"bound), kernels: {NARROW}, {WIDE}\n")
    assert "1.111x" in out  # p1's best: 2.0 base -> 1.8 twin


OTHER = "fwd_bf16_direct_p64c32_w4_v1"


def test_over_every_kernel_the_gain_counts_only_where_the_bases_were_the_best(tmp_path, capsys):
    ab = write(tmp_path / "ab.csv", ROWS + [("p5", WIDE, 1.0, 0.5)])
    sweep = write_sweep_rows(tmp_path / "sweep.csv", [
        # p1: the rule gains 1x in the A/B; the vendor path (1.0) beats the bases (2.0) anyway
        ("p1", NARROW, "ok", 2.0), ("p1", WIDE, "ok", 4.0), ("p1", "cudnn-heuristic", "ok", 1.0),
        # p2: the rule loses 1.5x in the A/B (bases 1.2 -> 1.8); another kernel (1.5) caps the loss at 1.2 / 1.5
        ("p2", NARROW, "ok", 1.2), ("p2", WIDE, "ok", 3.0), ("p2", OTHER, "ok", 1.5),
        ("p2", "cudnn-exhaustive", "ok", 0.1),  # not a candidate: left aside
        ("p2", "cudnn-heuristic", "error", ""),
        # p5 has no row of its base: left out
        ("p5", OTHER, "ok", 1.0)])
    speedups, left_out = every_kernel_speedups(problem_bests(read_pairs([ab]), rule_time()),
                                                committed_rows([sweep]))
    assert speedups[("fwd", "C/G<=16")] == pytest.approx([1.0, 1.2 / 1.5]) and left_out == ["p5"]
    assert main([str(ab), "--sweeps", str(sweep)]) == 0
    out = capsys.readouterr().out
    assert out.endswith("over every kernel of the sweeps (min(O, B) / min(O, B / r) per problem):\n"
                        "  direction  class     geomean  worst  problems\n"
                        "  fwd        C/G<=16    0.894x  0.80x  2\n"
                        "  fwd        all        0.894x  0.80x  2\n"
                        "  1 problems left out, no committed row of their base kernels: p5\n")
    assert main([str(ab), "--sweeps", str(tmp_path / "nowhere.csv")]) == 2
    assert capsys.readouterr().err == f"ab_rule: {tmp_path / 'nowhere.csv'}: no such file\n"


def test_sweeps_rev_reads_the_rows_a_revision_held(tmp_path):
    git = ["git", "-c", "user.name=t", "-c", "user.email=t@t", "-C", str(tmp_path)]
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    sweep = write_sweep_rows(tmp_path / "sweep.csv", [("p1", NARROW, "ok", 2.0)])
    subprocess.run([*git, "add", "."], check=True)
    subprocess.run([*git, "commit", "-q", "-m", "rows"], check=True)
    write_sweep_rows(sweep, [("p1", NARROW, "ok", 0.5)])
    assert [row["time_ms"] for row in committed_rows([sweep], "HEAD")] == ["2.0"]
    assert [row["time_ms"] for row in committed_rows([sweep])] == ["0.5"]
