"""Benchmark building blocks: problem files, roofline, profiling rows and the summary maths."""
import csv

import pytest

from gconv.bench.problems import (pointwise_problems, read_problems, shape_class, synthetic_problems, tiny_group_problems,
                                  write_problems)
from gconv.bench.profile import profile_problem, summarise
from gconv.heuristics.analytic import roofline_seconds
from gconv.bench.timing import rotations_for
from gconv.paths import REPO_ROOT
from gconv.runtime.registry import load_arch_spec
from gconv.schemas import Problem


def test_synthetic_problems_are_seeded_and_cover_the_shape_classes(tmp_path):
    problems = synthetic_problems(60, seed=3)
    assert problems == synthetic_problems(60, seed=3) and problems != synthetic_problems(60, seed=4)
    assert len(problems) == 180  # every shape in all three directions
    assert {shape_class(p) for p in problems} == {"depthwise", "C/G<=16", "C/G>16"}
    path = tmp_path / "problems.csv"
    write_problems(path, problems)
    assert read_problems(path) == problems


def test_pointwise_problems_are_seeded_plain_1x1_convolutions():
    problems = pointwise_problems(20, seed=4242)
    assert problems == pointwise_problems(20, seed=4242) != pointwise_problems(20, seed=1)
    assert {(p.direction.value, p.Y, p.X, p.stride_h, p.stride_w, p.pad_h, p.pad_w) for p in problems} == \
        {("fwd", 1, 1, 1, 1, 0, 0)}
    assert min(p.C for p in problems) >= 8 and len({p.G for p in problems}) > 2
    committed = read_problems(REPO_ROOT / "bench" / "problems" / "pointwise-synthetic-bf16.csv")
    assert committed == problems  # the committed file is exactly the generator's output


def test_problem_files_report_missing_columns_and_bad_values(tmp_path):
    path = tmp_path / "bad.csv"
    path.write_text("direction,dtype,N\nfwd,bf16,1\n")
    with pytest.raises(ValueError, match=r"bad.csv: missing columns G, C, K, Hi, Wi, Y, X, stride_h, stride_w, "
                                         r"pad_h, pad_w, dil_h, dil_w; expected direction, "):
        read_problems(path)
    problem = Problem(direction="fwd", dtype="bf16", N=1, G=2, C=3, K=4, Hi=8, Wi=8, Y=3, X=3)
    write_problems(path, [problem])
    path.write_text(path.read_text().replace(",2,3,4,", ",0,3,4,"))
    with pytest.raises(ValueError, match=r"bad.csv:2: G: Input should be greater than 0$"):
        read_problems(path)


def test_roofline_takes_the_slower_of_compute_and_memory():
    arch = load_arch_spec("sm_90")
    big = Problem(direction="fwd", dtype="bf16", N=32, G=2, C=256, K=256, Hi=56, Wi=56, Y=3, X=3, pad_h=1, pad_w=1)
    assert roofline_seconds(big, arch) == pytest.approx(big.flops / 700e12)  # compute bound
    depthwise = big.model_copy(update={"G": 224, "C": 1, "K": 1})
    bytes_moved = (32 * 224 * (56 * 56 + 56 * 56) + 224 * 9) * 2
    assert roofline_seconds(depthwise, arch) == pytest.approx(bytes_moved / 3000e9)  # memory bound


def test_small_problems_rotate_operands_to_defeat_the_l2():
    small = Problem(direction="fwd", dtype="fp16", N=1, G=2, C=8, K=8, Hi=8, Wi=8, Y=3, X=3)
    large = Problem(direction="fwd", dtype="fp16", N=64, G=2, C=256, K=256, Hi=56, Wi=56, Y=3, X=3)
    assert rotations_for(small) == 8 and rotations_for(large) == 1


def test_profiling_times_every_candidate_and_both_cudnn_modes():
    problem = Problem(direction="fwd", dtype="fp32", N=1, G=2, C=3, K=4, Hi=6, Wi=6, Y=3, X=3, pad_h=1, pad_w=1)
    streamed = []
    rows = profile_problem(problem, "tiny", device="cpu", warmup=0, repeats=1, on_row=streamed.append)
    assert streamed == rows  # each row as it is timed (a sweep writes it then)
    kernels = [r.kernel for r in rows]
    assert kernels[-2:] == ["cudnn-heuristic", "cudnn-exhaustive"]
    assert len(kernels) >= 4 and all(k.startswith("fwd_fp32_") for k in kernels[:-2])
    assert all(r.status == "ok" and r.time_ms > 0 and r.roofline_pct > 0 for r in rows)


