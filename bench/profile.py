"""`gconv profile`: every candidate of a rule set on one problem (or a CSV of problems) against cuDNN and the roofline.

Rows: one per (problem, kernel), plus `cudnn-heuristic` (torch.backends.cudnn.benchmark=False) and
`cudnn-exhaustive` (benchmark=True: cuDNN times its algorithms first). Batch mode appends to a CSV and skips
rows already there (resumable), and warms Triton's cache in parallel processes before timing.
"""
from __future__ import annotations

import math
import multiprocessing
import os
from collections import defaultdict
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass
from pathlib import Path

import torch

from gconv.heuristics.analytic import problem_bytes, roofline_seconds
from gconv.runtime.api import execute
from gconv.runtime.device import arch_of
from gconv.runtime.launch import compile_only
from gconv.runtime.reference import RELATIVE_ERROR_BOUND, empty_operands, error_scale, relative_error_in_place
from gconv.runtime.registry import VENDOR_KERNEL, load_arch_spec
from gconv.runtime.selection import candidates, forced_choice, kernels_for, predicted_seconds
from gconv.runtime.vendor import vendor_run
from gconv.schemas import ArchSpec, Problem
from gconv.tables import table

from .progress import ProgressLine
from .summary import geomean
from .rows import CUDNN_MODES, ROW_FIELDS, ProfileRow, append_rows, csv_row, done_kernels, read_rows
from .timing import median_ms, operand_sets, rotations_for

__all__ = ["CUDNN_MODES", "ROW_FIELDS", "Job", "ProfileRow", "candidate_kernels", "plan_jobs", "profile_batch",
           "profile_problem", "read_rows", "summarise", "warm_cache", "warm_problem", "compile_problem"]

MIN_ROOFLINE_S = 20e-6  # the roofline target only counts problems at least this long
# A sweep times a kernel by its first run alone when that run takes this many times the problem's fastest kernel so far
# (and the kernel budget): the ranker labels every kernel over ~7x slower than the fastest alike (heuristics/train.py
# relevance_labels: label_levels x label_step of log time), and such kernels are what made a 1.4-PFLOP training
# problem take longer than a device call (session 42: 65 kernels, most 1-5 s a run).
GIVE_UP_RATIO = 8.0
# Each kernel's first run is checked against cuDNN's output on the same operands; over this many times the device
# verification's bound (runtime/reference.py RELATIVE_ERROR_BOUND; bench/ab_rule.py's criterion) its row is timed but
# "wrong", which training and the oracle skip. The sweeps had timed kernels without looking at what they computed
# until an A/B found `default`'s 8-warp tma bwd_weight tiles racing (bench/results/dy-view/README.md).
WRONG_OUTPUT_FACTOR = 2.0


def _row(problem: Problem, kernel: str, ms: float | None, arch: ArchSpec, detail: str = "",
         error: float | None = None) -> ProfileRow:
    """A timed kernel's row (an "error" row when ms is None); error, its output's relative error against cuDNN's
    when checked, makes it "wrong" over the bound."""
    if ms is None:
        return ProfileRow(problem=problem.key, kernel=kernel, status="error", time_ms=None, tflops=None, gbs=None,
                          roofline_pct=None, detail=detail[-300:])
    bound = WRONG_OUTPUT_FACTOR * RELATIVE_ERROR_BOUND[problem.dtype]
    wrong = error is not None and not error <= bound
    seconds = ms / 1e3
    return ProfileRow(problem=problem.key, kernel=kernel, status="wrong" if wrong else "ok", time_ms=_significant(ms),
                      tflops=_significant(problem.flops / seconds / 1e12),
                      gbs=_significant(problem_bytes(problem) / seconds / 1e9),
                      roofline_pct=_significant(100 * roofline_seconds(problem, arch) / seconds),
                      detail=f"relative error {error:.3g} against cuDNN's output (bound {bound:g})" if wrong else "")


