"""libgconv's ahead-of-time cubins against the Triton JIT on the same kernel and problem (GPU time, one table).

    python bench/capi_speed.py [--per-group 3] [--out FILE.csv]

For the vector-load kernels of the library's rule set (a few per direction x family: igemm, direct, depthwise, its
sliding-rows and _cpg kinds), each on a problem with its channel counts and strides multiples of 16, where gconv_run
launches the aligned cubin (capi/aot.py), and on a twin with channels that are not, where it launches the generic
one: the median GPU time through gconv_run (forced kernel) over the median through the Python runtime's JIT
(runtime.api.execute, forced kernel). The library is found as gconv.capi finds it ($GCONV_LIBRARY).
"""
from __future__ import annotations

import argparse
import csv
import statistics
from collections import defaultdict

import torch

from gconv.runtime.api import execute
from gconv.runtime.reference import poisoned_output
from gconv.runtime.registry import entries_by_name
from gconv.runtime.selection import candidate_for
from gconv.schemas import KernelConfig, Problem
from gconv.tables import table

from .profile import warm_cache
from .timing import median_ms, operand_sets, rotations_for


def family(config: KernelConfig) -> str:
    kind = config.algorithm.value
    if config.sliding_rows:
        kind += "-sliding"
    elif config.algorithm.value == "depthwise" and config.group_channels > 1:
        kind += "-cpg"
    return f"{config.direction.value} {kind}"


def timing_problem(config: KernelConfig, aligned: bool) -> Problem:
    """A mid-sized problem the kernel runs unpadded; aligned: channel counts and strides multiples of 16."""
    shape = dict(N=32, Hi=56, Wi=56, Y=3, X=3, stride_h=1, stride_w=1, pad_h=1, pad_w=1)
    if config.algorithm.value == "depthwise":
        groups = 256 if aligned else 264  # 264 * C/G is a multiple of 8 (vector loads) but not of 16
        channels, filters = config.group_channels, config.multiplier
        shape.update(Y=config.filter_size, X=config.filter_size, pad_h=config.filter_size // 2,
                     pad_w=config.filter_size // 2, stride_h=config.sliding_rows or 1)
    elif config.explicit_gemm:
        groups, channels, filters = 4, (64 if aligned else 72), (64 if aligned else 72)
        shape.update(Y=1, X=1, pad_h=0, pad_w=0)
    elif config.algorithm.value == "direct":
        groups, channels, filters = (64 if aligned else 72), 1, 1
    else:
        groups, channels, filters = 4, (64 if aligned else 72), (64 if aligned else 72)
    return Problem(direction=config.direction, dtype=config.dtype, G=groups, C=channels, K=filters, **shape)


def pick_kernels(rule_set: str, names: list[str], per_group: int) -> list[str]:
    entries = entries_by_name(rule_set)
    groups = defaultdict(list)
    for name in names:
        config = entries[name].config
        if config.vector_width > 1 and config.dtype.value == "bf16":
            groups[family(config)].append(name)
    # spread over each family's list (sorted by name, so tile sizes differ) rather than its first few
    return [name for members in groups.values()
            for name in members[::max(1, len(members) // per_group)][:per_group]]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--per-group", type=int, default=3, help="kernels per direction x family")
    parser.add_argument("--repeats", type=int, default=20)
    parser.add_argument("--workers", type=int, default=16, help="processes compiling the JIT kernels first")
    parser.add_argument("--out", help="CSV of every timing")
    args = parser.parse_args()
    from gconv import capi

    lib = capi.load()
    entries = entries_by_name(lib.rule_set)
    jobs = []
    for name in pick_kernels(lib.rule_set, lib.kernel_names(), args.per_group):
        for aligned in (True, False):
            problem = timing_problem(entries[name].config, aligned)
            candidate = candidate_for(entries[name], problem)
            if candidate is not None and candidate.padding is None:
                jobs.append((name, aligned, problem))
    print(f"{len(jobs)} (kernel, problem) pairs of {lib.rule_set}; compiling the JIT side first", flush=True)
    warm_cache([(problem, [name]) for name, _, problem in jobs], lib.rule_set, args.workers)
    rows = []
    for name, aligned, problem in jobs:
        operands = operand_sets(problem, "cuda", rotations_for(problem))
        outs = [poisoned_output(problem, "cuda") for _ in operands]

        def c_run(i):
            a, b = operands[i % len(operands)]
            lib.run_tensors(problem, a, b, outs[i % len(outs)], kernel=name)

        def jit_run(i):
            a, b = operands[i % len(operands)]
            execute(problem, a, b, kernel=name, rule_set=lib.rule_set)

        c_ms = median_ms(c_run, repeats=args.repeats)
        jit_ms = median_ms(jit_run, repeats=args.repeats)
        rows.append(dict(kernel=name, family=family(entries[name].config), aligned=aligned, problem=problem.key,
                         c_ms=round(c_ms, 5), jit_ms=round(jit_ms, 5), c_over_jit=round(c_ms / jit_ms, 3)))
        print(f"  {name} {'aligned' if aligned else 'unaligned'}: C {c_ms:.4f} ms, JIT {jit_ms:.4f} ms", flush=True)
    if args.out:
        with open(args.out, "w", newline="") as f:
            writer = csv.DictWriter(f, fieldnames=list(rows[0]))
            writer.writeheader()
            writer.writerows(rows)
    summary = defaultdict(list)
    for row in rows:
        summary[(row["family"], row["aligned"])].append(row["c_over_jit"])
    print(f"\nlibgconv ({lib.rule_set}, {lib.arch}) over the JIT, GPU time, geometric mean per family:")
    print(table(["family", "problem", "pairs", "C / JIT geomean", "min", "max"],
                [[fam, "aligned" if aligned else "unaligned", len(v),
                  f"{statistics.geometric_mean(v):.2f}", f"{min(v):.2f}", f"{max(v):.2f}"]
                 for (fam, aligned), v in sorted(summary.items())]))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
