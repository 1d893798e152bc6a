"""A/B one kernel axis or template choice on the GPU before it becomes a rule: every instance of a set (igemm unless
--algorithms says otherwise) that runs a problem, against its twin with one axis changed (--set) or rendered with
another template choice (--choice, generator/render.py's template_choices), rendered from the templates into a
scratch folder, timed in the same process, interleaved, with cuDNN (heuristic) alongside.

    python -m bench.ab_variant --problems bench/problems/baseline-synthetic-bf16.csv --set tap_major=true \
        --directions fwd bwd_data --out $OUT/ab.csv
    python -m bench.ab_variant --problems bench/problems/depthwise-synthetic-bf16.csv --choice tap_loop=rolled \
        --algorithms depthwise --directions bwd_data --out $OUT/ab-tap-loop.csv
    python -m bench.ab_variant --problems FILE --set tap_major=true --filter "groups_to_merge > 1" --out $OUT/ab.csv
    python -m bench.ab_variant --problems FILE --rerendered --algorithms depthwise --filter last_arrival \
        --out $OUT/ab.csv

--rerendered A/Bs a template change before `gconv generate`: each selected instance's checked-in source against the
same instance rendered from the current templates.

Twins that break a set-wide constraint of `full` (a register budget, a tile row narrower than the threads) are timed
all the same, after a note naming the constraint and its reason: a winner there joins no set until it changes.

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
from dataclasses import dataclass
from pathlib import Path

import torch

from gconv.generator.derived import constraint_environment
from gconv.generator.loader import load_rule_set, rule_set_path
from gconv.generator.render import Provenance, checked_choices, render
from gconv.paths import REPO_ROOT
from gconv.runtime.device import arch_of
from gconv.runtime.kernels import load_kernel_module
from gconv.runtime.launch import run
from gconv.runtime.reference import error_scale, relative_error_in_place
from gconv.runtime.registry import load_arch_spec
from gconv.runtime.support import unsupported_reason
from gconv.runtime.vendor import vendor_run
from gconv.schemas import Algorithm, Direction, KernelConfig, Problem

from .candidates import runnable_entries
from .choice_args import parse_choice
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


@dataclass(frozen=True)
class Pair:
    """A candidate and its twin: their configs (equal when only a template choice differs) and sources."""

    base: KernelConfig
    base_source: str
    twin: KernelConfig
    twin_source: str

    @property
    def twin_label(self) -> str:
        return Path(self.twin_source).stem


def pairs_for(problem: Problem, rule_set: str, arch: str, update: dict, scratch: Path, choices: dict | None = None,
              algorithms: tuple[Algorithm, ...] = (Algorithm.igemm,), where: str | None = None,
              rerendered: bool = False) -> list[Pair]:
    """A Pair for every candidate of problem (of the given algorithms, and selected by the filter expression where)
    that runs it and has a twin: the config with update applied, rendered with choices. A twin that renders the same
    source, or does not run the problem, is left out; rerendered keeps every twin (each the base config rendered from
    the current templates, against the checked-in source)."""
    out = []
    for entry in runnable_entries(problem, rule_set, arch, where):
        if entry.config.algorithm not in algorithms:
            continue
        twin = twin_of(entry.config, update) if update else entry.config
        if twin is None or unsupported_reason(twin, problem) is not None:
            continue
        twin_text = render(twin, _PROVENANCE, checked_choices(twin, choices))
        if not rerendered and twin == entry.config and twin_text == render(entry.config, _PROVENANCE):
            continue  # the choice changes nothing this template renders (e.g. a loop it does not have)
        label = "-".join([twin.name, *(f"{k}-{v}" for k, v in sorted((choices or {}).items()))])
        source = scratch / f"{label}.py"
        if not source.exists():
            source.write_text(twin_text)
        out.append(Pair(entry.config, str(REPO_ROOT / entry.source), twin, str(source)))
    return out


def broken_constraints(twins: list[KernelConfig], arch: str) -> list[str]:
    """One line per set-wide constraint of `full` (which every set inherits) that some of the distinct twins break on
    arch: how many, the expression and its reason. The A/B times them all the same (a twin may test past a budget on
    purpose), but a twin that wins there joins no set until the constraint changes."""
    spec = load_arch_spec(arch)
    constraints = load_rule_set(rule_set_path("full")).rule_set.constraints
    distinct = set(twins)
    broken: dict[int, int] = defaultdict(int)
    for twin in distinct:
        environment = constraint_environment(twin, spec)
        for index, constraint in enumerate(constraints):
            if not constraint.expression.matches(environment):
                broken[index] += 1
    return [f"{count} of {len(distinct)} twin{'s' if len(distinct) > 1 else ''} break{'s' if count == 1 else ''} "
            f"`full`'s constraint \"{constraints[index].expr}\": {' '.join(constraints[index].why.split())}"
            for index, count in sorted(broken.items())]


def _launcher(problem: Problem, config: KernelConfig, source: str):
    module = load_kernel_module(source)
    return lambda a, b, out: run(module, config, problem, a, b, out)


def warm(problem: Problem, jobs: list[tuple[KernelConfig, str]]) -> int:
    """Compile (run once) each (config, source) into Triton's cache; a worker process's job."""
    a, b = operand_sets(problem, "cuda", 1)[0]
    out = vendor_run(problem, a, b)
    for config, source in jobs:
        try:
            _launcher(problem, config, source)(a, b, out)
        except Exception:  # the timed pass records it
            pass
    torch.cuda.synchronize()
    return len(jobs)


def measure(problem: Problem, pairs: list[Pair]) -> list[dict]:
    count = rotations_for(problem)
    sets = operand_sets(problem, "cuda", count)
    expected = vendor_run(problem, *sets[0]).float()
    scale = error_scale(expected)
    rows = []
    cudnn = median_ms(lambda i: vendor_run(problem, *sets[i % count]))
    for pair in pairs:
        timed = {}
        for label, config, source in (("base", pair.base, pair.base_source), ("twin", pair.twin, pair.twin_source)):
            try:
                go = _launcher(problem, config, source)
                outs = [torch.empty_like(expected, dtype=sets[0][0].dtype) for _ in range(count)]
                go(*sets[0], outs[0])
                torch.cuda.synchronize()
                error = relative_error_in_place(outs[0], expected, scale)
                timed[label] = (median_ms(lambda i: go(*sets[i % count], outs[i % count])), error)
            except Exception as exc:  # noqa: BLE001 - one kernel's failure is a row, not the end of the run
                timed[label] = (math.nan, f"{type(exc).__name__}: {str(exc)[:120]}")
        rows.append(dict(problem=problem.key, direction=problem.direction.value, shape_class=shape_class(problem),
                         base=pair.base.name, twin=pair.twin_label, base_ms=timed["base"][0], twin_ms=timed["twin"][0],
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
    parser.add_argument("--set", dest="update", default=[], action="append",
                        help="axis=value of the twin, e.g. tap_major=true (repeat for several axes)")
    parser.add_argument("--choice", dest="choices", default=[], action="append",
                        help="template choice of the twin, e.g. tap_loop=rolled (generator/render.py)")
    parser.add_argument("--rerendered", action="store_true",
                        help="the twin is the same instance rendered from the current templates (a template change)")
    parser.add_argument("--algorithms", nargs="+", default=[Algorithm.igemm.value],
                        choices=[a.value for a in Algorithm])
    parser.add_argument("--filter", help="only the base kernels this expression selects (as `gconv rules list --filter`)")
    parser.add_argument("--rule-set", default="default")
    parser.add_argument("--directions", nargs="+", default=[d.value for d in Direction])
    parser.add_argument("--min-channels", type=int, default=1, help="only problems with C and K per group >= this")
    parser.add_argument("--max-channels", type=int, default=1 << 20,
                        help="only problems with C and K per group <= this")
    parser.add_argument("--workers", type=int, default=16)
    parser.add_argument("--deadline-s", type=float, default=500.0, help="stop compiling at 60%% and timing at 100%%")
    parser.add_argument("--out", type=Path, required=True)
    args = parser.parse_args(argv)
    if not torch.cuda.is_available():
        raise SystemExit("bench/ab_variant.py times kernels on a GPU; none is visible")
    update = {axis: value for text in args.update for axis, value in parse_update(text).items()}
    choices = {key: value for text in args.choices for key, value in parse_choice(text).items()}
    if not update and not choices and not args.rerendered:
        raise SystemExit("nothing to A/B: give --set axis=value, --choice choice=value or --rerendered")
    algorithms = tuple(Algorithm(a) for a in args.algorithms)
    arch = arch_of(torch.device("cuda"))
    problems = [p for path in args.problems for p in read_problems(path) if p.direction.value in args.directions
                and args.min_channels <= min(p.C, p.K) and max(p.C, p.K) <= args.max_channels]
    scratch = Path(tempfile.mkdtemp(prefix="ab-twins-"))
    plan = [(p, pairs_for(p, args.rule_set, arch, update, scratch, choices, algorithms, args.filter,
                             args.rerendered)) for p in problems]
    plan = [(p, pairs) for p, pairs in plan if pairs]
    for line in broken_constraints([x.twin for _, pairs in plan for x in pairs], arch):
        print(f"note: {line} (timed all the same)", flush=True)
    print(f"{len(plan)} problems, {sum(len(x) for _, x in plan)} pairs; compiling on {args.workers} workers",
          flush=True)
    started = time.monotonic()
    pool = ProcessPoolExecutor(args.workers, mp_context=multiprocessing.get_context("spawn"))
    jobs = [pool.submit(warm, p, [job for x in pairs for job in ((x.base, x.base_source), (x.twin, x.twin_source))])
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
        rows += measure(problem, pairs)
        print(f"  timed {index}/{len(compiled)} {problem.key}", flush=True)
        with open(args.out, "w", newline="") as f:
            writer = csv.DictWriter(f, fieldnames=list(rows[0]))
            writer.writeheader()
            writer.writerows(rows)
    print("\n".join(summarise(rows)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
