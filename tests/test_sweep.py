"""`gconv bench sweep` on the CPU: fake measure/warm functions (tests/sweep_fakes.py) and two fake "GPUs"."""
import io
import os
import re
import shutil
import signal
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path

import pytest
import sweep_fakes

from gconv.bench import profile
from gconv.bench.problems import read_problems, write_problems
from gconv.bench.progress import ProgressLine
from gconv.bench.rows import CUDNN_MODES, ROW_FIELDS, noted_detail, read_rows
from gconv.bench.sweep import SweepError, SweepOptions, require_gpu, resolve_gpus, sweep, terminate_raises_exit
from gconv.cli import main
from gconv.paths import REPO_ROOT
from gconv.schemas import Problem

FAKE = dict(rule_set="tiny", arch="sm_90", measure="sweep_fakes:measure", warm=None, workers=2)


def problems(count: int, directions=("fwd",), dtypes=("fp32",)) -> list[Problem]:
    return [Problem(direction=d, dtype=t, N=1, G=2 + i, C=4, K=4, Hi=8, Wi=8, Y=3, X=3, pad_h=1, pad_w=1)
            for i in range(count) for d in directions for t in dtypes]


def options(**changes) -> SweepOptions:
    return SweepOptions(**{**FAKE, "gpus": ("0", "1"), "batch_size": 2, "batch_timeout_s": 20.0, **changes})


def quiet() -> ProgressLine:
    return ProgressLine(io.StringIO(), tty=False)


def pairs(rows):
    return Counter((r["problem"], r["kernel"]) for r in rows)


def expected_pairs(problem_list, rule_set="tiny"):
    return {(p.key, k) for p in problem_list
            for k in profile.candidate_kernels(p, rule_set, "sm_90") + list(CUDNN_MODES)}


def test_a_second_run_measures_nothing_and_a_cut_last_line_is_measured_again(tmp_path, monkeypatch):
    todo, out, warmed = problems(4), tmp_path / "out.csv", tmp_path / "warmed.txt"
    monkeypatch.setenv(sweep_fakes.WARM_LOG_ENV, str(warmed))
    first = sweep(todo, out, options(warm="sweep_fakes:warm"), progress=quiet())
    rows = read_rows(out)
    assert set(pairs(rows)) == expected_pairs(todo) and max(pairs(rows).values()) == 1
    assert {r["status"] for r in rows} == {"ok"} and first.failures == [] and first.new_rows == len(rows)
    assert {r["detail"] for r in rows} == {"gpu 0", "gpu 1"}  # both fake GPUs took batches
    assert {tuple(line.split()) for line in warmed.read_text().splitlines()} == \
        {pair for pair in expected_pairs(todo) if pair[1] not in CUDNN_MODES}
    text = out.read_text()

    warmed.unlink()
    second = sweep(todo, out, options(warm="sweep_fakes:warm"), progress=quiet())
    assert (second.measured, second.new_rows, out.read_text()) == (0, 0, text) and not warmed.exists()

    out.write_text(text[:-10])  # a write cut short: the last row is dropped and measured again
    log = quiet()
    third = sweep(todo, out, options(), progress=log)
    assert f"{out}: dropped a partial last line" in log.stream.getvalue()
    assert (third.measured, third.new_rows) == (1, 1)
    without_gpu = lambda csv_text: sorted(line.rsplit(",", 1)[0] for line in csv_text.splitlines())  # noqa: E731
    assert without_gpu(out.read_text()) == without_gpu(text)  # the re-measured row may come from the other GPU


def test_a_new_output_folder_is_made_before_any_work(tmp_path):
    """Session 50's first H200 sweep into bench/results/h200/ compiled for minutes, then failed at its first row."""
    out = tmp_path / "h200" / "new" / "out.csv"
    sweep(problems(1), out, options(), progress=quiet())
    assert set(pairs(read_rows(out))) == expected_pairs(problems(1))


