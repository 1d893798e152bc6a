"""Registers and spilled stack per thread of generated kernels, compiled for sm_90 on the CPU as Triton's JIT compiles
them for a problem (the pointers and the integer arguments divisible by 16 marked so, those equal to 1 compiled in):
how the unrolled depthwise bwd_data kernels were found spilling (bench/results/tap-loop/). Spills depend on the
Triton version's compiler; the device runs triton 3.6.

    python -m bench.ptxas_usage --problems bench/problems/train-seed8-synthetic-bf16.csv \
        --filter "algorithm == 'depthwise' and direction == 'bwd_data'" [--rule-set default] [--out FILE.csv]

Prints one row per (problem, candidate kernel the filter selects), most stack first.
"""
from __future__ import annotations

import argparse
import csv
import multiprocessing
import os
import re
import subprocess
import sys
import tempfile
from collections import Counter
from concurrent.futures import ProcessPoolExecutor
from dataclasses import asdict, dataclass
from pathlib import Path

from gconv.schemas import Problem

from .problems import read_problems


@dataclass(frozen=True)
class Usage:
    kernel: str
    problem: str
    registers: int
    stack_bytes: int


def integer_arguments(problem: Problem) -> dict[str, int]:
    """The integer arguments runtime/launch.py passes for problem, with channels_last operands: sizes, convolution
    parameters and the (x-like, w-like, y-like) strides in torch's N, C, H, W order."""
    p = problem
    cx, ck = p.G * p.C, p.G * p.K
    strides = dict(sxn=p.Hi * p.Wi * cx, sxc=1, sxh=p.Wi * cx, sxw=cx, swk=p.Y * p.X * p.C, swc=1, swy=p.X * p.C,
                   swx=p.C, syn=p.Ho * p.Wo * ck, syk=1, syh=p.Wo * ck, syw=ck)
    sizes = dict(N=p.N, G=p.G, C=p.C, K=p.K, Hi=p.Hi, Wi=p.Wi, Ho=p.Ho, Wo=p.Wo, Y=p.Y, X=p.X, stride_h=p.stride_h,
                 stride_w=p.stride_w, pad_h=p.pad_h, pad_w=p.pad_w, dil_h=p.dil_h, dil_w=p.dil_w)
    return {**sizes, **strides}


def jit_specialisation(problem: Problem) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """(arguments divisible by 16, arguments equal to 1): what Triton's JIT specialises on."""
    values = integer_arguments(problem)
    return (tuple(k for k, v in values.items() if v % 16 == 0 and v != 0),
            tuple(k for k, v in values.items() if v == 1))


def cuobjdump(cubin: bytes, option: str) -> str:
    """Triton's bundled cuobjdump run with option (--dump-resource-usage, -sass) on a cubin: its output."""
    import triton

    tool = Path(triton.__file__).parent / "backends" / "nvidia" / "bin" / "cuobjdump"
    with tempfile.NamedTemporaryFile(suffix=".cubin") as handle:
        handle.write(cubin)
        handle.flush()
        return subprocess.run([str(tool), option, handle.name], capture_output=True, text=True, check=True).stdout


def resource_usage(cubin: bytes) -> tuple[int, int]:
    """(registers, stack bytes) per thread of a cubin's kernel."""
    text = cuobjdump(cubin, "--dump-resource-usage")
    found = re.search(r"REG:(\d+) STACK:(\d+)", text)
    if found is None:
        raise RuntimeError(f"no resource usage in cuobjdump's output: {text[-200:]!r}")
    return int(found.group(1)), int(found.group(2))


def global_memory_ops(cubin: bytes) -> Counter:
    """The global-memory instructions of a cubin's SASS by opcode (LDG.E.128, LDGSTS.E.BYPASS.128, STG.E.U16, ...):
    the width a kernel loads and stores its operands at."""
    return Counter(re.findall(r"\b((?:LDG|LDGSTS|STG)\.E[.A-Z0-9]*)", cuobjdump(cubin, "-sass")))


def atomic_ops(cubin: bytes) -> Counter:
    """The atomics, memory barriers and cache invalidations of a cubin's SASS by opcode (REDG.E.ADD.F32..., ATOMG...,
    MEMBAR.ALL.GPU, CCTL.IVALL): how a split bwd_weight kernel adds its partial sums (render.py ATOMICS)."""
    return Counter(re.findall(r"\b((?:REDG|ATOMG|MEMBAR|CCTL)\.[.A-Z0-9]*)", cuobjdump(cubin, "-sass")))


