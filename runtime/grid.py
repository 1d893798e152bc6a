"""How many programs a kernel launches for a problem (pure: the launcher and the selector's estimates share it)."""
from __future__ import annotations

from gconv.schemas import Algorithm, Direction, KernelConfig, Problem


def cdiv(a: int, b: int) -> int:
    return -(-a // b)


def tile_grid(config: KernelConfig, problem: Problem) -> tuple[int, int, int]:
    """Programs of the non-persistent launch: (tiles or pixel blocks, group blocks or channel blocks, splits)."""
    p = problem
    if config.algorithm is Algorithm.depthwise:
        return depthwise_grid(config, problem)
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


def depthwise_grid(config: KernelConfig, problem: Problem) -> tuple[int, int, int]:
    """(pixel tiles, group blocks, 1); bwd_data tiles each stride-residue class of the input pixels apart;
    bwd_weight: (splits of the tile walk, group blocks, filter rows)."""
    p, th, tw = problem, config.tile_h, config.tile_w
    groups = cdiv(p.G, config.block_n)
    if p.direction is Direction.fwd:
        return p.N * cdiv(p.Ho, th) * cdiv(p.Wo, tw), groups, 1
    if p.direction is Direction.bwd_data:
        classes = p.stride_h * p.stride_w
        return p.N * classes * cdiv(cdiv(p.Hi, p.stride_h), th) * cdiv(cdiv(p.Wi, p.stride_w), tw), groups, 1
    return config.split_k, groups, config.filter_size