def test_a_kernel_whose_output_is_off_cudnns_keeps_its_time_but_is_wrong(monkeypatch):
    """Each kernel's first run is compared with cuDNN's output on the same operands: 10% off, or NaN, is over twice
    fp32's verification bound (0.004), so the row is timed but says "wrong" (training and the oracle read only "ok")."""
    from gconv.bench import profile

    problem = Problem(direction="fwd", dtype="fp32", N=1, G=2, C=3, K=4, Hi=6, Wi=6, Y=3, X=3, pad_h=1, pad_w=1)
    kernels = [r.kernel for r in profile_problem(problem, "tiny", device="cpu", warmup=0, repeats=1)][:3]
    real = profile.execute
    off = {kernels[0]: lambda out: out * 1.1, kernels[1]: lambda out: out.fill_(float("nan"))}

    def execute(problem, a, b, *, choice):
        out = real(problem, a, b, choice=choice)
        return off.get(choice.name, lambda out: out)(out)

    monkeypatch.setattr(profile, "execute", execute)
    rows = {r.kernel: r for r in profile_problem(problem, "tiny", device="cpu", kernels=kernels, warmup=0, repeats=1)}
    assert rows[kernels[0]].status == rows[kernels[1]].status == "wrong" and rows[kernels[2]].status == "ok"
    assert rows[kernels[0]].detail == "relative error 0.1 against cuDNN's output (bound 0.004)"
    assert rows[kernels[1]].detail == "relative error inf against cuDNN's output (bound 0.004)"
    assert all(r.time_ms > 0 for r in rows.values()) and rows[kernels[2]].detail == ""


def test_relative_error_in_place_is_the_largest_difference_over_the_largest_expected_value():
    import torch

    from gconv.runtime.reference import error_scale, relative_error_in_place

    expected = torch.tensor([1.0, -2.5])
    assert error_scale(expected) == 2.5 and error_scale(torch.zeros(2)) == 1.0
    assert relative_error_in_place(torch.tensor([1.0, -2.0], dtype=torch.bfloat16), expected, 2.5) == \
        pytest.approx(0.2)
    assert relative_error_in_place(torch.tensor([1.0, float("inf")]), expected, 2.5) == float("inf")


def row(problem, kernel, ms, pct=50.0, direction="fwd", klass="depthwise"):
    return dict(problem=problem, kernel=kernel, status="ok", time_ms=str(ms), roofline_pct=str(pct),
                direction=direction, shape_class=klass)


def test_summary_is_the_geometric_mean_of_best_against_best():
    rows = [row("p1", "k1", 1.0, pct=40.0), row("p1", "k2", 2.0), row("p1", "cudnn-heuristic", 4.0),
            row("p1", "cudnn-exhaustive", 3.0),          # p1: 3 / 1 = 3x, roofline 1 * 40% = 0.4 ms >= 20 us
            row("p2", "k1", 0.010, pct=90.0), row("p2", "cudnn-heuristic", 0.004),  # p2: 0.4x; 9 us: no roofline
            row("p3", "k1", 1.0, klass="C/G>16"), row("p3", "cudnn-exhaustive", 1.0)]
    lines = summarise(rows).splitlines()
    assert lines[2].split() == ["fwd", "C/G>16", "1", "1.00x", "1.00x", "50.0%", "1"]
    assert lines[3].split() == ["fwd", "depthwise", "2", "1.10x", "0.40x", "40.0%", "1"]  # sqrt(3 * 0.4) = 1.095
    assert lines[4].split() == ["fwd", "all", "3", "1.06x", "0.40x", "44.7%", "2"]


def _fake_cuda(monkeypatch, elapsed_ms: list[float], slept: list[bool] = ()) -> list[str]:
    """torch.cuda as median_ms sees it, without a GPU: timing events whose elapsed times are elapsed_ms in turn, and
    sleep-end events whose query() answers slept in turn (False -- the sleep still running -- once slept runs out);
    the returned log records every run, event, query, sync and sleep in order."""
    import torch

    log, elapsed, ended = [], iter(elapsed_ms), iter(slept)

    class FakeEvent:
        def __init__(self, enable_timing=False):
            self.timing = enable_timing

        def record(self):
            log.append("record" if self.timing else "record sleep end")

        def query(self):
            assert not self.timing
            log.append("query")
            return next(ended, False)

        def elapsed_time(self, end):
            return next(elapsed)

    monkeypatch.setattr(torch.cuda, "is_available", lambda: True)
    monkeypatch.setattr(torch.cuda, "synchronize", lambda: log.append("sync"))
    monkeypatch.setattr(torch.cuda, "Event", FakeEvent)
    monkeypatch.setattr(torch.cuda, "_sleep", lambda cycles: log.append(f"sleep {cycles}"))
    return log


def timed_pass(first_run: int, repeats: int, sleep_cycles: int) -> list[str]:
    """The log of one timed pass of median_ms: runs first_run.. between event pairs, queued behind the sleep."""
    runs = [entry for i in range(first_run, first_run + repeats) for entry in ("record", f"run {i}", "record")]
    return ["sync", f"sleep {sleep_cycles}", "record sleep end", *runs, "query", "sync"]


