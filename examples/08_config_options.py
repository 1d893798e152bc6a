"""08 config options: one correctness check per kernel option, each instance in its own subprocess.

    python examples/08_config_options.py [--rule-set tiny] [--all] [--timeout S]

For each option (merged groups, split-K, StreamK, two-stage, the direct algorithm, the tap-major walk) the harness
finds a matching instance in the rule set's registry and runs it in a child process (this script with --run-one NAME), so a
crash or hang of one kernel is reported (CRASH / TIMEOUT) and the sweep goes on. The child launches the instance
itself on shapes it supports, into a NaN-poisoned output, and compares with a float64 PyTorch reference.
Options whose axis KernelConfig does not have yet are SKIP. --all checks every matching instance, not one.
Exit status: 1 if any option FAILs or CRASHes, else 0.
"""
import os

if not os.path.exists("/dev/nvidiactl"):  # no NVIDIA driver: interpret the Triton kernels on the CPU
    os.environ.setdefault("TRITON_INTERPRET", "1")  # must be set before torch/triton/gconv are imported

import argparse
import concurrent.futures
import signal
import subprocess
import sys
from dataclasses import dataclass
from enum import Enum
from typing import Callable

from gconv.generator.loader import RULE_SET_NAMES
from gconv.schemas import Algorithm, Direction, DType, KernelConfig, Pipeline

EXIT_PASS, EXIT_FAIL, EXIT_SKIP = 0, 3, 4  # the child's verdicts; any other exit is a CRASH
STATUS_OF_EXIT = {EXIT_PASS: "PASS", EXIT_FAIL: "FAIL", EXIT_SKIP: "SKIP"}
NO_AXIS = "no such axis in this registry yet"


def axis_on(value, token: str) -> bool:
    """Whether an axis value (bool, count or enum/string) turns the option on: True, > 0, or naming token."""
    if isinstance(value, Enum):
        value = value.value
    if isinstance(value, bool):
        return value
    if isinstance(value, int):
        return value > 0
    return token in str(value).lower().replace("-", "_")


@dataclass(frozen=True)
class Option:
    label: str
    fields: tuple[str, ...]  # KernelConfig fields that carry the option (any one present is enough)
    matches: Callable[[KernelConfig], bool]
    pipeline_token: str | None = None  # ... or a Pipeline value naming it

    def axis(self) -> str | None:
        """The field or pipeline value that carries this option, None if the schema has none yet."""
        for field in self.fields:
            if field in KernelConfig.model_fields:
                return field
        if self.pipeline_token:
            for pipeline in Pipeline:
                if self.pipeline_token in pipeline.value:
                    return f"pipeline={pipeline.value}"
        return None


def _field(config: KernelConfig, fields: tuple[str, ...], token: str) -> bool:
    return any(axis_on(getattr(config, f), token) for f in fields if f in KernelConfig.model_fields)


STREAMK_FIELDS = ("streamk", "stream_k")
TWO_STAGE_FIELDS = ("two_stage", "reduction", "split_k_reduction")
OPTIONS = [
    Option("merge groups", ("groups_to_merge",), lambda c: c.groups_to_merge > 1),
    Option("split-K", ("split_k",), lambda c: c.split_k > 1),  # bwd_weight, and the split fwd implicit GEMMs
    Option("StreamK", STREAMK_FIELDS, lambda c: _field(c, STREAMK_FIELDS, "stream") or "stream" in c.pipeline.value,
           pipeline_token="stream"),
    Option("two-stage", TWO_STAGE_FIELDS, lambda c: _field(c, TWO_STAGE_FIELDS, "two")),
    Option("direct", ("algorithm",), lambda c: c.algorithm is Algorithm.direct),
    Option("tap-major", ("tap_major",), lambda c: c.tap_major),
]

