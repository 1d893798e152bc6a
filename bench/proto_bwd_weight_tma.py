"""Prototype (not a generated family yet): igemm backward-weight whose operands both arrive through tensor
descriptors (TMA on sm_90), timed on the GPU against the best `default` kernel of sweep files and cuDNN, in one
process.

    python -m bench.proto_bwd_weight_tma --sweep bench/results/train-seed4-default-bf16-gputime.csv ... \
        --out $OUT/proto.csv

The `default` igemm bwd_weight kernels gather the input patch of a (pixels x (tap, channel)) tile with per-element
addresses and masks: compiled for sm_90 (`m64n64k32`, 4 warps), a reduction step issues ~180 instructions a thread
against 64 tensor-core cycles, so the loop is bound by instruction issue, not by the tensor cores (dense C/G = 64
layers run at a third of cuDNN's speed). Here a program owns one filter tap's BLOCK_N channels (so the tap is a
scalar of the program) and BLOCK_M filters of a group, and walks the reduction as tiles of ROWS output rows x COLS
output columns of one image: the dy tile is a box of the NHWC dy tensor and the input tile a box of a strided view
of x (rows and columns every stride apart, from the tap's first input pixel), both loaded by a descriptor whose
out-of-bounds elements read as zero -- the convolution's padding, and the ragged edges of the pixel tiles, with no
per-element arithmetic. Columns past the group's channels (or filters) read the next group's and are never stored.

Split across programs by a launch-time share of the pixel tiles (as many programs as PROGRAMS_PER_SM x the SMs),
partial sums added into an fp32 workspace with atomics (an unsplit program stores its tile). Needs C and K % 8 == 0 (16-byte descriptor strides and
offsets, 2-byte dtypes).
"""
from __future__ import annotations

import importlib.util
import sys
import tempfile
from pathlib import Path

import torch
import triton

from gconv.schemas import Direction, Problem

from .prototype_harness import prototype_arguments, run_prototype

DEVICE = "cuda" if torch.cuda.is_available() else "cpu"  # cpu: a smoke test under TRITON_INTERPRET=1
SMS = 132

# (BLOCK_M, BLOCK_N, ROWS, COLS, warps, stages, programs per SM)
VARIANTS = [
    (64, 64, 4, 16, 4, 4, 2), (64, 64, 4, 16, 4, 4, 1), (64, 64, 4, 16, 4, 4, 4), (64, 64, 2, 16, 4, 4, 3),
    (64, 64, 8, 8, 4, 4, 2), (64, 128, 4, 16, 4, 3, 2), (128, 64, 4, 16, 8, 3, 2), (128, 64, 1, 64, 4, 3, 2),
    (128, 128, 8, 8, 8, 3, 1), (128, 128, 4, 16, 8, 3, 1), (128, 128, 4, 16, 8, 4, 2), (128, 128, 1, 64, 8, 4, 1),
]

