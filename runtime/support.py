"""Whether a kernel instance can run a problem, and if not, why (a reason string, never a bare bool)."""
from __future__ import annotations

from functools import lru_cache

from gconv.schemas import Algorithm, Direction, KernelConfig, Pipeline, Problem

from .grid import cdiv

TMA_ALIGN_BYTES = 16
MAX_GRID_Y = 65535


def support_key(problem: Problem) -> tuple:
    """Every problem field unsupported_reason (and channel padding) reads: equal keys -> equal answers.

    Keep in step with unsupported_reason (stride and padding: the explicit GEMM kernels; row stride and row dilation:
    the sliding-rows kernels, column dilation too for the stride-2 bwd_data ones); tests/test_api.py checks the
    invariance on random problems.
    """
    p = problem
    return p.direction, p.dtype, p.G, p.C, p.K, p.Y, p.X, p.stride_h, p.stride_w, p.pad_h, p.pad_w, p.dil_h, p.dil_w


@lru_cache(maxsize=4096)
def forward_twin(problem: Problem) -> Problem | None:
    """Problem.forward_twin, cached: one object per problem (selection asks for it once per via_fwd candidate)."""
    return problem.forward_twin()


def unsupported_reason(config: KernelConfig, problem: Problem) -> str | None:
    """None if config computes problem correctly, else the first reason it cannot."""
    if config.direction is not problem.direction:
        return f"kernel direction {config.direction.value} != problem direction {problem.direction.value}"
    if config.dtype is not problem.dtype:
        return f"kernel dtype {config.dtype.value} != problem dtype {problem.dtype.value}"
    if config.via_fwd:
        twin = forward_twin(problem)
        if twin is None:
            return (f"via_fwd runs stride-1 bwd_data as its forward twin: needs stride 1 and padding at most "
                    f"dilation x (filter - 1), got stride {problem.stride_h}x{problem.stride_w}, padding "
                    f"{problem.pad_h}x{problem.pad_w}, dilation {problem.dil_h}x{problem.dil_w}, filter "
                    f"{problem.Y}x{problem.X}")
        reason = unsupported_reason(config.kernel, twin)
        return None if reason is None else f"its forward twin: {reason}"
    v = config.vector_width
    if config.algorithm is Algorithm.depthwise:
        return _depthwise_reason(config, problem)
    if config.algorithm is Algorithm.direct:
        if v > 1 and not (problem.C == 1 and problem.K == 1 and problem.G % v == 0):
            return f"direct vector width {v} needs depthwise C=K=1 with G % {v} == 0"
        if problem.direction is Direction.bwd_weight and problem.C * problem.Y * problem.X > MAX_GRID_Y:
            return f"direct bwd_weight launches C*Y*X programs on grid axis 1, at most {MAX_GRID_Y}"
        return None
    for field in config.vector_aligned_sizes:
        if getattr(problem, field) % v:
            return f"vector width {v} needs {field} % {v} == 0 ({field}={getattr(problem, field)})"
    if config.aligned_k and problem.K % 16 == 0:
        return f"aligned_k twins run only K % 16 != 0 (K={problem.K}): their bases store whole vectors there"
    if config.groups_to_merge > problem.G:
        return f"merges {config.groups_to_merge} groups but the problem has G={problem.G}"
    if config.explicit_gemm:
        reason = _explicit_gemm_reason(config, problem)
        if reason is not None:
            return reason
    if config.tile_w:
        if problem.direction is Direction.bwd_weight:
            return _pixel_box_reason(config, problem)
        return _owned_box_reason(config, problem)
    if config.pipeline is Pipeline.tma:
        return _tma_reason(config, problem)
    return None