def test_median_ms_queues_a_sleep_so_gpu_times_exclude_host_launch_cost(monkeypatch):
    """On CUDA: warm-up, sync, then a sleep kernel long enough for every repeat, then the event-timed runs."""
    from gconv.bench import timing

    log = _fake_cuda(monkeypatch, [5.0, 4.0, 3.0])
    ms = timing.median_ms(lambda i: log.append(f"run {i}"), warmup=2, repeats=3)
    assert ms == 4.0
    assert log == ["run 0", "run 1", *timed_pass(2, 3, 3 * timing.SLEEP_CYCLES_PER_REPEAT)]


def test_a_pass_whose_host_fell_behind_or_whose_times_scatter_is_timed_again_with_a_longer_sleep(monkeypatch):
    """A host stall longer than the sleep lets the GPU catch up, and the later pairs time the host (the 145 us rows of
    a 4 us kernel): such a pass is timed again with twice the sleep, up to MAX_PASSES; the least median counts."""
    from gconv.bench import timing

    sleep = 3 * timing.SLEEP_CYCLES_PER_REPEAT
    log = _fake_cuda(monkeypatch, [0.004, 0.145, 0.150, 0.004, 0.004, 0.005], slept=[True])
    assert timing.median_ms(lambda i: log.append(f"run {i}"), warmup=1, repeats=3) == 0.004
    assert log == ["run 0", *timed_pass(1, 3, sleep), *timed_pass(1, 3, 2 * sleep)]

    log = _fake_cuda(monkeypatch, [0.004, 0.145, 0.150, 0.004, 0.145, 0.150, 0.150, 0.145, 0.004])  # never settles
    assert timing.median_ms(lambda i: log.append(f"run {i}"), warmup=1, repeats=3) == 0.145
    assert log == ["run 0", *timed_pass(1, 3, sleep), *timed_pass(1, 3, 2 * sleep), *timed_pass(1, 3, 4 * sleep)]

    log = _fake_cuda(monkeypatch, [0.004, 0.006, 0.005])  # 0.005 / 0.004 is within SETTLED_RATIO: one pass
    assert timing.median_ms(lambda i: log.append(f"run {i}"), warmup=1, repeats=3) == 0.005
    assert log == ["run 0", *timed_pass(1, 3, sleep)]


def test_repeats_shrink_to_the_budget_for_slow_kernels_only():
    from gconv.bench.timing import repeats_within

    assert repeats_within(None, 500.0, 10) == 10            # no budget
    assert repeats_within(1000.0, None, 10) == 10           # no probe (CPU)
    assert repeats_within(1000.0, 100.0, 10) == 10          # 10 x 100 ms fits exactly
    assert repeats_within(1000.0, 150.0, 10) == 6           # 1000 // 150
    assert repeats_within(1000.0, 400.0, 10) == 3           # never below MIN_REPEATS
    assert repeats_within(1000.0, 400.0, 2) == 2            # nor above what was asked
    assert repeats_within(1000.0, 1000.0, 10) == 0          # the probe alone fills the budget: it is the measurement


def test_median_ms_times_the_last_warm_up_and_runs_only_what_fits_the_budget(monkeypatch):
    from gconv.bench import timing

    log = _fake_cuda(monkeypatch, [400.0, 9.0, 7.0, 8.0, 2500.0])  # probe (400 ms), three repeats; next call's probe
    ms = timing.median_ms(lambda i: log.append(f"run {i}"), warmup=3, repeats=10, budget_ms=1000.0)
    assert ms == 8.0  # the third warm-up was skipped: the probe said the kernel is slow
    assert log == ["run 0", "sync", "record", "run 1", "record", "sync",
                   *timed_pass(2, 3, 3 * timing.SLEEP_CYCLES_PER_REPEAT)]
    log.clear()
    assert timing.median_ms(lambda i: log.append(f"run {i}"), warmup=3, repeats=10, budget_ms=1000.0) == 2500.0
    assert log == ["run 0", "sync", "record", "run 1", "record", "sync"]  # one timed run over the budget is the time


def test_median_ms_gives_up_on_a_kernel_whose_first_run_takes_give_up_ms(monkeypatch):
    from gconv.bench import timing

    log = _fake_cuda(monkeypatch, [3000.0])
    ms = timing.median_ms(lambda i: log.append(f"run {i}"), warmup=3, repeats=10, budget_ms=1000.0, give_up_ms=2000.0)
    assert ms == 3000.0 and log == ["sync", "record", "run 0", "record", "sync"]  # the first run is the time
    log = _fake_cuda(monkeypatch, [1500.0, 1200.0])  # under give_up_ms: the probe (run 1) then decides, as before
    ms = timing.median_ms(lambda i: log.append(f"run {i}"), warmup=3, repeats=10, budget_ms=1000.0, give_up_ms=2000.0)
    assert ms == 1200.0 and log == ["sync", "record", "run 0", "record", "sync", "sync", "record", "run 1", "record",
                                    "sync"]


