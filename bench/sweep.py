"""`gconv bench sweep`: every (problem, kernel) of a rule set timed on all GPUs of a host, in resumable batches
that each run in a fresh process, so a crash or a hang costs one batch.

The parent plans, warms Triton's cache (all CPU cores), hands batches from one queue to one worker slot per GPU
(`CUDA_VISIBLE_DEVICES=i`, `python -m gconv.bench.sweep_worker`) and is the only writer of the CSV: a batch's
rows go in one append. Rows are `gconv profile --problems` rows, so either tool resumes the other's files.
"""
from __future__ import annotations

import io
import json
import os
import queue
import selectors
import signal
import subprocess
import sys
import tempfile
import threading
import time
from collections import Counter
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field, model_validator

from gconv.errors import GconvError
from gconv.schemas import Problem

from .progress import ProgressLine, duration
from .rows import (FAILED_STATUSES, STATUSES, append_rows, check_header, csv_row, done_kernels, drop_partial_line,
                   failed_row, noted_detail, read_rows, rewrite_rows)
from .sweep_worker import load_callable

DEFAULT_MEASURE = "gconv.bench.profile:profile_problem"
DEFAULT_WARM = "gconv.bench.profile:warm_problem"
COMPILE_ONLY_WARM = "gconv.bench.profile:compile_problem"  # runs no kernel: the warm-up --overlap-compile uses
WORKER_MODULE = "gconv.bench.sweep_worker"
TAIL_CHARS = 160  # of a failed batch's stderr, kept in its rows' detail


class SweepError(GconvError):
    """The sweep cannot start: bad options, no GPU, an output file of another format."""


class SweepOptions(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    rule_set: str
    arch: str
    gpus: tuple[str, ...] = Field(min_length=1)
    batch_size: int = Field(8, gt=0)
    batch_timeout_s: float = Field(1800.0, gt=0)
    workers: int = Field(default_factory=lambda: os.cpu_count() or 1, gt=0)
    warmup: int = Field(3, ge=0)
    repeats: int = Field(10, gt=0)
    # Timed milliseconds per kernel before its repeats shrink (bench/timing.py repeats_within); None: never.
    kernel_budget_ms: float | None = Field(500.0, gt=0)
    retry_failed: bool = False
    measure: str = DEFAULT_MEASURE
    warm: str | None = DEFAULT_WARM
    # Batches compiled then measured at a time (0: all compiled first). Compiling dominates a cold sweep; windows make
    # a sweep stopped by a time limit keep the rows of every window it finished.
    compile_window: int = Field(0, ge=0)
    # Compile the next window (with a warm function that runs no kernel, e.g. COMPILE_ONLY_WARM) while one is measured.
    overlap_compile: bool = False
    # Joined to the detail of every row this run writes (rows.noted_detail), e.g. 'measured on NVIDIA H200 (...)':
    # rows measured on another GPU model than the file's say so. Rows already in the file are never rewritten.
    note: str = ""

    @model_validator(mode="after")
    def _overlap_needs_windows_and_a_compile_only_warm(self) -> SweepOptions:
        if self.overlap_compile and self.compile_window == 0:
            raise ValueError("overlap_compile (--overlap-compile) compiles the next compile window while one is "
                             "measured: it needs compile_window (--compile-window) > 0")
        if self.overlap_compile and self.warm in (None, DEFAULT_WARM):
            raise ValueError(f"overlap_compile (--overlap-compile) needs a warm function that runs no kernel beside "
                             f"the timed ones, such as {COMPILE_ONLY_WARM}; got {self.warm or 'none'}")
        return self


@dataclass
class Batch:
    index: int
    jobs: list  # of profile.Job


@dataclass
class BatchResult:
    batch: Batch
    gpu: str
    status: str  # ok, crash or timeout
    rows: list[dict]  # CSV rows not yet written: measured ones (none when streamed), then crash/timeout rows
    detail: str = ""

    @property
    def failed_problems(self) -> int:
        return len({r["problem"] for r in self.rows if r["status"] in FAILED_STATUSES})


@dataclass
class SweepReport:
    rows: list[dict]  # every row of the selected problems after the sweep
    selected: int
    measured: int
    new_rows: int
    failures: list[BatchResult] = field(default_factory=list)
    failed_left: int = 0  # problems whose crash/timeout rows were kept (no --retry-failed)

    def counts(self) -> dict[str, int]:
        counted = Counter(r["status"] for r in self.rows)
        return {status: counted.get(status, 0) for status in STATUSES}

    def text(self) -> str:
        from .profile import summarise

        counts = ", ".join(f"{n} {status}" for status, n in self.counts().items())
        lines = [summarise(self.rows),
                 f"rows of the {self.selected} selected problems: {counts} (this run: {self.measured} problems "
                 f"measured, {self.new_rows} rows written)"]
        if self.failures:
            lines.append("failed batches (their rows have status crash/timeout; --retry-failed measures them again):")
            lines += [f"  batch {r.batch.index} on GPU {r.gpu}: {r.detail}; {r.failed_problems} problems without "
                      f"timings" for r in self.failures]
        if self.failed_left:
            lines.append(f"{self.failed_left} problems keep crash/timeout rows from earlier runs "
                         f"(--retry-failed measures them again)")
        return "\n".join(lines)


@contextmanager
def terminate_raises_exit() -> Iterator[None]:
    """While in the block, SIGTERM (a `timeout` command's) raises SystemExit(143) in the main thread, as Ctrl-C
    raises KeyboardInterrupt: run_batches then kills its workers (each in a session of its own, they would go on
    timing kernels on the GPU after the sweep ended) and the rows written so far stay. Later SIGTERMs are ignored:
    `timeout` sends one to the command and one to its process group, and the second, raised while the first unwound
    a Condition.wait, broke the queue's lock (RuntimeError, exit 1, on the device)."""
    def stop(signum, frame):
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
        raise SystemExit(128 + signum)

    previous = signal.signal(signal.SIGTERM, stop)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)


