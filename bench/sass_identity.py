"""Whether generated kernels whose source changed since a git revision compile to the same sm_90 machine code as
before for given problems (each compiled as Triton's JIT specialises it for the problem: bench/ptxas_usage.py).
Identical code keeps the measured rows of those (problem, kernel) pairs valid; the others must be measured again.

    python -m bench.sass_identity --base HEAD --problems FILE.csv [--filter EXPR] [--rule-set default]

Prints one line per (kernel, problem) pair the kernel runs: identical or differs, then the counts.
"""
from __future__ import annotations

import argparse
import multiprocessing
import os
import subprocess
import sys
import tempfile
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

from gconv.paths import REPO_ROOT
from gconv.schemas import Problem

from .candidates import runnable_entries
from .git_files import file_at
from .problems import read_problems
from .ptxas_usage import cuobjdump, specialised_cubin


def changed_sources(revision: str) -> set[str]:
    """Generated kernel sources (repository paths) that differ from revision in the working tree."""
    out = subprocess.run(["git", "diff", "--name-only", revision, "--", "generated/kernels"], cwd=REPO_ROOT,
                         capture_output=True, text=True, check=True).stdout
    return set(out.split())


def sass_of(source_text: str, problem: Problem, arch: str) -> str:
    """The SASS of a kernel source compiled for problem's JIT specialisation."""
    with tempfile.TemporaryDirectory() as scratch:
        path = Path(scratch) / "kernel.py"
        path.write_text(source_text)
        return cuobjdump(specialised_cubin(str(path), problem, arch), "-sass")


def compile_the_same(before: str, after: str, problem: Problem, arch: str) -> bool:
    """Whether two kernel source texts compile to the same SASS for problem."""
    return sass_of(before, problem, arch) == sass_of(after, problem, arch)


def same_code(revision: str, source: str, name: str, problem: Problem, arch: str) -> tuple[str, str, bool]:
    """(kernel, problem key, whether the source at revision and now compile to the same SASS)."""
    path = REPO_ROOT / source
    return name, problem.key, compile_the_same(file_at(revision, path).decode(), path.read_text(), problem, arch)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--base", default="HEAD", help="the git revision to compare against")
    parser.add_argument("--problems", type=Path, nargs="+", required=True)
    parser.add_argument("--filter", help="only the kernels this expression selects (as `gconv rules list --filter`)")
    parser.add_argument("--rule-set", default="default")
    parser.add_argument("--arch", default="sm_90")
    parser.add_argument("--workers", type=int, default=os.cpu_count() or 1)
    args = parser.parse_args(argv)
    os.environ.setdefault("TRITON_DEFAULT_FP_FUSION", "1")
    changed = changed_sources(args.base)
    problems = [p for path in args.problems for p in read_problems(path)]
    jobs = [(args.base, entry.source, entry.name, problem, args.arch) for problem in problems
            for entry in runnable_entries(problem, args.rule_set, args.arch, args.filter) if entry.source in changed]
    if not jobs:
        raise SystemExit(f"no changed kernel since {args.base} runs these problems")
    print(f"compiling {len(jobs)} (problem, kernel) pairs twice on {args.workers} workers ...", file=sys.stderr,
          flush=True)
    with ProcessPoolExecutor(args.workers, mp_context=multiprocessing.get_context("spawn")) as pool:
        results = list(pool.map(same_code, *zip(*jobs)))
    for name, key, same in results:
        print(f"{'identical' if same else 'differs  '}  {name}  {key}")
    print(f"{sum(same for *_, same in results)} of {len(results)} pairs compile to the same code")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