def test_a_crash_costs_the_rest_of_its_batch_only(tmp_path, monkeypatch):
    todo, out = problems(6), tmp_path / "out.csv"
    monkeypatch.setenv(sweep_fakes.CRASH_ENV, todo[4].key)  # batch 2 (problems 3-5) dies on its second problem
    log = quiet()
    report = sweep(todo, out, options(batch_size=3), progress=log)
    rows = read_rows(out)
    assert set(pairs(rows)) == expected_pairs(todo) and max(pairs(rows).values()) == 1
    status = {p.key: {r["status"] for r in rows if r["problem"] == p.key} for p in todo}
    assert [status[p.key] for p in todo] == [{"ok"}] * 4 + [{"crash"}] * 2
    details = {r["problem"]: r["detail"] for r in rows if r["status"] == "crash"}
    gpu = report.failures[0].gpu
    assert details[todo[4].key] == f"batch 2 on GPU {gpu}: worker exited with code 3 while measuring this problem"
    assert details[todo[5].key] == (f"not measured: batch 2 on GPU {gpu}: worker exited with code 3 while "
                                    f"measuring {todo[4].key}")
    assert [(r.batch.index, r.status, r.failed_problems) for r in report.failures] == [(2, "crash", 2)]
    assert f"\n  batch 2 on GPU {gpu}: crash: worker exited with code 3 while measuring {todo[4].key}\n" in \
        log.stream.getvalue()
    crashed = sum(1 for r in rows if r["status"] == "crash")
    assert report.counts() == {"ok": len(rows) - crashed, "wrong": 0, "error": 0, "crash": crashed,
                               "timeout": 0}
    text = report.text()
    assert f"  batch 2 on GPU {gpu}: crash: worker exited with code 3 while measuring {todo[4].key}; 2 problems " \
           f"without timings" in text
    assert "0 error, " in text and " crash, 0 timeout (this run: 6 problems measured" in text

    # Resuming leaves crash rows alone; --retry-failed replaces them (no duplicates)
    monkeypatch.delenv(sweep_fakes.CRASH_ENV)
    again = sweep(todo, out, options(batch_size=3), progress=quiet())
    assert (again.measured, again.failed_left) == (0, 2)
    assert "2 problems keep crash/timeout rows from earlier runs" in again.text()
    retried = sweep(todo, out, options(batch_size=3, retry_failed=True), progress=quiet())
    rows = read_rows(out)
    assert (retried.measured, retried.failures, retried.failed_left) == (2, [], 0)
    assert set(pairs(rows)) == expected_pairs(todo) and max(pairs(rows).values()) == 1
    assert {r["status"] for r in rows} == {"ok"}


NOTE = "measured on NVIDIA H200 (x/README.md)"


def test_a_note_joins_a_detail_and_stands_alone_without_one():
    assert [noted_detail(detail, note) for detail, note in [("", ""), ("gpu 0", ""), ("", NOTE), ("gpu 0", NOTE)]] \
        == ["", "gpu 0", NOTE, f"gpu 0; {NOTE}"]


def test_a_note_goes_into_every_row_this_run_writes_and_no_earlier_row(tmp_path, monkeypatch):
    """Rows of an earlier run (no note) stay byte for byte; of this run's, kernels' and cuDNN's, one without a detail
    gets the note, one with a detail (the fake's GPU, a crash's) '<detail>; <note>'."""
    todo, out = problems(5), tmp_path / "out.csv"
    monkeypatch.setenv(sweep_fakes.NO_DETAIL_ENV, todo[0].key)
    sweep(todo[:2], out, options(gpus=("0",)), progress=quiet())
    earlier, earlier_rows = out.read_text(), len(read_rows(out))
    monkeypatch.setenv(sweep_fakes.NO_DETAIL_ENV, todo[2].key)
    monkeypatch.setenv(sweep_fakes.CRASH_ENV, todo[3].key)  # batch 2 of this run (todo[2], [3], [4] one a batch)
    log = quiet()
    report = sweep(todo, out, options(gpus=("0",), batch_size=1, note=NOTE), progress=log)
    rows = read_rows(out)
    assert out.read_text().startswith(earlier) and report.new_rows == len(rows) - earlier_rows
    assert set(pairs(rows)) == expected_pairs(todo) and max(pairs(rows).values()) == 1
    details = [{(r["status"], r["detail"]) for r in rows if r["problem"] == p.key} for p in todo]
    assert details == [{("ok", "")}, {("ok", "gpu 0")}, {("ok", NOTE)},
                       {("crash", f"batch 2 on GPU 0: worker exited with code 3 while measuring this problem; {NOTE}")},
                       {("ok", f"gpu 0; {NOTE}")}]
    assert f"; new rows noted {NOTE!r}\n" in log.stream.getvalue()


