"""`gconv profile`: every candidate of a rule set on one problem (or a CSV of problems) against cuDNN and the roofline.

Rows: one per (problem, kernel), plus `cudnn-heuristic` (torch.backends.cudnn.benchmark=False) and
`cudnn-exhaustive` (benchmark=True: cuDNN times its algorithms first). Batch mode appends to a CSV and skips
rows already there (resumable), and warms Triton's cache in parallel processes before timing.
"""
from __future__ import annotations

import csv
import math
import multiprocessing
import os
from collections import defaultdict
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Literal

import torch
from pydantic import BaseModel, ConfigDict

from gconv.heuristics.analytic import problem_bytes, roofline_seconds
from gconv.runtime.api import execute
from gconv.runtime.device import arch_of
from gconv.runtime.registry import VENDOR_KERNEL, load_arch_spec
from gconv.runtime.selection import forced_choice, kernels_for
from gconv.runtime.vendor import vendor_run
from gconv.schemas import ArchSpec, Problem
from gconv.tables import table

from .problems import CSV_FIELDS, shape_class
from .timing import median_ms, operand_sets, rotations_for

CUDNN_MODES = ("cudnn-heuristic", "cudnn-exhaustive")
MIN_ROOFLINE_S = 20e-6  # the roofline target only counts problems at least this long


class ProfileRow(BaseModel):
    model_config = ConfigDict(extra="forbid")

    problem: str
    kernel: str
    status: Literal["ok", "error"]
    time_ms: float | None
    tflops: float | None
    gbs: float | None
    roofline_pct: float | None
    detail: str = ""


def _row(problem: Problem, kernel: str, ms: float | None, arch: ArchSpec, detail: str = "") -> ProfileRow:
    if ms is None:
        return ProfileRow(problem=problem.key, kernel=kernel, status="error", time_ms=None, tflops=None, gbs=None,
                          roofline_pct=None, detail=detail[-300:])
    seconds = ms / 1e3
    return ProfileRow(problem=problem.key, kernel=kernel, status="ok", time_ms=_significant(ms),
                      tflops=_significant(problem.flops / seconds / 1e12),
                      gbs=_significant(problem_bytes(problem) / seconds / 1e9),
                      roofline_pct=_significant(100 * roofline_seconds(problem, arch) / seconds))


def _significant(value: float, digits: int = 5) -> float:
    return float(f"{value:.{digits}g}")


def candidate_kernels(problem: Problem, rule_set: str, arch: str) -> list[str]:
    return [name for name in kernels_for(problem, rule_set, arch) if name != VENDOR_KERNEL]


def profile_problem(problem: Problem, rule_set: str, *, device: str = "cuda", kernels: list[str] | None = None,
                    warmup: int = 3, repeats: int = 10, skip: set[str] = frozenset()) -> list[ProfileRow]:
    """Time every candidate kernel of the rule set and both cuDNN modes on problem."""
    arch_name = arch_of(torch.device(device))
    arch = load_arch_spec(arch_name)
    operands = operand_sets(problem, device, rotations_for(problem))

    def rotated(fn):
        return lambda i: fn(*operands[i % len(operands)])

    rows = []
    for name in kernels if kernels is not None else candidate_kernels(problem, rule_set, arch_name):
        if name in skip:
            continue
        try:
            choice = forced_choice(name, problem, rule_set, arch_name)
            ms = median_ms(rotated(lambda a, b: execute(problem, a, b, choice=choice)), warmup=warmup,
                           repeats=repeats)
            rows.append(_row(problem, name, ms, arch))
        except Exception as error:  # a failing kernel is a row, not the end of the profile
            rows.append(_row(problem, name, None, arch, f"{type(error).__name__}: {error}"))
    previous = torch.backends.cudnn.benchmark
    try:
        for mode in CUDNN_MODES:
            if mode in skip:
                continue
            torch.backends.cudnn.benchmark = mode == "cudnn-exhaustive"
            ms = median_ms(rotated(lambda a, b: vendor_run(problem, a, b)), warmup=warmup, repeats=repeats)
            rows.append(_row(problem, mode, ms, arch))
    finally:
        torch.backends.cudnn.benchmark = previous
    return rows


def _warm(problem: Problem, rule_set: str, names: list[str]) -> int:
    """Run each kernel once (compiling it into Triton's on-disk cache); returns how many ran."""
    a, b = operand_sets(problem, "cuda", 1)[0]
    arch = arch_of(a.device)
    ran = 0
    for name in names:
        try:
            execute(problem, a, b, choice=forced_choice(name, problem, rule_set, arch))
            ran += 1
        except Exception:  # the timed pass records the error
            pass
    torch.cuda.synchronize()
    return ran