def test_median_ms_never_gives_up_on_a_first_run_that_compiled_the_kernel(monkeypatch):
    """The events span the host's work between them: a first launch that compiles (2.9 s on the host of a 3 s span)
    only warms up -- neither the give-up's time nor, with one warm-up run, the budget's probe -- and the next timed
    run decides as for any kernel; a slow kernel's launch returns at once."""
    from gconv.bench import timing

    clock = [0.0]
    monkeypatch.setattr(timing.time, "perf_counter", lambda: clock[0])

    def run(i, host_s):
        clock[0] += host_s
        log.append(f"run {i}")

    log = _fake_cuda(monkeypatch, [3000.0, 1200.0])
    ms = timing.median_ms(lambda i: run(i, 2.9 if i == 0 else 0.0001), warmup=3, repeats=10, budget_ms=1000.0,
                          give_up_ms=2000.0)
    assert ms == 1200.0 and log == ["sync", "record", "run 0", "record", "sync", "sync", "record", "run 1", "record",
                                    "sync"]
    log = _fake_cuda(monkeypatch, [3000.0])
    ms = timing.median_ms(lambda i: run(i, 1.4), warmup=3, repeats=10, budget_ms=1000.0, give_up_ms=2000.0)
    assert ms == 3000.0 and log == ["sync", "record", "run 0", "record", "sync"]  # 1.4 of 3 s on the host: given up
    # one warm-up run, the budget's probe: a compiling one is no probe either, and the repeats time the kernel
    log = _fake_cuda(monkeypatch, [3000.0, 2.0, 2.0, 2.0])
    ms = timing.median_ms(lambda i: run(i, 2.9 if i == 0 else 0.0001), warmup=1, repeats=3, budget_ms=1000.0)
    assert ms == 2.0 and log == ["sync", "record", "run 0", "record", "sync",
                                 *timed_pass(1, 3, 3 * timing.SLEEP_CYCLES_PER_REPEAT)]


def test_a_sweep_gives_up_on_kernels_far_slower_than_the_fastest_so_far_but_never_on_cudnn(monkeypatch):
    from gconv.bench import profile as profile_module

    scripted, asked = [], []

    def fake_median_ms(run, *, warmup, repeats, budget_ms=None, give_up_ms=None):
        asked.append(give_up_ms)
        return scripted.pop(0)

    monkeypatch.setattr(profile_module, "median_ms", fake_median_ms)
    problem = Problem(direction="fwd", dtype="fp32", N=1, G=2, C=3, K=4, Hi=6, Wi=6, Y=3, X=3, pad_h=1, pad_w=1)
    from gconv.runtime.selection import candidates, predicted_seconds

    predicted = {c.name: predicted_seconds(c, problem, "sm_90") for c in candidates(problem, "tiny", "sm_90")
                 if c.entry is not None}
    fastest_first = sorted(predicted, key=predicted.get)
    assert len(fastest_first) == 4 and len(set(predicted.values())) == 4
    kernels = fastest_first[::-1]
    scripted[:] = [10.0, 50.0, 4.0, 300.0, 90.0, 95.0]
    rows = profile_problem(problem, "tiny", device="cpu", kernels=kernels, budget_ms=40.0)
    # a sweep (a budget) times the kernels the rule predicts fastest first, so that it can give up on the slow ones
    assert [r.kernel for r in rows] == fastest_first + ["cudnn-heuristic", "cudnn-exhaustive"]
    assert [r.time_ms for r in rows] == [10.0, 50.0, 4.0, 300.0, 90.0, 95.0]
    # none for the first kernel; then max(budget, 8 x the fastest so far): 80, 80, 8 x 4 = 32 -> 40; none for cuDNN
    assert asked == [None, 80.0, 80.0, 40.0, None, None]
    asked.clear()
    scripted[:] = [10.0, 50.0, 4.0, 300.0, 90.0, 95.0]
    rows = profile_problem(problem, "tiny", device="cpu", kernels=kernels)  # no budget (gconv profile): never gives up
    assert asked == [None] * 6 and [r.kernel for r in rows[:4]] == kernels  # and keeps the order it was given


def test_tiny_group_problems_are_seeded_and_fit_the_tiny_group_kernels():
    problems = tiny_group_problems(16, seed=5150)
    assert problems == tiny_group_problems(16, seed=5150) != tiny_group_problems(16, seed=1)
    assert len(problems) == 48 and [p.direction.value for p in problems[:3]] == ["fwd", "bwd_data", "bwd_weight"]
    assert {p.C for p in problems} == {2, 4} and {p.K for p in problems} <= {1, 2, 4}
    assert all(p.Y == p.X in (3, 5, 7) and p.G >= 8 for p in problems)
    committed = read_problems(REPO_ROOT / "bench" / "problems" / "tiny-groups-synthetic-bf16.csv")
    assert committed == problems


