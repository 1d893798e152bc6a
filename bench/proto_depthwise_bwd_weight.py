"""Prototype (not a generated family yet): depthwise (C/G = 1, one filter per group) backward-weight with sliding
rows, timed on the GPU against the best `default` kernel of sweep files and cuDNN, in one process.

    python -m bench.proto_depthwise_bwd_weight --sweep bench/results/train-seed4-default-bf16-gputime.csv ... \
        --out $OUT/proto.csv

The `default` depthwise bwd_weight kernels give each program one filter row fy and load, per pixel tile, the dy tile
once and the x tile once per filter column: 1 + X loads per pixel and filter row, Y (1 + X) per pixel. Here a
program owns TILE_H output rows x BLOCK_W columns x BLOCK_G groups and one fp32 accumulator per tap it reduces:
every input row the tile reaches is loaded once per filter column and multiplied into every output row it pairs
with (input row h0 + j feeds output row i through filter row j - i * STRIDE_H), as the sliding fwd / bwd_data
kernels do. Two layouts:

- `column`: a program per filter column fx, Y accumulators; per tile TILE_H dy rows and TILE_H + Y - 1 x rows.
- `all`: a program reduces every tap, Y x X accumulators; per tile TILE_H dy rows and X (TILE_H + Y - 1) x rows,
  the dy rows loaded once for all taps.

Split across programs by a launch-time share of the tiles (as many programs as PROGRAMS_PER_SM x the SMs), partial
sums added into an fp32 workspace with atomics. Needs dil_h = 1; stride_h is a compile-time constant; stride and
dilation along W are free.
"""
from __future__ import annotations

import importlib.util
import sys
import tempfile
from collections import defaultdict
from pathlib import Path

import torch
import triton

from gconv.schemas import Direction, Problem

from .prototype_harness import prototype_arguments, run_prototype

DEVICE = "cuda" if torch.cuda.is_available() else "cpu"  # cpu: a smoke test under TRITON_INTERPRET=1
SMS = 132

# (layout, TILE_H, BLOCK_W, BLOCK_G, warps, programs per SM, pipeline stages)
VARIANTS = [
    ("column", 4, 8, 32, 1, 16, 1), ("column", 4, 8, 32, 1, 16, 3), ("column", 8, 8, 32, 1, 16, 1),
    ("column", 4, 16, 32, 2, 8, 1), ("column", 2, 32, 32, 4, 4, 1), ("column", 4, 8, 64, 2, 8, 1),
    ("column", 4, 4, 64, 1, 16, 1),
    # four elements a thread (vectors of 4 channels): half the registers of the ones above
    ("column", 4, 8, 32, 2, 8, 1), ("column", 4, 16, 32, 4, 4, 1), ("column", 2, 16, 32, 2, 8, 1),
    ("all", 4, 8, 32, 2, 8, 1), ("all", 2, 8, 32, 2, 8, 1), ("all", 4, 16, 32, 4, 4, 1),
]


def source_rows(tile_h: int, filter_h: int, stride_h: int) -> list[tuple[int, list[tuple[int, int]]]]:
    """Input rows j of a tile (from its first, h0) with the (output row i, filter row fy) pairs each one feeds."""
    rows = defaultdict(list)
    for i in range(tile_h):
        for fy in range(filter_h):
            rows[i * stride_h + fy].append((i, fy))
    return sorted(rows.items())


