"""The feature engine: pure functions from (problem, kernel config, arch) to the numbers the models read.

Versioned: a model records FEATURE_VERSION and the names; it refuses features of another version. Change a
feature -> bump the version -> retrain.

problem_features, kernel_features and derived_features (with analytic.estimate) define the features one row at a
time; feature_matrix, on selection's hot path, computes the same rows with numpy over all candidates at once
(tests/test_features_vectorised.py holds the two together: change a feature in both).
"""
from __future__ import annotations

import math
from typing import NamedTuple

import numpy as np

from gconv.runtime.grid import cdiv, col_tiles, residue_taps, row_tiles, tile_grid, tile_rows_cols
from gconv.runtime.support import forward_twin
from gconv.schemas import Algorithm, ArchSpec, Direction, KernelConfig, Pipeline, Problem

from .analytic import (LAUNCH_LATENCY_S, PERSISTENT_GAIN, estimate, memory_efficiency, padded_reduction,
                       padding_copy_seconds, peak_flops, problem_bytes, resident_blocks_per_sm, twin_filter_seconds)

FEATURE_VERSION = 12  # 2: the depthwise algorithm (algorithm_depthwise, tile_w, filter_size, multiplier); 3: tap_major;
# 4: two_stage; 5: pipeline_streamk; 6: explicit_gemm; 7: sliding_rows; 8: waste_m / waste_n of the direct and depthwise
# kernels (fwd, bwd_data) count their pixel and channel blocks' padding (they were 1); 9: vendor (the cuDNN candidate);
# 10: the analytic seconds and memory seconds of a padded candidate include channel padding's copies (as the rule's
# predicted time does); 11: last_arrival (a split's twins that reduce by last arrival, beside the atomic ones in the
# same pool since the igemm twins: without it their rows were equal and the name order always chose the atomic one);
# 12: aligned_k (the forward twins that store whole vectors, beside their bases for K % VEC == 0, K % 16 != 0)

PROBLEM_FEATURES = ["N", "G", "C", "K", "Hi", "Wi", "Ho", "Wo", "Y", "X", "stride_h", "stride_w", "pad_h", "pad_w",
                    "dil_h", "dil_w", "log2_gemm_m", "log2_gemm_n", "log2_gemm_k", "log2_flops", "log2_bytes",
                    "arithmetic_intensity", "depthwise"]
KERNEL_FEATURES = ["direct", "block_m", "block_n", "block_k", "num_warps", "num_stages", "pipeline_tma",
                   "pipeline_persistent", "raster_group", "vector_width", "groups_to_merge", "split_k", "algorithm_depthwise",
                   "tile_w", "filter_size", "multiplier", "tap_major", "two_stage", "pipeline_streamk",
                   "explicit_gemm", "sliding_rows", "last_arrival", "aligned_k"]
DERIVED_FEATURES = ["log2_programs", "waves", "tail_utilisation", "waste_m", "waste_n", "waste_k", "log2_padded_work",
                    "work_per_program", "channel_padding_growth", "log2_analytic_seconds",
                    "log2_analytic_compute_s", "log2_analytic_memory_s"]
# 1 for the vendor path (runtime/registry.py VENDOR_KERNEL: cuDNN through PyTorch), whose row is its problem's features
# and zeros (vendor_row); 0 for every generated kernel.
VENDOR_FEATURES = ["vendor"]
FEATURE_NAMES = PROBLEM_FEATURES + KERNEL_FEATURES + DERIVED_FEATURES + VENDOR_FEATURES


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
            c.vector_width, c.groups_to_merge, c.split_k, float(c.algorithm is Algorithm.depthwise), c.tile_w,
            c.filter_size, c.multiplier, float(c.tap_major), float(c.two_stage), float(c.pipeline is Pipeline.streamk),
            float(c.explicit_gemm), c.sliding_rows, float(c.last_arrival), float(c.aligned_k)]