def write_sweep(path, problem, times, roofline_pct=None):
    """A sweep CSV of one problem: an ok row per kernel name -> milliseconds."""
    from gconv.bench.rows import ROW_FIELDS, ProfileRow, csv_row

    with open(path, "w", newline="") as f:
        writer = csv.DictWriter(f, fieldnames=ROW_FIELDS)
        writer.writeheader()
        for kernel, ms in times.items():
            writer.writerow(csv_row(problem, ProfileRow(problem=problem.key, kernel=kernel, status="ok", time_ms=ms,
                                                        tflops=None, gbs=None, roofline_pct=roofline_pct)))
    return path


def test_compare_sweeps_leaves_a_family_out_of_before(tmp_path):
    from gconv.bench.compare_sweeps import compare

    problem = Problem(direction="fwd", dtype="bf16", N=1, G=8, C=2, K=2, Hi=8, Wi=8, Y=3, X=3, pad_h=1, pad_w=1)
    path = write_sweep(tmp_path / "sweep.csv", problem, {"cudnn-heuristic": 2.0, "fwd_bf16_direct_p64c32_w4_v1": 4.0,
                                                          "fwd_bf16_depthwise_t4x8c16_f3_m2_cpg2_w2_v8": 0.5})
    table = compare(path, path, ("without", "with"), before_without="_cpg")
    assert table.splitlines()[-1] == "| fwd | 1 | 0.50x | 4.00x | 8.00x |"
    assert compare(path, path, ("a", "b")).splitlines()[-1] == "| fwd | 1 | 4.00x | 4.00x | 1.00x |"


def test_summarise_sweeps_joins_files_and_leaves_a_family_out(tmp_path, capsys):
    from gconv.bench.summarise_sweeps import main

    def summary(files, *without):
        main([str(f) for f in files] + (["--without", *without] if without else []))
        return capsys.readouterr().out

    wide = dict(direction="fwd", dtype="bf16", N=8, G=2, C=64, K=64, Hi=32, Wi=32, Y=3, X=3, pad_h=1, pad_w=1)
    first = write_sweep(tmp_path / "a.csv", Problem(**wide), {"cudnn-heuristic": 2.0,
                                                              "fwd_bf16_igemm_m128n64k32_w4": 1.0,
                                                              "fwd_bf16_igemm_m128n64k64_w4": 0.5}, roofline_pct=10.0)
    second = write_sweep(tmp_path / "b.csv", Problem(**{**wide, "N": 1}),
                         {"cudnn-exhaustive": 1.0, "fwd_bf16_igemm_m128n64k32_w4": 2.0}, roofline_pct=10.0)
    # 4x and 0.5x with the k64 kernel; 2x and 0.5x without it. Roofline: 10% of 0.5 ms (>= 20 us) and of 2 ms
    assert summary([first, second]).splitlines()[2].split() == ["fwd", "C/G>16", "2", "1.41x", "0.50x", "10.0%", "2"]
    assert summary([first, second], "k64_").splitlines()[2].split() == \
        ["fwd", "C/G>16", "2", "1.00x", "0.50x", "10.0%", "2"]


def test_summarise_sweeps_lists_the_problems_furthest_from_the_roofline(tmp_path):
    from gconv.bench.summarise_sweeps import furthest_from_roofline, main, sweep_rows

    wide = dict(direction="fwd", dtype="bf16", N=8, G=2, C=64, K=64, Hi=32, Wi=32, Y=3, X=3, pad_h=1, pad_w=1)
    far = write_sweep(tmp_path / "far.csv", Problem(**wide), {"cudnn-heuristic": 2.0, "fwd_bf16_igemm_m128n64k32_w4": 1.0},
                      roofline_pct=5.0)  # 50 us of roofline: counted
    near = write_sweep(tmp_path / "near.csv", Problem(**{**wide, "N": 4}), {"fwd_bf16_igemm_m128n64k32_w4": 0.5},
                       roofline_pct=40.0)  # no cuDNN row: "-"
    short = write_sweep(tmp_path / "short.csv", Problem(**{**wide, "N": 1}), {"fwd_bf16_igemm_m128n64k32_w4": 0.1},
                        roofline_pct=1.0)  # 1 us of roofline: below 20 us, left out
    rows = sweep_rows([near, far, short])
    lines = furthest_from_roofline(rows, 5).splitlines()
    assert [line.split()[:2] + line.split()[4:] for line in lines[2:]] == [
        ["fwd", "C/G>16", "5.0%", "1000", "2000"], ["fwd", "C/G>16", "40.0%", "500", "-"]]
    assert len(furthest_from_roofline(rows, 1).splitlines()) == 3
    with pytest.raises(SystemExit):
        main([str(far), "--worst", "-1"])


