"""Which arch spec applies to a tensor's device, and whether Triton kernels can run there."""
from __future__ import annotations

import os
from functools import lru_cache

INTERPRETER_ENV = "TRITON_INTERPRET"
CPU_ARCH = "sm_90"  # the interpreter runs the sm_90 registry (TMA and persistent kernels included)


def interpreter_active() -> bool:
    return os.environ.get(INTERPRETER_ENV, "").lower() in ("1", "true", "on", "yes")


def arch_of(device) -> str:
    """'sm_90' for Hopper and newer, 'sm_80' for Ampere/Ada; the CPU (interpreter) counts as sm_90."""
    if device.type == "cpu":
        return CPU_ARCH
    if device.type != "cuda":
        raise ValueError(f"tensors must be on a CUDA device or the CPU, got {device.type}")
    return _cuda_arch(device.index)


@lru_cache(maxsize=None)
def _cuda_arch(index: int | None) -> str:
    """Per device (a capability query costs microseconds; a call path must not pay it every time)."""
    import torch

    device = torch.device("cuda", torch.cuda.current_device() if index is None else index)
    major, minor = torch.cuda.get_device_capability(device)
    capability = 10 * major + minor
    if capability >= 90:
        return "sm_90"
    if capability >= 80:
        return "sm_80"
    raise ValueError(f"gconv kernels need compute capability 8.0 or newer; {device} has {major}.{minor}")


def can_run_triton(device) -> bool:
    return device.type == "cuda" or (device.type == "cpu" and interpreter_active())