def derived_features(config: KernelConfig, problem: Problem, arch: ArchSpec,
                     original: Problem | None = None, extra_seconds: float = 0.0) -> list[float]:
    """Launch shape, waves, padding waste per GEMM axis and the analytic estimate.

    problem is what the kernel runs (after channel padding); original, when given, the problem before padding. A
    via_fwd config's are its forward kernel's on the forward twins, the filter's transposition added to the analytic
    seconds and memory seconds (extra_seconds: what is added there).
    """
    if config.via_fwd:
        return derived_features(config.kernel, forward_twin(problem), arch, forward_twin(original or problem),
                                twin_filter_seconds(problem, arch))
    grid = tile_grid(config, problem)
    programs = grid[0] * grid[1] * grid[2]
    slots = arch.sm_count * resident_blocks_per_sm(config, arch)
    waves = programs / slots
    tail = programs / (cdiv(programs, slots) * slots)
    if config.algorithm is Algorithm.igemm:
        rows, cols = tile_rows_cols(config, problem)
        waste_m = row_tiles(config, problem) * config.block_m / rows
        waste_n = col_tiles(config, problem) * config.block_n / cols
        if config.tap_major:  # each tap's channels (fwd) or filters (bwd_data) padded to block_k
            per_tap = problem.C if config.direction is Direction.fwd else problem.K
            waste_k = cdiv(per_tap, config.block_k) * config.block_k / per_tap
        elif config.tile_w and config.direction is not Direction.bwd_weight:  # pixel boxes: the merged ones padded
            per_tap = problem.C if config.direction is Direction.fwd else problem.K
            waste_k = cdiv(config.groups_to_merge * per_tap, config.block_k) * config.block_k / per_tap
        elif config.direction is Direction.bwd_data:  # the taps each stride-residue class walks
            walked = [problem.K * taps for taps in residue_taps(problem)]
            waste_k = sum(cdiv(k, config.block_k) * config.block_k for k in walked) / sum(walked)
        else:
            gemm_k = cdiv(problem.gemm.K, config.split_k)  # fwd: its flat walk, split or not
            waste_k = cdiv(gemm_k, config.block_k) * config.block_k / gemm_k
        padded_work = 2.0 * col_tiles(config, problem) * grid[1] * config.block_m * config.block_n * \
            padded_reduction(config, problem)
    else:
        waste_m, waste_n = cuda_core_waste(config, problem)
        waste_k = 1.0
        padded_work = float(problem.flops)
    before = original or problem
    growth = (problem.C * problem.K) / (before.C * before.K)
    timing = estimate(config, problem, arch)
    copies = padding_copy_seconds(before, problem.C, problem.K, arch)  # 0 unpadded
    return [math.log2(programs), waves, tail, waste_m, waste_n, waste_k, math.log2(padded_work),
            padded_work / programs, growth, math.log2(timing.seconds + copies + extra_seconds),
            math.log2(max(timing.compute_s, 1e-12)), math.log2(max(timing.memory_s + copies + extra_seconds, 1e-12))]


def cuda_core_waste(config: KernelConfig, problem: Problem) -> tuple[float, float]:
    """waste_m and waste_n of a direct or depthwise kernel: its pixel blocks (depthwise: tile_h x tile_w tiles of the
    output rows and columns, bwd_data's per stride-residue class) and channel blocks (depthwise: groups) over what they
    cover. bwd_weight's reduction splits are not counted: (1, 1)."""
    p, c = problem, config
    if p.direction is Direction.bwd_weight:
        return 1.0, 1.0
    fwd = p.direction is Direction.fwd
    if c.algorithm is Algorithm.depthwise:
        rows, cols = (p.Ho, p.Wo) if fwd else (cdiv(p.Hi, p.stride_h), cdiv(p.Wi, p.stride_w))
        tiled = cdiv(rows, c.tile_h) * c.tile_h * cdiv(cols, c.tile_w) * c.tile_w
        return tiled / (rows * cols), cdiv(p.G, c.block_n) * c.block_n / p.G
    pixels, channels = (p.N * p.Ho * p.Wo, p.G * p.K) if fwd else (p.N * p.Hi * p.Wi, p.G * p.C)
    return cdiv(pixels, c.block_m) * c.block_m / pixels, cdiv(channels, c.block_n) * c.block_n / channels