_SOURCE = '''
import triton
import triton.language as tl


@triton.jit
def kernel(x_ptr, dy_ptr, ws_ptr, N, G, C, K, Hi, Wi, Ho, Wo, X, pad_h, pad_w, dil_h, dil_w,
           sxn, sxh, sxw, syn, syh, syw, swk, swc, swy, swx, steps_per_split,
           STRIDE_H: tl.constexpr, STRIDE_W: tl.constexpr, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr,
           ROWS: tl.constexpr, COLS: tl.constexpr, STAGES: tl.constexpr, SPLIT: tl.constexpr):
    BLOCK_K: tl.constexpr = ROWS * COLS
    num_pid_m = tl.cdiv(K, BLOCK_M)
    channel_blocks = tl.cdiv(C, BLOCK_N)
    pid_m = tl.program_id(0) % num_pid_m
    pid_n = tl.program_id(0) // num_pid_m
    g = tl.program_id(1)
    tap = pid_n // channel_blocks
    c0 = (pid_n % channel_blocks) * BLOCK_N
    fy = tap // X
    fx = tap % X
    # Input pixel of output (ho, wo) for this tap: (ho * S + oh, wo * S + ow) = (rh + (ho + qh) * S, ...): a view of
    # x from (rh, rw) with every S-th row and column, read at (ho + qh, wo + qw).
    oh = fy * dil_h - pad_h
    ow = fx * dil_w - pad_w
    rh = (oh % STRIDE_H + STRIDE_H) % STRIDE_H
    rw = (ow % STRIDE_W + STRIDE_W) % STRIDE_W
    qh = (oh - rh) // STRIDE_H
    qw = (ow - rw) // STRIDE_W
    x_desc = tl.make_tensor_descriptor(
        x_ptr + rh * sxh + rw * sxw, shape=[N, tl.cdiv(Hi - rh, STRIDE_H), tl.cdiv(Wi - rw, STRIDE_W), G * C],
        strides=[sxn, sxh * STRIDE_H, sxw * STRIDE_W, 1], block_shape=[1, ROWS, COLS, BLOCK_N])
    dy_desc = tl.make_tensor_descriptor(
        dy_ptr, shape=[N, Ho, Wo, G * K], strides=[syn, syh, syw, 1], block_shape=[1, ROWS, COLS, BLOCK_M])
    tiles_w = tl.cdiv(Wo, COLS)
    tiles_h = tl.cdiv(Ho, ROWS)
    steps = N * tiles_h * tiles_w
    start = tl.program_id(2) * steps_per_split
    end = tl.minimum(start + steps_per_split, steps)
    wt = start % tiles_w
    ht = (start // tiles_w) % tiles_h
    n = start // (tiles_w * tiles_h)
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for _ in tl.range(start, end, num_stages=STAGES):
        ho0 = ht * ROWS
        wo0 = wt * COLS
        a = tl.reshape(dy_desc.load([n, ho0, wo0, g * K + pid_m * BLOCK_M]), (BLOCK_K, BLOCK_M))
        b = tl.reshape(x_desc.load([n, ho0 + qh, wo0 + qw, g * C + c0]), (BLOCK_K, BLOCK_N))
        acc = tl.dot(tl.trans(a), b, acc)
        wt += 1
        wrap = wt == tiles_w
        wt = tl.where(wrap, 0, wt)
        ht += wrap.to(tl.int32)
        wrap = ht == tiles_h
        ht = tl.where(wrap, 0, ht)
        n += wrap.to(tl.int32)
    offs_m = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_c = c0 + tl.arange(0, BLOCK_N)
    offs = ((g * K + offs_m) * swk)[:, None] + (offs_c * swc + fy * swy + fx * swx)[None, :]
    mask = (offs_m < K)[:, None] & (offs_c < C)[None, :]
    if SPLIT:
        tl.atomic_add(ws_ptr + offs, acc, mask=mask)
    else:
        tl.store(ws_ptr + offs, acc.to(ws_ptr.dtype.element_ty), mask=mask)
'''

_SCRATCH = Path(tempfile.mkdtemp(prefix="proto-bwd-weight-tma-"))
_KERNEL = None


def kernel():
    global _KERNEL
    if _KERNEL is None:
        path = _SCRATCH / "bwd_weight_tma.py"
        path.write_text(_SOURCE)
        spec = importlib.util.spec_from_file_location(path.stem, path)
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        _KERNEL = module.kernel
    return _KERNEL


def supports(problem: Problem) -> bool:
    p = problem
    return (p.direction is Direction.bwd_weight and p.C >= 16 and p.K >= 16 and p.C % 8 == 0 and p.K % 8 == 0
            and p.dtype.bytes == 2)


def _allocate(size: int, alignment: int, stream):
    return torch.empty(size, dtype=torch.int8, device=DEVICE)


def launch(problem: Problem, variant, x: torch.Tensor, dy: torch.Tensor, out: torch.Tensor) -> None:
    p = problem
    block_m, block_n, rows, cols, warps, stages, per_sm = variant
    triton.set_allocator(_allocate)
    tiles_mn = triton.cdiv(p.K, block_m) * p.Y * p.X * triton.cdiv(p.C, block_n)
    steps = p.N * triton.cdiv(p.Ho, rows) * triton.cdiv(p.Wo, cols)
    split = max(1, min(steps, SMS * per_sm // (tiles_mn * p.G)))
    per_split = triton.cdiv(steps, split)
    split = triton.cdiv(steps, per_split)
    ws = out if split == 1 else \
        torch.zeros(out.shape, dtype=torch.float32, device=out.device).contiguous(memory_format=torch.channels_last)
    xs, ys, wss = x.stride(), dy.stride(), ws.stride()
    kernel()[(tiles_mn, p.G, split)](
        x, dy, ws, p.N, p.G, p.C, p.K, p.Hi, p.Wi, p.Ho, p.Wo, p.X, p.pad_h, p.pad_w, p.dil_h, p.dil_w,
        xs[0], xs[2], xs[3], ys[0], ys[2], ys[3], wss[0], wss[1], wss[2], wss[3], per_split,
        STRIDE_H=p.stride_h, STRIDE_W=p.stride_w, BLOCK_M=block_m, BLOCK_N=block_n, ROWS=rows, COLS=cols,
        STAGES=stages, SPLIT=split > 1, num_warps=warps)
    if split > 1:
        out.copy_(ws)


def main(argv: list[str] | None = None) -> int:
    args = prototype_arguments(__doc__.split("\n\n")[0], min_ms=0.015, compile_s=200.0, deadline_s=400.0, argv=argv)
    return run_prototype(args, supports, VARIANTS, launch, DEVICE)


if __name__ == "__main__":
    sys.exit(main())
