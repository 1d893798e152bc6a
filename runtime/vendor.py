"""The vendor path: PyTorch's convolution (cuDNN on CUDA), in the runner order of each direction."""
from __future__ import annotations

import torch
import torch.nn.functional as F

from gconv.schemas import Direction, Problem


def conv_kwargs(problem: Problem) -> dict:
    return dict(stride=(problem.stride_h, problem.stride_w), padding=(problem.pad_h, problem.pad_w),
                dilation=(problem.dil_h, problem.dil_w), groups=problem.G)


def vendor_run(problem: Problem, a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
    """fwd (x, w) -> y; bwd_data (dy, w) -> dx; bwd_weight (x, dy) -> dw; result channels_last."""
    kwargs = conv_kwargs(problem)
    if problem.direction is Direction.fwd:
        out = F.conv2d(a, b, **kwargs)
    elif problem.direction is Direction.bwd_data:
        out = torch.nn.grad.conv2d_input(problem.input_shape, b, a, **kwargs)
    else:
        out = torch.nn.grad.conv2d_weight(a, problem.weight_shape, b, **kwargs)
    return out.contiguous(memory_format=torch.channels_last)