def select_problems(problems: list[Problem], directions=None, dtypes=None) -> list[Problem]:
    return [p for p in problems if (not directions or p.direction in directions) and (not dtypes or p.dtype in dtypes)]


def resolve_gpus(spec: str) -> tuple[str, ...]:
    """'auto' -> every CUDA device; '0,2' -> those indices."""
    if spec == "auto":
        import torch

        count = torch.cuda.device_count()
        if not count:
            raise SweepError("--gpus auto: no CUDA GPU found")
        return tuple(str(i) for i in range(count))
    gpus = tuple(part.strip() for part in spec.split(","))
    if not all(g.isdigit() for g in gpus) or len(set(gpus)) != len(gpus):
        raise SweepError(f"--gpus {spec!r}: expected 'auto' or distinct device indices such as 0,1")
    return gpus


def require_gpu(gpus: tuple[str, ...], name: str, device_name: Callable[[int], str] | None = None) -> None:
    """Refuse unless every GPU's name holds `name` (any case): a resumed file must hold one GPU model's rows, or a
    problem's oracle would compare kernels timed on different chips (an H200 has an H100's SMs and more bandwidth)."""
    if device_name is None:
        import torch

        device_name = torch.cuda.get_device_name
    for gpu in gpus:
        found = device_name(int(gpu))
        if name.lower() not in found.lower():
            raise SweepError(f"--require-gpu {name}: GPU {gpu} is {found!r}; every row of a file must come from one "
                             f"GPU model")


def resolve_arch(arch: str | None) -> str:
    if arch:
        return arch
    import torch

    if not torch.cuda.is_available():
        raise SweepError("no CUDA GPU to read the arch from: pass --arch")
    from gconv.runtime.device import arch_of

    return arch_of(torch.device("cuda", 0))


def progress_text(*, done: int, total: int, rows: int, failures: int, elapsed: float, eta: float | None,
                  result: BatchResult, batches: int) -> str:
    return (f"problems {done}/{total}, rows {rows}, failures {failures}, elapsed {duration(elapsed)}, "
            f"ETA {duration(eta)} (batch {result.batch.index}/{batches} on GPU {result.gpu}: {result.status})")