def _vendor_output(problem: Problem, a: torch.Tensor, b: torch.Tensor) -> torch.Tensor | None:
    """cuDNN's result (float32) on the operands the kernels are checked on; None where cuDNN refuses the problem (its
    kernels' rows then go unchecked, and its own rows say why)."""
    try:
        return vendor_run(problem, a, b).float()
    except Exception:  # noqa: BLE001 - the vendor rows below record cuDNN's failure
        return None


def _significant(value: float, digits: int = 5) -> float:
    return float(f"{value:.{digits}g}")


def candidate_kernels(problem: Problem, rule_set: str, arch: str) -> list[str]:
    return [name for name in kernels_for(problem, rule_set, arch) if name != VENDOR_KERNEL]


def profile_problem(problem: Problem, rule_set: str, *, device: str = "cuda", kernels: list[str] | None = None,
                    warmup: int = 3, repeats: int = 10, skip: set[str] = frozenset(),
                    budget_ms: float | None = None, on_row: Callable[[ProfileRow], None] | None = None
                    ) -> list[ProfileRow]:
    """Time every candidate kernel of the rule set and both cuDNN modes on problem (a slow one with fewer repeats
    when budget_ms is given: timing.repeats_within; then a kernel whose first run takes both the budget and
    GIVE_UP_RATIO x the fastest kernel's time so far is timed by that run alone -- never cuDNN, whose exhaustive mode's
    first run searches its algorithms); on_row, if given, gets each row as soon as it is timed."""
    arch_name = arch_of(torch.device(device))
    arch = load_arch_spec(arch_name)
    operands = operand_sets(problem, device, rotations_for(problem))

    def rotated(fn):
        return lambda i: fn(*operands[i % len(operands)])

    rows, fastest = [], math.inf
    expected = _vendor_output(problem, *operands[0])
    scale = None if expected is None else error_scale(expected)

    def add(row: ProfileRow) -> None:
        rows.append(row)
        if on_row is not None:
            on_row(row)

    names = [name for name in (kernels if kernels is not None else candidate_kernels(problem, rule_set, arch_name))
             if name not in skip]
    for name in (predicted_fastest_first(names, problem, rule_set, arch_name) if budget_ms is not None else names):
        try:
            choice = forced_choice(name, problem, rule_set, arch_name)
            error = (None if expected is None else
                     relative_error_in_place(execute(problem, *operands[0], choice=choice), expected, scale))
            give_up_ms = (max(budget_ms, GIVE_UP_RATIO * fastest) if budget_ms is not None and fastest < math.inf
                          else None)
            ms = median_ms(rotated(lambda a, b: execute(problem, a, b, choice=choice)), warmup=warmup,
                           repeats=repeats, budget_ms=budget_ms, give_up_ms=give_up_ms)
            row = _row(problem, name, ms, arch, error=error)
            if row.status == "ok":  # a wrong kernel's time sets no give-up bar
                fastest = min(fastest, ms)
            add(row)
        except Exception as error:  # a failing kernel is a row, not the end of the profile
            add(_row(problem, name, None, arch, f"{type(error).__name__}: {error}"))
    previous = torch.backends.cudnn.benchmark
    try:
        for mode in CUDNN_MODES:
            if mode in skip:
                continue
            torch.backends.cudnn.benchmark = mode == "cudnn-exhaustive"
            try:
                ms = median_ms(rotated(lambda a, b: vendor_run(problem, a, b)), warmup=warmup, repeats=repeats,
                               budget_ms=budget_ms)
                add(_row(problem, mode, ms, arch))
            except Exception as error:  # cuDNN refusing a problem is a row too
                add(_row(problem, mode, None, arch, f"{type(error).__name__}: {error}"))
    finally:
        torch.backends.cudnn.benchmark = previous
    return rows


def predicted_fastest_first(names: list[str], problem: Problem, rule_set: str, arch: str) -> list[str]:
    """names by the rule's estimated time on problem (heuristics/rule.py), least first (names the rule set has no
    candidate of last, in their order): the sweep's give-up (GIVE_UP_RATIO) works only once a fast kernel is timed. On session 42's 31
    bwd_weight training problems this order gives up on as much as timing the measured fastest first would (~48 of
    the ~115 s their kernels ran); the registry's order gave up on nothing, its slow kernels coming first."""
    predicted = {c.name: predicted_seconds(c, problem, arch) for c in candidates(problem, rule_set, arch)
                 if c.entry is not None}
    return sorted(names, key=lambda name: (name not in predicted, predicted.get(name, 0.0)))