def feature_rows(problem: Problem, candidates: list[tuple[KernelConfig, Problem]], arch: ArchSpec) -> np.ndarray:
    """The reference definition of feature_matrix: the scalar rows above, stacked (one Python pass per candidate)."""
    base = problem_features(problem)
    rows = [base + kernel_features(config) + derived_features(config, runs, arch, problem) + [0.0]
            for config, runs in candidates]
    return np.asarray(rows, dtype=np.float64).reshape(len(rows), len(FEATURE_NAMES))


def feature_matrix(problem: Problem, candidates: list[tuple[KernelConfig, Problem]], arch: ArchSpec) -> np.ndarray:
    """One row per candidate (its config and the problem it runs, padded or not), columns FEATURE_NAMES.

    Vectorised over the candidates, the config columns cached per candidate list; equal to feature_rows up to
    floating-point rounding. A list whose configs and problems do not share one direction (no selector builds
    one) takes the scalar path.
    """
    if not candidates:
        return np.empty((0, len(FEATURE_NAMES)))
    if any(config.via_fwd for config, _ in candidates):
        return _with_via_rows(problem, candidates, arch)
    return _vectorised(problem, candidates, arch)


def _vectorised(problem: Problem, candidates: list[tuple[KernelConfig, Problem]], arch: ArchSpec,
                extra_seconds: np.ndarray | float = 0.0) -> np.ndarray:
    """feature_matrix of a list without via_fwd candidates (derived_features' extra_seconds per candidate: only
    _with_via_rows passes any, for its forward kernels on one twin, never a list of mixed directions)."""
    kernels = _kernel_columns(candidates, arch)
    distinct = {id(runs): runs for _, runs in candidates}  # the problems run, by identity (unpadded share one)
    if kernels.direction is None or any(p.direction is not kernels.direction for p in distinct.values()):
        return feature_rows(problem, candidates, arch)
    out = np.empty((len(candidates), len(FEATURE_NAMES)))
    out[:, :_KERNEL_START] = problem_features(problem)
    out[:, _KERNEL_START:_DERIVED_START] = kernels.features
    _fill_derived(out[:, _DERIVED_START:_VENDOR].T, kernels, _run_columns(candidates, distinct, kernels.direction),
                  problem, extra_seconds)
    out[:, _VENDOR] = 0.0
    return out


def _with_via_rows(problem: Problem, candidates: list[tuple[KernelConfig, Problem]], arch: ArchSpec) -> np.ndarray:
    """feature_matrix of a list with via_fwd candidates: their rows are their forward kernels' on the forward twins
    (vectorised as one list), with the problem's own features and the filter's transposition added to the analytic
    seconds (derived_features); the others' as ever."""
    via = [i for i, (config, _) in enumerate(candidates) if config.via_fwd]
    native = [i for i, (config, _) in enumerate(candidates) if not config.via_fwd]
    out = np.empty((len(candidates), len(FEATURE_NAMES)))
    if native:
        out[native] = _vectorised(problem, [candidates[i] for i in native], arch)
    runs = [candidates[i][1] for i in via]
    transposition = {id(r): twin_filter_seconds(r, arch) for r in runs}
    twins = [(candidates[i][0].kernel, forward_twin(r)) for i, r in zip(via, runs)]  # one twin object a problem
    rows = _vectorised(forward_twin(problem), twins, arch, np.array([transposition[id(r)] for r in runs]))
    rows[:, :_KERNEL_START] = problem_features(problem)
    out[via] = rows
    return out


def vendor_row(problem: Problem) -> np.ndarray:
    """The vendor path's feature row: the problem's features, zeros for the kernel and derived ones (it has no tiles),
    and vendor = 1."""
    row = np.zeros(len(FEATURE_NAMES))
    row[:_KERNEL_START] = problem_features(problem)
    row[_VENDOR] = 1.0
    return row


# ---- The vectorised path: derived_features and analytic.estimate over numpy columns, one entry per candidate.
# Sizes are float64: integers below 2**53 are exact, and so is ceil(a / b) of integers a, b with a below 2**52
# (a / b lies at least 1/b from the integers around it), which is -(-a // b). Every size a feature divides is far
# below that (tiles, programs, GEMM extents); products such as the work may round, as in the scalar rows.

