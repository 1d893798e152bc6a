"""CK's Python contract: Runner(direction).run(first, second, problem) on numpy arrays, in torch's NCHW shapes.

Argument order per direction: fwd (x, w) -> y; bwd_data (dy, w) -> dx; bwd_weight (x, dy) -> dw.
"""
from __future__ import annotations

import numpy as np
import torch

from gconv.schemas import Direction, Problem

from .api import execute
from .reference import TORCH_DTYPES

OPERANDS = {Direction.fwd: ("x", "w"), Direction.bwd_data: ("dy", "w"), Direction.bwd_weight: ("x", "dy")}
NUMPY_DTYPES = {"fp16": np.float16, "fp32": np.float32}


class Runner:
    def __init__(self, direction: Direction | str, *, kernel: str | None = None, rule_set: str | None = None,
                 device: str | None = None):
        self.direction = Direction(direction)
        self.kernel = kernel
        self.rule_set = rule_set
        self.device = device or ("cuda" if torch.cuda.is_available() else "cpu")

    def run(self, first: np.ndarray, second: np.ndarray, problem: Problem) -> np.ndarray:
        if problem.direction is not self.direction:
            raise ValueError(f"problem.direction is {problem.direction.value} but this Runner runs "
                             f"{self.direction.value}")
        if problem.dtype.value not in NUMPY_DTYPES:
            raise TypeError(f"numpy has no {problem.dtype.value}; the numpy runner takes fp16 or fp32 problems")
        expected = {Direction.fwd: (problem.input_shape, problem.weight_shape),
                    Direction.bwd_data: (problem.output_shape, problem.weight_shape),
                    Direction.bwd_weight: (problem.input_shape, problem.output_shape)}[self.direction]
        tensors = []
        for name, array, shape in zip(OPERANDS[self.direction], (first, second), expected):
            if not isinstance(array, np.ndarray):
                raise TypeError(f"{name} must be a numpy.ndarray, got {type(array).__name__}")
            if array.shape != shape:
                raise ValueError(f"{name} must have shape {shape} for this problem, got {array.shape}")
            if array.dtype != NUMPY_DTYPES[problem.dtype.value]:
                raise TypeError(f"{name} has dtype {array.dtype} but the problem is {problem.dtype.value}")
            tensors.append(torch.from_numpy(np.ascontiguousarray(array)).to(self.device, TORCH_DTYPES[problem.dtype]))
        out = execute(problem, *tensors, kernel=self.kernel, rule_set=self.rule_set)
        return out.contiguous().cpu().numpy()