def sweep(problems: list[Problem], out: Path, options: SweepOptions, *, progress: ProgressLine | None = None,
          clock: Callable[[], float] = time.monotonic) -> SweepReport:
    """Measure every missing (problem, kernel) row of problems into out; returns the rows and what failed."""
    from .profile import plan_jobs

    progress = progress or ProgressLine()
    out = Path(out)
    _check_options(options)
    try:
        check_header(out)
    except ValueError as error:
        raise SweepError(str(error)) from None
    out.parent.mkdir(parents=True, exist_ok=True)  # before the compile, not at the first row minutes later
    if drop_partial_line(out):
        progress.note(f"{out}: dropped a partial last line (a write was interrupted)")
    keys = {p.key for p in problems}
    existing = read_rows(out)
    failed_keys = {r["problem"] for r in existing if r["status"] in FAILED_STATUSES and r["problem"] in keys}
    if options.retry_failed and failed_keys:
        existing = [r for r in existing if not (r["status"] in FAILED_STATUSES and r["problem"] in keys)]
        rewrite_rows(out, existing)
    jobs = plan_jobs(problems, options.rule_set, options.arch, done_kernels(existing))
    size = options.batch_size
    batches = [Batch(n, jobs[start:start + size]) for n, start in enumerate(range(0, len(jobs), size), start=1)]
    left = 0 if options.retry_failed else len(failed_keys)
    progress.note(f"{len(keys)} problems selected, {len(keys) - len(jobs)} complete, {len(jobs)} to measure in "
                  f"{len(batches)} batches of <= {size} on GPU {','.join(options.gpus)}; rule set "
                  f"{options.rule_set!r}, arch {options.arch}"
                  + (f"; {left} with crash/timeout rows kept (--retry-failed retries them)" if left else "")
                  + (f"; new rows noted {options.note!r}" if options.note else ""))
    report = SweepReport(rows=[], selected=len(keys), measured=len(jobs), new_rows=0, failed_left=left)
    started, state, writing = clock(), Counter(), threading.Lock()

    def write(rows: list[dict]) -> None:
        """Measured rows as soon as a worker sends them, a kernel's at a time (a sweep stopped mid-batch, even
        mid-problem, keeps them), and a batch's crash/timeout rows at its end; each with options.note."""
        rows = [{**row, "detail": noted_detail(row["detail"], options.note)} for row in rows]
        with writing:
            append_rows(out, rows)
            report.new_rows += len(rows)

    def on_result(result: BatchResult) -> None:
        write(result.rows)
        if result.status != "ok":
            report.failures.append(result)
        state["batches"] += 1
        state["problems"] += len(result.batch.jobs)
        state["failures"] += result.failed_problems
        elapsed = clock() - started
        progress.update(progress_text(done=state["problems"], total=len(jobs), rows=report.new_rows,
                                      failures=state["failures"], elapsed=elapsed,
                                      eta=elapsed / state["batches"] * (len(batches) - state["batches"]),
                                      result=result, batches=len(batches)))
        if result.status != "ok":  # kept on screen (a terminal's progress line is redrawn) and in the log
            progress.note(f"  batch {result.batch.index} on GPU {result.gpu}: {result.detail}")

    window = options.compile_window or max(1, len(batches))
    windows = [batches[i:i + window] for i in range(0, len(batches), window)]
    ahead: _CompileAhead | None = None
    for number, chunk in enumerate(windows, start=1):
        if options.warm:
            if len(windows) > 1:
                progress.note(f"compile window {number}/{len(windows)}: batches {chunk[0].index}-{chunk[-1].index}"
                              + (" (compiled while the previous window was measured)" if ahead else ""))
            if ahead:
                ahead.wait(progress)
            else:
                warm_jobs(chunk, options, progress)
        ahead = (_CompileAhead(windows[number], options) if options.overlap_compile and number < len(windows)
                 else None)
        run_batches(chunk, options, on_result, on_rows=write)
    progress.close()
    report.rows = [r for r in read_rows(out) if r["problem"] in keys]
    return report


def warm_jobs(batches: list[Batch], options: SweepOptions, progress: ProgressLine, workers: int | None = None
              ) -> None:
    """Compile the kernels of batches into Triton's cache on every core (options.warm per problem)."""
    from .profile import warm_cache

    compile_jobs = [(j.problem, list(j.kernels)) for batch in batches for j in batch.jobs if j.kernels]
    if not compile_jobs:
        return
    failed = warm_cache(compile_jobs, options.rule_set, workers or options.workers, warm=load_callable(options.warm),
                        progress=ProgressLine(progress.stream, tty=progress.tty, max_lines=20))
    if failed:
        progress.note(f"  {failed} compile chunks failed (the timed pass records their errors)")


class _CompileAhead:
    """warm_jobs for the next window in a background thread, on all cores but one (the timed worker's), quietly: its
    progress is printed when the window's turn comes (wait)."""

    def __init__(self, batches: list[Batch], options: SweepOptions):
        self.log = ProgressLine(io.StringIO(), tty=False)
        self.error: BaseException | None = None
        self.started = self.finished = time.monotonic()
        self.thread = threading.Thread(target=self._run, args=(batches, options), daemon=True)
        self.thread.start()

    def _run(self, batches: list[Batch], options: SweepOptions) -> None:
        try:
            warm_jobs(batches, options, self.log, workers=max(1, options.workers - 1))
        except BaseException as error:  # noqa: BLE001 - reported in wait(); the timed pass compiles what is missing
            self.error = error
        finally:
            self.finished = time.monotonic()

    def wait(self, progress: ProgressLine) -> None:
        """Join the compile, then log its last progress line and whether measuring waited for it (compile-bound)
        or not (measure-bound)."""
        waiting_from = time.monotonic()
        self.thread.join()
        for line in self.log.stream.getvalue().splitlines()[-1:]:
            progress.note(line)
        progress.note(f"  compiled ahead in {self.finished - self.started:.1f} s; the measuring waited "
                      f"{max(0.0, self.finished - waiting_from):.1f} s for it")
        if self.error is not None:
            progress.note(f"  compiling ahead failed ({type(self.error).__name__}: {self.error}); the timed pass "
                          f"compiles the rest")