def _pixel_box_reason(config: KernelConfig, problem: Problem) -> str | None:
    """bwd_weight pixel boxes read X and dY as [N, H, W, channels] tensor descriptors: their pixel rows (G*C and G*K
    elements) must be strides of 16 bytes and each box must start 16 bytes into a row (at a group or group block's
    first channel or filter). One group per tile also keeps the flat TMA kernels' checks; merged groups must fit one
    tile (a merged tile past them would compute only what no program stores)."""
    p, b, gm = problem, problem.dtype.bytes, config.groups_to_merge
    if gm == 1:
        row = p.C * b
        if row % TMA_ALIGN_BYTES:  # the strided view of X starts at a pixel: its offsets and strides in whole G*C rows
            return f"pixel boxes need C*{b} bytes % {TMA_ALIGN_BYTES} == 0 (input pixels), got {row}"
    else:
        if gm * p.K > config.block_m or gm * p.C > config.block_n:
            return (f"merged pixel boxes hold their {gm} groups in one tile: need {gm}*K <= {config.block_m} and "
                    f"{gm}*C <= {config.block_n}, got K={p.K}, C={p.C}")
        block = gm * p.C * b, gm * p.K * b  # the boxes start at the group block's first channel and filter
        if block[0] % TMA_ALIGN_BYTES or block[1] % TMA_ALIGN_BYTES:
            return (f"merged pixel boxes need {gm}*C*{b} and {gm}*K*{b} bytes % {TMA_ALIGN_BYTES} == 0 (a group "
                    f"block's channels and filters), got {block[0]} and {block[1]}")
        rows = p.G * p.C * b, p.G * p.K * b
        if rows[0] % TMA_ALIGN_BYTES or rows[1] % TMA_ALIGN_BYTES:
            return (f"merged pixel boxes need G*C*{b} and G*K*{b} bytes % {TMA_ALIGN_BYTES} == 0 (input and output "
                    f"pixels), got {rows[0]} and {rows[1]}")
    if p.Hi < p.stride_h or p.Wi < p.stride_w:
        return (f"pixel boxes need an input at least stride pixels high and wide (a tap's strided view of it), got "
                f"{p.Hi}x{p.Wi} at stride {p.stride_h}x{p.stride_w}")
    return _tma_reason(config, problem) if gm == 1 else None


def _depthwise_reason(config: KernelConfig, problem: Problem) -> str | None:
    p, f, m, c, v = problem, config.filter_size, config.multiplier, config.group_channels, config.vector_width
    if p.C != c:
        return f"this depthwise kernel is built for C={c} input channel{'s' if c > 1 else ''} per group, got C={p.C}"
    if p.K != m:
        return f"this depthwise kernel is built for channel multiplier K={m}, got K={p.K}"
    if (p.Y, p.X) != (f, f):
        return f"this depthwise kernel is built for a {f}x{f} filter, got {p.Y}x{p.X}"
    if v > 1 and p.G % v:
        return f"vector width {v} needs G % {v} == 0 (G={p.G})"
    if config.sliding_rows:
        reason = _sliding_rows_reason(config, problem)
        if reason is not None:
            return reason
    blocks = cdiv(p.G, config.block_n)
    if blocks > MAX_GRID_Y:
        return f"depthwise launches G/{config.block_n} = {blocks} programs on grid axis 1, at most {MAX_GRID_Y}"
    return None


def _sliding_rows_reason(config: KernelConfig, problem: Problem) -> str | None:
    p, s = problem, config.sliding_rows
    if config.direction is Direction.bwd_data and (p.stride_h, p.stride_w) != (s, s):
        return f"this sliding-rows bwd_data kernel needs stride {s}x{s}, got {p.stride_h}x{p.stride_w}"
    if config.direction is Direction.bwd_data and s > 1 and (p.dil_h, p.dil_w) != (1, 1):
        return f"this sliding-rows bwd_data kernel needs dilation 1x1, got {p.dil_h}x{p.dil_w}"
    if p.stride_h != s:
        return f"this sliding-rows kernel is built for row stride {s}, got stride_h={p.stride_h}"
    if p.dil_h != 1:
        return f"sliding rows need row dilation 1, got dil_h={p.dil_h}"
    return None