_KERNEL_START = len(PROBLEM_FEATURES)
_DERIVED_START = _KERNEL_START + len(KERNEL_FEATURES)
_VENDOR = _DERIVED_START + len(DERIVED_FEATURES)
_WASTE = slice(DERIVED_FEATURES.index("waste_m"), DERIVED_FEATURES.index("waste_k") + 1)
_ESTIMATE = slice(DERIVED_FEATURES.index("log2_analytic_seconds"), DERIVED_FEATURES.index("log2_analytic_memory_s") + 1)
_ESTIMATE_FLOORS = np.array([[0.0], [1e-12], [1e-12]])  # derived_features floors compute_s and memory_s
_KERNEL_CACHE_SIZE = 256  # candidate lists
_CONFIG_CACHE_SIZE = 8192  # configs x archs


class _KernelColumns(NamedTuple):
    """What the features read of a candidate list's configs on an arch: one float64 entry per candidate."""

    configs: tuple[KernelConfig, ...]  # held so that the ids keying the cache stay theirs
    arch: ArchSpec
    direction: Direction | None  # the configs' common direction (None when they mix directions)
    features: np.ndarray  # kernel_features rows
    divisors: np.ndarray  # (4, n): block_m, block_n, block_k, groups_to_merge; all 1 for CUDA-core kernels
    multipliers: np.ndarray  # (4, n): what scales the problem sizes of _extents to tile_rows_cols (merged groups)
    cuda_core: np.ndarray | None  # bool mask of the direct and depthwise kernels (None when there are none)
    depthwise: np.ndarray | None  # bool mask of the depthwise kernels (None when there are none)
    tap_major: np.ndarray | None  # bool mask of the tap-major igemm kernels (None when there are none)
    pixel_boxes: np.ndarray | None  # bool mask of the pixel-box igemm bwd_weight kernels (None when there are none)
    output_boxes: np.ndarray | None  # bool mask of the pixel-box igemm fwd / bwd_data kernels (None when none)
    block_m: np.ndarray
    block_n: np.ndarray
    tile_h: np.ndarray  # depthwise pixel tile and fwd / bwd_data pixel box rows and columns (1 for the others)
    tile_w: np.ndarray
    filter_size: np.ndarray
    splits: np.ndarray  # split_k of every config
    split_k: np.ndarray | None  # None when no config splits GEMM-K
    split_k_bytes: np.ndarray  # fp32 atomics traffic per result element (weight; fwd: output): 2 * split_k * 4 when
    # split, else 0
    slots: np.ndarray  # SMs x resident blocks per SM
    double_tile_volume: np.ndarray  # 2 * block_m * block_n * block_k
    peak_flops: np.ndarray  # analytic.estimate's achievable FLOP/s
    bandwidth: np.ndarray  # DRAM bytes/s x the config's memory efficiency
    gain: np.ndarray | None  # PERSISTENT_GAIN for persistent and StreamK kernels, else 1 (None when there are none)


class _RunColumns(NamedTuple):
    """Sizes of the problems the candidates run: Python ints when all run one problem, else float64 arrays."""

    N: int | np.ndarray
    G: int | np.ndarray
    C: int | np.ndarray
    K: int | np.ndarray
    Hi: int | np.ndarray
    Wi: int | np.ndarray
    Ho: int | np.ndarray
    Wo: int | np.ndarray
    stride_h: int | np.ndarray
    stride_w: int | np.ndarray
    Y: int | np.ndarray
    X: int | np.ndarray
    gemm_k: int | np.ndarray  # Problem.gemm.K
    flops: int | np.ndarray
    bytes: int | np.ndarray  # analytic.problem_bytes


_kernel_cache: dict[tuple[int, ...], _KernelColumns] = {}


def _kernel_columns(candidates: list[tuple[KernelConfig, Problem]], arch: ArchSpec) -> _KernelColumns:
    """The config columns of a candidate list, cached by the identity of its configs and arch.

    Registry configs live as long as their registry, so a selector's lists hit. A hit is exact: the cached value
    holds the very objects whose ids make its key, so no other object can take those ids while it is cached.
    """
    key = (id(arch), *[id(config) for config, _ in candidates])
    cached = _kernel_cache.get(key)
    if cached is None:
        if len(_kernel_cache) >= _KERNEL_CACHE_SIZE:
            _kernel_cache.clear()
        cached = _kernel_cache[key] = _build_kernel_columns(tuple(config for config, _ in candidates), arch)
    return cached


