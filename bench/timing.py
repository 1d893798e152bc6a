"""Time a GPU callable: CUDA events after warm-up, median of repeats, operand sets rotated to defeat the L2.

The times are GPU times: a sleep kernel is queued before the timed calls, so the host has queued every call
before the GPU reaches the first one and no event pair waits on host launch cost. (Without it, any kernel
shorter than its ~50-75 us of Python launch cost on the H100 host measured that cost instead: the first
baseline's small problems did.) Host cost per call is measured separately by bench/overhead.py.

A kernel that is very slow on a large problem (a direct kernel on a dense 2-TFLOP layer takes seconds) runs fewer
times: with a budget, the second warm-up run (the first may load the kernel) is timed; if the repeats do not fit in
the budget, the warm-ups stop there and the repeats shrink to what fits, never below MIN_REPEATS, and a run that alone
exceeds the budget is its own measurement. Such kernels run long enough that one run is accurate to well under a
percent; the fast ones, which the oracle picks, keep every warm-up and repeat. A sweep also gives up on a kernel whose
first run alone takes many times the problem's fastest kernel (give_up_ms): that run, loading included, is its time --
unless the host spent most of it inside the call (COMPILING_SHARE): the events span whatever the host does between
them, and a kernel missing from Triton's cache compiles inside its first launch (seconds), so such a run only warms up.

A timed pass can still be spoiled: if the host stalls for longer than the sleep (a page fault, a descheduled process),
the GPU catches up and the later event pairs time the host's launch cost instead of the kernel -- the training sweeps
hold a few such rows, a 4 us kernel recorded at 145 us. So a pass whose sleep had already ended when the host finished
queueing, or whose median exceeds its fastest repeat by more than SETTLED_RATIO, is timed again with twice the sleep,
up to MAX_PASSES passes, and the least median is the time.
"""
from __future__ import annotations

import math
import statistics
import time
from collections.abc import Callable

import torch

from gconv.heuristics.analytic import problem_bytes
from gconv.runtime.padding import ChannelPadding, pad_operands, padded_problem
from gconv.runtime.reference import random_operands, result_shape
from gconv.runtime.selection import candidate_for
from gconv.schemas import Problem, RegistryEntry

L2_BYTES = 50 * 2**20  # H100; rotating over 2x L2 of operands makes every timed run read from DRAM
MAX_ROTATIONS = 8
# Queued ahead of the timed calls: ~0.25 ms per repeat at H100 clocks, more than one call's host cost.
SLEEP_CYCLES_PER_REPEAT = 450_000
MIN_REPEATS = 3
SETTLED_RATIO = 1.5  # median / fastest repeat of a pass; above it, the pass is timed again
MAX_PASSES = 3
# A first run whose call returned only after this share of its event-timed span was compiling (or loading) the kernel:
# a launch returns in microseconds, whatever the kernel's length. Never a measurement: not the give-up's, nor the
# budget's probe where the warm-up is one run.
COMPILING_SHARE = 0.5