def _check_options(options: SweepOptions) -> None:
    for spec in (options.measure, options.warm):
        if spec:
            try:
                load_callable(spec)
            except ValueError as error:
                raise SweepError(str(error)) from None
    if options.measure == DEFAULT_MEASURE:
        import torch

        if not torch.cuda.is_available():
            raise SweepError("gconv bench sweep times kernels with CUDA events and needs a CUDA GPU")


def run_batches(batches: list[Batch], options: SweepOptions, on_result: Callable[[BatchResult], None],
                on_rows: Callable[[list[dict]], None] | None = None) -> None:
    """One thread per GPU takes batches from a shared queue and runs each in a fresh worker process; on_result is
    called in this thread, in order of completion (on_rows, if given, in the GPU's thread with each kernel's
    rows: run_batch). An interrupt kills the running workers."""
    todo: queue.Queue[Batch] = queue.Queue()
    for batch in batches:
        todo.put(batch)
    results: queue.Queue[BatchResult] = queue.Queue()
    stop = threading.Event()
    live: set[subprocess.Popen] = set()
    lock = threading.Lock()

    def track(proc: subprocess.Popen, running: bool) -> None:
        with lock:
            (live.add if running else live.discard)(proc)

    def slot(gpu: str) -> None:
        while not stop.is_set():
            try:
                batch = todo.get_nowait()
            except queue.Empty:
                return
            try:
                result = run_batch(batch, gpu, options, track=track, on_rows=on_rows)
            except Exception as error:  # could not even start the worker: the batch fails, the sweep goes on
                result = _failed(batch, gpu, "crash", f"could not start: {type(error).__name__}: {error}", [],
                                 None)
            results.put(result)

    threads = [threading.Thread(target=slot, args=(gpu,), daemon=True) for gpu in options.gpus]
    for thread in threads:
        thread.start()
    try:
        for _ in batches:
            while True:
                try:
                    result = results.get(timeout=0.5)
                    break
                except queue.Empty:
                    continue
            on_result(result)
    except BaseException:
        stop.set()
        with lock:
            for proc in live:
                proc.kill()
        raise
    finally:
        for thread in threads:
            thread.join(timeout=5)


def run_batch(batch: Batch, gpu: str, options: SweepOptions,
              track: Callable[[subprocess.Popen, bool], None] = lambda proc, running: None,
              on_rows: Callable[[list[dict]], None] | None = None) -> BatchResult:
    """Run one batch in a fresh worker process on one GPU; a crash or timeout becomes rows, never an exception.
    With on_rows, measured rows go to it as the worker sends them (a kernel's at a time), and the result holds
    only the crash/timeout rows; without, the result holds every row."""
    job = {"measure": options.measure, "rule_set": options.rule_set, "warmup": options.warmup,
           "repeats": options.repeats, "budget_ms": options.kernel_budget_ms,
           "problems": [{"problem": j.problem.model_dump(mode="json"), "kernels": list(j.kernels),
                         "skip": sorted(j.skip)} for j in batch.jobs]}
    env = {**os.environ, "CUDA_VISIBLE_DEVICES": gpu, "PYTHONPATH": _python_path()}
    deadline = time.monotonic() + options.batch_timeout_s
    by_key = {j.problem.key: j.problem for j in batch.jobs}
    rows: list[dict] = []  # measured rows not handed to on_rows
    delivered: set[tuple[str, str]] = set()  # (problem, kernel) of every measured row

    def take(message: dict) -> None:
        key = message.get("problem")
        if "rows" in message and key in by_key:
            measured = [csv_row(by_key[key], row) for row in message["rows"]]
            (on_rows or rows.extend)(measured)
            delivered.update((key, row["kernel"]) for row in measured)

    with tempfile.TemporaryFile() as log:
        # a session of its own: a terminal's Ctrl-C reaches the parent, which kills the workers
        proc = subprocess.Popen([sys.executable, "-m", WORKER_MODULE], stdin=subprocess.PIPE,
                                stdout=subprocess.PIPE, stderr=log, env=env, start_new_session=True)
        track(proc, True)
        try:
            try:
                proc.stdin.write(json.dumps(job).encode())
                proc.stdin.close()
            except BrokenPipeError:  # died at start-up; its exit code says how
                pass
            messages, timed_out = _read_messages(proc, deadline, take)
            if not timed_out:
                try:
                    proc.wait(timeout=max(0.1, deadline - time.monotonic()))
                except subprocess.TimeoutExpired:
                    timed_out = True
        finally:
            if proc.poll() is None:
                proc.kill()
                proc.wait()
            for pipe in (proc.stdin, proc.stdout):
                try:
                    pipe.close()
                except OSError:  # stdin of a worker that died before reading it
                    pass
            track(proc, False)
        log.seek(0)
        tail = _last_line(log.read().decode(errors="replace"))
    finished = {m["finished"] for m in messages if "finished" in m}
    if not timed_out and proc.returncode == 0 and any(m.get("done") for m in messages):
        return BatchResult(batch, gpu, "ok", rows)
    how = f"timed out after {options.batch_timeout_s:g} s (killed)" if timed_out else _exit_text(proc.returncode)
    current = next((m["start"] for m in reversed(messages) if "start" in m), None)
    current = current if current not in finished else None
    return _failed(batch, gpu, "timeout" if timed_out else "crash", how, rows, current, tail, delivered)


