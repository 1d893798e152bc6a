"""gconv: grouped-convolution kernels generated from declarative rules, selected per problem."""
from gconv.schemas import Direction, DType, KernelConfig, Problem

__all__ = ["Direction", "DType", "KernelConfig", "Problem"]
__version__ = "0.1.0"
