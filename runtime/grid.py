"""How many programs a kernel launches for a problem (pure: the launcher and the selector's estimates share it)."""
from __future__ import annotations

from collections import Counter

from gconv.schemas import Algorithm, Direction, KernelConfig, Problem


def cdiv(a: int, b: int) -> int:
    return -(-a // b)


def arrival_blocks(config: KernelConfig, problem: Problem) -> int:
    """A last-arrival kernel's output blocks, one arrival counter each: the programs of one split. The split is grid
    axis 0 of the depthwise kernels (splits, group blocks, filter programs), axis 2 of the direct ones (channel
    blocks, channel x tap, splits) and of the igemm ones (tiles, group blocks, splits)."""
    grid = tile_grid(config, problem)
    return grid[1] * grid[2] if config.algorithm is Algorithm.depthwise else grid[0] * grid[1]


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
    return row_tiles(config, problem) * col_tiles(config, problem), cdiv(p.G, config.groups_to_merge), config.split_k


def tile_rows_cols(config: KernelConfig, problem: Problem) -> tuple[int, int]:
    """The implicit-GEMM output one group block covers (merged groups widen it block-diagonally)."""
    p, gm = problem, config.groups_to_merge
    return {
        Direction.fwd: (p.N * p.Ho * p.Wo, gm * p.K),
        Direction.bwd_data: (p.N * p.Hi * p.Wi, gm * p.C),
        Direction.bwd_weight: (gm * p.K, p.Y * p.X * gm * p.C),
    }[p.direction]


def row_tiles(config: KernelConfig, problem: Problem) -> int:
    """Tiles along the implicit GEMM's rows. igemm fwd (bwd_data) pixel boxes tile each image's output (input) into
    tile_h x tile_w boxes. Otherwise igemm bwd_data tiles each stride-residue class of the input pixels
    (hi % stride_h, wi % stride_w) apart, N * cdiv(Hi, stride_h) * cdiv(Wi, stride_w) rows each (the rows past the
    image in a short class are masked), so that each class walks only the taps that reach it."""
    p = problem
    if config.tile_w and config.algorithm is Algorithm.igemm and p.direction is not Direction.bwd_weight:
        rows, cols = (p.Ho, p.Wo) if p.direction is Direction.fwd else (p.Hi, p.Wi)  # the pixel boxes a tile owns
        return p.N * cdiv(rows, config.tile_h) * cdiv(cols, config.tile_w)
    if p.direction is not Direction.bwd_data:
        return cdiv(tile_rows_cols(config, problem)[0], config.block_m)
    rows = p.N * cdiv(p.Hi, p.stride_h) * cdiv(p.Wi, p.stride_w)
    return p.stride_h * p.stride_w * cdiv(rows, config.block_m)


def col_tiles(config: KernelConfig, problem: Problem) -> int:
    """Tiles along the implicit GEMM's columns. Pixel boxes (igemm bwd_weight with tile_w) give each filter tap its
    own column tiles, the C channels of its (merged) groups rounded up to whole tiles (the channels past them are the
    next group's, never stored)."""
    p = problem
    if config.tile_w and p.direction is Direction.bwd_weight and config.algorithm is Algorithm.igemm:
        return p.Y * p.X * cdiv(config.groups_to_merge * p.C, config.block_n)
    return cdiv(tile_rows_cols(config, problem)[1], config.block_n)


def reached_residues(pad: int, dil: int, stride: int, size: int) -> list[int]:
    """Along one axis: how many filter taps reach each residue r of the input pixels (tap f reaches r when
    (r + pad - f * dil) % stride == 0), for the residues some tap reaches, by increasing residue."""
    counts = Counter((f * dil - pad) % stride for f in range(size))
    return [counts[r] for r in sorted(counts)]


def residue_taps(problem: Problem) -> list[int]:
    """bwd_data: the filter taps that reach each stride-residue class of input pixels (hi % stride_h, wi % stride_w),
    for the classes some tap reaches, in row-major order; [Y * X] at stride 1. Each tap reaches one class, so they sum
    to Y * X; the classes no tap reaches have a zero gradient and walk no tap."""
    p = problem
    rows = reached_residues(p.pad_h, p.dil_h, p.stride_h, p.Y)
    cols = reached_residues(p.pad_w, p.dil_w, p.stride_w, p.X)
    return [ty * tx for ty in rows for tx in cols]


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


def streamk_steps(config: KernelConfig, problem: Problem) -> int:
    """StreamK: BLOCK_K reduction steps per tile (N*Ho*Wo pixels); the work units are tiles x steps."""
    return cdiv(problem.N * problem.Ho * problem.Wo, config.block_k)