class _ConfigNumbers(NamedTuple):
    """One config's entries of the _KernelColumns arrays, same meanings (a tuple gives one entry per row)."""

    features: tuple[float, ...]
    divisors: tuple[int, int, int, int]
    multipliers: tuple[int, int, int, int]
    cuda_core: bool
    depthwise: bool
    tap_major: bool
    pixel_boxes: bool
    output_boxes: bool
    block_m: int
    block_n: int
    tile_h: int
    tile_w: int
    filter_size: int
    split_k: int
    slots: int
    double_tile_volume: int
    peak_flops: float
    bandwidth: float
    gain: float


_config_cache: dict[tuple[int, int], tuple[KernelConfig, ArchSpec, np.ndarray]] = {}


def _config_row(config: KernelConfig, arch: ArchSpec) -> np.ndarray:
    """A config's _ConfigNumbers flattened, cached by identity as _kernel_columns caches: a new candidate list of
    known configs costs a lookup per config."""
    key = (id(config), id(arch))
    cached = _config_cache.get(key)
    if cached is None:
        if len(_config_cache) >= _CONFIG_CACHE_SIZE:
            _config_cache.clear()
        numbers = _config_numbers(config, arch)
        row = np.array([*numbers.features, *numbers.divisors, *numbers.multipliers, *numbers[3:]], dtype=np.float64)
        cached = _config_cache[key] = (config, arch, row)
    return cached[2]


def _config_numbers(c: KernelConfig, arch: ArchSpec) -> _ConfigNumbers:
    """The per-config arithmetic of derived_features and analytic.estimate, done once (Python numbers)."""
    cuda_core = c.algorithm is not Algorithm.igemm
    depthwise = c.algorithm is Algorithm.depthwise
    boxes = bool(c.tile_w) and not cuda_core
    output_boxes = boxes and c.direction is not Direction.bwd_weight  # boxes of the pixels a tile owns
    merge = c.groups_to_merge
    return _ConfigNumbers(
        features=tuple(kernel_features(c)),
        divisors=(1, 1, 1, 1) if cuda_core else (c.block_m, c.block_n, c.block_k, merge),
        multipliers=(merge if c.direction is Direction.bwd_weight else 1, merge, 1, 1), cuda_core=cuda_core,
        depthwise=depthwise, tap_major=c.tap_major, pixel_boxes=boxes and not output_boxes,
        output_boxes=output_boxes, block_m=c.block_m, block_n=c.block_n,
        tile_h=c.tile_h if depthwise or output_boxes else 1, tile_w=c.tile_w if depthwise or output_boxes else 1,
        filter_size=c.filter_size if depthwise else 1, split_k=c.split_k,
        slots=arch.sm_count * resident_blocks_per_sm(c, arch),
        double_tile_volume=2 * c.block_m * c.block_n * c.block_k, peak_flops=peak_flops(c, arch),
        bandwidth=arch.dram_bandwidth_gbs * 1e9 * memory_efficiency(c, arch),
        gain=PERSISTENT_GAIN if c.pipeline in (Pipeline.persistent, Pipeline.streamk) else 1.0)


def _build_kernel_columns(configs: tuple[KernelConfig, ...], arch: ArchSpec) -> _KernelColumns:
    """The configs' cached rows stacked into one array per _KernelColumns field."""
    directions = {c.direction for c in configs}
    table = np.array([_config_row(c, arch) for c in configs]).T.copy()  # one row per flattened entry
    f = len(KERNEL_FEATURES)
    n = _ConfigNumbers(table[:f], table[f:f + 4], table[f + 4:f + 8], *table[f + 8:])
    return _KernelColumns(
        configs=configs, arch=arch, direction=directions.pop() if len(directions) == 1 else None,
        features=n.features.T.copy(), divisors=n.divisors, multipliers=n.multipliers,
        cuda_core=n.cuda_core.astype(bool) if n.cuda_core.any() else None,
        depthwise=n.depthwise.astype(bool) if n.depthwise.any() else None,
        tap_major=n.tap_major.astype(bool) if n.tap_major.any() else None,
        pixel_boxes=n.pixel_boxes.astype(bool) if n.pixel_boxes.any() else None,
        output_boxes=n.output_boxes.astype(bool) if n.output_boxes.any() else None,
        block_m=n.block_m, block_n=n.block_n,
        tile_h=n.tile_h, tile_w=n.tile_w, filter_size=n.filter_size, splits=n.split_k,
        split_k=n.split_k if (n.split_k > 1).any() else None,
        split_k_bytes=np.where(n.split_k > 1, 2 * n.split_k * 4, 0.0),
        slots=n.slots, double_tile_volume=n.double_tile_volume, peak_flops=n.peak_flops, bandwidth=n.bandwidth,
        gain=n.gain if (n.gain != 1.0).any() else None,
    )


