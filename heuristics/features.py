"""The feature engine: pure functions from (problem, kernel config, arch) to the numbers the models read.

Versioned: a model records FEATURE_VERSION and the names; it refuses features of another version. Change a
feature -> bump the version -> retrain.
"""
from __future__ import annotations

import math
from typing import NamedTuple

import numpy as np

from gconv.runtime.grid import cdiv, tile_grid, tile_rows_cols
from gconv.schemas import Algorithm, ArchSpec, Direction, KernelConfig, Pipeline, Problem

from .analytic import (DIRECT_PEAK_FRACTION, FULL_EFFICIENCY_TILE, LAUNCH_LATENCY_S, PEAK_FRACTION, PERSISTENT_GAIN,
                       estimate, problem_bytes, resident_blocks_per_sm)

FEATURE_VERSION = 1

PROBLEM_FEATURES = ["N", "G", "C", "K", "Hi", "Wi", "Ho", "Wo", "Y", "X", "stride_h", "stride_w", "pad_h", "pad_w",
                    "dil_h", "dil_w", "log2_gemm_m", "log2_gemm_n", "log2_gemm_k", "log2_flops", "log2_bytes",
                    "arithmetic_intensity", "depthwise"]
KERNEL_FEATURES = ["direct", "block_m", "block_n", "block_k", "num_warps", "num_stages", "pipeline_tma",
                   "pipeline_persistent", "raster_group", "vector_width", "groups_to_merge", "split_k"]
DERIVED_FEATURES = ["log2_programs", "waves", "tail_utilisation", "waste_m", "waste_n", "waste_k", "log2_padded_work",
                    "work_per_program", "channel_padding_growth", "log2_analytic_seconds",
                    "log2_analytic_compute_s", "log2_analytic_memory_s"]
FEATURE_NAMES = PROBLEM_FEATURES + KERNEL_FEATURES + DERIVED_FEATURES


def problem_features(problem: Problem) -> list[float]:
    p, g = problem, problem.gemm
    flops, moved = p.flops, problem_bytes(p)
    return [p.N, p.G, p.C, p.K, p.Hi, p.Wi, p.Ho, p.Wo, p.Y, p.X, p.stride_h, p.stride_w, p.pad_h, p.pad_w,
            p.dil_h, p.dil_w, math.log2(g.M), math.log2(g.N), math.log2(g.K), math.log2(flops), math.log2(moved),
            flops / moved, float(p.C == 1)]


def kernel_features(config: KernelConfig) -> list[float]:
    c = config
    return [float(c.algorithm is Algorithm.direct), c.block_m, c.block_n, c.block_k, c.num_warps, c.num_stages,
            float(c.pipeline is Pipeline.tma), float(c.pipeline is Pipeline.persistent), c.raster_group,
            c.vector_width, c.groups_to_merge, c.split_k]


def derived_features(config: KernelConfig, problem: Problem, arch: ArchSpec,
                     original: Problem | None = None) -> list[float]:
    """Launch shape, waves, padding waste per GEMM axis and the analytic estimate.

    problem is what the kernel runs (after channel padding); original, when given, the problem before padding.
    """
    grid = tile_grid(config, problem)
    programs = grid[0] * grid[1] * grid[2]
    slots = arch.sm_count * resident_blocks_per_sm(config, arch)
    waves = programs / slots
    tail = programs / (cdiv(programs, slots) * slots)
    if config.algorithm is Algorithm.igemm:
        rows, cols = tile_rows_cols(config, problem)
        waste_m = cdiv(rows, config.block_m) * config.block_m / rows
        waste_n = cdiv(cols, config.block_n) * config.block_n / cols
        gemm_k = problem.gemm.K if config.direction is not Direction.bwd_weight else \
            cdiv(problem.gemm.K, config.split_k)
        waste_k = cdiv(gemm_k, config.block_k) * config.block_k / gemm_k
        padded_work = 2.0 * grid[0] * grid[1] * grid[2] * config.block_m * config.block_n * \
            cdiv(gemm_k, config.block_k) * config.block_k
    else:
        waste_m = waste_n = waste_k = 1.0
        padded_work = float(problem.flops)
    before = original or problem
    growth = (problem.C * problem.K) / (before.C * before.K)
    timing = estimate(config, problem, arch)
    return [math.log2(programs), waves, tail, waste_m, waste_n, waste_k, math.log2(padded_work),
            padded_work / programs, growth, math.log2(timing.seconds), math.log2(max(timing.compute_s, 1e-12)),
            math.log2(max(timing.memory_s, 1e-12))]


