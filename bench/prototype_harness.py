"""What the kernel prototypes (bench/proto_*.py) share: their command line, and compiling every problem's variants
into Triton's cache in worker processes before one process times them."""
from __future__ import annotations

import argparse
import csv
import multiprocessing
import time
from concurrent.futures import ProcessPoolExecutor, as_completed
from concurrent.futures import TimeoutError as FuturesTimeout
from pathlib import Path
from typing import Callable


def prototype_arguments(description: str, *, min_ms: float, compile_s: float, deadline_s: float,
                        argv: list[str] | None = None) -> argparse.Namespace:
    """--sweep FILES (the measured `default` kernels to beat), the time window of the problems taken, the workers and
    deadlines, --out CSV."""
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("--sweep", type=Path, nargs="+", required=True)
    parser.add_argument("--min-ms", type=float, default=min_ms, help="only problems whose best default time is at least this")
    parser.add_argument("--max-ms", type=float, default=5.0)
    parser.add_argument("--workers", type=int, default=16)
    parser.add_argument("--compile-s", type=float, default=compile_s, help="stop compiling (and leave problems out) after this")
    parser.add_argument("--deadline-s", type=float, default=deadline_s, help="stop timing after this (from the start)")
    parser.add_argument("--out", type=Path, required=True)
    return parser.parse_args(argv)


def compile_in_workers(warm: Callable[..., str], jobs: list[tuple], *, workers: int, compile_s: float,
                       started: float) -> set[str]:
    """warm(*job) for every job in spawned worker processes (each returns its problem's key), until compile_s has
    passed; the keys of the problems compiled in time."""
    pool = ProcessPoolExecutor(workers, mp_context=multiprocessing.get_context("spawn"))
    futures = [pool.submit(warm, *job) for job in jobs]
    compiled: set[str] = set()
    try:
        for future in as_completed(futures, timeout=compile_s):
            compiled.add(future.result())
            print(f"  compiled {len(compiled)}/{len(futures)} at {time.monotonic() - started:.0f} s", flush=True)
    except FuturesTimeout:
        print(f"  compile deadline: {len(futures) - len(compiled)} problems left out", flush=True)
    pool.shutdown(wait=False, cancel_futures=True)
    return compiled


def write_rows(path: Path, rows: list[dict]) -> None:
    """The timed rows as a CSV (columns: the first row's keys)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "w", newline="") as f:
        writer = csv.DictWriter(f, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)