def mma_loop_ops(cubin: bytes) -> Counter:
    """The opcodes (no modifiers) of the loop that holds a cubin's tensor-core instructions (HGMMA on sm_90, HMMA
    before): from the target of the first backward branch whose span holds one to that branch. A step's issue work:
    eight warps issuing N instructions a step on an SM's four schedulers take at least 2N cycles, beside about 550
    for a 128 x 128 x 64 bf16 step's MMAs on an H100 (bench/results/tap-walk/)."""
    found = [(int(address, 16), text) for address, text in re.findall(r"/\*([0-9a-f]{4,})\*/\s+([^;]*);",
                                                                        cuobjdump(cubin, "-sass"))]
    mma = [address for address, text in found if re.search(r"\bH(?:G)?MMA\b", text)]
    for address, text in found:
        branch = re.search(r"\bBRA\s+(?:`\()?0x([0-9a-f]+)", text)
        start = int(branch.group(1), 16) if branch else address
        if start < address and any(start <= a <= address for a in mma):
            return Counter(re.sub(r"^@!?U?P\w+\s+", "", t.strip()).split()[0].split(".")[0]
                           for a, t in found if start <= a <= address)
    raise RuntimeError("no loop around a tensor-core instruction in the SASS")


def specialised_cubin(source: str, problem: Problem, arch: str) -> bytes:
    """One kernel's cubin as Triton's JIT compiles it for problem (jit_specialisation)."""
    from gconv.ci.compile_check import compile_specialised

    ints, ones = jit_specialisation(problem)
    return compile_specialised(Path(source), arch, ints, ones).asm["cubin"]


def memory_ops_one(source: str, problem: Problem, arch: str) -> Counter:
    """global_memory_ops of one kernel compiled for problem's specialisation."""
    return global_memory_ops(specialised_cubin(source, problem, arch))


def atomic_ops_one(source: str, problem: Problem, arch: str) -> Counter:
    """atomic_ops of one kernel compiled for problem's specialisation."""
    return atomic_ops(specialised_cubin(source, problem, arch))


def measure_one(source: str, name: str, problem: Problem, arch: str) -> Usage:
    """Compile one kernel for problem's specialisation; its Usage."""
    registers, stack = resource_usage(specialised_cubin(source, problem, arch))
    return Usage(name, problem.key, registers, stack)


def jobs_for(problems: list[Problem], rule_set: str, arch: str, where: str | None) -> list[tuple]:
    """(source, name, problem, arch) for every candidate of each problem that the filter selects."""
    from gconv.paths import REPO_ROOT

    from .candidates import runnable_entries

    return [(str(REPO_ROOT / entry.source), entry.name, problem, arch)
            for problem in problems for entry in runnable_entries(problem, rule_set, arch, where)]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--problems", type=Path, nargs="+", required=True)
    parser.add_argument("--filter", help="only the kernels this expression selects (as `gconv rules list --filter`)")
    parser.add_argument("--rule-set", default="default")
    parser.add_argument("--arch", default="sm_90")
    parser.add_argument("--workers", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--out", type=Path, help="also write the rows to this CSV")
    args = parser.parse_args(argv)
    os.environ.setdefault("TRITON_DEFAULT_FP_FUSION", "1")
    problems = [p for path in args.problems for p in read_problems(path)]
    jobs = jobs_for(problems, args.rule_set, args.arch, args.filter)
    if not jobs:
        raise SystemExit("no (problem, kernel) pair: the filter selects no candidate of these problems")
    print(f"compiling {len(jobs)} (problem, kernel) pairs on {args.workers} workers ...", file=sys.stderr, flush=True)
    with ProcessPoolExecutor(args.workers, mp_context=multiprocessing.get_context("spawn")) as pool:
        rows = sorted(pool.map(measure_one, *zip(*jobs)), key=lambda u: (-u.stack_bytes, u.kernel, u.problem))
    print(f"{'stack':>6} {'regs':>5}  kernel  problem")
    for row in rows:
        print(f"{row.stack_bytes:6d} {row.registers:5d}  {row.kernel}  {row.problem}")
    if args.out:
        with open(args.out, "w", newline="") as handle:
            writer = csv.DictWriter(handle, fieldnames=list(asdict(rows[0])))
            writer.writeheader()
            writer.writerows(asdict(row) for row in rows)
    return 0


if __name__ == "__main__":
    sys.exit(main())