def feature_rows(problem: Problem, candidates: list[tuple[KernelConfig, Problem]], arch: ArchSpec) -> np.ndarray:
    """The reference definition of feature_matrix: the scalar rows above, stacked (one Python pass per candidate)."""
    base = problem_features(problem)
    rows = [base + kernel_features(config) + derived_features(config, runs, arch, problem)
            for config, runs in candidates]
    return np.asarray(rows, dtype=np.float64).reshape(len(rows), len(FEATURE_NAMES))


def feature_matrix(problem: Problem, candidates: list[tuple[KernelConfig, Problem]], arch: ArchSpec) -> np.ndarray:
    """One row per candidate (its config and the problem it runs, padded or not), columns FEATURE_NAMES.

    Vectorised over the candidates (the config columns cached per candidate list); equal to feature_rows up to
    floating-point rounding. A list whose configs and problems do not share one direction (no selector builds
    one) takes the scalar path.
    """
    if not candidates:
        return np.empty((0, len(FEATURE_NAMES)))
    configs, runs = zip(*candidates)
    kernels = _kernel_columns(configs, arch)
    distinct = _distinct(runs)
    if kernels.direction is None or any(p.direction is not kernels.direction for p in distinct.values()):
        return feature_rows(problem, candidates, arch)
    out = np.empty((len(configs), len(FEATURE_NAMES)))
    out[:, :_KERNEL_START] = problem_features(problem)
    out[:, _KERNEL_START:_DERIVED_START] = kernels.features
    out[:, _DERIVED_START:] = _derived_columns(kernels, _run_columns(runs, distinct, kernels.direction), problem).T
    return out


# ---- the vectorised path: derived_features and analytic.estimate over numpy columns, one entry per candidate ----

_KERNEL_START = len(PROBLEM_FEATURES)
_DERIVED_START = _KERNEL_START + len(KERNEL_FEATURES)
_LOG2_DERIVED = [DERIVED_FEATURES.index(name) for name in ("log2_programs", "log2_padded_work", "log2_analytic_seconds",
                                                            "log2_analytic_compute_s", "log2_analytic_memory_s")]
_KERNEL_CACHE_SIZE = 256


class _KernelColumns(NamedTuple):
    """What the features read of a candidate list's configs on an arch, one entry per candidate."""

    configs: tuple[KernelConfig, ...]  # held so that the ids keying the cache stay theirs
    arch: ArchSpec
    direction: Direction | None  # the configs' common direction (None when they mix directions)
    features: np.ndarray  # kernel_features rows
    igemm: np.ndarray  # bool
    tile: np.ndarray  # int64 (3, n): block_m, block_n, block_k
    tile_volume: np.ndarray  # block_m * block_n * block_k
    groups_to_merge: np.ndarray
    split_k: np.ndarray
    split_k_bytes: np.ndarray  # fp32 atomics traffic per weight element: 2 * split_k * 4 when split, else 0
    slots: np.ndarray  # SMs x resident blocks per SM
    peak_flops: np.ndarray  # float64: analytic.estimate's achievable FLOP/s
    bandwidth: np.ndarray  # float64: DRAM bytes/s x the config's memory efficiency
    gain: np.ndarray  # float64: PERSISTENT_GAIN for persistent kernels, else 1

    @property
    def block_m(self) -> np.ndarray:
        return self.tile[0]

    @property
    def block_n(self) -> np.ndarray:
        return self.tile[1]


class _RunColumns(NamedTuple):
    """Sizes of the problems the candidates run: Python ints when all run one problem, else int64 arrays."""

    N: int | np.ndarray
    G: int | np.ndarray
    C: int | np.ndarray
    K: int | np.ndarray
    Hi: int | np.ndarray
    Wi: int | np.ndarray
    Ho: int | np.ndarray
    Wo: int | np.ndarray
    Y: int | np.ndarray
    X: int | np.ndarray
    gemm_k: int | np.ndarray  # Problem.gemm.K
    flops: int | np.ndarray
    bytes: int | np.ndarray  # analytic.problem_bytes


_kernel_cache: dict[tuple[int, ...], _KernelColumns] = {}


