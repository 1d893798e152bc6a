"""The zeroed fp32 workspace and arrival counters of the last-arrival kernels (bwd_weight, split igemm fwd), kept
between launches.

A last-arrival kernel's split programs add their partial sums into the workspace with atomics and count themselves in
per output block; the last to arrive reads the block's sums back while zeroing them, stores them cast into the result
and resets its counter. So the workspace is zero again when the kernel ends, and one buffer per (device, stream)
serves every launch on that stream without a memset or a cast kernel: launches of one stream run in order, and two
streams never share a buffer. It grows (zeroed anew) when a launch needs more, and is never shrunk.
"""
from __future__ import annotations

import torch

_BUFFERS: dict[tuple[str, int], tuple[torch.Tensor, torch.Tensor]] = {}


def _stream_key(device: torch.device) -> tuple[str, int]:
    stream = torch.cuda.current_stream(device).cuda_stream if device.type == "cuda" else 0
    return str(device), stream


def _storage_extent(out: torch.Tensor) -> int:
    """Elements from out's first to one past its last: what a view with out's strides spans."""
    return 1 + sum((size - 1) * stride for size, stride in zip(out.shape, out.stride()))


def arrival_workspace(out: torch.Tensor, counters: int) -> tuple[torch.Tensor, torch.Tensor]:
    """(workspace, arrivals): an fp32 view of zeros with out's shape and strides, and `counters` int32 zeros, both
    from the buffers of out's device and current stream (which the kernel leaves zero)."""
    key = _stream_key(out.device)
    need = _storage_extent(out)
    floats, counts = _BUFFERS.get(key, (None, None))
    if floats is None or floats.numel() < need or counts.numel() < counters:
        floats = torch.zeros(max(need, 0 if floats is None else floats.numel()), dtype=torch.float32, device=out.device)
        counts = torch.zeros(max(counters, 0 if counts is None else counts.numel()), dtype=torch.int32,
                             device=out.device)
        _BUFFERS[key] = floats, counts
    return floats.as_strided(out.shape, out.stride()), counts


def release_arrival_workspaces() -> None:
    """Free every kept buffer (tests, or a caller reclaiming memory); the next launch allocates afresh."""
    _BUFFERS.clear()
