"""A/B one kernel axis on the GPU before it becomes a rule: every igemm instance of a set that runs a problem
unpadded, against its twin with one axis changed (rendered from the templates into a scratch folder), timed in the
same process, interleaved, with cuDNN (heuristic) alongside.

    python -m bench.ab_variant --problems bench/problems/baseline-synthetic-bf16.csv --set tap_major=true \
        --directions fwd bwd_data --out $OUT/ab.csv

Writes one row per (problem, kernel): base and twin times, each one's error against cuDNN's output; prints per
problem the best base, best twin and cuDNN, and per direction x shape class the geomean of best twin over best base.
"""
from __future__ import annotations

import argparse
import csv
import math
import multiprocessing
import sys
import tempfile
import time
from collections import defaultdict
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures import TimeoutError as FuturesTimeout
from pathlib import Path

import torch

from gconv.generator.render import Provenance, render
from gconv.paths import REPO_ROOT
from gconv.runtime.device import arch_of
from gconv.runtime.kernels import load_kernel_module
from gconv.runtime.launch import run
from gconv.runtime.registry import entries_by_name
from gconv.runtime.selection import kernels_for
from gconv.runtime.support import unsupported_reason
from gconv.runtime.vendor import vendor_run
from gconv.schemas import Algorithm, Direction, KernelConfig, Problem

from .problems import read_problems, shape_class
from .timing import median_ms, operand_sets, rotations_for

_PROVENANCE = Provenance(("bench/ab_variant.py",), "ab-twin", (), "python -m bench.ab_variant")


def parse_update(text: str) -> dict[str, object]:
    """'axis=value' -> {axis: value} with value parsed as a bool, an int or left a string."""
    axis, _, value = text.partition("=")
    if axis not in KernelConfig.model_fields or not value:
        raise SystemExit(f"--set wants axis=value with a KernelConfig axis, got {text!r}")
    parsed = {"true": True, "false": False}.get(value.lower(), value)  # enums (pipeline=streamk) stay strings
    if isinstance(parsed, str) and parsed.isdigit():
        parsed = int(parsed)
    return {axis: parsed}


def twin_of(config: KernelConfig, update: dict[str, object]) -> KernelConfig | None:
    try:
        twin = KernelConfig(**{**config.axes(), **update})
    except ValueError:
        return None
    return None if twin == config else twin


def pairs_for(problem: Problem, rule_set: str, arch: str, update: dict, scratch: Path) -> list[tuple[str, str, str]]:
    """(base name, base source, twin source) for every unpadded igemm candidate of problem that has a twin."""
    entries = entries_by_name(rule_set)
    out = []
    for name in kernels_for(problem, rule_set, arch):
        entry = entries.get(name)
        if entry is None or entry.config.algorithm is not Algorithm.igemm:
            continue
        if unsupported_reason(entry.config, problem) is not None:
            continue
        twin = twin_of(entry.config, update)
        if twin is None or unsupported_reason(twin, problem) is not None:
            continue
        source = scratch / f"{twin.name}.py"
        if not source.exists():
            source.write_text(render(twin, _PROVENANCE))
        out.append((name, str(REPO_ROOT / entry.source), str(source)))
    return out


def _launcher(problem: Problem, config: KernelConfig, source: str):
    module = load_kernel_module(source)
    return lambda a, b, out: run(module, config, problem, a, b, out)


def warm(problem: Problem, jobs: list[tuple[str, str]]) -> int:
    """Compile (run once) each (config name, source) into Triton's cache; a worker process's job."""
    a, b = operand_sets(problem, "cuda", 1)[0]
    out = vendor_run(problem, a, b)
    for name, source in jobs:
        try:
            _launcher(problem, KernelConfig.from_name(name), source)(a, b, out)
        except Exception:  # the timed pass records it
            pass
    torch.cuda.synchronize()
    return len(jobs)


def measure(problem: Problem, pairs: list[tuple[str, str, str]], update: dict) -> list[dict]:
    count = rotations_for(problem)
    sets = operand_sets(problem, "cuda", count)
    expected = vendor_run(problem, *sets[0]).float()
    scale = expected.abs().max().item() or 1.0
    rows = []
    cudnn = median_ms(lambda i: vendor_run(problem, *sets[i % count]))
    for name, base_source, twin_source in pairs:
        base = KernelConfig.from_name(name)
        twin = twin_of(base, update)
        timed = {}
        for label, config, source in (("base", base, base_source), ("twin", twin, twin_source)):
            try:
                go = _launcher(problem, config, source)
                outs = [torch.empty_like(expected, dtype=sets[0][0].dtype) for _ in range(count)]
                go(*sets[0], outs[0])
                torch.cuda.synchronize()
                error = (outs[0].float() - expected).abs().max().item() / scale
                timed[label] = (median_ms(lambda i: go(*sets[i % count], outs[i % count])), error)
            except Exception as exc:  # noqa: BLE001 - one kernel's failure is a row, not the end of the run
                timed[label] = (math.nan, f"{type(exc).__name__}: {str(exc)[:120]}")
        rows.append(dict(problem=problem.key, direction=problem.direction.value, shape_class=shape_class(problem),
                         base=name, twin=twin.name, base_ms=timed["base"][0], twin_ms=timed["twin"][0],
                         base_err=timed["base"][1], twin_err=timed["twin"][1], cudnn_ms=cudnn))
    return rows


