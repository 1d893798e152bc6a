"""Prototype (not a generated family yet): depthwise (C/G = K/G = 1) fwd and stride-1 bwd_data on tensor cores, timed
on the GPU against the best `default` kernel of sweep files and cuDNN, in one process.

    python -m bench.proto_depthwise_toeplitz --sweep bench/results/train-seed4-default-bf16-gputime.csv ... \
        --out $OUT/proto.csv

The `default` depthwise kernels multiply on CUDA cores: one FFMA a tap and output, and at 5 x 5 or 7 x 7 with stride 1
they reach a quarter of the roofline, as cuDNN does. Here a filter row is a banded (Toeplitz) matrix: for one
channel, output row h, filter row fy and a tile of BLOCK_W output columns,

    out[h, w] += sum_j x[h + fy - pad_h, w0 - pad_w + j] * B_fy[j, w],   B_fy[j, w] = f[fy, j - w] (0 off the band)

over the JP >= BLOCK_W + X - 1 input columns j the tile reaches. A program owns BLOCK_C channels x BLOCK_H rows x
BLOCK_W columns and, per filter row, runs one batched tensor-core product (channels the batch) of its [BLOCK_H, JP]
input rows with that row's [JP, BLOCK_W] band: JP / X times the useful multiplies (6.4x at 5 x 5 with 16 columns),
at tensor-core rates. The bands are gathered from the filter in the kernel (hits in L1) or read precomputed
(band_matrices, in the timed launch). bwd_data at stride 1 is the same product on dy with the filter flipped and
padding F - 1 - pad. Needs stride 1, dilation 1 and a filter 2 to 17 columns wide.

Measured on an H200 (bench/results/toeplitz-depthwise/): 0.25x the best `default` kernel. Channels, the contiguous
axis of NHWC, are the product's batch, so every operand element reaches the MMA fragments through shared memory one
16-bit load at a time.
"""
from __future__ import annotations

import sys
from pathlib import Path

import torch
import triton
import triton.language as tl

from gconv.schemas import Direction, Problem

from bench.prototype_harness import prototype_arguments, run_prototype  # absolute: compile_kernel loads this file alone

DEVICE = "cuda" if torch.cuda.is_available() else "cpu"  # cpu: a smoke test under TRITON_INTERPRET=1

# (BLOCK_C, BLOCK_H, BLOCK_W, warps, bands): bands 1 reads band_matrices' precomputed bands (built in the timed
# launch), 0 gathers them from the filter
VARIANTS = [(c, h, w, warps, bands) for c, h, w, warps in [(16, 16, 16, 4), (16, 32, 16, 4), (16, 64, 16, 8),
                                                             (8, 32, 16, 4), (8, 64, 16, 4), (32, 32, 16, 8)]
            for bands in (0, 1)]

# the kernel's signature for compile_kernel (sm90_cubin)
SIGNATURE = {"a_ptr": "*bf16", "w_ptr": "*bf16", "out_ptr": "*bf16", **{name: "i32" for name in (
    "G", "Hi", "Wi", "Ho", "Wo", "pad_h", "pad_w", "san", "sah", "saw", "son", "soh", "sow", "swg", "swy", "swx")},
    **{name: "constexpr" for name in ("FY", "FX", "FLIP", "BLOCK_C", "BLOCK_H", "BLOCK_W", "JP", "BANDS")}}