def warm_cache(jobs: list[tuple[Problem, list[str]]], rule_set: str, workers: int) -> None:
    """Compile every (problem, kernels) job in parallel processes so that timing never waits for the compiler."""
    chunks = [(problem, names[i::2]) for problem, names in jobs for i in range(2) if names[i::2]]
    with ProcessPoolExecutor(max_workers=workers, mp_context=multiprocessing.get_context("spawn")) as pool:
        futures = [pool.submit(_warm, problem, rule_set, names) for problem, names in chunks]
        for index, future in enumerate(futures, start=1):
            future.result()
            print(f"\r  compiled {index}/{len(futures)} job chunks", end="", flush=True)
    print()


def read_rows(path: Path) -> list[dict]:
    if not path.exists():
        return []
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


def profile_batch(problems: list[Problem], rule_set: str, out: Path, *, workers: int | None = None,
                  warmup: int = 3, repeats: int = 10) -> list[dict]:
    """Profile every problem, appending rows to out (CSV); rows already in out are skipped."""
    done = defaultdict(set)
    for row in read_rows(out):
        done[row["problem"]].add(row["kernel"])
    arch = arch_of(torch.device("cuda"))
    plans = [(p, [k for k in candidate_kernels(p, rule_set, arch) if k not in done[p.key]]) for p in problems]
    todo = [(p, names) for p, names in plans if names or any(m not in done[p.key] for m in CUDNN_MODES)]
    print(f"{len(problems)} problems, {len(todo)} with rows to measure; rule set {rule_set!r}", flush=True)
    if todo:
        warm_cache([(p, names) for p, names in todo if names], rule_set, workers or os.cpu_count() or 1)
    fields = CSV_FIELDS + ["problem", "shape_class"] + list(ProfileRow.model_fields)
    fields = list(dict.fromkeys(fields))
    new_file = not out.exists()
    with open(out, "a", newline="") as f:
        writer = csv.DictWriter(f, fieldnames=fields)
        if new_file:
            writer.writeheader()
        for index, (problem, names) in enumerate(todo, start=1):
            rows = profile_problem(problem, rule_set, kernels=names, warmup=warmup, repeats=repeats,
                                   skip=done[problem.key])
            for row in rows:
                writer.writerow({**problem.model_dump(mode="json"), "shape_class": shape_class(problem),
                                 **row.model_dump()})
            f.flush()
            best = min((r.time_ms for r in rows if r.status == "ok" and r.kernel not in CUDNN_MODES), default=None)
            print(f"  [{index}/{len(todo)}] {problem.key}: {len(rows)} rows, best gconv "
                  f"{best if best is not None else '-'} ms", flush=True)
    return read_rows(out)


def summarise(rows: list[dict]) -> str:
    """Per direction x shape class: geomean speed-up of the best gconv instance over the best cuDNN mode, and the
    geomean % of roofline of the best gconv instance on problems whose roofline time is >= 20 us."""
    by_problem: dict[str, list[dict]] = defaultdict(list)
    for row in rows:
        if row["status"] == "ok":
            by_problem[row["problem"]].append(row)
    groups: dict[tuple[str, str], list[tuple[float, float | None]]] = defaultdict(list)
    for key, prows in by_problem.items():
        ours = [float(r["time_ms"]) for r in prows if r["kernel"] not in CUDNN_MODES]
        theirs = [float(r["time_ms"]) for r in prows if r["kernel"] in CUDNN_MODES]
        if not ours or not theirs:
            continue
        best = min(prows, key=lambda r: float(r["time_ms"]) if r["kernel"] not in CUDNN_MODES else math.inf)
        roofline_ms = float(best["time_ms"]) * float(best["roofline_pct"]) / 100
        pct = float(best["roofline_pct"]) if roofline_ms >= MIN_ROOFLINE_S * 1e3 else None
        groups[(best["direction"], best["shape_class"])].append((min(theirs) / min(ours), pct))
    body = []
    for (direction, klass), values in sorted(groups.items()):
        speedups = [v for v, _ in values]
        pcts = [p for _, p in values if p is not None]
        body.append([direction, klass, len(values), f"{_geomean(speedups):.2f}x", f"{min(speedups):.2f}x",
                     f"{_geomean(pcts):.1f}%" if pcts else "-", len(pcts)])
    for direction in sorted({d for d, _ in groups}):
        values = [v for (d, _), vs in groups.items() if d == direction for v in vs]
        pcts = [p for _, p in values if p is not None]
        body.append([direction, "all", len(values), f"{_geomean([v for v, _ in values]):.2f}x",
                     f"{min(v for v, _ in values):.2f}x", f"{_geomean(pcts):.1f}%" if pcts else "-", len(pcts)])
    header = ["direction", "shape class", "problems", "geomean speed-up vs best cuDNN", "min", "geomean % roofline",
              "problems >= 20 us"]
    return table(header, body)


def _geomean(values: list[float]) -> float:
    return math.exp(sum(math.log(v) for v in values) / len(values)) if values else float("nan")
