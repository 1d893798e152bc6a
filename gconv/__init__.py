"""gconv: grouped-convolution kernels generated from declarative rules, selected per problem.

Importing gconv is cheap and touches no GPU (safe before forking workers): the tensor API, the registry and
Triton are loaded on first use.
"""
from gconv.schemas import Direction, DType, KernelConfig, Problem

__version__ = "0.1.0"

_LAZY = {
    "conv_fwd": "gconv.runtime.api", "conv_bwd_data": "gconv.runtime.api", "conv_bwd_weight": "gconv.runtime.api",
    "select": "gconv.runtime.selection", "kernels_for": "gconv.runtime.selection",
    "clear_cache": "gconv.runtime.selection", "KernelChoice": "gconv.runtime.selection",
    "Runner": "gconv.runtime.numpy_runner",
}

__all__ = ["Direction", "DType", "KernelConfig", "Problem", *_LAZY]


def __getattr__(name: str):
    if name in _LAZY:
        import importlib

        value = getattr(importlib.import_module(_LAZY[name]), name)
        globals()[name] = value
        return value
    if name == "nn":
        import importlib

        return importlib.import_module("gconv.nn")
    raise AttributeError(f"module 'gconv' has no attribute {name!r}")