def test_a_shape_class_breaks_down_by_channels_per_group(tmp_path, capsys):
    from gconv.bench.summarise_sweeps import channel_bucket, class_breakdown, kernel_family, main, sweep_rows

    assert [channel_bucket(c) for c in (1, 2, 3, 4, 5, 8, 9, 16, 17)] == \
        ["1", "2", "3-4", "3-4", "5-8", "5-8", "9-16", "9-16", ">16"]
    assert kernel_family("bwd_data_bf16_depthwise_t8x8c8_f3_m2_cpg2_w4_v8", "bwd_data") == "depthwise cpg"
    assert kernel_family("fwd_bf16_igemm_m32n32k32_w2_s3_ms_g1_v1_mg8", "fwd") == "igemm merged"
    assert kernel_family("bwd_weight_fp16_igemm_m32n64k32_w4_s3_ms_g1_v8_mg1_sk8la", "bwd_weight") == "igemm"
    tiny = dict(direction="fwd", dtype="bf16", N=32, G=64, C=4, K=4, Hi=56, Wi=56, Y=3, X=3, pad_h=1, pad_w=1)
    files = [write_sweep(tmp_path / "a.csv", Problem(**tiny), {"fwd_bf16_depthwise_t4x8c16_f3_m1_cpg4_w2_v8": 0.1,
                                                               "fwd_bf16_igemm_m32n32k32_w2_s3_ms_g1_v1_mg8": 0.2},
                         roofline_pct=40.0),
             write_sweep(tmp_path / "b.csv", Problem(**{**tiny, "C": 3}),
                         {"fwd_bf16_igemm_m32n32k32_w2_s3_ms_g1_v1_mg8": 0.4}, roofline_pct=10.0),
             write_sweep(tmp_path / "c.csv", Problem(**{**tiny, "C": 8, "K": 16}), {"fwd_bf16_direct_p64c32_w4_v1":
                                                                                   1.0}, roofline_pct=50.0),
             write_sweep(tmp_path / "d.csv", Problem(**{**tiny, "N": 1}), {"fwd_bf16_direct_p64c32_w4_v1": 0.01},
                         roofline_pct=50.0),  # 5 us of roofline: not counted
             write_sweep(tmp_path / "e.csv", Problem(**{**tiny, "C": 64}), {"fwd_bf16_direct_p64c32_w4_v1": 1.0},
                         roofline_pct=50.0)]  # another class
    lines = class_breakdown(sweep_rows(files), "C/G<=16").splitlines()
    # C/G 3 and 4 share a bucket: geomean of 40% and 10% = 20%
    assert [line.split()[:5] for line in lines[2:]] == [["fwd", "3-4", "3-4", "2", "20.0%"],
                                                         ["fwd", "5-8", "9-16", "1", "50.0%"]]
    assert lines[2].endswith("depthwise cpg 1, igemm merged 1") and lines[3].endswith("direct 1")
    main([str(f) for f in files] + ["--breakdown", "C/G<=16"])
    assert capsys.readouterr().out.splitlines()[-2:] == lines[-2:]


def test_backward_directions_compare_with_fwd_on_the_same_shapes_by_stride(tmp_path, capsys):
    from gconv.bench.summarise_sweeps import against_fwd, main, sweep_rows

    def sweep(name, direction, ms, roofline_pct, **changes):
        problem = Problem(**{**wide, "direction": direction, **changes})
        return write_sweep(tmp_path / name, problem, {f"{direction}_bf16_igemm_m128n64k32_w4": ms}, roofline_pct)

    wide = dict(dtype="bf16", N=8, G=2, C=64, K=64, Hi=32, Wi=32, Y=3, X=3, pad_h=1, pad_w=1)
    strided = dict(stride_h=2, stride_w=2)
    files = [sweep("a.csv", "fwd", 1.0, 40.0), sweep("b.csv", "bwd_data", 1.0, 40.0),
             sweep("c.csv", "bwd_weight", 0.5, 80.0),
             sweep("d.csv", "fwd", 1.0, 40.0, **strided), sweep("e.csv", "bwd_data", 2.0, 20.0, **strided),
             sweep("f.csv", "bwd_data", 2.0, 20.0, N=4, **strided),  # no fwd row of its shape: left out
             sweep("g.csv", "fwd", 1.0, 1.0, N=1), sweep("h.csv", "bwd_data", 1.0, 1.0, N=1)]  # 10 us: left out
    lines = against_fwd(sweep_rows(files)).splitlines()
    assert [line.split() for line in lines[2:]] == [["bwd_data", "C/G>16", "1", "1", "1.00x", "40.0%", "40.0%"],
                                                     ["bwd_data", "C/G>16", ">1", "1", "0.50x", "40.0%", "20.0%"],
                                                     ["bwd_weight", "C/G>16", "1", "1", "2.00x", "40.0%", "80.0%"]]
    main([str(f) for f in files] + ["--against-fwd"])
    assert capsys.readouterr().out.splitlines()[-3:] == lines[-3:]