# Shapes for the child's check (C, K per group); it uses the first two the instance supports.
SHAPES = [
    dict(N=2, G=3, C=5, K=7, Hi=11, Wi=9, Y=3, X=3, stride_h=2, stride_w=2, pad_h=1, pad_w=1, dil_h=2, dil_w=2),
    dict(N=2, G=4, C=8, K=8, Hi=8, Wi=7, Y=3, X=3, stride_h=2, stride_w=1, pad_h=1, pad_w=1),
    dict(N=2, G=16, C=1, K=1, Hi=9, Wi=10, Y=3, X=3, stride_h=2, stride_w=2, pad_h=1, pad_w=1),
    dict(N=2, G=2, C=16, K=32, Hi=10, Wi=7, Y=3, X=2, stride_w=2, pad_h=2),
]


def run_one(name: str, rule_set: str) -> int:
    """The child: check one instance; prints 'RESULT <status> <detail>' and exits EXIT_PASS/FAIL/SKIP."""
    import torch

    from _common import ON_GPU, bound
    from gconv.paths import REPO_ROOT
    from gconv.runtime.kernels import load_kernel_module
    from gconv.runtime.launch import run
    from gconv.runtime.reference import TORCH_DTYPES, poisoned_output, random_operands, reference, relative_error
    from gconv.runtime.registry import entries_by_name
    from gconv.runtime.support import unsupported_reason
    from gconv.schemas import Problem

    entry = entries_by_name(rule_set)[name]  # an unknown name raises: reported as CRASH
    config = entry.config
    if config.dtype is DType.bf16 and not ON_GPU:
        print("RESULT SKIP bf16 needs a GPU")
        return EXIT_SKIP
    problems = [Problem(direction=config.direction, dtype=config.dtype, **shape) for shape in SHAPES]
    problems = [p for p in problems if unsupported_reason(config, p) is None][:2]
    if not problems:
        print("RESULT SKIP no test shape fits this instance")
        return EXIT_SKIP
    module = load_kernel_module(REPO_ROOT / entry.source)
    device = "cuda" if ON_GPU else "cpu"
    limit, worst = bound(TORCH_DTYPES[config.dtype]), 0.0
    for seed, problem in enumerate(problems):
        a, b = random_operands(problem, device=device, seed=seed)
        out = poisoned_output(problem, device=device)  # NaN: an element the kernel does not write fails
        run(module, config, problem, a, b, out)
        error = relative_error(out, reference(problem, a, b))
        worst = max(worst, error)
        print(f"  {problem.key}: max rel. error {error:.2e}", flush=True)
        if not error <= limit:
            print(f"RESULT FAIL {problem.key}: max rel. error {error:.2e} > {limit:.0e}")
            return EXIT_FAIL
    print(f"RESULT PASS {len(problems)} shape(s), max rel. error {worst:.1e} (bound {limit:.0e})")
    return EXIT_PASS


