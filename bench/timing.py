"""Time a GPU callable: CUDA events after warm-up, median of repeats, operand sets rotated to defeat the L2.

The times are GPU times: a sleep kernel is queued before the timed calls, so the host has queued every call
before the GPU reaches the first one and no event pair waits on host launch cost. (Without it, any kernel
shorter than its ~50-75 us of Python launch cost on the H100 host measured that cost instead: the first
baseline's small problems did.) Host cost per call is measured separately by bench/overhead.py.
"""
from __future__ import annotations

import statistics
import time
from collections.abc import Callable

import torch

from gconv.heuristics.analytic import problem_bytes
from gconv.runtime.reference import random_operands
from gconv.schemas import Problem

L2_BYTES = 50 * 2**20  # H100; rotating over 2x L2 of operands makes every timed run read from DRAM
MAX_ROTATIONS = 8
# Queued ahead of the timed calls: ~0.25 ms per repeat at H100 clocks, more than one call's host cost.
SLEEP_CYCLES_PER_REPEAT = 450_000


def rotations_for(problem: Problem, l2_bytes: int = L2_BYTES) -> int:
    """How many operand sets to cycle through so that consecutive runs do not hit in the L2."""
    footprint = problem_bytes(problem)
    return max(1, min(MAX_ROTATIONS, -(-2 * l2_bytes // footprint)))


def operand_sets(problem: Problem, device: str, count: int) -> list[tuple[torch.Tensor, torch.Tensor]]:
    """Fresh non-zero random operands (zeros would flatter tensor cores), one pair per rotation."""
    return [random_operands(problem, device=device, seed=seed + 1) for seed in range(count)]


def median_ms(run: Callable[[int], object], *, warmup: int = 3, repeats: int = 10) -> float:
    """Median GPU time of run(i) in milliseconds (host clock on the CPU); run's argument is the repeat index
    (for rotating operands)."""
    for i in range(warmup):
        run(i)
    if not torch.cuda.is_available():
        times = []
        for i in range(repeats):
            started = time.perf_counter()
            run(i)
            times.append((time.perf_counter() - started) * 1e3)
        return statistics.median(times)
    torch.cuda.synchronize()
    events = [(torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)) for _ in range(repeats)]
    torch.cuda._sleep(SLEEP_CYCLES_PER_REPEAT * repeats)  # the host queues every timed call meanwhile
    for i, (start, end) in enumerate(events):
        start.record()
        run(warmup + i)
        end.record()
    torch.cuda.synchronize()
    return statistics.median(start.elapsed_time(end) for start, end in events)