def test_via_fwd_compares_stride_1_bwd_data_with_its_forward_twin(tmp_path, capsys):
    from gconv.bench.summarise_sweeps import main, sweep_rows, via_fwd

    wide = dict(dtype="bf16", N=8, G=2, C=64, K=64, Hi=32, Wi=32, Y=3, X=3, pad_h=1, pad_w=1)
    files = []
    for name, direction, changes, ms, pct in (("a", "fwd", {}, 1.0, 40.0), ("b", "bwd_data", {}, 2.0, 20.0),
                                              ("c", "fwd", {"Hi": 16}, 1.0, 40.0),
                                              ("d", "bwd_data", {"Hi": 16}, 0.5, 1.0),  # 5 us of roofline
                                              ("e", "bwd_data", {"Hi": 8}, 1.0, 40.0)):  # no twin measured
        problem = Problem(**{**wide, "direction": direction, **changes})
        files.append(write_sweep(tmp_path / f"{name}.csv", problem, {f"{direction}_bf16_igemm_m128n64k32_w4": ms},
                                 pct))
    lines = via_fwd(sweep_rows(files)).splitlines()
    assert [line.split() for line in lines[2:]] == [["C/G>16", "all", "2", "1.414x", "1", "0.50x", "2.000x"],
                                                     ["C/G>16", "K/G", "%", "64", "=", "0", "2", "1.414x", "1", "0.50x",
                                                      "2.000x"]]
    main([str(f) for f in files] + ["--via-fwd"])
    assert capsys.readouterr().out.splitlines()[-1] == lines[-1]


def test_summarise_sweeps_reads_every_committed_sweep_from_the_device_setup(tmp_path):
    from gconv.bench.summarise_sweeps import DEVICE_SETUP, RESULTS, all_sweep_files, main

    text = 'X=1\nALL_SWEEPS="b:p1 fp16/a:p2\n  fp16/a:p3 c:p4"\nTINY="d:p5"\n'
    assert all_sweep_files(text, tmp_path) == [tmp_path / "b.csv", tmp_path / "c.csv", tmp_path / "fp16" / "a.csv"]
    with pytest.raises(ValueError, match='no ALL_SWEEPS="..." list in the device setup script'):
        all_sweep_files("TINY=1\n")
    committed = all_sweep_files(DEVICE_SETUP.read_text())
    assert RESULTS / "heldout-seed6007-default-bf16-gputime.csv" in committed and len(committed) >= 21
    assert all(path.exists() for path in committed)
    with pytest.raises(SystemExit):
        main(["--all-sweeps", str(committed[0])])
    with pytest.raises(SystemExit):
        main([])


def test_no_committed_sweep_row_timed_a_compile():
    """A kernel that compiled inside a timed run shows as seconds for microseconds of work: session 44 found 746 such
    rows (seeds 13 and 14, 0.5-15 s, 4,000-190,000x the analytic estimate) where every genuinely slow row of every
    sweep (>= 500 ms) is within 100x of it (13-85x: direct kernels and splits on dense layers)."""
    from gconv.bench.summarise_sweeps import DEVICE_SETUP, all_sweep_files, sweep_rows
    from gconv.heuristics.analytic import estimate
    from gconv.runtime.registry import load_arch_spec
    from gconv.schemas import KernelConfig

    spec = load_arch_spec("sm_90")
    slow = [row for row in sweep_rows(all_sweep_files(DEVICE_SETUP.read_text()))
            if row["status"] == "ok" and not row["kernel"].startswith("cudnn") and float(row["time_ms"]) >= 500]
    assert len(slow) > 400  # the slow rows of the committed sweeps, each checked
    ratios = {(row["problem"], row["kernel"]): float(row["time_ms"]) / 1e3 / estimate(
        KernelConfig.from_name(row["kernel"]), Problem.from_key(row["problem"]), spec).seconds for row in slow}
    assert {key: ratio for key, ratio in ratios.items() if ratio > 1000} == {}


def test_network_like_problems_are_seeded_stagewise_and_avoid_the_excluded_problems():
    from gconv.bench.problems import network_like_problems

    problems = network_like_problems(24, seed=1)
    assert problems == network_like_problems(24, seed=1) != network_like_problems(24, seed=2)
    assert len(problems) == 72 and [p.direction.value for p in problems[:3]] == ["fwd", "bwd_data", "bwd_weight"]
    for p in problems:
        assert p.Hi == p.Wi and p.Hi // p.stride_h in (7, 14, 28, 56, 112) and p.N in (1, 8, 32)
        assert p.K == p.C and p.pad_h == (p.Y - 1) // 2 and (p.C == 1 or p.Y == 3)
    avoided = frozenset(problems[:3])
    assert not avoided & set(network_like_problems(24, seed=1, excluded=avoided))
    zoo = frozenset(read_problems(REPO_ROOT / "bench" / "problems" / "zoo-timm-bf16.csv"))
    for seed in (1, 7):
        committed = read_problems(REPO_ROOT / "bench" / "problems" / f"train-network-like-seed{seed}-synthetic-bf16.csv")
        assert committed == network_like_problems(24, seed=seed, excluded=zoo)
    # Later files were drawn with every other problem file excluded: the files written since cannot hold their problems.
    every = {p for path in (REPO_ROOT / "bench" / "problems").glob("*.csv") for p in read_problems(path)}
    for name, seed, quantized in (("like-seed8", 8, False), ("quantized-seed1", 1, True)):
        committed = read_problems(REPO_ROOT / "bench" / "problems" / f"train-network-{name}-synthetic-bf16.csv")
        assert committed == network_like_problems(24, seed=seed, excluded=frozenset(every - set(committed)),
                                                  quantized=quantized)