def _kernel_columns(configs: tuple[KernelConfig, ...], arch: ArchSpec) -> _KernelColumns:
    """The config columns of a candidate list, cached by the identity of its configs and arch.

    Registry configs live as long as their registry, so a selector's lists hit. A hit is exact: the cached value
    holds the very objects whose ids make its key, so no other object can take those ids while it is cached.
    """
    key = (id(arch), *map(id, configs))
    cached = _kernel_cache.get(key)
    if cached is None:
        if len(_kernel_cache) >= _KERNEL_CACHE_SIZE:
            _kernel_cache.clear()
        cached = _kernel_cache[key] = _build_kernel_columns(configs, arch)
    return cached


def _build_kernel_columns(configs: tuple[KernelConfig, ...], arch: ArchSpec) -> _KernelColumns:
    directions = {c.direction for c in configs}
    tile = np.array([[c.block_m for c in configs], [c.block_n for c in configs], [c.block_k for c in configs]],
                    dtype=np.int64).reshape(3, len(configs))
    split_k = np.array([c.split_k for c in configs], dtype=np.int64)
    return _KernelColumns(
        configs=configs, arch=arch, direction=directions.pop() if len(directions) == 1 else None,
        features=np.array([kernel_features(c) for c in configs], dtype=np.float64),
        igemm=np.array([c.algorithm is Algorithm.igemm for c in configs], dtype=bool),
        tile=tile, tile_volume=tile.prod(axis=0),
        groups_to_merge=np.array([c.groups_to_merge for c in configs], dtype=np.int64),
        split_k=split_k, split_k_bytes=np.where(split_k > 1, 2 * split_k * 4, 0),
        slots=np.array([arch.sm_count * resident_blocks_per_sm(c, arch) for c in configs], dtype=np.int64),
        peak_flops=np.array([_peak_flops(c, arch) for c in configs], dtype=np.float64),
        bandwidth=np.array([arch.dram_bandwidth_gbs * 1e9 * _memory_efficiency(c, arch) for c in configs],
                           dtype=np.float64),
        gain=np.array([PERSISTENT_GAIN if c.pipeline is Pipeline.persistent else 1.0 for c in configs],
                      dtype=np.float64),
    )


def _peak_flops(config: KernelConfig, arch: ArchSpec) -> float:
    """analytic.estimate's peak: CUDA cores for direct kernels, tensor cores scaled by tile size for igemm."""
    if config.algorithm is Algorithm.direct:
        return arch.cuda_core_tflops * 1e12 * DIRECT_PEAK_FRACTION
    size_factor = min(1.0, config.block_m * config.block_n / FULL_EFFICIENCY_TILE) ** 0.35
    return arch.peak_tflops[config.dtype] * 1e12 * PEAK_FRACTION * size_factor


def _memory_efficiency(config: KernelConfig, arch: ArchSpec) -> float:
    """analytic.estimate's fraction of the DRAM bandwidth a config's loads reach."""
    base, slope = (0.25, 0.75) if config.algorithm is Algorithm.direct else (0.4, 0.6)
    return min(1.0, base + slope * config.vector_width * config.dtype.bytes / arch.max_vector_bytes)


def _distinct(runs: tuple[Problem, ...]) -> dict[int, Problem]:
    """The distinct problem objects of a candidate list by identity, in first-seen order (unpadded share one)."""
    distinct: dict[int, Problem] = {}
    for problem in runs:
        distinct.setdefault(id(problem), problem)
    return distinct


def _problem_fields(p: Problem) -> tuple[int, ...]:
    """The Problem fields _run_sizes reads, in its argument order."""
    return (p.N, p.G, p.C, p.K, p.Hi, p.Wi, p.Y, p.X, p.stride_h, p.stride_w, p.pad_h, p.pad_w, p.dil_h, p.dil_w,
            p.dtype.bytes)


def _run_columns(runs: tuple[Problem, ...], distinct: dict[int, Problem], direction: Direction) -> _RunColumns:
    """Run sizes per candidate: one problem's Python ints (they broadcast), or an int64 array per field."""
    if len(distinct) == 1:
        return _run_sizes(*_problem_fields(runs[0]), direction=direction)
    table = np.array([_problem_fields(p) for p in distinct.values()], dtype=np.int64)
    position = {key: i for i, key in enumerate(distinct)}
    return _run_sizes(*table[[position[id(p)] for p in runs]].T, direction=direction)