def rotations_for(problem: Problem, l2_bytes: int = L2_BYTES) -> int:
    """How many operand sets to cycle through so that consecutive runs do not hit in the L2."""
    footprint = problem_bytes(problem)
    return max(1, min(MAX_ROTATIONS, -(-2 * l2_bytes // footprint)))


def operand_sets(problem: Problem, device: str, count: int) -> list[tuple[torch.Tensor, torch.Tensor]]:
    """Fresh non-zero random operands (zeros would flatter tensor cores), one pair per rotation."""
    return [random_operands(problem, device=device, seed=seed + 1) for seed in range(count)]


def kernel_operands(entry: RegistryEntry, problem: Problem, sets: list[tuple[torch.Tensor, torch.Tensor]]
                    ) -> tuple[Problem, ChannelPadding | None, list[tuple[torch.Tensor, torch.Tensor]], list[torch.Tensor]]:
    """What a registry instance runs for problem, as runtime.api.execute runs it, to time the kernel alone: the problem
    after the instance's channel padding (or problem), that padding (or None), each operand set padded, and one
    channels_last output per set."""
    padding = candidate_for(entry, problem).padding
    target = padded_problem(problem, padding) if padding else problem
    padded = [pad_operands(problem.direction, a, b, problem.G, padding) if padding else (a, b) for a, b in sets]
    a = sets[0][0]
    outs = [torch.empty(result_shape(target), dtype=a.dtype, device=a.device, memory_format=torch.channels_last)
            for _ in sets]
    return target, padding, padded, outs


def repeats_within(budget_ms: float | None, probe_ms: float | None, repeats: int) -> int:
    """Timed repeats for a kernel whose warm-up run took probe_ms: as many as fit in budget_ms, at most repeats, at
    least MIN_REPEATS (or repeats, if fewer were asked for); 0 when the probe alone exceeds the budget (it is then the
    measurement)."""
    if budget_ms is None or probe_ms is None or probe_ms * repeats <= budget_ms:
        return repeats
    if probe_ms >= budget_ms:
        return 0
    return max(min(MIN_REPEATS, repeats), int(budget_ms // probe_ms))


def median_ms(run: Callable[[int], object], *, warmup: int = 3, repeats: int = 10,
              budget_ms: float | None = None, give_up_ms: float | None = None) -> float:
    """Median GPU time of run(i) in milliseconds (host clock on the CPU); run's argument is the repeat index
    (for rotating operands). With budget_ms, a slow kernel runs fewer times (the module's docstring, repeats_within).
    With give_up_ms (on a GPU), the first warm-up run is timed too, and a kernel whose first run takes that long is
    measured by that run alone (profile_problem: a kernel far slower than the problem's fastest, whose exact time
    matters to no selection)."""
    on_gpu = torch.cuda.is_available()
    probe_at = min(1, warmup - 1) if budget_ms is not None and on_gpu else None
    first_timed = give_up_ms is not None and on_gpu
    probe_ms, warmed = None, warmup
    for i in range(warmup):
        if i != probe_at and not (i == 0 and first_timed):
            run(i)
            continue
        ms, host_ms = _one_run_ms(run, i)
        if i == 0 and host_ms >= COMPILING_SHARE * ms:
            continue  # the first run compiled (or loaded) the kernel: a warm-up, never a measurement
        if i == 0 and first_timed and ms >= give_up_ms:
            return ms
        if i != probe_at:
            continue
        probe_ms = ms
        if repeats_within(budget_ms, probe_ms, repeats) < repeats:
            warmed = i + 1  # slow: more warm-up adds nothing
            break
    repeats = repeats_within(budget_ms, probe_ms, repeats)
    if repeats == 0:
        return probe_ms
    if not torch.cuda.is_available():
        times = []
        for i in range(repeats):
            started = time.perf_counter()
            run(i)
            times.append((time.perf_counter() - started) * 1e3)
        return statistics.median(times)
    best = math.inf
    for attempt in range(MAX_PASSES):
        times, host_kept_up = _timed_pass(run, range(warmed, warmed + repeats), sleep_factor=2 ** attempt)
        median = statistics.median(times)
        best = min(best, median)
        if host_kept_up and median <= SETTLED_RATIO * min(times):
            break
    return best


def _timed_pass(run: Callable[[int], object], indices: range, sleep_factor: int) -> tuple[list[float], bool]:
    """GPU times of run(i) for i in indices, each between its own events, all queued behind a sleep kernel; and
    whether the host queued every run before the sleep ended (if not, some pairs may have timed the host)."""
    torch.cuda.synchronize()
    events = [(torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)) for _ in indices]
    torch.cuda._sleep(SLEEP_CYCLES_PER_REPEAT * len(indices) * sleep_factor)  # the host queues every run meanwhile
    slept = torch.cuda.Event()
    slept.record()
    for i, (start, end) in zip(indices, events):
        start.record()
        run(i)
        end.record()
    host_kept_up = not slept.query()
    torch.cuda.synchronize()
    return [start.elapsed_time(end) for start, end in events], host_kept_up


def _one_run_ms(run: Callable[[int], object], i: int) -> tuple[float, float]:
    """GPU time of one run(i), synchronised on both sides, and the host's milliseconds inside the call itself."""
    start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    torch.cuda.synchronize()
    start.record()
    called = time.perf_counter()
    run(i)
    host_ms = (time.perf_counter() - called) * 1e3
    end.record()
    torch.cuda.synchronize()
    return start.elapsed_time(end), host_ms
