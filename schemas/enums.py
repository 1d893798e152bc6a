"""Enumerations with canonical short tokens: the vocabulary every other model is built from."""
from __future__ import annotations

from enum import Enum


class Direction(str, Enum):
    """The three jobs of a convolution layer."""

    fwd = "fwd"
    bwd_data = "bwd_data"
    bwd_weight = "bwd_weight"


class DType(str, Enum):
    """Element type of the tensors (accumulation is always fp32)."""

    fp16 = "fp16"
    bf16 = "bf16"
    fp32 = "fp32"

    @property
    def bytes(self) -> int:
        return 4 if self is DType.fp32 else 2

    @property
    def triton(self) -> str:
        """The Triton element type name used in signatures and in kernel source."""
        return {"fp16": "fp16", "bf16": "bf16", "fp32": "fp32"}[self.value]


class Algorithm(str, Enum):
    """Kernel family: implicit GEMM on tensor cores, or a loop on CUDA cores (direct: any small C/G and filter;
    depthwise: C/G = 1 with the filter size and channel multiplier fixed at compile time)."""

    igemm = "igemm"
    direct = "direct"
    depthwise = "depthwise"


class Pipeline(str, Enum):
    """How the main loop is fed and scheduled."""

    multistage = "multistage"  # software-pipelined loads (num_stages deep), one tile per program
    tma = "tma"  # as multistage, plain-matrix operand through tensor descriptors (sm_90 TMA)
    persistent = "persistent"  # one program per SM looping over tiles
    streamk = "streamk"  # bwd_weight: one program per SM, each an equal share of all (tile, reduction step) work

    @property
    def token(self) -> str:
        return PIPELINE_TOKENS[self]


PIPELINE_TOKENS = {Pipeline.multistage: "ms", Pipeline.tma: "tma", Pipeline.persistent: "pers",
                   Pipeline.streamk: "strk"}


class VectorStrategy(str, Enum):
    """Load-width policy of a rule; expands to a concrete vector width in elements per dtype and arch."""

    max = "max"  # the widest load the arch allows (16 bytes on sm_80/sm_90)
    half = "half"
    quarter = "quarter"
    scalar = "scalar"  # no alignment assumption at all: any channel count

    def width(self, max_vector_bytes: int, dtype: DType) -> int:
        widest = max(1, max_vector_bytes // dtype.bytes)
        divisor = {"max": 1, "half": 2, "quarter": 4, "scalar": widest}[self.value]
        return max(1, widest // divisor)
