"""Test doubles for `gconv bench sweep`: a measure function that needs no GPU and a warm function that logs.

The worker process imports this module by name (`sweep_fakes:measure`); environment variables choose the problem
on which measure crashes the process or hangs, so a retry without them succeeds.
"""
import os
import signal
import time
import zlib

from gconv.bench.rows import CUDNN_MODES, ProfileRow

CRASH_ENV = "SWEEP_FAKE_CRASH"  # a problem key: measure ends the process there (os._exit(3)), like a segfault
SEGFAULT_ENV = "SWEEP_FAKE_SEGFAULT"  # a problem key: measure kills the process with SIGSEGV
HANG_ENV = "SWEEP_FAKE_HANG"  # a problem key: measure sleeps there far past any test's batch timeout
HANG_KERNEL_ENV = "SWEEP_FAKE_HANG_KERNEL"  # "problem key/kernel": measure hangs when asked to time that kernel
HANG_PID_ENV = "SWEEP_FAKE_HANG_PID"  # a file: measure writes its process id there before it hangs
WARM_LOG_ENV = "SWEEP_FAKE_WARM_LOG"  # a file: warm appends "problem kernel" lines to it
NO_DETAIL_ENV = "SWEEP_FAKE_NO_DETAIL"  # a problem key: its rows have no detail (as the real measure's ok rows)


def fake_ms(problem_key: str, kernel: str) -> float:
    """A deterministic time in (0.01, 1.01) ms."""
    return 0.01 + zlib.crc32(f"{problem_key}/{kernel}".encode()) % 1000 / 1000


def measure(problem, rule_set, *, kernels, skip=frozenset(), warmup=3, repeats=10, budget_ms=None, on_row=None):
    if problem.key == os.environ.get(CRASH_ENV):
        os._exit(3)
    if problem.key == os.environ.get(SEGFAULT_ENV):
        os.kill(os.getpid(), signal.SIGSEGV)
    if problem.key == os.environ.get(HANG_ENV):
        _hang()
    gpu = None if problem.key == os.environ.get(NO_DETAIL_ENV) else os.environ.get("CUDA_VISIBLE_DEVICES")
    rows = []
    for name in list(kernels) + [m for m in CUDNN_MODES if m not in skip]:
        if f"{problem.key}/{name}" == os.environ.get(HANG_KERNEL_ENV):
            _hang()
        rows.append(ProfileRow(problem=problem.key, kernel=name, status="ok", time_ms=fake_ms(problem.key, name),
                               tflops=1.0, gbs=2.0, roofline_pct=50.0, detail=f"gpu {gpu}" if gpu else ""))
        if on_row is not None:
            on_row(rows[-1])
    return rows


def _hang():
    if os.environ.get(HANG_PID_ENV):
        with open(os.environ[HANG_PID_ENV], "w") as f:
            f.write(str(os.getpid()))
    time.sleep(600)


def warm(problem, rule_set, names):
    log = os.environ.get(WARM_LOG_ENV)
    if log:
        with open(log, "a") as f:
            f.write("".join(f"{problem.key} {name}\n" for name in names))
    return len(names)