def _problem_fields(p: Problem) -> tuple[int, ...]:
    """The Problem fields _run_sizes reads, in its argument order."""
    return (p.N, p.G, p.C, p.K, p.Hi, p.Wi, p.Y, p.X, p.stride_h, p.stride_w, p.pad_h, p.pad_w, p.dil_h, p.dil_w,
            p.dtype.bytes)


def _run_columns(candidates: list[tuple[KernelConfig, Problem]], distinct: dict[int, Problem],
                 direction: Direction) -> _RunColumns:
    """Run sizes per candidate: one problem's Python ints (they broadcast), or a float64 array per field.

    distinct maps id -> problem for the problems the candidates run; padded copies of one size count once.
    """
    if len(distinct) == 1:
        return _run_sizes(*_problem_fields(candidates[0][1]), direction=direction)
    fields = {key: _problem_fields(problem) for key, problem in distinct.items()}
    sizes = {values: _run_sizes(*values, direction=direction) for values in fields.values()}
    if len(sizes) == 1:
        return next(iter(sizes.values()))
    position = {values: i for i, values in enumerate(sizes)}
    row = {key: position[values] for key, values in fields.items()}
    table = np.array(list(sizes.values()), dtype=np.float64)
    return _RunColumns(*table[[row[id(runs)] for _, runs in candidates]].T)


def _run_sizes(N, G, C, K, Hi, Wi, Y, X, stride_h, stride_w, pad_h, pad_w, dil_h, dil_w, elt, *,
               direction: Direction) -> _RunColumns:
    """Problem.Ho/Wo/gemm.K/flops and analytic.problem_bytes from a problem's fields (Python ints)."""
    Ho = (Hi + 2 * pad_h - dil_h * (Y - 1) - 1) // stride_h + 1
    Wo = (Wi + 2 * pad_w - dil_w * (X - 1) - 1) // stride_w + 1
    gemm_k = C * Y * X if direction is Direction.fwd else K * Y * X if direction is Direction.bwd_data else N * Ho * Wo
    flops = 2 * N * G * K * C * Ho * Wo * Y * X
    moved = (N * G * C * Hi * Wi + G * K * C * Y * X + N * G * K * Ho * Wo) * elt
    return _RunColumns(N, G, C, K, Hi, Wi, Ho, Wo, stride_h, stride_w, Y, X, gemm_k, flops, moved)


def _extents(k: _KernelColumns, r: _RunColumns) -> np.ndarray:
    """What _KernelColumns.divisors divide, per candidate: tile_rows_cols, the GEMM-K one split reduces, and G."""
    if k.direction is Direction.fwd:
        base = r.N * r.Ho * r.Wo, r.K, r.gemm_k, r.G
    elif k.direction is Direction.bwd_data:
        base = r.N * r.Hi * r.Wi, r.C, r.gemm_k, r.G
    else:
        base = r.K, r.Y * r.X * r.C, r.gemm_k, r.G
    extents = np.array(base, dtype=np.float64).reshape(4, -1) * k.multipliers
    if k.split_k is not None:
        np.ceil(extents[2] / k.split_k, out=extents[2])  # split_k > 1 only for bwd_weight and fwd
    return extents