def _owned_box_reason(config: KernelConfig, problem: Problem) -> str | None:
    """fwd (bwd_data) pixel boxes read X (dY) through one [N, H, W, G*C (G*K)] descriptor for every tap, so stride 1:
    its pixels must be 16-byte strides and each box start 16 bytes into a pixel (at a group or group block's first
    channel or filter); merged groups must fit one tile and one reduction step."""
    p, b, gm = problem, problem.dtype.bytes, config.groups_to_merge
    fwd = p.direction is Direction.fwd
    name, read, pixels = ("fwd", "X", "input") if fwd else ("bwd_data", "dY", "output")
    (red, reduced), (col, columns) = (("C", p.C), ("K", p.K)) if fwd else (("K", p.K), ("C", p.C))
    if (p.stride_h, p.stride_w) != (1, 1):
        return (f"{name} pixel boxes need stride 1 (one descriptor of {read} for every tap), got "
                f"{p.stride_h}x{p.stride_w}")
    if gm == 1:
        row = reduced * b
        if row % TMA_ALIGN_BYTES:
            return f"pixel boxes need {red}*{b} bytes % {TMA_ALIGN_BYTES} == 0 ({pixels} pixels), got {row}"
        return None
    if gm * columns > config.block_n or gm * reduced > config.block_k:
        return (f"merged {name} pixel boxes hold their {gm} groups in one tile and step: need {gm}*{col} <= "
                f"{config.block_n} and {gm}*{red} <= {config.block_k}, got {col}={columns}, {red}={reduced}")
    block, row = gm * reduced * b, p.G * reduced * b
    if block % TMA_ALIGN_BYTES or row % TMA_ALIGN_BYTES:
        return (f"merged {name} pixel boxes need {gm}*{red}*{b} and G*{red}*{b} bytes % {TMA_ALIGN_BYTES} == 0 (a "
                f"group block's {'channels' if fwd else 'filters'}, {pixels} pixels), got {block} and {row}")
    return None


def _explicit_gemm_reason(config: KernelConfig, problem: Problem) -> str | None:
    p = problem
    if (p.Y, p.X, p.stride_h, p.stride_w, p.pad_h, p.pad_w) != (1, 1, 1, 1, 0, 0):
        return (f"explicit GEMM needs a 1x1 filter, stride 1 and no padding, got {p.Y}x{p.X}, stride "
                f"{p.stride_h}x{p.stride_w}, padding {p.pad_h}x{p.pad_w}")
    row = p.G * p.C * p.dtype.bytes
    if config.pipeline is Pipeline.tma and row % TMA_ALIGN_BYTES:
        return f"TMA explicit GEMM needs G*C*{p.dtype.bytes} bytes % {TMA_ALIGN_BYTES} == 0 (input rows), got {row}"
    return None


def _tma_reason(config: KernelConfig, problem: Problem) -> str | None:
    elt = problem.dtype.bytes
    if problem.direction is Direction.fwd:
        row = problem.Y * problem.X * problem.C * elt
        if row % TMA_ALIGN_BYTES:
            return f"TMA needs Y*X*C*{elt} bytes % {TMA_ALIGN_BYTES} == 0 (weight rows), got {row}"
    elif problem.direction is Direction.bwd_data:
        if not config.tap_major and problem.K % config.block_k:
            return f"TMA bwd_data needs K % block_k == 0 (K={problem.K}, block_k={config.block_k})"
        if problem.C * elt % TMA_ALIGN_BYTES:
            return f"TMA needs C*{elt} bytes % {TMA_ALIGN_BYTES} == 0, got {problem.C * elt}"
    elif problem.K * elt % TMA_ALIGN_BYTES:
        return f"TMA needs K*{elt} bytes % {TMA_ALIGN_BYTES} == 0, got {problem.K * elt}"
    return None
