"""How many programs a kernel launches for a problem (pure: the launcher and the selector's estimates share it)."""
from __future__ import annotations

from gconv.schemas import Algorithm, Direction, KernelConfig, Problem


def cdiv(a: int, b: int) -> int:
    return -(-a // b)


def tile_grid(config: KernelConfig, problem: Problem) -> tuple[int, int, int]:
    """Programs of the non-persistent launch: (tiles or pixel blocks, group blocks or channel blocks, splits)."""
    p = problem
    if config.algorithm is Algorithm.direct:
        if p.direction is Direction.fwd:
            return cdiv(p.N * p.Ho * p.Wo, config.block_m), cdiv(p.G * p.K, config.block_n), 1
        if p.direction is Direction.bwd_data:
            return cdiv(p.N * p.Hi * p.Wi, config.block_m), cdiv(p.G * p.C, config.block_n), 1
        return cdiv(p.G * p.K, config.block_n), p.C * p.Y * p.X, config.split_k
    gm = config.groups_to_merge
    rows, cols = tile_rows_cols(config, problem)
    return cdiv(rows, config.block_m) * cdiv(cols, config.block_n), cdiv(p.G, gm), config.split_k


def tile_rows_cols(config: KernelConfig, problem: Problem) -> tuple[int, int]:
    """The implicit-GEMM output one group block covers (merged groups widen it block-diagonally)."""
    p, gm = problem, config.groups_to_merge
    return {
        Direction.fwd: (p.N * p.Ho * p.Wo, gm * p.K),
        Direction.bwd_data: (p.N * p.Hi * p.Wi, gm * p.C),
        Direction.bwd_weight: (gm * p.K, p.Y * p.X * gm * p.C),
    }[p.direction]