def warm_problem(problem: Problem, rule_set: str, names: list[str]) -> int:
    """Run each kernel once (compiling it into Triton's on-disk cache); returns how many ran."""
    a, b = operand_sets(problem, "cuda", 1)[0]
    ran = _execute_each(problem, rule_set, names, a, b)
    torch.cuda.synchronize()
    return ran


def compile_problem(problem: Problem, rule_set: str, names: list[str]) -> int:
    """Compile each kernel for problem into Triton's on-disk cache without running it (runtime.launch.compile_only)
    on operands allocated and never written: the warm-up `gconv bench sweep --overlap-compile` runs beside a timed
    window. Returns how many compiled."""
    a, b = empty_operands(problem, "cuda")
    with compile_only():
        compiled = _execute_each(problem, rule_set, names, a, b)
    torch.cuda.synchronize()
    return compiled


def _execute_each(problem: Problem, rule_set: str, names: list[str], a: torch.Tensor, b: torch.Tensor) -> int:
    """execute() problem once with each kernel; returns how many did not raise (the timed pass records errors)."""
    arch = arch_of(a.device)
    done = 0
    for name in names:
        try:
            execute(problem, a, b, choice=forced_choice(name, problem, rule_set, arch))
            done += 1
        except Exception:  # the timed pass records the error
            pass
    return done


def warm_cache(jobs: list[tuple[Problem, list[str]]], rule_set: str, workers: int, *,
               warm: Callable[[Problem, str, list[str]], int] = warm_problem,
               progress: ProgressLine | None = None) -> int:
    """Compile every (problem, kernels) job in parallel processes so that timing never waits for the compiler.

    Returns how many job chunks failed; a failure here is not fatal (the timed pass compiles again and records it).
    """
    chunks = [(problem, names[i::2]) for problem, names in jobs for i in range(2) if names[i::2]]
    progress = progress or ProgressLine(max_lines=20)
    failed = 0
    with ProcessPoolExecutor(max_workers=workers, mp_context=multiprocessing.get_context("spawn")) as pool:
        futures = [pool.submit(warm, problem, rule_set, names) for problem, names in chunks]
        for index, future in enumerate(futures, start=1):
            try:
                future.result()
            except BrokenProcessPool:  # a compiler crash took the pool down: time (and isolate) the rest cold
                progress.note(f"  compile worker died at chunk {index}/{len(futures)}; the rest compile when timed")
                return failed + len(futures) - index + 1
            except Exception:
                failed += 1
            progress.update(f"  compiled {index}/{len(futures)} job chunks", index, len(futures))
    progress.close()
    return failed


@dataclass(frozen=True)
class Job:
    """One problem's outstanding measurements: gconv kernels to time, and the kernels (or cuDNN modes) it has."""

    problem: Problem
    kernels: tuple[str, ...]
    skip: frozenset[str]

    @property
    def pending(self) -> list[str]:
        """Every row this job will write: its kernels, then the cuDNN modes not yet measured."""
        return list(self.kernels) + [m for m in CUDNN_MODES if m not in self.skip]


def plan_jobs(problems: list[Problem], rule_set: str, arch: str, done: dict[str, set[str]]) -> list[Job]:
    """Problems (first occurrence of each key, in order) that still lack a row, with what they lack."""
    jobs, seen = [], set()
    for problem in problems:
        if problem.key in seen:
            continue
        seen.add(problem.key)
        have = frozenset(done.get(problem.key, ()))
        job = Job(problem, tuple(k for k in candidate_kernels(problem, rule_set, arch) if k not in have), have)
        if job.pending:
            jobs.append(job)
    return jobs