@triton.jit
def kernel(a_ptr, w_ptr, out_ptr, G, Hi, Wi, Ho, Wo, pad_h, pad_w, san, sah, saw, son, soh, sow, swg, swy, swx,
           FY: tl.constexpr, FX: tl.constexpr, FLIP: tl.constexpr, BLOCK_C: tl.constexpr, BLOCK_H: tl.constexpr,
           BLOCK_W: tl.constexpr, JP: tl.constexpr, BANDS: tl.constexpr):
    # a: the operand read, [N, Hi, Wi, G] (channel stride 1); out: [N, Ho, Wo, G]; Hi, Wi, Ho, Wo this product's sizes
    tiles_w = tl.cdiv(Wo, BLOCK_W)
    tiles_h = tl.cdiv(Ho, BLOCK_H)
    pid = tl.program_id(0)
    tw = pid % tiles_w
    th = (pid // tiles_w) % tiles_h
    n = pid // (tiles_w * tiles_h)
    c = tl.program_id(1) * BLOCK_C + tl.arange(0, BLOCK_C)
    mask_c = c < G
    h = th * BLOCK_H + tl.arange(0, BLOCK_H)
    j = tl.arange(0, JP)
    wi = tw * BLOCK_W - pad_w + j
    mask_j = (j < BLOCK_W + FX - 1) & (wi >= 0) & (wi < Wi)
    wo = tl.arange(0, BLOCK_W)
    dx = j[:, None] - wo[None, :]
    band = (dx >= 0) & (dx < FX)
    if FLIP:
        fx = FX - 1 - dx
    else:
        fx = dx
    if BANDS:  # w_ptr: the bands, [G, FY, JP, BLOCK_W] (band_matrices), flipped already
        b_offs = c[:, None, None] * (FY * JP * BLOCK_W) + (j[:, None] * BLOCK_W + wo[None, :])[None, :, :]
        b_mask = mask_c[:, None, None]
    else:
        b_offs = c[:, None, None] * swg + fx[None, :, :] * swx
        b_mask = mask_c[:, None, None] & band[None, :, :]
    a_cols = n.to(tl.int64) * san + wi[None, None, :] * saw + c[:, None, None]
    a_cols_mask = mask_c[:, None, None] & mask_j[None, None, :]
    acc = tl.zeros((BLOCK_C, BLOCK_H, BLOCK_W), dtype=tl.float32)
    for fy in tl.static_range(FY):
        hi = h - pad_h + fy
        av = tl.load(a_ptr + a_cols + hi[None, :, None] * sah,
                     mask=a_cols_mask & ((hi >= 0) & (hi < Hi))[None, :, None], other=0.0)
        if BANDS:
            bv = tl.load(w_ptr + b_offs + fy * (JP * BLOCK_W), mask=b_mask, other=0.0)
        else:
            if FLIP:
                wy = FY - 1 - fy
            else:
                wy = fy
            bv = tl.load(w_ptr + b_offs + wy * swy, mask=b_mask, other=0.0)
        acc = tl.dot(av, bv, acc)
    wo_abs = tw * BLOCK_W + wo
    o_offs = n.to(tl.int64) * son + h[None, :, None] * soh + wo_abs[None, None, :] * sow + c[:, None, None]
    o_mask = mask_c[:, None, None] & (h < Ho)[None, :, None] & (wo_abs < Wo)[None, None, :]
    tl.store(out_ptr + o_offs, acc.to(out_ptr.dtype.element_ty), mask=o_mask)


def supports(problem: Problem) -> bool:
    p = problem
    return (p.direction in (Direction.fwd, Direction.bwd_data) and p.C == 1 and p.K == 1 and 1 < p.X <= 17
            and (p.stride_h, p.stride_w, p.dil_h, p.dil_w) == (1, 1, 1, 1))


def band_columns(block_w: int, filter_w: int) -> int:
    """JP: the input columns a tile of block_w outputs reaches, as a power of two of at least 16 (tl.dot's least K)."""
    return max(16, triton.next_power_of_2(block_w + filter_w - 1))


def band_matrices(w: torch.Tensor, problem: Problem, block_w: int, flip: bool) -> torch.Tensor:
    """Every channel's filter rows as [G, Y, JP, block_w] bands: B[g, fy, j, w] = f[g, fy, j - w] where 0 <= j - w < X,
    else 0 (flip: the filter turned half a turn first, as bwd_data reads it)."""
    p, jp = problem, band_columns(block_w, problem.X)
    f = w.reshape(p.G, p.Y, p.X)
    if flip:
        f = f.flip(1, 2)
    dx = torch.arange(jp, device=w.device)[:, None] - torch.arange(block_w, device=w.device)[None, :]
    inside = (dx >= 0) & (dx < p.X)
    return (f[:, :, dx.clamp(0, p.X - 1)] * inside).contiguous()


def launch(problem: Problem, variant, a: torch.Tensor, w: torch.Tensor, out: torch.Tensor) -> None:
    p = problem
    block_c, block_h, block_w, warps, bands = variant
    fwd = p.direction is Direction.fwd
    in_h, in_w, out_h, out_w = (p.Hi, p.Wi, p.Ho, p.Wo) if fwd else (p.Ho, p.Wo, p.Hi, p.Wi)
    pad_h, pad_w = (p.pad_h, p.pad_w) if fwd else (p.Y - 1 - p.pad_h, p.X - 1 - p.pad_w)
    if a.stride(1) != 1 or out.stride(1) != 1:
        raise ValueError("channels_last operands expected")
    grid = (p.N * triton.cdiv(out_h, block_h) * triton.cdiv(out_w, block_w), triton.cdiv(p.G, block_c))
    if bands:
        w = band_matrices(w, p, block_w, flip=not fwd)
    sa, so, sw = a.stride(), out.stride(), w.stride()
    kernel[grid](a, w, out, p.G, in_h, in_w, out_h, out_w, pad_h, pad_w, sa[0], sa[2], sa[3], so[0], so[2], so[3],
                 sw[0], sw[2], sw[3], FY=p.Y, FX=p.X, FLIP=not fwd, BLOCK_C=block_c, BLOCK_H=block_h,
                 BLOCK_W=block_w, JP=band_columns(block_w, p.X), BANDS=bool(bands), num_warps=warps)


def sm90_cubin(variant, filter_h: int, filter_w: int, flip: bool = False) -> bytes:
    """One variant's cubin for sm_90, compiled on the CPU by ci/compile_check.py's compile_kernel (call it in a process
    that imported Triton without TRITON_INTERPRET): the pointers and the channel-sized integers marked divisible by 16,
    as the JIT marks them for G % 16 == 0."""
    from gconv.ci.compile_check import compile_kernel, divisibility_attrs

    block_c, block_h, block_w, warps, bands = variant
    names = list(SIGNATURE)
    constants = dict(FY=filter_h, FX=filter_w, FLIP=flip, BLOCK_C=block_c, BLOCK_H=block_h, BLOCK_W=block_w,
                     JP=band_columns(block_w, filter_w), BANDS=bool(bands))
    compiled = compile_kernel(Path(__file__), "sm_90", warps, 1, signature=SIGNATURE,
                              constexprs={(names.index(k),): v for k, v in constants.items()},
                              attrs=divisibility_attrs(SIGNATURE, ("G", "san", "sah", "saw", "son", "soh", "sow")))
    return compiled.asm["cubin"]


def main(argv: list[str] | None = None) -> int:
    args = prototype_arguments(__doc__.split("\n\n")[0], min_ms=0.015, compile_s=150.0, deadline_s=400.0, argv=argv)
    return run_prototype(args, supports, VARIANTS, launch, DEVICE)


if __name__ == "__main__":
    sys.exit(main())
