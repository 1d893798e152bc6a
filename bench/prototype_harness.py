"""What the kernel prototypes (bench/proto_*.py) share: their command line, and compiling every problem's variants
into Triton's cache in worker processes before one process times them."""
from __future__ import annotations

import argparse
import csv
import math
import multiprocessing
import time
from collections import defaultdict
from concurrent.futures import ProcessPoolExecutor, as_completed
from concurrent.futures import TimeoutError as FuturesTimeout
from functools import partial
from pathlib import Path
from typing import Callable

import torch

from gconv.runtime.api import execute
from gconv.runtime.vendor import vendor_run
from gconv.schemas import Problem

from .timing import median_ms, operand_sets, rotations_for

# launch(problem, variant, x, dy, out): one prototype variant computing problem's bwd_weight into out
Launch = Callable[[Problem, tuple, torch.Tensor, torch.Tensor, torch.Tensor], None]
# A variant is right when its largest error is below this fraction of the reference's largest magnitude.
MAX_ERROR = 0.02


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


def best_default(sweeps: list[Path], supports: Callable[[Problem], bool]) -> dict[str, tuple[Problem, str, float]]:
    """problem key -> (problem, best default kernel, its sweep time) for the problems supports accepts."""
    best: dict[str, tuple[Problem, str, float]] = {}
    for path in sweeps:
        for r in csv.DictReader(open(path)):
            if r["status"] != "ok" or r["kernel"].startswith("cudnn"):
                continue
            problem = Problem(**{k: r[k] for k in Problem.model_fields if k in r})
            if not supports(problem):
                continue
            t = float(r["time_ms"])
            if problem.key not in best or t < best[problem.key][2]:
                best[problem.key] = (problem, r["kernel"], t)
    return best


def warm_problem(problem: Problem, kernel: str, variants: list[tuple], launch: Launch, device: str) -> str:
    """Compile the default kernel and every variant of one problem into Triton's cache (a worker process's job)."""
    x, dy = operand_sets(problem, device, 1)[0]
    out = vendor_run(problem, x, dy)
    jobs = [lambda: execute(problem, x, dy, kernel=kernel, rule_set="default")]
    jobs += [lambda variant=variant: launch(problem, variant, x, dy, out) for variant in variants]
    for job in jobs:
        try:
            job()
        except Exception:  # noqa: BLE001 - the timed pass records it
            pass
    if device == "cuda":
        torch.cuda.synchronize()
    return problem.key


def time_problem(problem: Problem, kernel: str, variants: list[tuple], launch: Launch, device: str) -> list[dict]:
    """cuDNN, the default kernel and every variant on problem, timed in this process (each variant's error against
    cuDNN's output, or float64 on the CPU); one row per variant, and a line per problem printed."""
    count = rotations_for(problem)
    sets = operand_sets(problem, device, count)
    expected = vendor_run(problem, *[t.double() for t in sets[0]]).float() if device == "cpu" else \
        vendor_run(problem, *sets[0]).float()
    scale = expected.abs().max().item() or 1.0
    outs = [torch.empty_like(expected, dtype=sets[0][0].dtype) for _ in range(count)]
    cudnn = median_ms(lambda i: vendor_run(problem, *sets[i % count]))
    base = median_ms(lambda i: execute(problem, *sets[i % count], kernel=kernel, rule_set="default"))
    rows, timed = [], []
    for variant in variants:
        try:
            launch(problem, variant, *sets[0], outs[0])
            error = (outs[0].float() - expected).abs().max().item() / scale
            t = median_ms(lambda i: launch(problem, variant, *sets[i % count], outs[i % count]))
        except Exception as exc:  # noqa: BLE001 - one variant's failure is a row
            error, t = f"{type(exc).__name__}: {str(exc)[:100]}", math.nan
        timed.append((t, variant, error))
        rows.append(dict(problem=problem.key, base=kernel, base_ms=base, cudnn_ms=cudnn,
                         variant="_".join(map(str, variant)), proto_ms=t, proto_err=error))
    ok = [v for v in timed if math.isfinite(v[0]) and _right(v[2])]
    best = min(ok, default=(math.nan, None, None), key=lambda v: v[0])
    print(f"{problem.key}: cudnn {cudnn:.4f} default {base:.4f} ({kernel}) proto {best[0]:.4f} {best[1]} "
          f"-> {base / best[0]:.2f}x default, {cudnn / best[0]:.2f}x cudnn", flush=True)
    for v in timed:
        if not _right(v[2]):
            print(f"   BAD {v[1]}: {v[2]}", flush=True)
    return rows


def _right(error) -> bool:
    return isinstance(error, float) and error < MAX_ERROR


def summarise(rows: list[dict]) -> None:
    """Geomean over problems of best default / best prototype and cuDNN / best prototype, and per variant."""
    by_problem = defaultdict(list)
    for r in rows:
        if _right(r["proto_err"]) and math.isfinite(r["proto_ms"]):
            by_problem[r["problem"]].append(r)
    gm = lambda xs: math.exp(sum(map(math.log, xs)) / len(xs)) if xs else math.nan  # noqa: E731
    best = [min(rs, key=lambda r: r["proto_ms"]) for rs in by_problem.values()]
    print(f"best prototype over best default {gm([r['base_ms'] / r['proto_ms'] for r in best]):.2f}x, "
          f"over cuDNN {gm([r['cudnn_ms'] / r['proto_ms'] for r in best]):.2f}x ({len(best)} problems); "
          f"best of both over best default {gm([r['base_ms'] / min(r['base_ms'], r['proto_ms']) for r in best]):.2f}x")
    per_variant = defaultdict(list)
    for rs in by_problem.values():
        for r in rs:
            per_variant[r["variant"]].append(r["base_ms"] / r["proto_ms"])
    for variant, ratios in sorted(per_variant.items(), key=lambda kv: -gm(kv[1])):
        wins = sum(min(rs, key=lambda r: r["proto_ms"])["variant"] == variant for rs in by_problem.values())
        print(f"  {variant:24s} {gm(ratios):.2f}x default over {len(ratios)} problems, best on {wins}")


def run_prototype(args: argparse.Namespace, supports: Callable[[Problem], bool], variants: list[tuple],
                  launch: Launch, device: str) -> int:
    """A prototype's main: the problems of args.sweep that supports accepts (best default time in the window), each
    compiled by warm_problem in spawned workers (launch must be a module-level function, which they import), then
    timed against its best default kernel and cuDNN; the CSV written and the summary printed. 1 when nothing was
    timed."""
    problems = {k: v for k, v in best_default(args.sweep, supports).items() if args.min_ms <= v[2] <= args.max_ms}
    print(f"{len(problems)} problems, {len(variants)} variants", flush=True)
    started = time.monotonic()
    warm = partial(warm_problem, variants=variants, launch=launch, device=device)
    compiled = compile_in_workers(warm, [(p, kernel) for p, kernel, _ in problems.values()],
                                  workers=args.workers, compile_s=args.compile_s, started=started)
    rows = []
    for key, (problem, kernel, _) in sorted(problems.items()):
        if key not in compiled:
            continue
        if time.monotonic() - started > args.deadline_s:
            print("  timing deadline reached", flush=True)
            break
        rows += time_problem(problem, kernel, variants, launch, device)
    if not rows:
        return 1
    write_rows(args.out, rows)
    summarise(rows)
    return 0
