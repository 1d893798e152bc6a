"""Benchmark problem sets: a seeded synthetic generator and CSV files in CK's benchmark column names.

Never model-zoo (timm / torchvision) shapes: those are held out for evaluating selection.
"""
from __future__ import annotations

import csv
import random
from pathlib import Path

from pydantic import ValidationError

from gconv.files import replacing
from gconv.schemas import Direction, DType, Problem

CSV_FIELDS = ["direction", "dtype", "N", "G", "C", "K", "Hi", "Wi", "Y", "X", "stride_h", "stride_w", "pad_h",
              "pad_w", "dil_h", "dil_w"]
CHANNELS = [1, 2, 3, 4, 6, 8, 12, 16, 24, 32, 48, 64, 96, 112, 128, 192, 256, 384, 512, 640]
SPATIAL = [7, 8, 14, 15, 17, 28, 32, 35, 56, 64, 73, 112, 128, 149, 224]
BATCHES = [1, 8, 32, 128]
MAX_ACTIVATION_ELEMENTS = 2**28  # keep every operand comfortably on one GPU and in 32-bit indexing


def synthetic_problems(count: int, seed: int, directions=tuple(Direction), dtypes=(DType.bf16,),
                       batches=BATCHES) -> list[Problem]:
    """count problems per (direction, dtype): depthwise (with multipliers), few and many channels per group."""
    rng = random.Random(seed)
    shapes = []
    while len(shapes) < count:
        kind = rng.choice(["depthwise", "small", "large"])
        if kind == "depthwise":
            G, C, K = rng.choice([16, 32, 64, 96, 128, 256, 384, 512, 960]), 1, rng.choice([1, 1, 1, 2, 4])
        elif kind == "small":
            C = rng.choice([c for c in CHANNELS if c <= 16])
            K = rng.choice([C, C, 2 * C, max(1, C // 2)])
            G = rng.choice([4, 8, 16, 32, 64, 128])
        else:
            C = rng.choice([c for c in CHANNELS if c > 16])
            K = rng.choice([C, C, 2 * C])
            G = rng.choice([1, 2, 4, 8, 16, 32])
        Y = rng.choice([1, 3, 3, 3, 5, 7])
        stride = rng.choice([1, 1, 2])
        dilation = rng.choice([1, 1, 1, 2]) if Y > 1 else 1
        H = rng.choice(SPATIAL)
        N = rng.choice(list(batches))
        shape = dict(N=N, G=G, C=C, K=K, Hi=H, Wi=H, Y=Y, X=Y, stride_h=stride, stride_w=stride,
                     pad_h=dilation * (Y - 1) // 2, pad_w=dilation * (Y - 1) // 2, dil_h=dilation, dil_w=dilation)
        if N * G * max(C, K) * H * H > MAX_ACTIVATION_ELEMENTS:
            continue
        shapes.append(shape)
    return [Problem(direction=d, dtype=t, **s) for s in shapes for d in directions for t in dtypes]


ODD_GROUP_COUNTS = (3, 5, 7, 9, 11, 13, 15, 17, 19, 21, 25, 27)


def odd_channel_problems(count: int, seed: int, dtype: DType = DType.bf16, odd_groups: bool = False,
                         excluded: frozenset[Problem] = frozenset()) -> list[Problem]:
    """count shapes x three directions with C/G a multiple of 8 but not of 32 (24 to 80; half of them 24, where groups
    can still be merged) and K/G = C/G or twice it, 3x3 to 7x7 filters, N 8 or 32, 28 to 128 pixels square: the
    channel counts where every implicit-GEMM tile pads its reduction or its filters. G is a power of two (2 to 32),
    or with odd_groups an odd count (3 to 27: no merge of 2, 4 or 8 groups divides it). Shapes with a problem in
    excluded are drawn again."""
    rng = random.Random(seed)
    shapes = []
    while len(shapes) < count:
        C = 24 if len(shapes) % 2 == 0 else rng.choice([40, 48, 56, 80])
        K = rng.choice([C, C, 2 * C])
        G = rng.choice(ODD_GROUP_COUNTS if odd_groups else [2, 4, 8, 16, 32])
        Y = rng.choice([3, 3, 5, 7])
        stride = rng.choice([1, 1, 2])
        dilation = rng.choice([1, 1, 1, 2])
        H = rng.choice([s for s in SPATIAL if 28 <= s <= 128])
        N = rng.choice([8, 32])
        if N * G * max(C, K) * H * H > MAX_ACTIVATION_ELEMENTS // 2:
            continue
        pad = dilation * (Y - 1) // 2
        shape = dict(N=N, G=G, C=C, K=K, Hi=H, Wi=H, Y=Y, X=Y, stride_h=stride, stride_w=stride, pad_h=pad, pad_w=pad,
                     dil_h=dilation, dil_w=dilation)
        if any(Problem(direction=d, dtype=dtype, **shape) in excluded for d in Direction):
            continue
        shapes.append(shape)
    return [Problem(direction=d, dtype=dtype, **s) for s in shapes for d in Direction]


def pointwise_problems(count: int, seed: int, dtype: DType = DType.bf16, batches=BATCHES) -> list[Problem]:
    """count fwd problems of 1x1, stride-1, unpadded grouped convolutions (what explicit-GEMM kernels run): 8 to 640
    channels per group, 1 to 32 groups."""
    rng = random.Random(seed)
    problems = []
    while len(problems) < count:
        C = rng.choice([c for c in CHANNELS if c >= 8])
        K = rng.choice([C, C, 2 * C, max(8, C // 2)])
        G = rng.choice([1, 2, 4, 8, 16, 32])
        H = rng.choice([s for s in SPATIAL if s <= 112])
        N = rng.choice(list(batches))
        if N * G * max(C, K) * H * H > MAX_ACTIVATION_ELEMENTS:
            continue
        problems.append(Problem(direction=Direction.fwd, dtype=dtype, N=N, G=G, C=C, K=K, Hi=H, Wi=H, Y=1, X=1))
    return problems


def tiny_group_problems(count: int, seed: int, dtype: DType = DType.bf16, batches=BATCHES) -> list[Problem]:
    """count shapes x three directions of grouped convolutions with 2 or 4 channels per group and 1, 2 or 4 filters
    per group, square 3x3 to 7x7 filters (what the tiny-group kernels of the depthwise family run), 8 to 256 groups."""
    rng = random.Random(seed)
    shapes = []
    while len(shapes) < count:
        C = rng.choice([2, 4])
        K = rng.choice([C, C, 1, 2, 4])
        G = rng.choice([8, 16, 32, 64, 128, 256])
        Y = rng.choice([3, 3, 5, 7])
        stride = rng.choice([1, 1, 2])
        dilation = rng.choice([1, 1, 1, 2])
        H = rng.choice(SPATIAL)
        N = rng.choice(list(batches))
        if N * G * max(C, K) * H * H > MAX_ACTIVATION_ELEMENTS:
            continue
        pad = dilation * (Y - 1) // 2
        shapes.append(dict(N=N, G=G, C=C, K=K, Hi=H, Wi=H, Y=Y, X=Y, stride_h=stride, stride_w=stride, pad_h=pad,
                           pad_w=pad, dil_h=dilation, dil_w=dilation))
    return [Problem(direction=d, dtype=dtype, **s) for s in shapes for d in Direction]


def network_like_problems(count: int, seed: int, dtype: DType = DType.bf16,
                          excluded: frozenset[Problem] = frozenset(), quantized: bool = False) -> list[Problem]:
    """count shapes x three directions laid out as convolutional networks lay out their grouped layers (from first
    principles, no model's layer list): a stage of resolution 7 to 112 whose width doubles with each halving, the
    layer at stride 1 on the stage's resolution or at stride 2 on twice it; depthwise (multiplier 1, 3x3 mostly, 5x5,
    7x7) over an expanded width, a fixed group count (8 to 64 groups, 3x3) or a fixed group width (8 to 128 channels
    per group, 3x3); N 32 mostly, 8 or 1. quantized: each stage's width is scaled by 0.6-1.5 and kept a multiple of
    4 rather than a power of two, as networks whose widths are searched or quantized have them: group counts no merge
    of 2 or 4 divides (3, 7, 17, ...) and depthwise channel counts 8 does not divide (12, 20, 36, ...). Shapes whose
    problem is in excluded (e.g. the held-out model-zoo layers) are drawn again."""
    rng = random.Random(seed)
    shapes, problems = [], []
    while len(shapes) < count:
        stage = rng.randrange(5)  # resolution 112, 56, 28, 14, 7
        resolution, width = 112 >> stage, 16 << stage
        if quantized:
            width = max(4, round(width * rng.uniform(0.6, 1.5) / 4) * 4)
        stride = rng.choice([1, 1, 1, 2])
        kind = rng.choice(["depthwise", "depthwise", "group-count", "group-width"])
        if kind == "depthwise":
            G, C, Y = width * rng.choice([1, 3, 4, 6]), 1, rng.choice([3, 3, 3, 5, 5, 7])
        elif kind == "group-count":
            G, Y = rng.choice([8, 16, 32, 64]), 3
            C = max(1, 4 * width * rng.choice([1, 2]) // G)
        else:
            C, Y = rng.choice([8, 16, 24, 32, 48, 64, 96, 128]), 3
            G = max(1, 4 * width * rng.choice([1, 2]) // C)
        N = rng.choice([32, 32, 32, 8, 1])
        H = resolution * stride
        shape = dict(N=N, G=G, C=C, K=C, Hi=H, Wi=H, Y=Y, X=Y, stride_h=stride, stride_w=stride, pad_h=(Y - 1) // 2,
                     pad_w=(Y - 1) // 2)
        drawn = [Problem(direction=d, dtype=dtype, **shape) for d in Direction]
        if shape in shapes or any(p in excluded for p in drawn) or N * G * C * H * H > MAX_ACTIVATION_ELEMENTS:
            continue
        shapes.append(shape)
        problems += drawn
    return problems


def shape_class(problem: Problem) -> str:
    """The report's shape classes: depthwise (C = 1 per group), C/G <= 16, C/G > 16."""
    if problem.C == 1:
        return "depthwise"
    return "C/G<=16" if problem.C <= 16 else "C/G>16"


def write_problems(path: Path, problems: list[Problem], comment: str | None = None) -> None:
    """problems as CSV in CK's columns, after a '# comment' line when given (read_problems skips it); written through
    a temporary file, so nothing is half-written."""
    with replacing(path, newline="") as f:
        if comment is not None:
            f.write(f"# {comment}\n")
        writer = csv.DictWriter(f, fieldnames=CSV_FIELDS)
        writer.writeheader()
        for p in problems:
            writer.writerow(p.model_dump(mode="json"))


def read_problems(path: Path) -> list[Problem]:
    """Problems from a CSV with CK's column names (lines starting with # are comments)."""
    path = Path(path)
    if not path.exists():
        raise FileNotFoundError(f"problem file {path} does not exist")
    with open(path, newline="") as f:
        lines = [line for line in f if line.strip() and not line.startswith("#")]
    reader = csv.DictReader(lines)
    missing = [name for name in CSV_FIELDS if name not in (reader.fieldnames or [])]
    if missing:
        raise ValueError(f"{path}: missing columns {', '.join(missing)}; expected {', '.join(CSV_FIELDS)}")
    problems = []
    for number, row in enumerate(reader, start=2):
        try:
            problems.append(Problem(**{k: row[k] for k in CSV_FIELDS}))
        except ValidationError as error:
            first = error.errors()[0]
            where = ".".join(str(p) for p in first["loc"]) or "row"
            raise ValueError(f"{path}:{number}: {where}: {first['msg']}") from None
    return problems
