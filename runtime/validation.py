"""Check the public API's arguments and turn them into a Problem; every message names the argument."""
from __future__ import annotations

from collections.abc import Sequence

import torch
from pydantic import ValidationError

from gconv.schemas import Direction, DType, Problem
from gconv.schemas.problem import MAX_INDEX

DTYPES = {torch.float16: DType.fp16, torch.bfloat16: DType.bf16, torch.float32: DType.fp32}
ACTIVATION = "(N, G*C, H, W)"
WEIGHT = "(G*K, C, Y, X)"


def as_pair(name: str, value, *, minimum: int) -> tuple[int, int]:
    """An int or a pair of ints, each >= minimum."""
    if isinstance(value, bool) or not isinstance(value, (int, Sequence)) or isinstance(value, str):
        raise TypeError(f"{name} must be an int or a pair of ints, got {type(value).__name__}")
    pair = (value, value) if isinstance(value, int) else tuple(value)
    if len(pair) != 2 or not all(isinstance(v, int) and not isinstance(v, bool) for v in pair):
        raise TypeError(f"{name} must be an int or a pair of ints, got {value!r}")
    if min(pair) < minimum:
        relation = "positive" if minimum == 1 else "non-negative"
        raise ValueError(f"{name} must be {relation}, got {value!r}")
    return pair


def check_tensor(name: str, tensor, layout: str) -> None:
    if not isinstance(tensor, torch.Tensor):
        raise TypeError(f"{name} must be a torch.Tensor, got {type(tensor).__name__}")
    if tensor.dim() != 4:
        raise ValueError(f"{name} must be 4-D {layout}, got shape {tuple(tensor.shape)}")
    if tensor.dtype not in DTYPES:
        supported = ", ".join(str(d) for d in DTYPES)
        raise TypeError(f"{name} has dtype {tensor.dtype}; supported: {supported}")
    if layout == WEIGHT and tensor.numel() > MAX_INDEX:
        raise ValueError(f"{name} has {tensor.numel()} elements; gconv's kernels index with 32-bit integers "
                         f"(at most {MAX_INDEX} elements per weight tensor; activations run in slices of whole "
                         f"images)")
    if layout != WEIGHT and tensor.numel() // max(1, tensor.shape[0]) > MAX_INDEX:
        raise ValueError(f"one image of {name} has {tensor.numel() // tensor.shape[0]} elements; gconv's kernels "
                         f"index with 32-bit integers and slice batches only into whole images (at most "
                         f"{MAX_INDEX} elements per image)")


def check_shape_arg(name: str, shape, layout: str) -> tuple[int, int, int, int]:
    if isinstance(shape, torch.Size):
        shape = tuple(shape)
    if not isinstance(shape, (tuple, list)) or len(shape) != 4 or \
            not all(isinstance(v, int) and not isinstance(v, bool) and v > 0 for v in shape):
        raise ValueError(f"{name} must be 4 positive ints{' ' + layout if layout else ''}, got {shape!r}")
    return tuple(shape)


def check_match(first: str, a: torch.Tensor, second: str, b: torch.Tensor) -> None:
    if a.device != b.device:
        raise ValueError(f"{second} is on {b.device} but {first} is on {a.device}")
    if a.dtype != b.dtype:
        raise TypeError(f"{second} has dtype {b.dtype} but {first} has dtype {a.dtype}")


def check_groups(groups) -> int:
    if isinstance(groups, bool) or not isinstance(groups, int):
        raise TypeError(f"groups must be an int, got {type(groups).__name__}")
    if groups < 1:
        raise ValueError(f"groups must be positive, got {groups}")
    return groups


def split_channels(name: str, channels: int, groups: int, what: str) -> int:
    if channels % groups:
        raise ValueError(f"{name} has {channels} {what}, not divisible by groups={groups}")
    return channels // groups


def shape_of(name: str, value) -> tuple[int, int, int, int]:
    """A 4-D tensor's shape, or a shape given directly."""
    if isinstance(value, torch.Tensor):
        if value.dim() != 4:
            raise ValueError(f"{name} must be 4-D, got shape {tuple(value.shape)}")
        return tuple(value.shape)
    return check_shape_arg(name, value, "")


def dtype_of(name: str, tensor) -> torch.dtype:
    if not isinstance(tensor, torch.Tensor):
        raise TypeError(f"{name} must be a torch.Tensor, got {type(tensor).__name__}")
    if tensor.dtype not in DTYPES:
        raise TypeError(f"{name} has dtype {tensor.dtype}; supported: {', '.join(str(d) for d in DTYPES)}")
    return tensor.dtype


def make_problem(direction: Direction, dtype: torch.dtype, input_shape, weight_shape, groups: int,
                 stride, padding, dilation) -> Problem:
    """The Problem of an (input shape, weight shape) pair, with every argument checked."""
    stride = as_pair("stride", stride, minimum=1)
    padding = as_pair("padding", padding, minimum=0)
    dilation = as_pair("dilation", dilation, minimum=1)
    n, xc, hi, wi = input_shape
    gk, wc, y, x = weight_shape
    c = split_channels("the input", xc, groups, "channels")
    k = split_channels("the weight", gk, groups, "output channels")
    if wc != c:
        raise ValueError(f"the weight has {wc} input channels per group but the input has {xc} channels / "
                         f"groups={groups} = {c}")
    try:
        return Problem(direction=direction, dtype=DTYPES[dtype], N=n, G=groups, C=c, K=k, Hi=hi, Wi=wi, Y=y, X=x,
                       stride_h=stride[0], stride_w=stride[1], pad_h=padding[0], pad_w=padding[1],
                       dil_h=dilation[0], dil_w=dilation[1])
    except ValidationError as error:
        raise ValueError(error.errors()[0]["msg"].removeprefix("Value error, ")) from None


def fwd_problem(x, w, stride, padding, dilation, groups) -> Problem:
    check_tensor("x", x, ACTIVATION)
    check_tensor("w", w, WEIGHT)
    check_match("x", x, "w", w)
    groups = check_groups(groups)
    return make_problem(Direction.fwd, x.dtype, tuple(x.shape), tuple(w.shape), groups, stride, padding, dilation)


def bwd_data_problem(dy, w, input_shape, stride, padding, dilation, groups) -> Problem:
    check_tensor("dy", dy, ACTIVATION.replace("C", "K"))
    check_tensor("w", w, WEIGHT)
    check_match("dy", dy, "w", w)
    groups = check_groups(groups)
    input_shape = check_shape_arg("input_shape", input_shape, ACTIVATION)
    problem = make_problem(Direction.bwd_data, dy.dtype, input_shape, tuple(w.shape), groups, stride, padding,
                           dilation)
    _check_output_matches("dy", dy, problem)
    return problem


def bwd_weight_problem(x, dy, weight_shape, stride, padding, dilation, groups) -> Problem:
    check_tensor("x", x, ACTIVATION)
    check_tensor("dy", dy, ACTIVATION.replace("C", "K"))
    check_match("x", x, "dy", dy)
    groups = check_groups(groups)
    weight_shape = check_shape_arg("weight_shape", weight_shape, WEIGHT)
    problem = make_problem(Direction.bwd_weight, x.dtype, tuple(x.shape), weight_shape, groups, stride, padding,
                           dilation)
    _check_output_matches("dy", dy, problem)
    return problem


def _check_output_matches(name: str, dy: torch.Tensor, problem: Problem) -> None:
    if tuple(dy.shape) != problem.output_shape:
        raise ValueError(f"{name} has shape {tuple(dy.shape)} but the convolution's output is "
                         f"{problem.output_shape} for these shapes, stride, padding and dilation")