def test_cli_note_reaches_the_rows(tmp_path):
    write_problems(tmp_path / "problems.csv", problems(1))
    code = main(["bench", "sweep", "--rule-set", "tiny", "--problems", str(tmp_path / "problems.csv"),
                 "--out", str(tmp_path / "out.csv"), "--gpus", "0", "--arch", "sm_90", "--measure",
                 "sweep_fakes:measure", "--warm", "none", "--note", NOTE])
    rows = read_rows(tmp_path / "out.csv")
    assert code == 0 and set(pairs(rows)) == expected_pairs(problems(1))
    assert {r["detail"] for r in rows} == {f"gpu 0; {NOTE}"}


def test_a_segfault_is_reported_with_the_signal_and_the_last_line_of_stderr(tmp_path, monkeypatch):
    todo, out = problems(1), tmp_path / "out.csv"
    monkeypatch.setenv(sweep_fakes.SEGFAULT_ENV, todo[0].key)
    [failure] = sweep(todo, out, options(), progress=quiet()).failures
    assert failure.detail.startswith(f"crash: worker was killed by SIGSEGV while measuring {todo[0].key}: Fatal "
                                     f"Python error: Segmentation fault at File ")
    assert re.search(r'sweep_fakes.py", line \d+ in measure$', failure.detail)  # faulthandler's innermost frame
    assert {r["status"] for r in read_rows(out)} == {"crash"}


def test_a_hung_batch_is_killed_at_the_timeout(tmp_path, monkeypatch):
    todo, out = problems(4), tmp_path / "out.csv"
    monkeypatch.setenv(sweep_fakes.HANG_ENV, todo[0].key)
    report = sweep(todo, out, options(batch_timeout_s=4.0), progress=quiet())
    rows = read_rows(out)
    status = {p.key: {r["status"] for r in rows if r["problem"] == p.key} for p in todo}
    assert [status[p.key] for p in todo] == [{"timeout"}] * 2 + [{"ok"}] * 2
    [failure] = report.failures
    assert failure.detail == f"timeout: worker timed out after 4 s (killed) while measuring {todo[0].key}"
    assert {r["detail"] for r in rows if r["problem"] == todo[1].key} == \
        {f"not measured: batch 1 on GPU {failure.gpu}: worker timed out after 4 s (killed) while measuring "
         f"{todo[0].key}"}


def test_non_tty_progress_is_one_line_per_batch(tmp_path):
    todo, out, stream = problems(4), tmp_path / "out.csv", io.StringIO()
    ticks = iter([100.0, 110.0, 125.0])
    sweep(todo, out, options(gpus=("0",)), progress=ProgressLine(stream, tty=False), clock=lambda: next(ticks))
    rows = Counter(r["problem"] for r in read_rows(out))
    first, total = rows[todo[0].key] + rows[todo[1].key], sum(rows.values())
    assert stream.getvalue().splitlines() == [
        "4 problems selected, 0 complete, 4 to measure in 2 batches of <= 2 on GPU 0; rule set 'tiny', arch sm_90",
        f"problems 2/4, rows {first}, failures 0, elapsed 0:00:10, ETA 0:00:10 (batch 1/2 on GPU 0: ok)",
        f"problems 4/4, rows {total}, failures 0, elapsed 0:00:25, ETA 0:00:00 (batch 2/2 on GPU 0: ok)",
    ]


def test_progress_line_redraws_on_a_tty_and_thins_out_in_a_log():
    tty = ProgressLine(io.StringIO(), tty=True)
    tty.update("compiled 1/2")
    tty.update("done 2/2")
    tty.close()
    assert tty.stream.getvalue() == "\rcompiled 1/2\rdone 2/2    \n"
    log = ProgressLine(io.StringIO(), tty=False, max_lines=4)
    for i in range(1, 11):
        log.update(f"compiled {i}/10", i, 10)
    assert log.stream.getvalue().splitlines() == ["compiled 3/10", "compiled 5/10", "compiled 8/10", "compiled 10/10"]


