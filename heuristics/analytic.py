"""An analytic time estimate per (kernel, problem, arch): the models' analytic features (features.py) and the terms
the fallback rule (rule.py) combines with coefficients fitted on measurements. The estimate is a roofline with three
corrections that decide many choices between instances of one registry:

1. Tile padding: a tile computes bm x bn x ceil(K/bk)*bk multiply-adds whatever the problem covers, so
   work is counted in padded tiles (merged groups pay for their zero off-diagonal blocks too). bwd_data tiles
   count, per stride-residue class, only the filter taps that reach it.
2. Wave quantisation: programs run in waves of (SMs x resident blocks per SM); a partial last wave
   still takes a whole wave's time (a persistent grid has the same tail, but overlaps tile prologues
   with epilogues: a small gain).
3. Small tiles reach a lower fraction of the tensor-core peak (fewer operand reuses per byte loaded).

Direct and depthwise kernels run on CUDA cores (arch.cuda_core_tflops) and compute only the useful taps;
depthwise kernels, with their taps unrolled and no channel loop, are credited a larger fraction of that peak
(priors, not fits: the rule scales each algorithm's compute time by a fitted factor, the models learn their own). bwd_weight split-K adds its fp32 atomics traffic; every
kernel pays a fixed launch latency. Time is max(compute, memory) + latency.
"""
from __future__ import annotations

from dataclasses import dataclass

from gconv.runtime.grid import cdiv, residue_taps, row_tiles, tile_grid
from gconv.runtime.support import forward_twin
from gconv.schemas import Algorithm, ArchSpec, Direction, KernelConfig, Pipeline, Problem

LAUNCH_LATENCY_S = 4e-6
MAX_THREADS_PER_SM = 2048
REGISTERS_OVERHEAD_PER_THREAD = 48  # addresses, loop state, operand fragments beyond the accumulators
FULL_EFFICIENCY_TILE = 128 * 128  # tiles this large and larger can approach the tensor-core peak
PEAK_FRACTION = 0.75  # what a well-tuned Triton GEMM reaches on large tiles
DIRECT_PEAK_FRACTION = 0.5
DEPTHWISE_PEAK_FRACTION = 0.6
PERSISTENT_GAIN = 0.97


@dataclass(frozen=True)
class Estimate:
    seconds: float
    compute_s: float
    memory_s: float
    wave_utilisation: float
    work: float = 0.0  # multiply-add FLOPs the programs perform (padded tiles for igemm, the useful taps otherwise)
    programs: int = 0  # of the non-persistent launch (runtime/grid.py tile_grid)
    slots: int = 0  # programs the GPU holds at once (SMs x resident blocks per SM)

    def tflops(self, problem: Problem) -> float:
        return problem.flops / self.seconds / 1e12


def resident_blocks_per_sm(config: KernelConfig, arch: ArchSpec) -> int:
    threads = config.num_warps * arch.warp_size
    by_threads = MAX_THREADS_PER_SM // threads
    accumulators = accumulators_per_thread(config, threads)
    by_registers = arch.registers_per_sm // ((accumulators + REGISTERS_OVERHEAD_PER_THREAD) * threads)
    smem = config.num_stages * (config.block_m + config.block_n) * config.block_k * config.dtype.bytes \
        if config.algorithm is Algorithm.igemm else 0
    by_smem = arch.max_smem_per_block_bytes // smem if smem else by_threads
    return max(1, min(by_threads, by_registers, by_smem))


def accumulators_per_thread(config: KernelConfig, threads: int) -> int:
    """fp32 accumulators a thread holds (KernelConfig.accumulator_elements); direct kernels a nominal 16."""
    return 16 if config.algorithm is Algorithm.direct else config.accumulator_elements // threads


def peak_flops(config: KernelConfig, arch: ArchSpec) -> float:
    """Achievable FLOP/s: CUDA cores for direct and depthwise kernels, tensor cores scaled down for small tiles for
    igemm."""
    if config.algorithm is Algorithm.direct:
        return arch.cuda_core_tflops * 1e12 * DIRECT_PEAK_FRACTION
    if config.algorithm is Algorithm.depthwise:
        return arch.cuda_core_tflops * 1e12 * DEPTHWISE_PEAK_FRACTION
    size_factor = min(1.0, config.block_m * config.block_n / FULL_EFFICIENCY_TILE) ** 0.35
    return arch.peak_tflops[config.dtype] * 1e12 * PEAK_FRACTION * size_factor


def memory_efficiency(config: KernelConfig, arch: ArchSpec) -> float:
    """Fraction of the DRAM bandwidth a config's loads reach (wider vectors reach more)."""
    base, slope = (0.4, 0.6) if config.algorithm is Algorithm.igemm else (0.25, 0.75)
    return min(1.0, base + slope * config.vector_width * config.dtype.bytes / arch.max_vector_bytes)


def problem_bytes(problem: Problem) -> int:
    """Each operand read once and the result written once (the compulsory traffic)."""
    p = problem
    elements = p.N * p.G * p.C * p.Hi * p.Wi + p.G * p.K * p.C * p.Y * p.X + p.N * p.G * p.K * p.Ho * p.Wo
    return elements * p.dtype.bytes


def padding_copy_bytes(problem: Problem, padded_C: int, padded_K: int) -> int:
    """Extra traffic of channel padding's copies when problem runs at padded_C / padded_K channels per group (read
    the original, write the padded operands; and back for the result); 0 unpadded. runtime/padding.py makes them.
    Sizes may be numpy arrays of padded channels (features.py's vectorised rows): the same integer arithmetic."""
    p, e = problem, problem.dtype.bytes
    x = p.N * p.G * p.Hi * p.Wi
    y = p.N * p.G * p.Ho * p.Wo
    w = p.G * p.Y * p.X
    C, K, PC, PK = p.C, p.K, padded_C, padded_K
    if p.direction is Direction.fwd:
        total = x * (C + PC) + w * (K * C + PK * PC) + y * (PK + K)
    elif p.direction is Direction.bwd_data:
        total = y * (K + PK) + w * (K * C + PK * PC) + x * (PC + C)
    else:
        total = x * (C + PC) + y * (K + PK) + w * (PK * PC + K * C)
    return (total * e) * ((PC != C) | (PK != K))


