"""Conv2d with autograd through gconv's three kernels, and a converter for existing models."""
from __future__ import annotations

import torch

from .api import conv_bwd_data, conv_bwd_weight, conv_fwd


class _GroupedConv(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, weight, stride, padding, dilation, groups):
        ctx.save_for_backward(x, weight)
        ctx.conv = (stride, padding, dilation, groups)
        return conv_fwd(x, weight, stride, padding, dilation, groups)

    @staticmethod
    def backward(ctx, dy):
        x, weight = ctx.saved_tensors
        stride, padding, dilation, groups = ctx.conv
        dx = dw = None
        if ctx.needs_input_grad[0]:
            dx = conv_bwd_data(dy, weight, tuple(x.shape), stride, padding, dilation, groups)
        if ctx.needs_input_grad[1]:
            dw = conv_bwd_weight(x, dy, tuple(weight.shape), stride, padding, dilation, groups)
        return dx, dw, None, None, None, None


class Conv2d(torch.nn.Conv2d):
    """torch.nn.Conv2d (same constructor and parameters) computed by gconv kernels; bias added by PyTorch.

    Supports padding_mode='zeros' and numeric padding (or 'valid'; 'same' when it is symmetric).
    """

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self._check_supported()

    def _check_supported(self) -> None:
        if self.padding_mode != "zeros":
            raise ValueError(f"gconv.nn.Conv2d supports padding_mode='zeros' only, got {self.padding_mode!r}")
        self._numeric_padding()

    def _numeric_padding(self) -> tuple[int, int]:
        if self.padding == "valid":
            return (0, 0)
        if self.padding == "same":
            total = [d * (k - 1) for d, k in zip(self.dilation, self.kernel_size)]
            if any(t % 2 for t in total):
                raise ValueError(f"gconv.nn.Conv2d: padding='same' with kernel_size={self.kernel_size} and "
                                 f"dilation={self.dilation} needs asymmetric padding, which gconv does not support")
            return (total[0] // 2, total[1] // 2)
        return tuple(self.padding)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        y = _GroupedConv.apply(x, self.weight, tuple(self.stride), self._numeric_padding(), tuple(self.dilation),
                               self.groups)
        if self.bias is not None:
            y = y + self.bias.view(1, -1, 1, 1)
        return y

    @classmethod
    def from_torch(cls, module: torch.nn.Conv2d) -> "Conv2d":
        """A gconv Conv2d sharing module's parameters (no copy)."""
        if not isinstance(module, torch.nn.Conv2d):
            raise TypeError(f"module must be a torch.nn.Conv2d, got {type(module).__name__}")
        converted = cls.__new__(cls)
        torch.nn.Module.__init__(converted)
        converted.__dict__.update({k: v for k, v in module.__dict__.items()
                                   if k not in ("_parameters", "_buffers", "_modules")})
        converted._parameters = dict(module._parameters)
        converted._buffers = dict(module._buffers)
        converted._modules = dict(module._modules)
        converted._check_supported()
        return converted


def eligible(module: torch.nn.Module) -> bool:
    """A plain 2-D conv gconv can compute: zero padding, symmetric numeric padding, a supported dtype."""
    if type(module) is not torch.nn.Conv2d or module.padding_mode != "zeros":
        return False
    if module.weight.dtype not in (torch.float16, torch.bfloat16, torch.float32):
        return False
    if module.padding == "same":
        return all(d * (k - 1) % 2 == 0 for d, k in zip(module.dilation, module.kernel_size))
    return True


def convert(model: torch.nn.Module) -> torch.nn.Module:
    """Replace every eligible torch.nn.Conv2d of model (in place) by gconv.nn.Conv2d; returns model."""
    if eligible(model):
        return Conv2d.from_torch(model)
    for name, child in model.named_children():
        replacement = convert(child)
        if replacement is not child:
            setattr(model, name, replacement)
    return model