def kernel_source(layout: str, tile_h: int, filter_h: int, filter_w: int, stride_h: int, vec: int) -> str:
    """The Triton source of one variant (taps and rows unrolled at generation, as the templates do)."""
    columns = [None] if layout == "column" else list(range(filter_w))
    taps = [(fy, fx) for fy in range(filter_h) for fx in columns]
    name = lambda fy, fx: f"acc_{fy}" if fx is None else f"acc_{fy}_{fx}"  # noqa: E731
    hint = lambda v: f"        {v} = tl.max_contiguous(tl.multiple_of({v}, [1, {vec}]), [1, {vec}])"  # noqa: E731
    lines = [
        "import triton", "import triton.language as tl", "", "", "@triton.jit",
        "def kernel(x_ptr, dy_ptr, ws_ptr, N, G, Hi, Wi, Ho, Wo, stride_w, pad_h, pad_w, dil_w,",
        "           sxn, sxh, sxw, syn, syh, syw, swk, swy, swx, tiles_per_split,",
        "           BLOCK_W: tl.constexpr, BLOCK_G: tl.constexpr, STAGES: tl.constexpr):",
        f"    tiles_w = tl.cdiv(Wo, BLOCK_W)",
        f"    tiles_h = tl.cdiv(Ho, {tile_h})",
        "    num_tiles = N * tiles_h * tiles_w",
        "    first = tl.program_id(0) * tiles_per_split",
        "    last = tl.minimum(first + tiles_per_split, num_tiles)",
        "    g = tl.program_id(1) * BLOCK_G + tl.arange(0, BLOCK_G)",
        "    mask_g = g < G",
    ]
    if layout == "column":
        lines.append("    fx = tl.program_id(2)")
    lines += [f"    {name(fy, fx)} = tl.zeros((BLOCK_W, BLOCK_G), dtype=tl.float32)" for fy, fx in taps]
    lines += [
        "    for tile in tl.range(first, last, num_stages=STAGES):",
        f"        ho0 = (tile // tiles_w) % tiles_h * {tile_h}",
        "        wo = tile % tiles_w * BLOCK_W + tl.arange(0, BLOCK_W)",
        "        n = tile // (tiles_w * tiles_h)",
        "        mask_w = wo < Wo",
        "        dy_cols = (n * syn + wo * syw)[:, None] + g[None, :]",
        "        dy_mask = mask_w[:, None] & mask_g[None, :]",
    ]
    for i in range(tile_h):
        lines.append(f"        dy_offs = (ho0 + {i}) * syh + dy_cols")
        if vec > 1:
            lines.append(hint("dy_offs"))
        lines.append(f"        dy_{i} = tl.load(dy_ptr + dy_offs, mask=tl.where(ho0 + {i} < Ho, dy_mask, False), other=0.0).to(tl.float32)")
    lines.append(f"        h0 = ho0 * {stride_h} - pad_h")
    for fx in columns:
        shift = "fx" if fx is None else str(fx)
        lines += [
            f"        w = wo * stride_w - pad_w + {shift} * dil_w",
            "        x_cols = (n * sxn + w * sxw)[:, None] + g[None, :]",
            "        x_mask = (mask_w & (w >= 0) & (w < Wi))[:, None] & mask_g[None, :]",
        ]
        for j, pairs in source_rows(tile_h, filter_h, stride_h):
            lines.append(f"        x_offs = (h0 + {j}) * sxh + x_cols")
            if vec > 1:
                lines.append(hint("x_offs"))
            lines.append(f"        xv = tl.load(x_ptr + x_offs, mask=tl.where((h0 + {j} >= 0) & (h0 + {j} < Hi), x_mask, False), "
                         "other=0.0).to(tl.float32)")
            lines += [f"        {name(fy, fx)} += dy_{i} * xv" for i, fy in pairs]
    for fy, fx in taps:
        column = "fx" if fx is None else str(fx)
        lines.append(f"    tl.atomic_add(ws_ptr + g * swk + {fy} * swy + {column} * swx, tl.sum({name(fy, fx)}, axis=0), "
                     "mask=mask_g, sem='relaxed')")
    return "\n".join(lines) + "\n"


_MODULES: dict[tuple, object] = {}
_SCRATCH = Path(tempfile.mkdtemp(prefix="proto-dw-"))


def kernel_for(layout: str, tile_h: int, filter_h: int, filter_w: int, stride_h: int, vec: int):
    key = (layout, tile_h, filter_h, filter_w, stride_h, vec)
    if key not in _MODULES:
        path = _SCRATCH / ("dw_bwd_weight_" + "_".join(map(str, key)) + ".py")
        path.write_text(kernel_source(*key))
        spec = importlib.util.spec_from_file_location(path.stem, path)
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        _MODULES[key] = module.kernel
    return _MODULES[key]


def supports(problem: Problem) -> bool:
    p = problem
    return (p.direction is Direction.bwd_weight and p.C == 1 and p.K == 1 and p.dil_h == 1)


def launch(problem: Problem, variant, x: torch.Tensor, dy: torch.Tensor, out: torch.Tensor) -> None:
    p = problem
    layout, tile_h, block_w, block_g, warps, per_sm, stages = variant
    if layout == "all" and p.Y * p.X > 25:
        raise ValueError("more than 25 taps: the `all` layout's accumulators spill")
    vec = 8 if p.G % 8 == 0 else 1
    kernel = kernel_for(layout, tile_h, p.Y, p.X, p.stride_h, vec)
    tiles = p.N * triton.cdiv(p.Ho, tile_h) * triton.cdiv(p.Wo, block_w)
    group_blocks = triton.cdiv(p.G, block_g)
    columns = p.X if layout == "column" else 1
    split = max(1, min(tiles, SMS * per_sm // (group_blocks * columns)))
    per_split = triton.cdiv(tiles, split)
    split = triton.cdiv(tiles, per_split)
    ws = torch.zeros(out.shape, dtype=torch.float32, device=out.device).contiguous(memory_format=torch.channels_last)
    xs, ys, ws_s = x.stride(), dy.stride(), ws.stride()
    kernel[(split, group_blocks, columns)](
        x, dy, ws, p.N, p.G, p.Hi, p.Wi, p.Ho, p.Wo, p.stride_w, p.pad_h, p.pad_w, p.dil_w,
        xs[0], xs[2], xs[3], ys[0], ys[2], ys[3], ws_s[0], ws_s[2], ws_s[3], per_split,
        BLOCK_W=block_w, BLOCK_G=block_g, STAGES=stages, num_warps=warps)
    out.copy_(ws)


def main(argv: list[str] | None = None) -> int:
    args = prototype_arguments(__doc__.split("\n\n")[0], min_ms=0.015, compile_s=150.0, deadline_s=400.0, argv=argv)
    return run_prototype(args, supports, VARIANTS, launch, DEVICE)


if __name__ == "__main__":
    sys.exit(main())