def padding_copy_seconds(problem: Problem, padded_C: int, padded_K: int, arch: ArchSpec) -> float:
    """padding_copy_bytes at the arch's DRAM bandwidth: what a padded candidate adds to its kernel's time."""
    return padding_copy_bytes(problem, padded_C, padded_K) / (arch.dram_bandwidth_gbs * 1e9)


def roofline_seconds(problem: Problem, arch: ArchSpec) -> float:
    """max(FLOPs / achievable TFLOP/s, bytes / achievable bandwidth) from the arch spec."""
    return max(problem.flops / (arch.roofline_tflops[problem.dtype] * 1e12),
               problem_bytes(problem) / (arch.roofline_bandwidth_gbs * 1e9))


def split_result_elements(problem: Problem) -> int:
    """The result a split reduction adds its fp32 partial sums into: the weight gradient (bwd_weight), the output
    (a split fwd kernel)."""
    p = problem
    if p.direction is Direction.fwd:
        return p.N * p.Ho * p.Wo * p.G * p.K
    return p.G * p.K * p.C * p.Y * p.X


def padded_reduction(config: KernelConfig, problem: Problem) -> int:
    """Multiply-adds along GEMM-K that one output element of every row tile performs, summed over the row tiles
    (each padded to block_k): bwd_data walks, per stride-residue class, only the taps that reach it; a tap-major walk
    pads each tap's channels (fwd) or filters (bwd_data) to block_k, fwd / bwd_data pixel boxes each tap's channels /
    filters of the merged groups."""
    bk, p = config.block_k, problem
    if config.tile_w and config.direction is Direction.bwd_data:  # pixel boxes: each tap's merged filters padded
        return row_tiles(config, p) * p.Y * p.X * cdiv(config.groups_to_merge * p.K, bk) * bk
    if config.direction is Direction.bwd_data:
        per_class = row_tiles(config, p) // (p.stride_h * p.stride_w)
        if config.tap_major:  # the classes walk all Y*X taps between them
            return per_class * p.Y * p.X * cdiv(p.K, bk) * bk
        return per_class * sum(cdiv(p.K * taps, bk) * bk for taps in residue_taps(p))
    if config.direction is Direction.bwd_weight or config.split_k > 1:  # each split's run padded to block_k
        return row_tiles(config, p) * cdiv(cdiv(p.gemm.K, config.split_k), bk) * bk * config.split_k
    if config.tap_major:
        return row_tiles(config, p) * p.Y * p.X * cdiv(p.C, bk) * bk
    if config.tile_w:  # fwd pixel boxes walk each tap's channels of the (merged) groups, padded to block_k
        return row_tiles(config, p) * p.Y * p.X * cdiv(config.groups_to_merge * p.C, bk) * bk
    return row_tiles(config, p) * cdiv(p.gemm.K, bk) * bk


def twin_filter_seconds(problem: Problem, arch: ArchSpec) -> float:
    """What a via_fwd candidate adds to its forward kernel's time: one launch that reads and writes the filter once
    (runtime/forward_twin.py twin_filter) at the arch's DRAM bandwidth."""
    p = problem
    return 2 * p.G * p.K * p.C * p.Y * p.X * p.dtype.bytes / (arch.dram_bandwidth_gbs * 1e9) + LAUNCH_LATENCY_S


def estimate(config: KernelConfig, problem: Problem, arch: ArchSpec) -> Estimate:
    """Analytic time of config on problem (the config must support the problem); a via_fwd config's is its forward
    kernel's on the forward twin plus the filter's transposition (twin_filter_seconds, memory time)."""
    if config.via_fwd:
        twin = estimate(config.kernel, forward_twin(problem), arch)
        extra = twin_filter_seconds(problem, arch)
        return Estimate(twin.seconds + extra, twin.compute_s, twin.memory_s + extra, twin.wave_utilisation, twin.work,
                        twin.programs, twin.slots)
    grid = tile_grid(config, problem)
    programs = grid[0] * grid[1] * grid[2]
    slots = arch.sm_count * resident_blocks_per_sm(config, arch)
    waves = cdiv(programs, slots)  # a partial last wave (or round of a persistent grid) costs a whole one
    utilisation = programs / (waves * slots)

    if config.algorithm is not Algorithm.igemm:
        work = problem.flops  # direct and depthwise loops visit exactly the useful taps
    else:
        col_tiles = grid[0] // row_tiles(config, problem)
        work = 2 * col_tiles * grid[1] * config.block_m * config.block_n * padded_reduction(config, problem)
    compute_s = work / (peak_flops(config, arch) * utilisation)  # each program runs at its slot's share of the peak
    traffic = problem_bytes(problem)
    if config.split_k > 1:
        traffic += 2 * config.split_k * split_result_elements(problem) * 4
    memory_s = traffic / (arch.dram_bandwidth_gbs * 1e9 * memory_efficiency(config, arch))
    seconds = max(compute_s, memory_s)
    if config.pipeline in (Pipeline.persistent, Pipeline.streamk):  # StreamK: a prior, like persistent (not a fit)
        seconds *= PERSISTENT_GAIN  # prologues of the next tile overlap the epilogue of the last
    return Estimate(seconds + LAUNCH_LATENCY_S, compute_s, memory_s, utilisation, work, programs, slots)