def test_compile_windows_measure_each_window_before_compiling_the_next(tmp_path, monkeypatch):
    """--compile-window 1: compile a batch, measure it, then the next, so a sweep stopped early keeps its rows."""
    from gconv.bench import sweep as sweep_module

    todo, out, seen = problems(5), tmp_path / "out.csv", []
    monkeypatch.setattr(sweep_module, "warm_jobs", lambda batches, options, progress: seen.append(
        ([b.index for b in batches], len({r["problem"] for r in read_rows(out)}) if out.exists() else 0)))
    log = quiet()
    sweep(todo, out, options(warm="sweep_fakes:warm", compile_window=1), progress=log)
    assert seen == [([1], 0), ([2], 2), ([3], 4)]  # batches of 2 problems: each window sees the rows before it
    assert set(pairs(read_rows(out))) == expected_pairs(todo)
    assert "compile window 3/3: batches 3-3" in log.stream.getvalue()


def test_overlap_compile_compiles_each_next_window_while_the_previous_one_is_measured(tmp_path, monkeypatch):
    """--overlap-compile: window k+1 compiles (on all cores but one) while window k's rows are being measured; the
    first window compiles before anything is measured, as without it."""
    from gconv.bench import sweep as sweep_module

    todo, out, seen = problems(5), tmp_path / "out.csv", []

    def measured() -> int:
        return len({r["problem"] for r in read_rows(out)}) if out.exists() else 0

    def warm_jobs(batches, options, progress, workers=None):
        at_start = measured()
        deadline = time.monotonic() + 30
        while batches[0].index > 1 and measured() == at_start and time.monotonic() < deadline:
            time.sleep(0.02)  # a window compiled ahead sees the previous window's rows land while it compiles
        seen.append(([b.index for b in batches], at_start, measured() > at_start, workers))

    monkeypatch.setattr(sweep_module, "warm_jobs", warm_jobs)
    log = quiet()
    sweep(todo, out, options(warm="sweep_fakes:warm", compile_window=1, overlap_compile=True), progress=log)
    # batches of 2 problems (rows land a problem at a time); 2 workers - 1
    assert seen == [([1], 0, False, None), ([2], 0, True, 1), ([3], 2, True, 1)]
    assert set(pairs(read_rows(out))) == expected_pairs(todo)
    text = log.stream.getvalue()
    assert "compile window 3/3: batches 3-3 (compiled while the previous window was measured)" in text
    waits = [(float(c), float(w)) for c, w in
             re.findall(r"\n  compiled ahead in (\d+\.\d) s; the measuring waited (\d+\.\d) s for it\n", text)]
    assert len(waits) == 2 and all(waited <= compiled for compiled, waited in waits), text


def test_warm_cache_logs_lines_not_carriage_returns(tmp_path):
    stream = io.StringIO()
    jobs = [(p, ["a", "b", "c"]) for p in problems(3)]
    failed = profile.warm_cache(jobs, "tiny", 2, warm=sweep_fakes.warm, progress=ProgressLine(stream, tty=False,
                                                                                               max_lines=3))
    assert failed == 0
    assert stream.getvalue() == "  compiled 2/6 job chunks\n  compiled 4/6 job chunks\n  compiled 6/6 job chunks\n"


def test_the_csv_is_what_gconv_profile_writes(tmp_path, monkeypatch):
    todo = problems(3, directions=("fwd", "bwd_data"))
    monkeypatch.setenv("CUDA_VISIBLE_DEVICES", "0")
    monkeypatch.setattr(profile, "arch_of", lambda device: "sm_90")
    monkeypatch.setattr(profile, "profile_problem", sweep_fakes.measure)
    monkeypatch.setattr(profile, "warm_cache", lambda *args, **kwargs: 0)
    profile.profile_batch(todo, "tiny", tmp_path / "profile.csv")
    sweep(todo, tmp_path / "sweep.csv", options(gpus=("0",)), progress=quiet())
    text = (tmp_path / "sweep.csv").read_text()
    assert text.splitlines()[0] == ",".join(ROW_FIELDS)
    assert text == (tmp_path / "profile.csv").read_text()


