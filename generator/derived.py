"""Pure functions from (config, arch) to the named quantities that constraints and filters read."""
from __future__ import annotations

from typing import Any

from gconv.schemas import Algorithm, ArchSpec, KernelConfig
from gconv.schemas.fields import TILE_ALIASES


def smem_bytes(config: KernelConfig) -> int:
    """Shared memory of the software-pipelined operand tiles (what Triton allocates for the main loop)."""
    if config.algorithm is not Algorithm.igemm:
        return 0
    return config.num_stages * (config.block_m + config.block_n) * config.block_k * config.dtype.bytes


def acc_registers_per_thread(config: KernelConfig, warp_size: int = 32) -> int:
    return config.accumulator_elements // (config.num_warps * warp_size)


def config_fields(config: KernelConfig) -> dict[str, Any]:
    """Config axes as plain values (enums as their strings), with the tile_* aliases."""
    fields = config.model_dump(mode="json")
    fields.update({alias: fields[field] for alias, field in TILE_ALIASES.items()})
    return fields


def constraint_environment(config: KernelConfig, arch: ArchSpec) -> dict[str, Any]:
    """Everything in schemas.fields.CONSTRAINT_FIELDS, for one config on one arch."""
    dot = arch.min_dot[config.dtype]
    env = config_fields(config)
    env.update({
        "elt_bytes": config.dtype.bytes,
        "threads": config.num_warps * arch.warp_size,
        "vector_bytes": config.vector_width * config.dtype.bytes,
        "smem_bytes": smem_bytes(config),
        "acc_registers_per_thread": acc_registers_per_thread(config, arch.warp_size),
        "min_dot_m": dot.m,
        "min_dot_n": dot.n,
        "min_dot_k": dot.k,
    })
    for field in ("name", "compute_capability", "sm_count", "max_smem_per_block_bytes", "registers_per_sm",
                  "max_registers_per_thread", "max_threads_per_block", "warp_size", "max_vector_bytes",
                  "l2_cache_bytes", "has_tma"):
        env[f"arch.{field}"] = getattr(arch, field)
    return env


def filter_environment(config: KernelConfig, rule: str) -> dict[str, Any]:
    """Everything in schemas.fields.FILTER_FIELDS, for one generated instance."""
    env = config_fields(config)
    env["name"] = config.name
    env["rule"] = rule
    return env
