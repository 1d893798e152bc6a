"""Float64 reference results from PyTorch, and the error measure every correctness check uses."""
from __future__ import annotations

import torch
import torch.nn.functional as F

from gconv.schemas import Direction, DType, Problem

from .vendor import conv_kwargs

TORCH_DTYPES = {DType.fp16: torch.float16, DType.bf16: torch.bfloat16, DType.fp32: torch.float32}

# Max |out - ref| / max |ref|. fp32 allows for TF32 tensor cores on the GPU (10-bit mantissa inputs).
RELATIVE_ERROR_BOUND = {DType.fp16: 4e-3, DType.bf16: 3e-2, DType.fp32: 2e-3}
# Under the Triton interpreter fp32 dots are exact fp32 (no TF32), so the bound is tight.
INTERPRETER_ERROR_BOUND = {DType.fp16: 4e-3, DType.fp32: 1e-5}


def reference(problem: Problem, a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
    """The exact result (float64, on the CPU) for inputs in the runner order of problem.direction."""
    a64, b64 = a.detach().double().cpu(), b.detach().double().cpu()
    kwargs = conv_kwargs(problem)
    if problem.direction is Direction.fwd:
        return F.conv2d(a64, b64, **kwargs)
    if problem.direction is Direction.bwd_data:
        return torch.nn.grad.conv2d_input(problem.input_shape, b64, a64, **kwargs)
    return torch.nn.grad.conv2d_weight(a64, problem.weight_shape, b64, **kwargs)


def relative_error(out: torch.Tensor, expected: torch.Tensor) -> float:
    """max |out - expected| / max |expected|, in float64 on the CPU; NaN or inf anywhere in out gives inf."""
    return relative_error_in_place(out.detach().double().cpu(), expected, error_scale(expected))


def error_scale(expected: torch.Tensor) -> float:
    """max |expected| (1 for all zeros): what relative_error divides by, computed once for every output checked
    against the same expected one."""
    return expected.abs().max().item() or 1.0


def relative_error_in_place(out: torch.Tensor, expected: torch.Tensor, scale: float) -> float:
    """relative_error where the tensors are, in the wider of their dtypes, over scale (error_scale(expected)): a GPU
    sweep or A/B checks each kernel against cuDNN's float32 output without copying either to the CPU."""
    if not torch.isfinite(out).all():
        return float("inf")
    return (out - expected).abs().max().item() / scale


def operand_shapes(problem: Problem) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """The torch shapes of the runner-order operands (fwd: x, w; bwd_data: dy, w; bwd_weight: x, dy)."""
    return {Direction.fwd: (problem.input_shape, problem.weight_shape),
            Direction.bwd_data: (problem.output_shape, problem.weight_shape),
            Direction.bwd_weight: (problem.input_shape, problem.output_shape)}[problem.direction]


def random_operands(problem: Problem, device: str = "cpu", seed: int = 0) -> tuple[torch.Tensor, torch.Tensor]:
    """Non-zero random inputs in the runner order, channels_last, rounded to the problem dtype."""
    generator = torch.Generator().manual_seed(seed)
    dtype = TORCH_DTYPES[problem.dtype]

    def tensor(shape):
        return channels_last(torch.randn(shape, generator=generator).to(dtype).to(device))

    first, second = operand_shapes(problem)
    return tensor(first), tensor(second)


def empty_operands(problem: Problem, device: str = "cpu") -> tuple[torch.Tensor, torch.Tensor]:
    """Runner-order operands as random_operands lays them out, stride for stride, allocated and never written (no work
    on a device): a sweep compiles each kernel ahead on these, and Triton specialises a kernel on its arguments'
    values (a stride of 1 is a constant), so any other stride would compile another kernel -- the one the timed run
    then compiles itself."""
    dtype = TORCH_DTYPES[problem.dtype]
    return tuple(channels_last(torch.empty(shape, dtype=dtype, device=device)) for shape in operand_shapes(problem))


def channels_last(tensor: torch.Tensor) -> torch.Tensor:
    """A dense (N, C, H, W) tensor in channels_last memory. A size-1 dimension's stride is left as the dense layout
    had it (a [K, 1, Y, X] weight keeps channel stride Y * X; torch.empty(..., memory_format=torch.channels_last)
    would give 1), the same for every tensor this module makes."""
    return tensor.contiguous(memory_format=torch.channels_last)


def result_shape(problem: Problem) -> tuple[int, int, int, int]:
    return {Direction.fwd: problem.output_shape, Direction.bwd_data: problem.input_shape,
            Direction.bwd_weight: problem.weight_shape}[problem.direction]


def poisoned_output(problem: Problem, device: str = "cpu") -> torch.Tensor:
    """A channels_last result buffer full of NaN, so any element a kernel fails to write is caught."""
    out = torch.full(result_shape(problem), float("nan"), dtype=TORCH_DTYPES[problem.dtype], device=device)
    return channels_last(out)