def _direct_programs(k: _KernelColumns, r: _RunColumns) -> np.ndarray:
    """tile_grid's program count as direct kernels launch it: pixel blocks x channel blocks (bwd_weight: channel
    blocks x C*Y*X x splits)."""
    if k.direction is Direction.bwd_weight:
        programs = np.ceil(r.G * r.K / k.block_n) * (r.C * r.Y * r.X)
        return programs if k.split_k is None else programs * k.split_k
    pixels, channels = (r.N * r.Ho * r.Wo, r.G * r.K) if k.direction is Direction.fwd else \
        (r.N * r.Hi * r.Wi, r.G * r.C)
    return np.ceil(pixels / k.block_m) * np.ceil(channels / k.block_n)


def _depthwise_programs(k: _KernelColumns, r: _RunColumns) -> np.ndarray:
    """grid.depthwise_grid's program count: pixel tiles (bwd_data: per stride-residue class) x group blocks
    (bwd_weight: splits x group blocks x filter rows)."""
    groups = np.ceil(r.G / k.block_n)
    if k.direction is Direction.fwd:
        return r.N * np.ceil(r.Ho / k.tile_h) * np.ceil(r.Wo / k.tile_w) * groups
    if k.direction is Direction.bwd_data:
        rows, cols = np.ceil(r.Hi / r.stride_h), np.ceil(r.Wi / r.stride_w)
        return r.N * (r.stride_h * r.stride_w) * np.ceil(rows / k.tile_h) * np.ceil(cols / k.tile_w) * groups
    return k.splits * groups * k.filter_size


def _cuda_core_waste(k: _KernelColumns, r: _RunColumns) -> np.ndarray:
    """cuda_core_waste's (waste_m, waste_n) of fwd / bwd_data, per candidate (the igemm entries are not used)."""
    if k.direction is Direction.fwd:
        pixels, channels, rows, cols = r.N * r.Ho * r.Wo, r.G * r.K, r.Ho, r.Wo
    else:
        pixels, channels = r.N * r.Hi * r.Wi, r.G * r.C
        rows, cols = np.ceil(np.divide(r.Hi, r.stride_h)), np.ceil(np.divide(r.Wi, r.stride_w))
    tiled = np.ceil(rows / k.tile_h) * k.tile_h * np.ceil(cols / k.tile_w) * k.tile_w
    depthwise = k.depthwise if k.depthwise is not None else False
    waste_m = np.where(depthwise, tiled / (rows * cols), np.ceil(pixels / k.block_m) * k.block_m / pixels)
    waste_n = np.where(depthwise, np.ceil(r.G / k.block_n) * k.block_n / r.G,
                       np.ceil(channels / k.block_n) * k.block_n / channels)
    return np.array([waste_m, waste_n])


def _residue_steps(k: _KernelColumns, r: _RunColumns, original: Problem, steps: np.ndarray
                   ) -> tuple[np.ndarray, np.ndarray, np.ndarray | bool]:
    """grid.row_tiles and analytic.padded_reduction of igemm bwd_data at stride > 1: set the igemm entries of
    steps[0] to the row tiles of every stride-residue class and of steps[2] to the block_k steps the classes walk
    together; return the row tiles per class, those steps (the padded work is per class x steps) and the igemm
    mask."""
    p = original  # the stride geometry; runs differ from it only in C and K (channel padding)
    per_class = np.ceil(p.N * cdiv(p.Hi, p.stride_h) * cdiv(p.Wi, p.stride_w) / k.divisors[0])
    walked = sum(np.ceil(r.K * taps / k.divisors[2]) for taps in residue_taps(p))
    igemm = True if k.cuda_core is None else ~k.cuda_core
    np.copyto(steps[0], p.stride_h * p.stride_w * per_class, where=igemm)
    np.copyto(steps[2], walked, where=igemm)
    return per_class, walked, igemm