def classify(argv: list[str], timeout: float) -> tuple[str, str]:
    """Run a child; (status, detail) from its exit and its last RESULT line."""
    try:
        done = subprocess.run(argv, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return "TIMEOUT", f"no result within {timeout:g} s"
    results = [line.split(" ", 2) for line in done.stdout.splitlines() if line.startswith("RESULT ")]
    if done.returncode in STATUS_OF_EXIT and results and results[-1][1] == STATUS_OF_EXIT[done.returncode]:
        return results[-1][1], results[-1][2] if len(results[-1]) > 2 else ""
    if done.returncode < 0:
        try:
            how = f"killed by {signal.Signals(-done.returncode).name}"
        except ValueError:
            how = f"killed by signal {-done.returncode}"
    else:
        how = f"exit code {done.returncode}"
    last = (done.stderr.strip().splitlines() or done.stdout.strip().splitlines() or ["no output"])[-1]
    return "CRASH", f"{how}: {last[:160]}"


def candidates(option: Option, entries, arch: str, interpreted: bool) -> tuple[list, str]:
    """Matching instances built for arch, the ones this machine can run first (then fwd, bwd_data, bwd_weight;
    the least split-K, the cheapest to interpret); or why there are none."""
    matching = [e for e in entries if option.matches(e.config)]
    if not matching:
        return [], "no matching instance in this rule set"
    order = {Direction.fwd: 0, Direction.bwd_data: 1, Direction.bwd_weight: 2}
    on_arch = sorted((e for e in matching if arch in e.archs),
                     key=lambda e: (needs_gpu(e, interpreted), order[e.config.direction], e.config.split_k, e.name))
    return on_arch, "" if on_arch else f"no matching instance built for {arch}"


def needs_gpu(entry, interpreted: bool) -> bool:
    return interpreted and entry.config.dtype is DType.bf16


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rule-set", default="tiny", choices=RULE_SET_NAMES,
                        help="registry to take instances from (default: tiny)")
    parser.add_argument("--all", action="store_true", help="check every matching instance, not the first")
    parser.add_argument("--timeout", type=float, default=300, help="seconds per instance (default: 300)")
    parser.add_argument("--jobs", type=int, default=min(4, os.cpu_count() or 1),
                        help="child processes at a time (default: min(4, CPUs))")
    parser.add_argument("--run-one", metavar="NAME", help=argparse.SUPPRESS)  # the child's entry point
    cli = parser.parse_args()
    if cli.run_one:
        return run_one(cli.run_one, cli.rule_set)

    from _common import ARCH, ON_GPU, where
    from gconv.runtime.registry import load_registry

    entries = load_registry(cli.rule_set).entries
    print(f"config-options harness on {where()}; rule set {cli.rule_set!r} ({len(entries)} instances); "
          f"each check in its own process, timeout {cli.timeout:g} s")
    rows = []  # option, kernel, status, detail (a future while the child runs)
    pool = concurrent.futures.ThreadPoolExecutor(max_workers=max(1, cli.jobs))

    def check(option: Option, name: str) -> tuple[str, str]:
        argv = [sys.executable, os.path.abspath(__file__), "--run-one", name, "--rule-set", cli.rule_set]
        status, detail = classify(argv, cli.timeout)
        print(f"  {option.label}: {name}: {status}", flush=True)
        return status, detail

    for option in OPTIONS:
        found, why = ([], NO_AXIS) if option.axis() is None else candidates(option, entries, ARCH, not ON_GPU)
        if not found:
            rows.append([option.label, "-", "SKIP", why])
            print(f"  {option.label}: SKIP ({why})", flush=True)
        for entry in found if cli.all else found[:1]:
            if needs_gpu(entry, interpreted=not ON_GPU):  # the interpreter has no bf16 (numpy lacks it)
                rows.append([option.label, entry.name, "SKIP", "bf16 needs a GPU"])
                print(f"  {option.label}: {entry.name}: SKIP (bf16 needs a GPU)", flush=True)
            else:
                rows.append([option.label, entry.name, pool.submit(check, option, entry.name)])
    rows = [row if len(row) == 4 else row[:2] + list(row[2].result()) for row in rows]
    pool.shutdown()
    print()
    header = ["option", "kernel", "status", "detail"]
    widths = [max(len(str(row[i])) for row in [header] + rows) for i in range(3)]
    for row in [header, ["-" * w for w in widths] + ["-" * 6]] + rows:
        print(" | ".join(str(cell).ljust(w) for cell, w in zip(row, widths)) + " | " + str(row[3]))
    counts = {s: sum(row[2] == s for row in rows) for s in ("PASS", "FAIL", "CRASH", "TIMEOUT", "SKIP")}
    print("\n" + ", ".join(f"{n} {s}" for s, n in counts.items()))
    bad = counts["FAIL"] + counts["CRASH"]
    print("HARNESS FAILED: an option FAILed or CRASHed" if bad else "HARNESS OK: no option FAILed or CRASHed")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
