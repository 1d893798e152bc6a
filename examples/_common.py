"""Shared by the examples: device and dtype choice, the float64 error measure, PASS/FAIL bookkeeping.

Every example sets TRITON_INTERPRET itself before importing this module (Triton reads it at import time).
"""
from __future__ import annotations

import os
import sys

import torch

from gconv.runtime.device import arch_of, interpreter_active
from gconv.runtime.reference import INTERPRETER_ERROR_BOUND, RELATIVE_ERROR_BOUND
from gconv.schemas import DType, Problem

# Kernels run on a GPU when one is there and the interpreter was not asked for explicitly.
ON_GPU = torch.cuda.is_available() and not interpreter_active()
DEVICE = torch.device("cuda" if ON_GPU else "cpu")
ARCH = arch_of(DEVICE)  # what the tensor API dispatches for on DEVICE; pass it to gconv.select / kernels_for
# The interpreter has no bf16 (numpy lacks it); on a GPU the examples run the training dtypes.
DTYPES = [torch.bfloat16, torch.float16] if ON_GPU else [torch.float32, torch.float16]
GCONV_DTYPE = {torch.float16: DType.fp16, torch.bfloat16: DType.bf16, torch.float32: DType.fp32}
SHORT = {torch.float16: "fp16", torch.bfloat16: "bf16", torch.float32: "fp32"}

if not ON_GPU and not interpreter_active():
    # E.g. a CUDA driver without a CUDA build of torch: run again, this time under the interpreter.
    print("no usable GPU: re-running under TRITON_INTERPRET=1", flush=True)
    os.environ["TRITON_INTERPRET"] = "1"
    os.execv(sys.executable, [sys.executable, *sys.argv])


# The cases of examples 02-04. Problem fields as in CK's benchmark CSV: C and K are channels *per group*.
CASES = {
    "grouped G=4, stride 2": dict(N=16, G=4, C=64, K=64, Hi=56, Wi=56, Y=3, X=3, stride_h=2, stride_w=2,
                                  pad_h=1, pad_w=1) if ON_GPU else
                             dict(N=2, G=4, C=4, K=8, Hi=9, Wi=9, Y=3, X=3, stride_h=2, stride_w=2, pad_h=1, pad_w=1),
    "depthwise 3x3": dict(N=16, G=256, C=1, K=1, Hi=28, Wi=28, Y=3, X=3, pad_h=1, pad_w=1) if ON_GPU else
                     dict(N=2, G=16, C=1, K=1, Hi=8, Wi=8, Y=3, X=3, pad_h=1, pad_w=1),
}


def torch_args(p: Problem) -> dict:
    """The torch.nn.functional / torch.nn.grad keyword arguments of a problem."""
    return dict(stride=(p.stride_h, p.stride_w), padding=(p.pad_h, p.pad_w), dilation=(p.dil_h, p.dil_w), groups=p.G)


def where() -> str:
    if ON_GPU:
        return f"{torch.cuda.get_device_name()} ({ARCH})"
    return "CPU, Triton interpreter (kernels are interpreted: small shapes, timings meaningless)"


def bound(dtype: torch.dtype) -> float:
    """The library's own tolerance: max|out-ref|/max|ref| against float64 (fp32 is exact fp32 when interpreted,
    TF32 tensor cores on a GPU)."""
    table = RELATIVE_ERROR_BOUND if ON_GPU else INTERPRETER_ERROR_BOUND
    return table[GCONV_DTYPE[dtype]]


def rel_error(out: torch.Tensor, ref: torch.Tensor) -> float:
    """max|out - ref| / max|ref| in float64 on the CPU; any NaN/inf in out scores inf."""
    out64, ref64 = out.detach().double().cpu(), ref.detach().double().cpu()
    if out64.shape != ref64.shape:
        raise ValueError(f"shape {tuple(out64.shape)} != reference shape {tuple(ref64.shape)}")
    if not torch.isfinite(out64).all():
        return float("inf")
    return (out64 - ref64).abs().max().item() / (ref64.abs().max().item() or 1.0)


def randn(shape, dtype: torch.dtype, seed: int) -> torch.Tensor:
    """Deterministic N(0, 1) values rounded to dtype, on DEVICE."""
    values = torch.randn(shape, generator=torch.Generator().manual_seed(seed))
    return values.to(dtype).to(DEVICE)


class Checks:
    """Prints one PASS/FAIL line per check; finish() prints the tally and exits 1 if any check failed."""

    def __init__(self) -> None:
        self.passed = 0
        self.failed = 0

    def check(self, label: str, ok: bool, detail: str = "") -> bool:
        ok = bool(ok)
        self.passed += ok
        self.failed += not ok
        print(f"  [{'PASS' if ok else 'FAIL'}] {label}" + (f": {detail}" if detail else ""), flush=True)
        return ok

    def close(self, label: str, out: torch.Tensor, ref: torch.Tensor, dtype: torch.dtype) -> bool:
        """Check out against the float64 reference with the dtype's bound."""
        error, limit = rel_error(out, ref), bound(dtype)
        return self.check(label, error <= limit, f"max rel. error {error:.2e} (bound {limit:.0e})")

    def raises(self, label: str, exception: type[BaseException], fn, *args, **kwargs) -> bool:
        """Check that fn(*args, **kwargs) raises exception; prints its message."""
        try:
            fn(*args, **kwargs)
        except exception as error:
            return self.check(label, True, f"{type(error).__name__}: {error}")
        except Exception as error:  # noqa: BLE001 - the wrong exception is a failed check, not a crash
            return self.check(label, False, f"raised {type(error).__name__} instead of {exception.__name__}: {error}")
        return self.check(label, False, f"no {exception.__name__} raised")

    def finish(self) -> None:
        total = self.passed + self.failed
        print(f"\n{self.passed}/{total} checks passed" + ("" if self.failed else " -- ALL PASS"))
        sys.exit(1 if self.failed or not total else 0)
