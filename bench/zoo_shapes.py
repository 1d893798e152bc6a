"""Grouped and depthwise convolution layers of real networks (timm models), for held-out evaluation only.

DESIGN.md §10-§11: the timm / torchvision model zoos are never trained on, tuned on or used to pick rules; they are
where the selector's efficiency and the speed-up over cuDNN are judged on "unseen real-network shapes". This module
lists the Conv2d layers with groups > 1 of a few well-known timm models (a forward pass at the model's default input
size, with forward hooks: every layer's input size is what the network feeds it) and writes

- the layers file: one row per layer (model, module name, count of the same shape in the model, the shape at N=1),
  for per-model tables;
- the problems file: each distinct shape at N=32 in fwd, bwd_data and bwd_weight (training batch) and at N=1 in fwd
  (inference), in gconv's problem CSV.

    python -m bench.zoo_shapes --layers bench/results/zoo/layers.csv --problems bench/problems/zoo-timm-bf16.csv
    python -m bench.zoo_shapes --models regnetx_016 ... --layers bench/results/zoo2/layers.csv \
        --problems bench/problems/zoo2-timm-bf16.csv --exclude bench/problems/*.csv   # a second, disjoint file

It needs timm (the device has it; gconv does not depend on it).
"""
from __future__ import annotations

import argparse
import csv
import sys
from collections import Counter
from pathlib import Path

from pydantic import BaseModel, ConfigDict

from gconv.bench.problems import CSV_FIELDS, read_problems, write_problems
from gconv.files import replacing
from gconv.schemas import Direction, DType, Problem

# The models: each brings a different kind of grouped layer (a handful of distinct shapes each).
MODELS = {
    "resnext50_32x4d": "32 groups of 4 to 32 channels, 3x3",
    "regnety_040": "group width 64, 3x3, stride 2 at each stage's first block",
    "regnetx_032": "group width 48 (C/G = 48, where tiles pad), 3x3",
    "mobilenetv3_large_100": "depthwise 3x3 and 5x5, multiplier 1",
    "efficientnet_b0": "depthwise 3x3 and 5x5 at five resolutions",
    "convnext_tiny": "depthwise 7x7",
}
TRAINING_BATCH = 32
INFERENCE_BATCH = 1
SHAPE_FIELDS = [name for name in CSV_FIELDS if name not in ("direction", "dtype", "N")]  # a layer's, per group


class ZooLayer(BaseModel):
    """One grouped Conv2d of a model: its module name and its shape (C and K per group, as in Problem)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    model: str
    layer: str
    G: int
    C: int
    K: int
    Hi: int
    Wi: int
    Y: int
    X: int
    stride_h: int
    stride_w: int
    pad_h: int
    pad_w: int
    dil_h: int
    dil_w: int

    def shape(self) -> tuple[int, ...]:
        return tuple(getattr(self, name) for name in SHAPE_FIELDS)

    def problem(self, direction: Direction, dtype: DType, batch: int) -> Problem:
        return Problem(direction=direction, dtype=dtype, N=batch, **dict(zip(SHAPE_FIELDS, self.shape())))


def explicit_padding(padding, kernel_size, stride, dilation) -> tuple[int, int]:
    """A Conv2d's padding as (pad_h, pad_w): ints as they are, 'valid' as 0, 'same' where it is symmetric."""
    if padding == "valid":
        return 0, 0
    if padding == "same":
        total = [d * (k - 1) for k, d in zip(kernel_size, dilation)]
        if any(s != 1 for s in stride) or any(t % 2 for t in total):
            raise ValueError(f"padding 'same' at stride {tuple(stride)}, filter {tuple(kernel_size)}, dilation "
                             f"{tuple(dilation)} is asymmetric: not a gconv problem")
        return total[0] // 2, total[1] // 2
    return int(padding[0]), int(padding[1])


def zoo_layer(model: str, name: str, conv, input_hw: tuple[int, int]) -> ZooLayer:
    """The ZooLayer of a torch.nn.Conv2d (groups > 1) fed an input of spatial size input_hw; refused for the timm
    convolutions that pad their input themselves (dynamic 'same' padding: the hooked input is not what the
    convolution sees)."""
    if getattr(conv, "same_pad", type(conv).__name__.endswith(("Same", "SameExport"))):
        raise ValueError(f"{model} {name}: {type(conv).__name__} pads its input itself ('same' padding at run time); "
                         "its hooked input size is not the convolution's")
    pad_h, pad_w = explicit_padding(conv.padding, conv.kernel_size, conv.stride, conv.dilation)
    return ZooLayer(model=model, layer=name, G=conv.groups, C=conv.in_channels // conv.groups,
                    K=conv.out_channels // conv.groups, Hi=input_hw[0], Wi=input_hw[1], Y=conv.kernel_size[0],
                    X=conv.kernel_size[1], stride_h=conv.stride[0], stride_w=conv.stride[1], pad_h=pad_h, pad_w=pad_w,
                    dil_h=conv.dilation[0], dil_w=conv.dilation[1])


