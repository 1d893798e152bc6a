"""07 benchmark one problem: the selected kernel, the vendor path ("cudnn") and a few other candidates.

    python examples/07_benchmark_one_problem.py [--direction fwd|bwd_data|bwd_weight] [--repeats R] [--others K]

On a GPU: each kernel runs once (compile, and a float64 correctness check), then --warmup times, then --repeats
times between CUDA events queued behind a GPU sleep (bench/timing.py median_ms: GPU time, host launch cost not
counted); the table shows the median and TFLOP/s (problem.flops / time). Kernels are launched
with a prepared KernelChoice (gconv.runtime.api.execute), so per-call Python argument checking is not timed.
On a CPU the kernels are interpreted: small shapes, 1 repeat, and the times say nothing about performance.
"""
import os

if not os.path.exists("/dev/nvidiactl"):  # no NVIDIA driver: interpret the Triton kernels on the CPU
    os.environ.setdefault("TRITON_INTERPRET", "1")  # must be set before torch/triton/gconv are imported

import argparse
import sys

import torch

import gconv
from _common import ARCH, DEVICE, DTYPES, ON_GPU, SHORT, bound, rel_error, where
from gconv.bench.timing import median_ms
from gconv.runtime.api import execute
from gconv.runtime.reference import random_operands, reference
from gconv.runtime.selection import candidates, forced_choice
from gconv.tables import table

parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
parser.add_argument("--direction", choices=[d.value for d in gconv.Direction], default="fwd")
parser.add_argument("--repeats", type=int, default=50 if ON_GPU else 1, help="timed runs (median reported)")
parser.add_argument("--warmup", type=int, default=10 if ON_GPU else 0, help="untimed runs after the first")
parser.add_argument("--others", type=int, default=3, help="how many other candidates to time")
parser.add_argument("--rule-set", default=None)
cli = parser.parse_args()

dtype = DTYPES[0]
shape = (dict(N=32, G=8, C=64, K=64, Hi=56, Wi=56, Y=3, X=3, pad_h=1, pad_w=1) if ON_GPU else
         dict(N=2, G=2, C=8, K=8, Hi=8, Wi=8, Y=3, X=3, pad_h=1, pad_w=1))
problem = gconv.Problem(direction=cli.direction, dtype=SHORT[dtype], **shape)
print(f"benchmark on {where()}")
print(f"problem {problem.key}: {problem.flops:.4g} FLOP")
if not ON_GPU:
    print("NOTE: these are Triton-interpreter timings on the CPU: meaningless for performance, shown only to "
          "exercise the harness")

# The kernels to time: the selected one, the vendor path, then a few others of distinct algorithm/pipeline.
selected = gconv.select(problem, arch=ARCH, rule_set=cli.rule_set)
plan = [("selected", selected), ("vendor", forced_choice("cudnn", problem, cli.rule_set, ARCH))]
pool = [c for c in candidates(problem, rule_set=cli.rule_set, arch=ARCH) if c.entry is not None]


def kind(candidate):
    return candidate.entry.config.algorithm, candidate.entry.config.pipeline, candidate.padding is not None


kinds = {kind(c) for c in pool if c.name == selected.name}
for candidate in pool:
    if len(plan) >= 2 + cli.others:
        break
    if kind(candidate) not in kinds:
        kinds.add(kind(candidate))
        plan.append(("candidate", forced_choice(candidate.name, problem, cli.rule_set, ARCH)))

a, b = random_operands(problem, device=str(DEVICE))
expected = reference(problem, a, b)
limit = bound(dtype)


def synchronize() -> None:
    if ON_GPU:
        torch.cuda.synchronize()


def time_ms(choice) -> float:
    """Median milliseconds: GPU time on a GPU (bench/timing.py: repeats queued behind a GPU sleep, so host launch
    cost is not counted), the wall clock otherwise."""
    return median_ms(lambda _: execute(problem, a, b, choice=choice), warmup=cli.warmup, repeats=cli.repeats)


rows, failures = [], 0
for role, choice in plan:
    out = execute(problem, a, b, choice=choice)  # first run: compiles on a GPU; checked against float64
    synchronize()
    error = rel_error(out, expected)
    ok = error <= limit
    failures += not ok
    ms = time_ms(choice)
    tflops = problem.flops / (ms * 1e-3) / 1e12
    rows.append([choice.name, role, str(choice.padding) if choice.padding else "-", f"{ms:.3f}",
                 f"{tflops:.3f}" if ON_GPU else f"({tflops:.2g})", f"{error:.1e}", "PASS" if ok else "FAIL"])
    print(f"  timed {choice.name}", flush=True)

print()
print(table(["kernel", "role", "padding", "median ms", "TFLOP/s", "max rel. err", "check"], rows))
print(f"\n{len(plan)} kernels, {cli.repeats} timed repeats each after {cli.warmup} warm-up runs; "
      f"error bound {limit:.0e}" + ("" if ON_GPU else "; interpreter timings (meaningless for performance)"))
if selected.predicted_tflops is not None:
    print(f"the selector predicted {selected.predicted_tflops} TFLOP/s for {selected.name} on {selected.arch}")
print("FAILED: some kernel's result is wrong" if failures else "ALL PASS: every timed kernel matches float64")
sys.exit(1 if failures else 0)
