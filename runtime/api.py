"""The public tensor API: conv_fwd, conv_bwd_data, conv_bwd_weight (shapes as torch.nn.functional.conv2d)."""
from __future__ import annotations

import math
from functools import lru_cache

import torch

from gconv.paths import REPO_ROOT
from gconv.schemas import Direction, DType, Problem

from . import split_image, validation
from .device import arch_of, can_run_triton, interpreter_active
from .kernels import load_kernel_module
from .launch import run
from .padding import pad_operands, padded_problem, unpad_result
from .reference import result_shape
from .registry import VENDOR_KERNEL, entries_by_name
from .selection import KernelChoice, forced_choice, select
from .vendor import vendor_run


def conv_fwd(x, w, stride=1, padding=0, dilation=1, groups=1, *, kernel: str | None = None,
             rule_set: str | None = None) -> torch.Tensor:
    """y = conv2d(x, w): x N x (G*C) x H x W, w (G*K) x C x Y x X; returns y channels_last."""
    problem = validation.fwd_problem(x, w, stride, padding, dilation, groups)
    return execute(problem, x, w, kernel=kernel, rule_set=rule_set)


def conv_bwd_data(dy, w, input_shape, stride=1, padding=0, dilation=1, groups=1, *, kernel: str | None = None,
                  rule_set: str | None = None) -> torch.Tensor:
    """dx, the gradient of conv2d with respect to its input of shape input_shape; channels_last."""
    problem = validation.bwd_data_problem(dy, w, input_shape, stride, padding, dilation, groups)
    return execute(problem, dy, w, kernel=kernel, rule_set=rule_set)


def conv_bwd_weight(x, dy, weight_shape, stride=1, padding=0, dilation=1, groups=1, *, kernel: str | None = None,
                    rule_set: str | None = None) -> torch.Tensor:
    """dw, the gradient of conv2d with respect to its weight of shape weight_shape; channels_last."""
    problem = validation.bwd_weight_problem(x, dy, weight_shape, stride, padding, dilation, groups)
    return execute(problem, x, dy, kernel=kernel, rule_set=rule_set)


def choose(problem: Problem, device: torch.device, kernel: str | None, rule_set: str | None) -> KernelChoice:
    """The forced kernel (validated) or the selector's choice; the vendor path where Triton cannot run."""
    arch = arch_of(device)
    if kernel is not None:
        choice = forced_choice(kernel, problem, rule_set, arch)
        if choice.name != VENDOR_KERNEL:
            _check_triton_can_run(problem, device)
        return choice
    if not can_run_triton(device):
        return KernelChoice(name=VENDOR_KERNEL, predicted_tflops=None, source="rule", rule_set="-", arch=arch,
                            reason="CPU tensors without TRITON_INTERPRET=1: the vendor path")
    _check_triton_can_run(problem, device)
    return select(problem, arch=arch, rule_set=rule_set)


def _check_triton_can_run(problem: Problem, device: torch.device) -> None:
    if device.type == "cpu" and not interpreter_active():
        raise ValueError("CPU tensors run gconv kernels only under the Triton interpreter: set TRITON_INTERPRET=1 "
                         "before importing gconv, or move the tensors to a CUDA device")
    if device.type == "cpu" and problem.dtype is DType.bf16:
        raise TypeError("bf16 tensors cannot run under the Triton interpreter (numpy has no bfloat16); use "
                        "fp16 or fp32 on the CPU, or a CUDA device")


@lru_cache(maxsize=None)
def _prepared(rule_set: str, name: str):
    """(module, config) of a registry instance: looked up and imported once."""
    entry = entries_by_name(rule_set)[name]
    return load_kernel_module(REPO_ROOT / entry.source), entry.config


def _channels_last(t: torch.Tensor) -> torch.Tensor:
    return t if t.is_contiguous(memory_format=torch.channels_last) else t.contiguous(memory_format=torch.channels_last)


def execute(problem: Problem, a: torch.Tensor, b: torch.Tensor, *, kernel: str | None = None,
            rule_set: str | None = None, choice: KernelChoice | None = None) -> torch.Tensor:
    """Run problem on the runner-order operands (fwd: x, w; bwd_data: dy, w; bwd_weight: x, dy).

    A batch whose activations exceed 32-bit indexing runs as slices of whole images (runtime/split_image.py).
    """
    if choice is None and split_image.needs_slices(problem):
        return _execute_sliced(problem, a, b, kernel=kernel, rule_set=rule_set)
    choice = choice or choose(problem, a.device, kernel, rule_set)
    if choice.name == VENDOR_KERNEL:
        return vendor_run(problem, a, b)
    a, b = _channels_last(a), _channels_last(b)
    module, config = _prepared(choice.rule_set, choice.name)
    target = problem
    if choice.padding is not None:
        a, b = pad_operands(problem.direction, a, b, problem.G, choice.padding)
        target = padded_problem(problem, choice.padding)
    shape = result_shape(target)
    if math.prod(shape) > validation.MAX_INDEX:
        raise ValueError(f"the result would have {math.prod(shape)} elements; gconv's kernels index with 32-bit "
                         f"integers (at most {validation.MAX_INDEX} elements per tensor)")
    out = torch.empty(shape, dtype=a.dtype, device=a.device, memory_format=torch.channels_last)
    run(module, config, target, a, b, out)
    if choice.padding is not None:
        out = unpad_result(problem.direction, out, problem.G, choice.padding)
    return out


def _execute_sliced(problem: Problem, a: torch.Tensor, b: torch.Tensor, *, kernel: str | None,
                    rule_set: str | None) -> torch.Tensor:
    """execute over batch slices: fwd / bwd_data fill their rows of the result, bwd_weight sums in fp32."""
    direction = problem.direction
    result = None
    for n0, n1 in split_image.batch_slices(problem):
        part = execute(problem.model_copy(update={"N": n1 - n0}), *split_image.sliced_operands(direction, a, b, n0, n1),
                       kernel=kernel, rule_set=rule_set)
        if direction is Direction.bwd_weight:
            result = part.float() if result is None else result.add_(part)
            continue
        if result is None:
            result = torch.empty(result_shape(problem), dtype=a.dtype, device=a.device,
                                 memory_format=torch.channels_last)
        result[n0:n1].copy_(part)
    if direction is Direction.bwd_weight:
        result = result.to(a.dtype).contiguous(memory_format=torch.channels_last)
    return result