def model_layers(model: str) -> list[ZooLayer]:
    """The grouped Conv2d layers of a timm model in forward order, from one forward pass (batch 1, random weights,
    the model's default input size) on the CPU."""
    import timm
    import torch

    network = timm.create_model(model, pretrained=False).eval()
    names = {module: name for name, module in network.named_modules()}
    layers = []

    def record(conv, inputs, _output):
        if conv.groups > 1:
            layers.append(zoo_layer(model, names[conv], conv, tuple(inputs[0].shape[-2:])))

    hooks = [m.register_forward_hook(record) for m in network.modules() if isinstance(m, torch.nn.Conv2d)]
    try:
        with torch.no_grad():
            network(torch.randn(1, *network.pretrained_cfg["input_size"]))
    finally:
        for hook in hooks:
            hook.remove()
    return layers


def zoo_problems(layers: list[ZooLayer], dtype: DType, excluded: frozenset[Problem] = frozenset()) -> list[Problem]:
    """Each distinct shape of layers (first-seen order) at the training batch in every direction, then at the
    inference batch in fwd; less the problems in excluded (e.g. those an earlier zoo file or a training file holds)."""
    distinct = {}
    for layer in layers:
        distinct.setdefault(layer.shape(), layer)
    distinct = list(distinct.values())
    problems = ([layer.problem(direction, dtype, TRAINING_BATCH) for layer in distinct for direction in Direction]
                + [layer.problem(Direction.fwd, dtype, INFERENCE_BATCH) for layer in distinct])
    return [problem for problem in problems if problem not in excluded]


def write_layers(path: Path, layers: list[ZooLayer]) -> None:
    """One row per (model, shape): the first module of that shape, and how many of the model's layers have it."""
    counts = Counter((layer.model, layer.shape()) for layer in layers)
    first = {}
    for layer in layers:
        first.setdefault((layer.model, layer.shape()), layer)
    with replacing(path, newline="") as f:
        writer = csv.DictWriter(f, fieldnames=["model", "layer", "count", *SHAPE_FIELDS])
        writer.writeheader()
        for key, layer in first.items():
            writer.writerow({**layer.model_dump(), "count": counts[key]})


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--layers", type=Path, required=True, help="the per-model layers CSV to write")
    parser.add_argument("--problems", type=Path, required=True, help="the problem CSV to write")
    parser.add_argument("--dtype", type=DType, default=DType.bf16)
    parser.add_argument("--models", nargs="+", default=list(MODELS), help="timm model names (default: MODELS)")
    parser.add_argument("--exclude", nargs="+", type=Path, default=[],
                        help="problem files whose problems are left out (the layers file keeps every layer)")
    args = parser.parse_args(argv)
    try:
        import timm
    except ImportError:
        print("error: bench.zoo_shapes needs timm (pip install timm; the device has it)", file=sys.stderr)
        return 2
    layers = []
    for model in args.models:
        found = model_layers(model)
        print(f"{model}: {len(found)} grouped layers, {len({layer.shape() for layer in found})} distinct shapes")
        layers += found
    excluded = frozenset(p for path in args.exclude for p in read_problems(path))
    problems = zoo_problems(layers, args.dtype, excluded)
    if excluded:
        print(f"{len(zoo_problems(layers, args.dtype)) - len(problems)} problems left out: in {len(args.exclude)} "
              "excluded files")
    for path in (args.layers, args.problems):
        path.parent.mkdir(parents=True, exist_ok=True)
    write_layers(args.layers, layers)
    write_problems(args.problems, problems, comment=(
        f"HELD-OUT EVALUATION ONLY (never train, tune or pick rules on these): the grouped Conv2d layers of timm "
        f"{timm.__version__} models {', '.join(args.models)} at their default input size (python -m bench.zoo_shapes); "
        f"each distinct shape at N={TRAINING_BATCH} in every direction, then at N={INFERENCE_BATCH} in fwd"
        + (f"; less the problems of {len(args.exclude)} other problem files" if args.exclude else "")))
    shapes = len({tuple(getattr(p, name) for name in SHAPE_FIELDS) for p in problems})
    print(f"{len(problems)} problems ({shapes} distinct shapes) -> {args.problems}; layers -> {args.layers}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