def _fill_derived(derived: np.ndarray, k: _KernelColumns, r: _RunColumns, original: Problem,
                  extra_seconds: np.ndarray | float = 0.0) -> None:
    """Write derived_features, the analytic estimate included, into derived: one row per DERIVED_FEATURES name
    (extra_seconds: derived_features', per candidate)."""
    (log2_programs, waves, tail, _, _, _, log2_padded_work, work_per_program, growth, log2_seconds, log2_compute_s,
     log2_memory_s) = derived
    extents = _extents(k, r)
    steps = np.ceil(extents / k.divisors)  # tiles along M and N, block_k steps along K, group blocks
    residue = k.direction is Direction.bwd_data and original.stride_h * original.stride_w > 1
    if residue:  # igemm bwd_data tiles each stride-residue class apart and walks only the taps that reach it
        per_class, walked, igemm = _residue_steps(k, r, original, steps)
    if k.tap_major is not None:  # every tap's channels (fwd) or filters (bwd_data) padded to block_k
        per_tap = r.C if k.direction is Direction.fwd else r.K
        tap_steps = r.Y * r.X * np.ceil(per_tap / k.divisors[2])
        np.copyto(steps[2], tap_steps, where=k.tap_major)
        if residue:  # the classes' taps together are all Y*X of them
            walked = np.where(k.tap_major, tap_steps, walked)
    if k.pixel_boxes is not None:  # grid.col_tiles: each filter tap's channels rounded up to whole column tiles
        np.copyto(steps[1], r.Y * r.X * np.ceil(r.C * k.divisors[3] / k.block_n), where=k.pixel_boxes)
    if k.output_boxes is not None:  # grid.row_tiles: the boxes; padded_reduction: each tap's merged channels (fwd)
        fwd = k.direction is Direction.fwd  # or filters (bwd_data)
        rows, cols, per_tap = (r.Ho, r.Wo, r.C) if fwd else (r.Hi, r.Wi, r.K)
        np.copyto(steps[0], r.N * np.ceil(rows / k.tile_h) * np.ceil(cols / k.tile_w), where=k.output_boxes)
        np.copyto(steps[2], r.Y * r.X * np.ceil(per_tap * k.divisors[3] / k.divisors[2]), where=k.output_boxes)
    np.divide(steps[:3] * k.divisors[:3], extents[:3], out=derived[_WASTE])  # CUDA-core kernels: 1 (divisors 1), then
    if k.cuda_core is not None and k.direction is not Direction.bwd_weight:  # their tiles' padding (cuda_core_waste)
        np.copyto(derived[_WASTE][:2], _cuda_core_waste(k, r), where=k.cuda_core)
    programs = steps[0] * steps[1] * steps[3]
    if k.split_k is not None:
        programs *= k.split_k
    work = programs * k.double_tile_volume * steps[2]  # the padded work, which analytic.estimate counts too
    if residue:
        np.copyto(work, per_class * steps[1] * steps[3] * k.double_tile_volume * walked, where=igemm)
    if k.cuda_core is not None:
        np.copyto(programs, _direct_programs(k, r), where=k.cuda_core)
        np.copyto(work, r.flops, where=k.cuda_core)
    if k.depthwise is not None:
        np.copyto(programs, _depthwise_programs(k, r), where=k.depthwise)
    np.divide(programs, k.slots, out=waves)
    np.divide(waves, np.ceil(waves), out=tail)  # programs / (rounds x slots)
    np.log2(programs, out=log2_programs)
    np.log2(work, out=log2_padded_work)
    np.divide(work, programs, out=work_per_program)
    growth[:] = (r.C * r.K) / (original.C * original.K)
    compute_s = np.divide(work, k.peak_flops * tail, out=log2_compute_s)  # utilisation is the tail utilisation
    results = r.N * r.Ho * r.Wo * r.G * r.K if k.direction is Direction.fwd else r.G * r.K * r.C * r.Y * r.X
    traffic = r.bytes if k.split_k is None else r.bytes + k.split_k_bytes * results  # analytic.split_result_elements
    memory_s = np.divide(traffic, k.bandwidth, out=log2_memory_s)
    seconds = np.maximum(compute_s, memory_s, out=log2_seconds)
    if k.gain is not None:
        seconds *= k.gain
    seconds += LAUNCH_LATENCY_S
    copies = padding_copy_seconds(original, r.C, r.K, k.arch)  # channel padding's copies (0 unpadded)
    seconds += copies
    memory_s += copies
    seconds += extra_seconds
    memory_s += extra_seconds
    estimate = derived[_ESTIMATE]  # seconds, compute_s, memory_s
    np.log2(np.maximum(estimate, _ESTIMATE_FLOORS, out=estimate), out=estimate)