def summarise(rows: list[dict]) -> list[str]:
    best = defaultdict(lambda: [math.inf, math.inf, math.inf, "", ""])
    for r in rows:
        b = best[(r["direction"], r["shape_class"], r["problem"])]
        if r["base_ms"] < b[0]:
            b[0], b[3] = r["base_ms"], r["base"]
        if r["twin_ms"] < b[1]:
            b[1], b[4] = r["twin_ms"], r["twin"]
        b[2] = r["cudnn_ms"]
    lines = ["direction  class     base_ms  twin_ms  cudnn_ms  twin/base  problem"]
    ratios = defaultdict(list)
    for (direction, cls, problem), (base, twin, cudnn, _, _) in sorted(best.items()):
        if math.isfinite(base) and math.isfinite(twin):
            ratios[(direction, cls)].append(base / twin)
            ratios[(direction, "all")].append(base / twin)
        lines.append(f"{direction:10} {cls:9} {base:8.4f} {twin:8.4f} {cudnn:9.4f}  {base / twin:6.2f}x  {problem}")
    lines.append("")
    lines.append("speed-up of the best twin over the best base (geomean, problems):")
    for key, values in sorted(ratios.items()):
        geomean = math.exp(sum(math.log(v) for v in values) / len(values))
        lines.append(f"  {key[0]:10} {key[1]:9} {geomean:5.2f}x  ({len(values)})")
    return lines


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--problems", type=Path, nargs="+", required=True)
    parser.add_argument("--set", dest="update", required=True, action="append",
                        help="axis=value of the twin, e.g. tap_major=true (repeat for several axes)")
    parser.add_argument("--rule-set", default="default")
    parser.add_argument("--directions", nargs="+", default=[d.value for d in Direction])
    parser.add_argument("--min-channels", type=int, default=1, help="only problems with C and K per group >= this")
    parser.add_argument("--workers", type=int, default=16)
    parser.add_argument("--deadline-s", type=float, default=500.0, help="stop compiling at 60%% and timing at 100%%")
    parser.add_argument("--out", type=Path, required=True)
    args = parser.parse_args(argv)
    if not torch.cuda.is_available():
        raise SystemExit("bench/ab_variant.py times kernels on a GPU; none is visible")
    update = {axis: value for text in args.update for axis, value in parse_update(text).items()}
    arch = arch_of(torch.device("cuda"))
    problems = [p for path in args.problems for p in read_problems(path) if p.direction.value in args.directions
                and min(p.C, p.K) >= args.min_channels]
    scratch = Path(tempfile.mkdtemp(prefix="ab-twins-"))
    plan = [(p, pairs_for(p, args.rule_set, arch, update, scratch)) for p in problems]
    plan = [(p, pairs) for p, pairs in plan if pairs]
    print(f"{len(plan)} problems, {sum(len(x) for _, x in plan)} pairs; compiling on {args.workers} workers",
          flush=True)
    started = time.monotonic()
    pool = ProcessPoolExecutor(args.workers, mp_context=multiprocessing.get_context("spawn"))
    jobs = [pool.submit(warm, p, [job for n, bs, ts in pairs for job in ((n, bs), (Path(ts).stem, ts))])
            for p, pairs in plan]
    compiled = []
    for index, ((problem, pairs), job) in enumerate(zip(plan, jobs), 1):
        try:  # compiling gets 60% of the deadline; problems not compiled by then are left out
            job.result(timeout=max(0.0, 0.6 * args.deadline_s - (time.monotonic() - started)))
            compiled.append((problem, pairs))
        except FuturesTimeout:
            print(f"\n  compile deadline: {len(plan) - index + 1} problems left out", flush=True)
            break
        except Exception as error:  # noqa: BLE001 - a crashed compile leaves this problem out
            print(f"\n  {problem.key}: compile failed: {error}", flush=True)
        print(f"  compiled {index}/{len(jobs)}", end="\r", flush=True)
    pool.shutdown(wait=False, cancel_futures=True)
    print()
    rows = []
    args.out.parent.mkdir(parents=True, exist_ok=True)
    for index, (problem, pairs) in enumerate(compiled, 1):
        if time.monotonic() - started > args.deadline_s:
            print(f"  timing deadline: {len(compiled) - index + 1} problems left out", flush=True)
            break
        rows += measure(problem, pairs, update)
        print(f"  timed {index}/{len(compiled)} {problem.key}", flush=True)
        with open(args.out, "w", newline="") as f:
            writer = csv.DictWriter(f, fieldnames=list(rows[0]))
            writer.writeheader()
            writer.writerows(rows)
    print("\n".join(summarise(rows)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
