"""The feature engine: pure functions from (problem, kernel config, arch) to the numbers the models read.

Versioned: a model records FEATURE_VERSION and the names; it refuses features of another version. Change a
feature -> bump the version -> retrain.
"""
from __future__ import annotations

import math

import numpy as np

from gconv.runtime.grid import cdiv, tile_grid, tile_rows_cols
from gconv.schemas import Algorithm, ArchSpec, Direction, KernelConfig, Pipeline, Problem

from .analytic import estimate, problem_bytes, resident_blocks_per_sm

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


def feature_matrix(problem: Problem, candidates: list[tuple[KernelConfig, Problem]], arch: ArchSpec) -> np.ndarray:
    """One row per candidate (its config and the problem it runs, padded or not), columns FEATURE_NAMES."""
    base = problem_features(problem)
    rows = [base + kernel_features(config) + derived_features(config, runs, arch, problem)
            for config, runs in candidates]
    return np.asarray(rows, dtype=np.float64).reshape(len(rows), len(FEATURE_NAMES))