def test_committed_profile_results_resume_as_complete(tmp_path):
    """The committed GPU-time training file holds a row for every (problem, `default` kernel): a resumed sweep plans
    nothing, measures nothing and leaves the file byte for byte as it was."""
    measured = REPO_ROOT / "bench" / "results" / "train-default-bf16-gputime.csv"
    rows = read_rows(measured)
    keys = dict.fromkeys(r["problem"] for r in rows)
    by_key = {p.key: p for p in _problems_of(rows)}
    assert len(keys) == 144
    assert profile.plan_jobs([by_key[k] for k in keys], "default", "sm_90", profile.done_kernels(rows)) == []
    out = tmp_path / "train.csv"
    shutil.copy(measured, out)
    problem_file = tmp_path / "problems.csv"
    write_problems(problem_file, [by_key[k] for k in keys])
    report = sweep(read_problems(problem_file), out, options(rule_set="default"), progress=quiet())
    assert (report.measured, report.new_rows, report.selected) == (0, 0, len(keys))
    assert out.read_bytes() == measured.read_bytes()


def _problems_of(rows):
    from gconv.bench.problems import CSV_FIELDS

    return [Problem(**{k: r[k] for k in CSV_FIELDS}) for r in rows]


def test_cli_filters_by_direction_and_dtype_on_two_fake_gpus(tmp_path, capsys):
    todo = problems(2, directions=("fwd", "bwd_data"), dtypes=("fp32", "bf16"))
    write_problems(tmp_path / "problems.csv", todo)
    code = main(["bench", "sweep", "--rule-set", "tiny", "--problems", str(tmp_path / "problems.csv"),
                 "--out", str(tmp_path / "out.csv"), "--direction", "fwd", "--dtype", "bf16", "fp32",
                 "--gpus", "0,1", "--arch", "sm_90", "--measure", "sweep_fakes:measure", "--warm", "none",
                 "--batch-size", "1"])
    out, err = capsys.readouterr()
    rows = read_rows(tmp_path / "out.csv")
    wanted = [p for p in todo if p.direction == "fwd"]
    assert code == 0 and set(pairs(rows)) == expected_pairs(wanted)
    assert err.splitlines()[0].startswith("4 problems selected, 0 complete, 4 to measure in 4 batches of <= 1 on "
                                          "GPU 0,1; rule set 'tiny'")
    assert len(err.splitlines()) == 5 and "\r" not in err
    assert f"rows of the 4 selected problems: {len(rows)} ok, 0 wrong, 0 error, 0 crash, 0 timeout (this run: 4 problems " \
           f"measured, {len(rows)} rows written)" in out
    assert out.splitlines()[2].split()[:3] == ["fwd", "C/G<=16", "4"]  # summarise's table


@pytest.mark.parametrize("argv, message", [
    (["--gpus", "0,0"], "error: --gpus '0,0': expected 'auto' or distinct device indices such as 0,1\n"),
    (["--gpus", "0", "--measure", "nowhere:measure"], "error: 'nowhere:measure': cannot import nowhere: "),
    (["--gpus", "0", "--measure", "sweep_fakes:missing"], "error: 'sweep_fakes:missing': sweep_fakes has no "
                                                          "function 'missing'\n"),
    (["--gpus", "0", "--overlap-compile"], "error: bad sweep options: overlap_compile (--overlap-compile) compiles "
                                           "the next compile window while one is measured: it needs compile_window "
                                           "(--compile-window) > 0\n"),
    (["--gpus", "0", "--overlap-compile", "--compile-window", "1"],
     "error: bad sweep options: overlap_compile (--overlap-compile) needs a warm function that runs no kernel beside "
     "the timed ones, such as gconv.bench.profile:compile_problem; got none\n"),
    (["--gpus", "0", "--batch-size", "0"], "error: bad sweep options: batch_size: Input should be greater than 0\n"),
])
def test_bad_options_are_refused_before_any_work(tmp_path, capsys, argv, message):
    write_problems(tmp_path / "problems.csv", problems(1))
    code = main(["bench", "sweep", "--rule-set", "tiny", "--problems", str(tmp_path / "problems.csv"),
                 "--out", str(tmp_path / "out.csv"), "--arch", "sm_90", "--warm", "none", *argv])
    assert (code, capsys.readouterr().err[:len(message)]) == (2, message)
    assert not (tmp_path / "out.csv").exists()