def profile_batch(problems: list[Problem], rule_set: str, out: Path, *, workers: int | None = None,
                  warmup: int = 3, repeats: int = 10) -> list[dict]:
    """Profile every problem, appending rows to out (CSV); rows already in out are skipped."""
    arch = arch_of(torch.device("cuda"))
    jobs = plan_jobs(problems, rule_set, arch, done_kernels(read_rows(out)))
    print(f"{len(problems)} problems, {len(jobs)} with rows to measure; rule set {rule_set!r}", flush=True)
    if jobs:
        failed = warm_cache([(j.problem, list(j.kernels)) for j in jobs if j.kernels], rule_set,
                            workers or os.cpu_count() or 1)
        if failed:
            print(f"  {failed} compile chunks failed (the timed pass records their errors)", flush=True)
    for index, job in enumerate(jobs, start=1):
        rows = profile_problem(job.problem, rule_set, kernels=list(job.kernels), warmup=warmup, repeats=repeats,
                               skip=job.skip)
        append_rows(out, [csv_row(job.problem, row) for row in rows])
        best = min((r.time_ms for r in rows if r.status == "ok" and r.kernel not in CUDNN_MODES), default=None)
        print(f"  [{index}/{len(jobs)}] {job.problem.key}: {len(rows)} rows, best gconv "
              f"{best if best is not None else '-'} ms", flush=True)
    return read_rows(out)


@dataclass(frozen=True)
class ProblemBest:
    """One problem of a sweep: its fastest gconv instance's row and the best cuDNN mode's time (None when no cuDNN row
    is ok)."""
    row: dict
    vendor_ms: float | None

    @property
    def ms(self) -> float:
        return float(self.row["time_ms"])

    @property
    def roofline_pct(self) -> float | None:
        """The row's % of roofline where the problem's roofline time is >= 20 us; None below (the roofline target
        does not count it)."""
        pct = float(self.row["roofline_pct"])
        return pct if self.ms * pct / 100 >= MIN_ROOFLINE_S * 1e3 else None


def best_per_problem(rows: list[dict]) -> dict[str, ProblemBest]:
    """Problem key -> ProblemBest, over the "ok" rows, for every problem with a gconv row (ties: the first row)."""
    best: dict[str, dict] = {}
    vendor: dict[str, float] = {}
    for row in rows:
        if row["status"] != "ok":
            continue
        key, ms = row["problem"], float(row["time_ms"])
        if row["kernel"] in CUDNN_MODES:
            vendor[key] = min(ms, vendor.get(key, ms))
        elif key not in best or ms < float(best[key]["time_ms"]):
            best[key] = row
    return {key: ProblemBest(row, vendor.get(key)) for key, row in best.items()}


def summarise(rows: list[dict]) -> str:
    """Per direction x shape class: geomean speed-up of the best gconv instance over the best cuDNN mode, and the
    geomean % of roofline of the best gconv instance on problems whose roofline time is >= 20 us."""
    groups: dict[tuple[str, str], list[tuple[float, float | None]]] = defaultdict(list)
    for best in best_per_problem(rows).values():
        if best.vendor_ms is not None:
            groups[(best.row["direction"], best.row["shape_class"])].append((best.vendor_ms / best.ms,
                                                                             best.roofline_pct))
    body = []
    for (direction, klass), values in sorted(groups.items()):
        speedups = [v for v, _ in values]
        pcts = [p for _, p in values if p is not None]
        body.append([direction, klass, len(values), f"{geomean(speedups):.2f}x", f"{min(speedups):.2f}x",
                     f"{geomean(pcts):.1f}%" if pcts else "-", len(pcts)])
    for direction in sorted({d for d, _ in groups}):
        values = [v for (d, _), vs in groups.items() if d == direction for v in vs]
        pcts = [p for _, p in values if p is not None]
        body.append([direction, "all", len(values), f"{geomean([v for v, _ in values]):.2f}x",
                     f"{min(v for v, _ in values):.2f}x", f"{geomean(pcts):.1f}%" if pcts else "-", len(pcts)])
    header = ["direction", "shape class", "problems", "geomean speed-up vs best cuDNN", "min", "geomean % roofline",
              "problems >= 20 us"]
    return table(header, body)


