"""Compile a rule set's instances to real cubins on the CPU (triton.compile with a GPUTarget): no GPU needed."""
from __future__ import annotations

import multiprocessing
import os
import re
import traceback
from collections import Counter
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from pathlib import Path

from gconv.paths import GENERATED_DIR, REPO_ROOT
from gconv.schemas import Registry

DEFAULT_ARCHS = ("sm_90", "sm_80")


@dataclass(frozen=True)
class CompileResult:
    name: str
    arch: str
    ok: bool
    detail: str  # cubin size and shared memory, or the error's last lines


def compile_kernel(path: Path, arch: str, num_warps: int, num_stages: int, *, function: str = "kernel",
                   signature: dict[str, str] | None = None, constexprs: dict | None = None, attrs: dict | None = None):
    """triton.compile one @triton.jit function of a source file for arch (e.g. 'sm_90'); the CompiledKernel.

    signature defaults to the module's SIGNATURE (generated kernels); attrs are Triton argument attributes such as
    {(0,): [["tt.divisibility", 16]]} (the ahead-of-time build marks its pointer arguments aligned).
    """
    # A worker may inherit TRITON_INTERPRET from an interpreter test session; it must go before Triton is imported
    # (Triton fixes the kind of its library functions at import time).
    os.environ.pop("TRITON_INTERPRET", None)
    import triton
    from triton.backends.compiler import GPUTarget

    from gconv.runtime.kernels import import_kernel_module

    module = import_kernel_module(path)
    src = triton.compiler.ASTSource(fn=getattr(module, function), signature=signature or module.SIGNATURE,
                                    constexprs=constexprs or {}, attrs=attrs)
    target = GPUTarget("cuda", int(arch.removeprefix("sm_")), 32)
    return triton.compile(src, target=target, options={"num_warps": num_warps, "num_stages": num_stages})


def divisibility_attrs(signature: dict[str, str], ints: tuple[str, ...] = ()) -> dict:
    """Triton argument attributes: the pointers, and the integer arguments named in ints, divisible by 16 (as the JIT
    marks an aligned tensor or a multiple of 16)."""
    return {(i,): [["tt.divisibility", 16]] for i, (name, kind) in enumerate(signature.items())
            if kind.startswith("*") or name in ints}


def with_constants(signature: dict[str, str], ones: tuple[str, ...]) -> dict:
    """compile_kernel's signature and constexprs with the arguments named in ones compiled in as the constant 1 (as
    the JIT specialises an argument equal to 1); index keys, which every supported Triton accepts."""
    return dict(signature={name: "constexpr" if name in ones else kind for name, kind in signature.items()},
                constexprs={(list(signature).index(name),): 1 for name in ones})


def compile_specialised(path: Path, arch: str, ints: tuple[str, ...] = (), ones: tuple[str, ...] = ()):
    """compile_kernel for a generated kernel (its own warps and stages) with its pointers and the integer arguments
    named in ints marked divisible by 16, and those named in ones compiled in as the constant 1."""
    os.environ.pop("TRITON_INTERPRET", None)  # before the kernel's module imports Triton (see compile_kernel)
    from gconv.runtime.kernels import import_kernel_module

    module = import_kernel_module(path)
    signature = module.SIGNATURE
    return compile_kernel(path, arch, module.NUM_WARPS, module.NUM_STAGES, **with_constants(signature, ones),
                          attrs=divisibility_attrs(signature, ints))


def ptx_counts(path: Path, arch: str, ints: tuple[str, ...] = (), ones: tuple[str, ...] = ()) -> Counter:
    """The global loads (scalar, vector and cp.async) and integer divisions in the PTX of a generated kernel compiled
    by compile_specialised (tests/test_aot.py, bench/aot_loads.py)."""
    ptx = compile_specialised(path, arch, ints, ones).asm["ptx"]
    return Counter(re.findall(r"(?:ld\.global|cp\.async\.cg\.shared\.global|div\.s32|rem\.s32)[\w.]*", ptx))


def compile_one(source: str, arch: str, num_warps: int, num_stages: int) -> CompileResult:
    """Compile one generated source for arch (e.g. 'sm_90')."""
    name = Path(source).stem
    try:
        compiled = compile_kernel(REPO_ROOT / source, arch, num_warps, num_stages)
        cubin = compiled.asm["cubin"]
        return CompileResult(name, arch, True, f"{len(cubin)} bytes cubin, {compiled.metadata.shared} bytes smem")
    except Exception as error:  # report every failure; the gate fails on any
        return CompileResult(name, arch, False, describe_failure(error))


def describe_failure(error: BaseException) -> str:
    """One line: the exception type, its message's last lines, and where it was raised when it has no message."""
    lines = [line.strip() for line in str(error).strip().splitlines() if line.strip()]
    if not lines:
        frame = traceback.extract_tb(error.__traceback__)[-1]
        lines = [f"raised at {Path(frame.filename).name}:{frame.lineno} ({frame.line})"]
    return f"{type(error).__name__}: " + " | ".join(lines[-4:])


def compile_set(set_name: str, archs: tuple[str, ...] = DEFAULT_ARCHS, generated_dir: Path = GENERATED_DIR,
                workers: int | None = None) -> list[CompileResult]:
    """Compile every instance of a set for each requested arch it is valid on (in parallel processes)."""
    registry = Registry.from_json((generated_dir / set_name / "registry.json").read_text())
    jobs = [(entry.source, arch, entry.config.num_warps, entry.config.num_stages)
            for entry in registry.entries for arch in archs if arch in entry.archs]
    workers = workers or max(1, min(len(jobs), os.cpu_count() or 1))
    os.environ.setdefault("TRITON_DEFAULT_FP_FUSION", "1")
    # Fresh interpreters, not forks: a parent that imported Triton in interpreter mode must not leak that state.
    with ProcessPoolExecutor(max_workers=workers, mp_context=multiprocessing.get_context("spawn")) as pool:
        return list(pool.map(compile_one, *zip(*jobs)))
