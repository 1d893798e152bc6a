"""ArchSpec: what one GPU architecture offers; the generator, the runtime and features all read it."""
from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field, model_validator

from .enums import DType


class DotShape(BaseModel):
    """Smallest tl.dot operand shape the tensor cores (through Triton) accept for a dtype."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    m: int = Field(gt=0)
    n: int = Field(gt=0)
    k: int = Field(gt=0)


class ArchSpec(BaseModel):
    """One file per architecture under rules/arch/: the single source of truth for hardware limits."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    name: str = Field(pattern=r"^sm_\d+$", description="e.g. sm_90")
    compute_capability: int = Field(gt=0, description="e.g. 90 for sm_90")
    gpus: list[str] = Field(min_length=1, description="marketing names of GPUs of this arch")
    sm_count: int = Field(gt=0, description="SMs of the reference GPU (used for waves and persistent grids)")
    max_smem_per_block_bytes: int = Field(gt=0, description="opt-in shared memory per block")
    registers_per_sm: int = Field(gt=0)
    max_registers_per_thread: int = Field(gt=0)
    max_threads_per_block: int = Field(gt=0)
    warp_size: int = Field(32, gt=0)
    max_vector_bytes: int = Field(gt=0, description="widest global load per thread")
    l2_cache_bytes: int = Field(gt=0)
    has_tma: bool = Field(description="tensor-memory-accelerator loads (tensor descriptors)")
    peak_tflops: dict[DType, float] = Field(description="dense tensor-core peak per dtype (fp32 means tf32)")
    roofline_tflops: dict[DType, float] = Field(
        description="achievable dense throughput per dtype, the compute roof of benchmark reports")
    roofline_bandwidth_gbs: float = Field(gt=0, description="achievable DRAM bandwidth, the memory roof")
    cuda_core_tflops: float = Field(gt=0, description="fp32 FMA peak without tensor cores (direct kernels)")
    dram_bandwidth_gbs: float = Field(gt=0)
    min_dot: dict[DType, DotShape] = Field(description="minimum tl.dot shape per dtype")

    @model_validator(mode="after")
    def _consistent(self) -> "ArchSpec":
        if self.name != f"sm_{self.compute_capability}":
            raise ValueError(f"name {self.name!r} does not match compute_capability {self.compute_capability}")
        missing = [d.value for d in DType if d not in self.min_dot]
        if missing:
            raise ValueError(f"min_dot lacks dtypes {missing}")
        return self

    @property
    def max_warps_per_block(self) -> int:
        return self.max_threads_per_block // self.warp_size
