"""gconv.nn: a drop-in torch.nn.Conv2d whose forward and backward run gconv kernels."""
from gconv.runtime.modules import Conv2d, convert

__all__ = ["Conv2d", "convert"]