def test_quantized_network_widths_give_group_and_channel_counts_no_power_of_two_divides():
    from gconv.bench.problems import network_like_problems

    problems = network_like_problems(24, seed=1, quantized=True)
    assert problems == network_like_problems(24, seed=1, quantized=True) != network_like_problems(24, seed=1)
    depthwise = [p.G for p in problems if p.C == 1]
    grouped = [p.G for p in problems if p.C > 1]
    assert all(g % 4 == 0 for g in depthwise) and any(g % 8 for g in depthwise)
    assert any(g % 2 for g in grouped if g > 1)


def test_odd_group_counts_keep_the_odd_channel_shapes_and_avoid_the_excluded_problems():
    from gconv.bench.problems import ODD_GROUP_COUNTS, odd_channel_problems

    committed = read_problems(REPO_ROOT / "bench" / "problems" / "train-odd-channels-seed2-synthetic-bf16.csv")
    assert odd_channel_problems(12, seed=2) == committed  # the default draws what it drew before the option
    problems = odd_channel_problems(24, seed=1, odd_groups=True)
    assert len(problems) == 72 and {p.G for p in problems} <= set(ODD_GROUP_COUNTS)
    assert all(p.G % 2 and p.C % 8 == 0 and p.C % 32 and p.K in (p.C, 2 * p.C) for p in problems)
    assert sum(p.C == 24 for p in problems) == 36
    avoided = frozenset(problems[:3])
    assert not avoided & set(odd_channel_problems(24, seed=1, odd_groups=True, excluded=avoided))
    every = {p for path in (REPO_ROOT / "bench" / "problems").glob("*.csv") for p in read_problems(path)}
    drawn = read_problems(REPO_ROOT / "bench" / "problems" / "train-odd-groups-seed1-synthetic-bf16.csv")
    assert drawn == odd_channel_problems(24, seed=1, odd_groups=True, excluded=frozenset(every - set(drawn)))


@pytest.mark.parametrize("variable, rule", [("STRIDED_DEPTHWISE_SWEEPS", "depthwise-strided-sliding-bwd-data"),
                                            ("STRIDED_TINY_SWEEPS", "tiny-groups-strided-sliding-bwd-data")])
def test_strided_sliding_sweep_lists_name_every_sweep_whose_problems_those_kernels_run(variable, rule):
    """bench/device_strided_sliding_adopt.sh resumes only these sweeps (the others need not travel): each must be an
    ALL_SWEEPS pair whose problems some `default` kernel of the rule runs, and none of those pairs may be missing."""
    from gconv.bench.summarise_sweeps import DEVICE_SETUP, sweep_pairs
    from gconv.runtime.registry import entries_by_name
    from gconv.runtime.support import unsupported_reason

    text = DEVICE_SETUP.read_text()
    kinds = {}  # support depends on these axes, not on the tile
    for entry in entries_by_name("default").values():
        c = entry.config
        if entry.rule == rule:
            kinds.setdefault((c.dtype, c.filter_size, c.multiplier, c.group_channels, c.vector_width), c)
    assert len(kinds) >= 18

    def runs(pair):
        problems = read_problems(REPO_ROOT / "bench" / "problems" / f"{pair.split(':')[1]}.csv")
        return any(unsupported_reason(config, problem) is None for problem in problems
                   if problem.direction.value == "bwd_data" for config in kinds.values())
    assert sweep_pairs(text, variable) == [pair for pair in sweep_pairs(text) if runs(pair)]


def test_the_dilated_depthwise_shapes_of_seed_18_are_their_headers_derivation():
    """bench/problems/train-seed18-dilated-depthwise-bwd-weight-synthetic-bf16.csv: the first 16 dilated depthwise
    shapes of 56 pixels or more of the seeded generator, less every other problem file's shapes (held-out and zoo
    files among them)."""
    name = "train-seed18-dilated-depthwise-bwd-weight-synthetic-bf16.csv"
    others = {p.model_copy(update={"direction": "bwd_weight", "dtype": "bf16"})
              for path in (REPO_ROOT / "bench" / "problems").glob("*.csv") if path.name != name
              for p in read_problems(path)}
    drawn = synthetic_problems(2000, 18, directions=["bwd_weight"], dtypes=["bf16"], batches=[1, 8, 32])
    expected = [p for p in drawn if p.C == 1 and p.dil_h > 1 and p.Hi >= 56 and p not in others][:16]
    assert read_problems(REPO_ROOT / "bench" / "problems" / name) == expected
