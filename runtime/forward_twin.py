"""The filter of a stride-1 bwd_data problem's forward twin (Problem.forward_twin): dX is the forward convolution of
dY with each group's filter flipped in both axes and its two channel axes swapped, so every forward kernel computes
bwd_data at stride 1 (bench/results/bwd-data-via-fwd/: where that pays)."""
from __future__ import annotations

import torch


def twin_filter(w: torch.Tensor, groups: int) -> torch.Tensor:
    """(G*K) x C x Y x X -> (G*C) x K x Y x X, w'[g*C + c, k, y, x] = w[g*K + k, c, Y-1-y, X-1-x], channels_last: one
    pass over the filter (an index_select of the reversed taps from a permuted view of w into the result's memory;
    flip, transpose and reshape would be three)."""
    gk, c, y, x = w.shape
    k = gk // groups
    taps = w.permute(0, 2, 3, 1).reshape(groups, k, y * x, c)  # a view when w is channels_last, else one more pass
    out = torch.empty((groups, c, y * x, k), dtype=w.dtype, device=w.device)
    reversed_taps = torch.arange(y * x - 1, -1, -1, device=w.device)
    torch.index_select(taps.permute(0, 3, 2, 1), 2, reversed_taps, out=out)
    return out.reshape(groups * c, y, x, k).permute(0, 3, 1, 2)