def _failed(batch: Batch, gpu: str, status: str, how: str, rows: list[dict], current: str | None,
            tail: str = "", delivered: set[tuple[str, str]] = frozenset()) -> BatchResult:
    """Rows with status crash/timeout for every row the batch still owed (not delivered: measured and written or in
    rows); the problem it was on is named."""
    where = f"batch {batch.index} on GPU {gpu}"
    rows = list(rows)
    for job in batch.jobs:
        key = job.problem.key
        owed = [kernel for kernel in job.pending if (key, kernel) not in delivered]
        if not owed:
            continue
        if key == current:
            detail = f"{where}: worker {how} while measuring this problem" + (f": {tail}" if tail else "")
        else:
            detail = f"not measured: {where}: worker {how}" + (f" while measuring {current}" if current else "")
        rows += [csv_row(job.problem, failed_row(job.problem, kernel, status, detail)) for kernel in owed]
    summary = f"{status}: worker {how}" + (f" while measuring {current}" if current else "") + \
        (f": {tail}" if tail else "")
    return BatchResult(batch, gpu, status, rows, summary)


def _read_messages(proc: subprocess.Popen, deadline: float, take: Callable[[dict], None] = lambda message: None
                   ) -> tuple[list[dict], bool]:
    """JSON lines from the worker (each also given to take as it arrives) until it closes stdout (False) or the
    deadline passes (True)."""
    messages, pending = [], b""
    with selectors.DefaultSelector() as selector:
        selector.register(proc.stdout, selectors.EVENT_READ)
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                return messages, True
            if not selector.select(left):
                continue
            chunk = os.read(proc.stdout.fileno(), 1 << 16)
            if not chunk:
                return messages, False
            *lines, pending = (pending + chunk).split(b"\n")
            for line in lines:
                try:
                    message = json.loads(line)
                except ValueError:  # not ours (the worker routes prints to stderr, but be safe)
                    continue
                if isinstance(message, dict):
                    messages.append(message)
                    take(message)


def _exit_text(code: int | None) -> str:
    if code is not None and code < 0:
        try:
            return f"was killed by {signal.Signals(-code).name}"
        except ValueError:
            return f"was killed by signal {-code}"
    if code == 0:
        return "exited (code 0) before finishing"
    return f"exited with code {code}"


def _last_line(text: str) -> str:
    """What a failed worker's stderr says: faulthandler's fatal error and innermost frame, else the last line
    (a Python exception's message)."""
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    fatal = next((i for i, line in enumerate(lines) if line.startswith("Fatal Python error")), None)
    if fatal is not None:
        frame = next((line for line in lines[fatal:] if line.startswith("File ")), "")
        return f"{lines[fatal]} at {frame}"[-TAIL_CHARS:] if frame else lines[fatal][-TAIL_CHARS:]
    return lines[-1][-TAIL_CHARS:] if lines else ""


def _python_path() -> str:
    """The parent's import path, as multiprocessing's spawn passes it, so a --measure module found here is found
    in the worker too."""
    paths = [os.getcwd() if not p else p for p in sys.path]
    return os.pathsep.join(dict.fromkeys(paths))
