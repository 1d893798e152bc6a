"""Automatic channel padding: run a kernel whose vector width (or TMA alignment) the problem's channels miss, or a
depthwise-family kernel built for more channels per group than the problem has.

Padding C and/or K per group with zeros gives the same convolution on the original channels; the result's
padded channels are dropped. The selector weighs the copies against the faster kernel they enable.
"""
from __future__ import annotations

from functools import lru_cache

import torch
from pydantic import BaseModel, ConfigDict

from gconv.schemas import Algorithm, Direction, KernelConfig, Problem

from .support import unsupported_reason

MAX_GROWTH = 2.0  # never pad to more than twice the channel work


def _round_up(value: int, multiple: int) -> int:
    return -(-value // multiple) * multiple


class ChannelPadding(BaseModel):
    """Channels per group before and after padding."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    C: int
    K: int
    padded_C: int
    padded_K: int

    def __str__(self) -> str:
        pairs = (("C", self.C, self.padded_C), ("K", self.K, self.padded_K))
        parts = [f"{name} {old}->{new}" for name, old, new in pairs if old != new]
        return "channels per group padded: " + ", ".join(parts)


@lru_cache(maxsize=4096)
def _with_channels(problem: Problem, C: int, K: int) -> Problem:
    """problem with other channels per group (cached: selection asks for the same few for every instance)."""
    return problem.model_copy(update={"C": C, "K": K})


def _next_power_of_two(value: int) -> int:
    return 1 << (value - 1).bit_length()


def padding_for(config: KernelConfig, problem: Problem) -> ChannelPadding | None:
    """The cheapest channel padding that lets config run problem (None when none does or it costs too much): C and K
    each rounded up to a multiple of 1, the vector width, 16 bytes or block_k; for a depthwise-family kernel (built
    for exactly C = group_channels, K = multiplier, powers of two in the rules) both rounded up to the next power of
    two instead, so that C = 3 runs the four-channel kernels and K = 6 the eight-filter ones. (Its vectors run along
    the groups: rounding C or K up to an alignment only made kernels of twice the work candidates, e.g. K = 4 padded
    to 8 for the 16-byte alignment; none of their 429 measured rows over 80 problems ran fastest,
    bench/results/multiplier8/.)"""
    if config.algorithm is Algorithm.depthwise:
        sizes = {(_next_power_of_two(problem.C), _next_power_of_two(problem.K))}
    else:
        aligns = {1, config.vector_width, 16 // problem.dtype.bytes, config.block_k}
        sizes = {(_round_up(problem.C, c_align), _round_up(problem.K, k_align))
                 for c_align in aligns for k_align in aligns}
    options = []
    for c, k in sizes:
        if (c, k) == (problem.C, problem.K) or c * k > MAX_GROWTH * problem.C * problem.K:
            continue
        if unsupported_reason(config, _with_channels(problem, c, k)) is None:
            options.append((c * k, c, k))
    if not options:
        return None
    _, c, k = min(options)
    return ChannelPadding(C=problem.C, K=problem.K, padded_C=c, padded_K=k)


def padded_problem(problem: Problem, padding: ChannelPadding) -> Problem:
    return _with_channels(problem, padding.padded_C, padding.padded_K)


def _trailing_channels(t: torch.Tensor, groups: int) -> torch.Tensor:
    """A channels_last 4-D tensor (N x G*c x H x W activations, G*k x c x Y x X weights) as its memory lies:
    N x H x W x G x c (activations) or G*k x Y x X x c (weights, groups=1) -- a view, no copy."""
    n, channels, h, w = t.shape
    return t.permute(0, 2, 3, 1).reshape(n, h, w, groups, channels // groups)


def _as_channels_last(t: torch.Tensor, n: int, channels: int, h: int, w: int) -> torch.Tensor:
    """The inverse of _trailing_channels: a contiguous N x H x W x ... tensor viewed as channels_last N x C x H x W."""
    return t.view(n, h, w, channels).permute(0, 3, 1, 2)


# Every copy below is one pass over channels_last memory (contiguous pixels, each group's channels innermost): the
# padding itself is a zero fill plus a strided copy, the unpadding one strided copy. (Building the padded tensor in
# NCHW order and converting it afterwards moved every byte twice more, through two transposes.)

def pad_activation(t: torch.Tensor, groups: int, per_group: int) -> torch.Tensor:
    """N x (G*c) x H x W -> N x (G*per_group) x H x W with zero channels appended to each group (channels_last)."""
    n, channels, h, w = t.shape
    c = channels // groups
    if c == per_group:
        return t
    padded = torch.nn.functional.pad(_trailing_channels(t, groups), (0, per_group - c))
    return _as_channels_last(padded, n, groups * per_group, h, w)


def pad_weight(w: torch.Tensor, groups: int, per_group_k: int, per_group_c: int) -> torch.Tensor:
    """(G*k) x c x Y x X -> (G*per_group_k) x per_group_c x Y x X, zero-filled (channels_last)."""
    gk, c, y, x = w.shape
    k = gk // groups
    if (k, c) == (per_group_k, per_group_c):
        return w
    filters = _trailing_channels(w, 1).reshape(groups, k, y, x, c)
    padded = torch.nn.functional.pad(filters, (0, per_group_c - c, 0, 0, 0, 0, 0, per_group_k - k))
    return _as_channels_last(padded, groups * per_group_k, per_group_c, y, x)


def unpad_activation(t: torch.Tensor, groups: int, per_group: int) -> torch.Tensor:
    n, channels, h, w = t.shape
    padded = channels // groups
    if padded == per_group:
        return t
    kept = _trailing_channels(t, groups)[..., :per_group].contiguous()
    return _as_channels_last(kept, n, groups * per_group, h, w)


def unpad_weight(w: torch.Tensor, groups: int, per_group_k: int, per_group_c: int) -> torch.Tensor:
    gk, c, y, x = w.shape
    k = gk // groups
    if (k, c) == (per_group_k, per_group_c):
        return w
    kept = _trailing_channels(w, 1).reshape(groups, k, y, x, c)[:, :per_group_k, :, :, :per_group_c].contiguous()
    return _as_channels_last(kept, groups * per_group_k, per_group_c, y, x)


def pad_operands(direction: Direction, a: torch.Tensor, b: torch.Tensor, G: int,
                 padding: ChannelPadding) -> tuple[torch.Tensor, torch.Tensor]:
    """Pad the runner-order operands: fwd (x, w), bwd_data (dy, w), bwd_weight (x, dy)."""
    C, K = padding.padded_C, padding.padded_K
    if direction is Direction.fwd:
        return pad_activation(a, G, C), pad_weight(b, G, K, C)
    if direction is Direction.bwd_data:
        return pad_activation(a, G, K), pad_weight(b, G, K, C)
    return pad_activation(a, G, C), pad_activation(b, G, K)


def unpad_result(direction: Direction, out: torch.Tensor, G: int, padding: ChannelPadding) -> torch.Tensor:
    if direction is Direction.fwd:
        return unpad_activation(out, G, padding.K)
    if direction is Direction.bwd_data:
        return unpad_activation(out, G, padding.C)
    return unpad_weight(out, G, padding.K, padding.C)
