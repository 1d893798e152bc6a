"""The filter of a stride-1 bwd_data problem's forward twin (Problem.forward_twin): dX is the forward convolution of
dY with each group's filter flipped in both axes and its two channel axes swapped, so every forward kernel computes
bwd_data at stride 1 (bench/results/bwd-data-via-fwd/: where that pays)."""
from __future__ import annotations

import torch


def twin_filter(w: torch.Tensor, groups: int) -> torch.Tensor:
    """(G*K) x C x Y x X -> (G*C) x K x Y x X, w'[g*C + c, k, y, x] = w[g*K + k, c, Y-1-y, X-1-x], channels_last: one
    pass over the filter."""
    gk, c, y, x = w.shape
    k = gk // groups
    swapped = w.reshape(groups, k, c, y, x).transpose(1, 2).flip(3, 4).reshape(groups * c, k, y, x)
    return swapped.contiguous(memory_format=torch.channels_last)