def test_an_output_file_of_another_format_is_refused(tmp_path):
    out = tmp_path / "other.csv"
    out.write_text("problem,kernel,ms\n")
    with pytest.raises(SweepError, match=r"other.csv: columns problem,kernel,ms differ from the measurement columns"):
        sweep(problems(1), out, options(), progress=quiet())


def test_the_real_measure_needs_a_gpu(tmp_path):
    with pytest.raises(SweepError, match="needs a CUDA GPU"):
        sweep(problems(1), tmp_path / "out.csv", options(measure="gconv.bench.profile:profile_problem"),
              progress=quiet())
    assert resolve_gpus("3,1") == ("3", "1")


def test_a_sweep_can_require_one_gpu_model():
    names = {0: "NVIDIA H100 80GB HBM3", 1: "NVIDIA H200"}.__getitem__
    require_gpu(("0",), "h100", names)
    with pytest.raises(SweepError, match=r"^--require-gpu H100: GPU 1 is 'NVIDIA H200'; every row of a file must come "
                                         r"from one GPU model$"):
        require_gpu(("0", "1"), "H100", names)


def test_a_sweep_stopped_mid_problem_keeps_the_kernels_it_timed_and_kills_its_worker(tmp_path):
    """`timeout` stops a device sweep with SIGTERM, at times in a problem that takes minutes: the rows its batch
    measured are on disk already (written a kernel at a time as the worker sends them, not at the batch's end), the
    worker is not left timing kernels, and a resumed sweep times only the rest."""
    todo, out, pid_file = problems(3), tmp_path / "out.csv", tmp_path / "hung.pid"
    write_problems(tmp_path / "problems.csv", todo)
    kernels = profile.candidate_kernels(todo[1], "tiny", "sm_90")
    env = {**os.environ, sweep_fakes.HANG_KERNEL_ENV: f"{todo[1].key}/{kernels[1]}",
           sweep_fakes.HANG_PID_ENV: str(pid_file),
           "PYTHONPATH": os.pathsep.join([str(Path(sweep_fakes.__file__).parent), *sys.path])}
    argv = [sys.executable, "-m", "gconv.cli", "bench", "sweep", "--rule-set", "tiny", "--problems",
            str(tmp_path / "problems.csv"), "--out", str(out), "--gpus", "0", "--arch", "sm_90", "--measure",
            "sweep_fakes:measure", "--warm", "none", "--batch-size", "3"]
    sweeping = subprocess.Popen(argv, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    waited = time.monotonic()
    while not pid_file.exists() or not pid_file.read_text():  # problem 0 and one kernel of problem 1 measured
        assert time.monotonic() - waited < 60 and sweeping.poll() is None
        time.sleep(0.1)
    time.sleep(0.5)  # the parent takes the rows off the pipe
    sweeping.send_signal(signal.SIGTERM)
    assert sweeping.wait(timeout=30) == 143
    rows = read_rows(out)
    assert set(pairs(rows)) == expected_pairs(todo[:1]) | {(todo[1].key, kernels[0])}
    assert {r["status"] for r in rows} == {"ok"}
    worker = int(pid_file.read_text())
    deadline = time.monotonic() + 10
    while _running(worker) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not _running(worker)

    del env[sweep_fakes.HANG_KERNEL_ENV]
    resumed = subprocess.run(argv, env=env, capture_output=True, text=True, timeout=120)
    assert resumed.returncode == 0 and resumed.stderr.startswith("3 problems selected, 1 complete, 2 to measure")
    rows = read_rows(out)
    assert set(pairs(rows)) == expected_pairs(todo) and max(pairs(rows).values()) == 1


def test_a_second_sigterm_is_ignored_while_the_first_unwinds():
    """`timeout` signals the command and then its process group: the first SIGTERM raises SystemExit(143), a second
    while the sweep unwinds is ignored (on the device one broke a queue's lock, and the sweep exited 1 with a
    RuntimeError), and leaving the block restores the previous handler."""
    before = signal.getsignal(signal.SIGTERM)
    with terminate_raises_exit():
        with pytest.raises(SystemExit) as stopped:
            os.kill(os.getpid(), signal.SIGTERM)
            time.sleep(5)  # the handler runs here
        assert stopped.value.code == 143
        os.kill(os.getpid(), signal.SIGTERM)
        time.sleep(0.1)
    assert signal.getsignal(signal.SIGTERM) is before


def _running(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return True