def _run_sizes(N, G, C, K, Hi, Wi, Y, X, stride_h, stride_w, pad_h, pad_w, dil_h, dil_w, elt, *,
               direction: Direction) -> _RunColumns:
    """Problem.Ho/Wo/gemm.K/flops and analytic.problem_bytes, for ints or int64 arrays alike."""
    Ho = (Hi + 2 * pad_h - dil_h * (Y - 1) - 1) // stride_h + 1
    Wo = (Wi + 2 * pad_w - dil_w * (X - 1) - 1) // stride_w + 1
    gemm_k = C * Y * X if direction is Direction.fwd else K * Y * X if direction is Direction.bwd_data else N * Ho * Wo
    flops = 2 * N * G * K * C * Ho * Wo * Y * X
    moved = (N * G * C * Hi * Wi + G * K * C * Y * X + N * G * K * Ho * Wo) * elt
    return _RunColumns(N, G, C, K, Hi, Wi, Ho, Wo, Y, X, gemm_k, flops, moved)


def _gemm_extents(k: _KernelColumns, r: _RunColumns) -> np.ndarray:
    """tile_rows_cols and the GEMM-K one split reduces, per candidate: an int64 (3, n) array of M, N, K extents."""
    gm = k.groups_to_merge
    if k.direction is Direction.fwd:
        rows, cols = r.N * r.Ho * r.Wo, gm * r.K
    elif k.direction is Direction.bwd_data:
        rows, cols = r.N * r.Hi * r.Wi, gm * r.C
    else:
        rows, cols = gm * r.K, r.Y * r.X * gm * r.C
    extents = np.empty(k.tile.shape, dtype=np.int64)
    extents[0], extents[1] = rows, cols
    extents[2] = cdiv(r.gemm_k, k.split_k)  # split_k > 1 only for bwd_weight: gemm.K itself elsewhere
    return extents


def _direct_grid(k: _KernelColumns, r: _RunColumns) -> tuple[np.ndarray, np.ndarray]:
    """tile_grid's first two axes for direct kernels: (pixel blocks, channel blocks), bwd_weight (channel blocks,
    C*Y*X)."""
    if k.direction is Direction.bwd_weight:
        return cdiv(r.G * r.K, k.block_n), r.C * r.Y * r.X
    pixels, channels = (r.N * r.Ho * r.Wo, r.G * r.K) if k.direction is Direction.fwd else \
        (r.N * r.Hi * r.Wi, r.G * r.C)
    return cdiv(pixels, k.block_m), cdiv(channels, k.block_n)


def _derived_columns(k: _KernelColumns, r: _RunColumns, original: Problem) -> np.ndarray:
    """derived_features and the analytic estimate per candidate: one row per DERIVED_FEATURES name."""
    extents = _gemm_extents(k, r)
    steps = cdiv(extents, k.tile)  # tiles along M and N, block_k steps along K
    direct_x, direct_y = _direct_grid(k, r)
    programs = np.where(k.igemm, steps[0] * steps[1], direct_x) * \
        np.where(k.igemm, cdiv(r.G, k.groups_to_merge), direct_y) * k.split_k
    tail = programs / (cdiv(programs, k.slots) * k.slots)
    padded_work = np.where(k.igemm, 2.0 * programs * k.tile_volume * steps[2], r.flops)  # also analytic's work
    compute_s = padded_work / (k.peak_flops * tail)  # analytic.estimate's utilisation is the tail utilisation
    memory_s = (r.bytes + k.split_k_bytes * (r.G * r.K * r.C * r.Y * r.X)) / k.bandwidth
    seconds = np.maximum(compute_s, memory_s) * k.gain + LAUNCH_LATENCY_S
    derived = np.empty((len(DERIVED_FEATURES), len(k.configs)))
    derived[0], derived[1], derived[2] = programs, programs / k.slots, tail
    derived[3:6] = np.where(k.igemm, steps * k.tile / extents, 1.0)  # waste_m, waste_n, waste_k
    derived[6], derived[7] = padded_work, padded_work / programs
    derived[8] = (r.C * r.K) / (original.C * original.K)  # channel padding growth
    derived[9], derived[10], derived[11] = seconds, compute_s, memory_s
    np.maximum(derived[10:], 1e-12, out=derived[10:])
    derived[_LOG2_DERIVED] = np.log2(derived[_LOG2_DERIVED])
    return derived
